/* Every schedule side by side at one P and m (docs/interfaces.md, "Comparing schedules").
 * Twin of pipeviz/compare.py, held to it by tests/test_compare_parity.py.
 *
 * One row per schedule and each V it accepts (its own V where fixed, else 1..maxV):
 * makespan, bubble, the tightest rank's peak in flight (micro-batches) and, with a
 * model, in GiB, whether it fits the HBM, and whether it is on the Pareto front of
 * makespan against peak memory (GiB with a model, else micro-batches). Rows sorted by
 * makespan, those that fit first; refusals listed apart with their message.
 *
 *   var cmp = PipevizEngine.compare.compare(8, 16, E.costs(1, 1, 1, 0));
 *   cmp.rows[0].schedule, cmp.refused[0].reason (a message: {key, args})
 *
 * Options (all may be left out): model (E.memory.Model), hbmGib (80), weights (one
 * per stage, else the model's layer split unless equalStages), maxV, run (E.run or
 * a cache of it). */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var LIMITS = root.PIPEVIZ_DATA.compare; // maxV, maxTotalOps, significant, fields

  // (schedule, V) of every row asked for.
  function candidates(maxV) {
    var out = [];
    E.NAMES.forEach(function (name) {
      var spec = E.SCHEDULES.get(name);
      if (spec.fixedV) out.push([name, spec.fixedV]);
      else for (var V = 1; V <= maxV; V++) out.push([name, V]);
    });
    return out;
  }

  // The configuration export runs for a row with the same flags.
  function rowConfig(name, V, P, m, c, model, weights, equalStages) {
    if ((weights === null || weights === undefined) && model && !equalStages) {
      weights = E.memory.stageWeights(model, E.SCHEDULES.get(name).chunksPerRank(V) * P);
    }
    return E.config(name, P, m, V, c, null, null, null, weights === undefined ? null : weights);
  }

  // x >= 0 to `significant` digits, a tie rounded up (Python's compare.rounded).
  function rounded(x) { return Number(x.toPrecision(LIMITS.significant)); }

  // For each point, whether no other point is at most as slow and as heavy and
  // strictly faster or lighter (to `significant` digits); ties all stay on the front.
  function pareto(makespan, memory) {
    var pts = makespan.map(function (t, i) { return [rounded(t), rounded(memory[i])]; });
    return pts.map(function (p) {
      return !pts.some(function (q) { return q[0] <= p[0] && q[1] <= p[1] && (q[0] < p[0] || q[1] < p[1]); });
    });
  }

  function position(name) { return E.NAMES.indexOf(name); }

  // Those that fit first (or all, without a model), then by makespan, then in the
  // schedules' own order and by V.
  function byKey(a, b) {
    var fa = a.fits === false ? 1 : 0, fb = b.fits === false ? 1 : 0;
    if (fa !== fb) return fa - fb;
    var ta = rounded(a.makespan), tb = rounded(b.makespan);
    if (ta !== tb) return ta < tb ? -1 : 1;
    if (a.schedule !== b.schedule) return position(a.schedule) - position(b.schedule);
    return a.V - b.V;
  }

  function compare(P, m, c, options) {
    var o = options || {};
    var model = o.model || null, hbmGib = o.hbmGib === undefined ? 80.0 : o.hbmGib;
    var maxV = o.maxV === undefined ? LIMITS.maxV : o.maxV, run = o.run || E.run;
    var refused = [], runnable = [], total = BigInt(0);
    candidates(maxV).forEach(function (nv) {
      try {
        var cfg = rowConfig(nv[0], nv[1], P, m, c, model, o.weights === undefined ? null : o.weights, !!o.equalStages);
        var n = E.check(cfg).nOps(cfg);
        runnable.push([nv[0], nv[1], cfg]);
        total += n;
      } catch (e) {
        if (!(e instanceof E.PipevizError)) throw e;
        refused.push({ schedule: nv[0], V: nv[1], reason: e });
      }
    });
    if (total > BigInt(LIMITS.maxTotalOps)) {
      throw E.configError('compare.too_big', {
        P: P, m: m, n: root.PipevizText.format.commas(total), rows: runnable.length,
        max: root.PipevizText.format.commas(LIMITS.maxTotalOps),
      });
    }
    var measured = [];
    runnable.forEach(function (x) {
      var res;
      try {
        res = run(x[2]);
      } catch (e) {
        if (!(e instanceof E.PipevizError)) throw e;
        refused.push({ schedule: x[0], V: x[1], reason: e });
        return;
      }
      var mt = res.metrics, gib = null, fits = null;
      if (model) {
        var mem = E.memory.measureMemory(res.timeline, model, hbmGib);
        gib = Math.max.apply(null, Array.from(mem.peak)) / root.PIPEVIZ_DATA.memory.gib;
        fits = mem.fits;
      }
      measured.push({
        schedule: x[0], V: x[1], makespan: mt.makespan, bubble_fraction: mt.bubbleFraction,
        peak_inflight_microbatches: Math.max.apply(null, Array.from(mt.peakMicrobatches)),
        peak_memory_gib: gib, fits: fits,
      });
    });
    var front = pareto(measured.map(function (r) { return r.makespan; }), measured.map(function (r) {
      return r.peak_memory_gib === null ? r.peak_inflight_microbatches : r.peak_memory_gib;
    }));
    measured.forEach(function (r, i) { r.pareto = front[i]; });
    refused.sort(function (a, b) { return position(a.schedule) - position(b.schedule) || a.V - b.V; });
    return { rows: measured.sort(byKey), refused: refused };
  }

  E.compare = { candidates: candidates, rowConfig: rowConfig, rounded: rounded, pareto: pareto, compare: compare };
})(typeof window !== 'undefined' ? window : globalThis);
