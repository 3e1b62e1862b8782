/* Activation balancing (BPipe, the article's closing section): twin of
 * pipeviz/balance.py, held to it by tests/test_js_parity.py. Adds to PipevizEngine:
 *
 *   E.checkMode(mode)        null or a mode of PIPEVIZ_DATA.features.closing.modes, else a ConfigError
 *   E.bpipe(timeline, metrics)  {pairs, target, resident, peakChunks, peakMicrobatches,
 *                               excessChunks, transferChunks, transfers, moved}
 *
 * Rank r < P/2 pairs with rank P-1-r; a pair's target is T = ceil((front peak +
 * partner peak) / 2) chunks; the front rank keeps at most T resident and its partner
 * holds the newest chunks beyond T. A chunk is ever beyond T exactly when it is at
 * its forward's start, and costs 2 transfers.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var FMT = root.PipevizText.format;
  var F = E.F, B = E.B, W = E.W, FB = E.FB;
  var MODES = root.PIPEVIZ_DATA.features.closing.modes;

  function checkMode(mode) {
    if (mode === null || MODES.indexOf(mode) >= 0) return mode;
    throw E.configError('balance.mode', { mode: FMT.str(mode), valid: MODES.join(', ') });
  }

  // One rank's step function: [times, values].
  function stepsOf(steps, r) {
    var t = [], v = [];
    for (var i = 0; i < steps.rank.length; i++) if (steps.rank[i] === r) { t.push(steps.time[i]); v.push(steps.value[i]); }
    return [t, v];
  }

  // A step function (0 before its first step) at time `at`, right-continuous.
  function valueAt(time, value, at) {
    var lo = 0, hi = time.length; // the first step after `at`
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (time[mid] <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? value[lo - 1] : 0;
  }

  function bpipe(tl, mt) {
    var order = tl.order, P = order.P, chunks = order.chunksPerRank, peak = mt.peakChunks, kind = order.kind;
    var rank = order.rank, target = new Int32Array(P).fill(-1), pairs = [], series = new Map(), excess = 0, r, i;
    // The in-flight count just after each forward starts, in each rank's order.
    var count = 0, fRank = [], fCount = [];
    for (i = 0; i < order.nOps; i++) {
      var k = kind[i];
      if (k === F || k === FB) { count += 1; fRank.push(rank[i]); fCount.push(count); }
      if (k === B || k === W || k === FB) count -= 1;
    }
    var front = function (T) { return function (v) { return Math.min(v, T); }; };
    for (r = 0; r < Math.floor(P / 2); r++) {
      var p = P - 1 - r;
      if (peak[r] <= peak[p]) continue; // left alone
      var T = Math.ceil((peak[r] + peak[p]) / 2);
      pairs.push([r, p, T]);
      target[r] = target[p] = T;
      for (i = 0; i < fRank.length; i++) if (fRank[i] === r && fCount[i] > T) excess += 1;
      var fs = stepsOf(mt.inflight, r), ps = stepsOf(mt.inflight, p);
      series.set(r, [fs[0], fs[1].map(front(T))]);
      var at = Array.from(new Set(fs[0].concat(ps[0]))).sort(function (a, b) { return a - b; });
      series.set(p, [at, at.map(function (t) { return valueAt(ps[0], ps[1], t) + Math.max(valueAt(fs[0], fs[1], t) - T, 0); })]);
    }
    var rs = [], ts = [], vs = [], after = new Int32Array(P), afterMb = new Float64Array(P);
    for (r = 0; r < P; r++) {
      var s = series.has(r) ? series.get(r) : stepsOf(mt.inflight, r), most = 0;
      for (i = 0; i < s[0].length; i++) {
        rs.push(r); ts.push(s[0][i]); vs.push(s[1][i]);
        if (i === 0 || s[1][i] > most) most = s[1][i];
      }
      after[r] = Math.max(most, 0);
      afterMb[r] = after[r] / chunks;
    }
    return {
      pairs: pairs, target: target,
      resident: { rank: Int32Array.from(rs), time: Float64Array.from(ts), value: Int32Array.from(vs) },
      peakChunks: after, peakMicrobatches: afterMb, excessChunks: excess, transferChunks: 2 * excess,
      transfers: 2 * excess / chunks, moved: pairs.length > 0,
    };
  }

  Object.assign(E, { BALANCE_MODES: MODES, checkMode: checkMode, bpipe: bpipe, stepValueAt: valueAt });
})(typeof window !== 'undefined' ? window : globalThis);
