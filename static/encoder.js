/* An encoder in the bubbles (the article's closing section): twin of pipeviz/encoder.py,
 * which stays the reference; tests/test_js_parity.py holds the two together (the
 * same orders, the same float arithmetic in the same order, so op times are
 * bit-identical). Adds to PipevizEngine:
 *
 *   var enc = new E.Encoder(0.5, 1, place, false);  // checked as encoder.Encoder(...)
 *   var run = E.withEncoder(pipelineTimeline, enc);  // encoder.with_encoder
 *
 * engine.js's run() calls withEncoder when the configuration has an encoder. The
 * placements' names arrive as data (PIPEVIZ_DATA.features.closing.places, in encoder.PLACES'
 * order: part of stage 0, separate, in the bubbles).
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var T = root.PipevizText;
  var FMT = T.format;
  var F = E.F, B = E.B, I = E.I, FB = E.FB, EF = E.EF, EB = E.EB;
  var PLACES = root.PIPEVIZ_DATA.features.closing.places;
  var STAGE0 = PLACES[0], SEPARATE = PLACES[1];
  var PROLOGUE = 0, PIPELINE = 1, EPILOGUE = 2; // an order's segments

  // encoder.Encoder: costs per micro-batch (t_f's units), placement, frozen (no backward).
  function Encoder(ef, eb, place, frozen) {
    this.ef = E.checkCost('e_f', ef);
    this.eb = E.checkCost('e_b', eb);
    if (PLACES.indexOf(place) < 0) throw E.configError('encoder.place', { place: FMT.str(place), valid: PLACES.join(', ') });
    if (typeof frozen !== 'boolean') throw E.configError('encoder.frozen', { value: FMT.str(frozen) });
    this.place = place;
    this.frozen = frozen;
    this.work = this.ef + (frozen ? 0.0 : this.eb); // encoder time per micro-batch
  }

  function encoderCaveat() { return T.msg('encoder.caveat', {}); }

  function clean(x, scale) { return Math.abs(x) <= 1e-12 * Math.max(1.0, Math.abs(scale)) ? 0.0 : x; }

  // The op holding F(i, 0) and the op holding the backward of (i, 0), per micro-batch.
  function firstOps(order) {
    var m = order.m, fwd = new Int32Array(m).fill(-1), bwd = new Int32Array(m).fill(-1), i, k;
    for (i = 0; i < order.nOps; i++) {
      k = order.kind[i];
      if ((k === F || k === FB) && order.stage[i] === 0) fwd[order.mb[i]] = i;
      if ((k === B || k === I) && order.stage[i] === 0) bwd[order.mb[i]] = i;
    }
    for (i = 0; i < order.nOps; i++) if (order.kind[i] === FB && order.stage2[i] === 0) bwd[order.mb2[i]] = i;
    return { fwd: fwd, bwd: bwd };
  }

  // Encoder ops to insert (encoder._Inserts): each sorts within its rank by (segment,
  // position, sub, key). A pipeline op j of the rank is (1, j, 1, 0); an op in the gap
  // before it (1, j, 0, planned start); right after it (1, j, 2, 0); prologue and
  // epilogue ops (0 or 2, 0, 0, micro-batch).
  function Inserts() { this.rank = []; this.kind = []; this.mb = []; this.segment = []; this.pos = []; this.sub = []; this.key = []; }
  Inserts.prototype.add = function (rank, kind, mb, segment, pos, sub, key) {
    this.rank.push(rank); this.kind.push(kind); this.mb.push(mb); this.segment.push(segment);
    this.pos.push(pos || 0); this.sub.push(sub || 0); this.key.push(key || 0.0);
  };

  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  // The pipeline order with the encoder ops in their places, rank by rank, and where
  // each pipeline op went (encoder.insert). The pipeline's ops keep their order, so
  // only the encoder ops are sorted (np.lexsort is stable) and each goes in before a
  // pipeline op: the rank's first (prologue), op `pos` (a gap), the one after it
  // ("right after"), or the rank's end (epilogue).
  function insert(order, ins) {
    var P = order.P, n = order.nOps, k = ins.rank.length, ptr = order.rankPtr, total = n + k, i, j;
    var by = new Array(k);
    for (i = 0; i < k; i++) by[i] = i;
    by.sort(function (a, b) {
      return ins.rank[a] - ins.rank[b] || ins.segment[a] - ins.segment[b] || ins.pos[a] - ins.pos[b]
        || ins.sub[a] - ins.sub[b] || cmp(ins.key[a], ins.key[b]) || a - b;
    });
    var o = {
      P: P, m: order.m, stageToRank: order.stageToRank, kind: new Int8Array(total), mb: new Int32Array(total),
      stage: new Int32Array(total), mb2: new Int32Array(total), stage2: new Int32Array(total),
      rankPtr: new Int32Array(P + 1), segment: new Int8Array(total),
    };
    var where = new Int32Array(n), segmented = false, src = 0, out = 0;
    var copy = function (upTo) { // pipeline ops src .. upTo-1, in order
      for (; src < upTo; src++, out++) {
        o.kind[out] = order.kind[src]; o.mb[out] = order.mb[src]; o.stage[out] = order.stage[src];
        o.mb2[out] = order.mb2[src]; o.stage2[out] = order.stage2[src]; o.segment[out] = PIPELINE;
        where[src] = out;
      }
    };
    for (j = 0; j < k; j++) {
      var e = by[j], r = ins.rank[e], seg = ins.segment[e];
      copy(seg === PROLOGUE ? ptr[r] : seg === EPILOGUE ? ptr[r + 1] : ptr[r] + ins.pos[e] + (ins.sub[e] === 2 ? 1 : 0));
      o.kind[out] = ins.kind[e]; o.mb[out] = ins.mb[e]; o.stage[out] = -1; o.mb2[out] = -1; o.stage2[out] = -1;
      o.segment[out] = seg;
      if (seg !== PIPELINE) segmented = true;
      o.rankPtr[r + 1]++;
      out++;
    }
    copy(n);
    for (r = 0; r < P; r++) o.rankPtr[r + 1] += o.rankPtr[r] + (ptr[r + 1] - ptr[r]);
    if (!segmented) o.segment = null;
    return { order: new E.Order(o), where: where };
  }

  // Per-op durations: the pipeline's as usual (times their stage's weight, where the
  // stages are weighted), encoder ops e_f and e_b whole.
  function durations(order, c, enc, weights) {
    var dur = E.opDurations(order, c, weights === undefined ? null : weights);
    for (var i = 0; i < dur.length; i++) {
      if (order.kind[i] === EF) dur[i] = enc.ef;
      else if (order.kind[i] === EB) dur[i] = enc.eb;
    }
    return dur;
  }

  // stage0: E_F(i) right before the op holding F(i, 0), E_B(i) right after the op holding its backward.
  function stage0(order, enc) {
    var f = firstOps(order), rank = order.rank, ptr = order.rankPtr, ins = new Inserts(), i;
    for (i = 0; i < order.m; i++) ins.add(rank[f.fwd[i]], EF, i, PIPELINE, f.fwd[i] - ptr[rank[f.fwd[i]]], 0, 0.0);
    if (!enc.frozen) {
      for (i = 0; i < order.m; i++) ins.add(rank[f.bwd[i]], EB, i, PIPELINE, f.bwd[i] - ptr[rank[f.bwd[i]]], 2, 0.0);
    }
    return ins;
  }

  // separate: every E_F before the pipeline and every E_B after it, micro-batch i on rank i mod P.
  function separate(order, enc) {
    var ins = new Inserts(), i;
    for (i = 0; i < order.m; i++) ins.add(i % order.P, EF, i, PROLOGUE, 0, 0, i);
    if (!enc.frozen) for (i = 0; i < order.m; i++) ins.add(i % order.P, EB, i, EPILOGUE, 0, 0, i);
    return ins;
  }

  // Every non-empty idle interval of every rank of the pipeline `order` (its ops
  // timed start, end) within [t0, t1], ordered by (start, rank): {start, end, rank,
  // pos}, pos the rank's op the gap comes before (its op count for the trailing gap).
  function gaps(order, start, end, t0, t1) {
    var P = order.P, ptr = order.rankPtr, n = order.nOps, list = [], r, i;
    for (r = 0; r < P; r++) {
      var prev = t0;
      for (i = ptr[r]; i < ptr[r + 1]; i++) {
        if (start[i] - prev > 0) list.push([prev, start[i], r, i - ptr[r], i]);
        prev = end[i];
      }
      if (t1 - prev > 0) list.push([prev, t1, r, ptr[r + 1] - ptr[r], n + r]);
    }
    list.sort(function (a, b) { return cmp(a[0], b[0]) || a[2] - b[2] || a[4] - b[4]; });
    var pick = function (j) { return function (g) { return g[j]; }; };
    return {
      start: Float64Array.from(list, pick(0)), end: Float64Array.from(list, pick(1)),
      rank: Int32Array.from(list, pick(2)), pos: Int32Array.from(list, pick(3)),
    };
  }

  // The placement rule (docs/model.md) for `jobs` ([kind, i]: forwards, then backwards, i
  // ascending), as encoder.plan and its compiled _place: for each job in turn the live
  // gap with the earliest (start, rank) that holds the op whole inside its window,
  // the op as early as the window allows; the gap keeps its left piece in place and
  // gains its right piece at the end.
  function plan(order, start, end, t0, t1, enc, comm, jobs) {
    var f = firstOps(order), g = gaps(order, start, end, t0, t1), r0 = order.stageToRank[0];
    var nJobs = jobs.length, n = g.start.length, cap = n + nJobs;
    var lo_ = new Float64Array(cap), hi_ = new Float64Array(cap), rank_ = new Int32Array(cap), pos_ = new Int32Array(cap);
    var alive = new Uint8Array(cap), tol = 1e-9 * Math.max(1.0, t1);
    lo_.set(g.start); hi_.set(g.end); rank_.set(g.rank); pos_.set(g.pos); alive.fill(1, 0, n);
    var out = { kind: [], mb: [], rank: [], pos: [], start: [], leftF: [], leftB: [] };
    for (var j = 0; j < nJobs; j++) {
      var isF = jobs[j][0] === EF, i = jobs[j][1];
      var e = isF ? enc.ef : enc.eb, bound = isF ? start[f.fwd[i]] : end[f.bwd[i]];
      var best = -1, at = 0.0;
      for (var k = 0; k < n; k++) {
        if (!alive[k]) continue;
        var lag = rank_[k] !== r0 ? comm : 0.0, wLo, wHi;
        if (isF) { wLo = t0; wHi = bound - lag; } else { wLo = bound + lag; wHi = t1; }
        var lo = Math.max(lo_[k], wLo);
        if (Math.min(hi_[k], wHi) - lo < e - tol) continue;
        if (best < 0 || lo_[k] < lo_[best] || (lo_[k] === lo_[best] && rank_[k] < rank_[best])) { best = k; at = lo; }
      }
      if (best < 0) { (isF ? out.leftF : out.leftB).push(i); continue; }
      out.kind.push(jobs[j][0]); out.mb.push(i); out.rank.push(rank_[best]); out.pos.push(pos_[best]); out.start.push(at);
      var rightLo = at + e, rightHi = hi_[best];
      if (at - lo_[best] > 0) hi_[best] = at; // the left piece stays
      else alive[best] = 0;
      if (rightHi - rightLo > 0) {
        lo_[n] = rightLo; hi_[n] = rightHi; rank_[n] = rank_[best]; pos_[n] = pos_[best]; alive[n] = 1;
        n += 1;
      }
    }
    return out;
  }

  // The prologue (rank r runs E_F(r)) and epilogue (E_B(m-P..m-1), micro-batch i on
  // rank i mod P), then the leftovers, the k-th on rank k mod P: [inserts, [prologue
  // rounds, epilogue rounds]] (encoder.slots).
  function slots(m, P, enc, leftF, leftB) {
    var ins = new Inserts(), first = Math.min(P, m), i;
    for (i = 0; i < first; i++) ins.add(i % P, EF, i, PROLOGUE, 0, 0, i);
    leftF.forEach(function (mb, k) { ins.add(k % P, EF, mb, PROLOGUE, 0, 0, mb); });
    var rounds = [(first ? 1 : 0) + Math.ceil(leftF.length / P), 0];
    if (!enc.frozen) {
      var lo = Math.max(0, m - P);
      for (i = lo; i < m; i++) ins.add(i % P, EB, i, EPILOGUE, 0, 0, i);
      leftB.forEach(function (mb, k) { ins.add(k % P, EB, mb, EPILOGUE, 0, 0, mb); });
      rounds[1] = (m - lo ? 1 : 0) + Math.ceil(leftB.length / P);
    }
    return [ins, rounds];
  }

  function ascending(a, b) { return a - b; }

  // encoder.bubbles: place the other ops in the pipeline the prologue and epilogue
  // frame, again after each new leftover round, until none is left over.
  function bubbles(order, c, enc, weights) {
    var P = order.P, m = order.m, jobs = [], leftF = [], leftB = [], frame, pl = null, i;
    for (i = P; i < m; i++) jobs.push([EF, i]);
    if (!enc.frozen) for (i = 0; i < m - P; i++) jobs.push([EB, i]);
    for (;;) {
      frame = slots(m, P, enc, leftF, leftB);
      if (!jobs.length) return { ins: frame[0], plan: null, rounds: frame[1] };
      var framed = insert(order, frame[0]), fo = framed.order;
      var tl = E.simulate(fo, c, durations(fo, c, enc, weights), false); // only some encoder ops are in yet
      var start = new Float64Array(order.nOps), end = new Float64Array(order.nOps), t0 = -Infinity, t1 = -Infinity;
      for (i = 0; i < order.nOps; i++) {
        start[i] = tl.start[framed.where[i]];
        end[i] = tl.end[framed.where[i]];
        if (end[i] > t1) t1 = end[i];
      }
      for (i = 0; i < fo.nOps; i++) if (fo.segment[i] === PROLOGUE && tl.end[i] > t0) t0 = tl.end[i];
      pl = plan(order, start, end, t0, t1, enc, c.comm, jobs);
      if (!pl.leftF.length && !pl.leftB.length) break;
      leftF = leftF.concat(pl.leftF).sort(ascending);
      leftB = leftB.concat(pl.leftB).sort(ascending);
      var outF = new Set(pl.leftF), outB = new Set(pl.leftB);
      jobs = jobs.filter(function (jb) { return !(jb[0] === EF ? outF : outB).has(jb[1]); });
    }
    var ins = frame[0];
    for (i = 0; i < pl.kind.length; i++) ins.add(pl.rank[i], pl.kind[i], pl.mb[i], PIPELINE, pl.pos[i], 0, pl.start[i]);
    pl.leftF = leftF;
    pl.leftB = leftB;
    return { ins: ins, plan: pl, rounds: frame[1] };
  }

  // encoder.with_encoder: the pipeline (timed alone) with the encoder, timed by the
  // simulator, and the report of docs/model.md: {settings, order, timeline, pipeline,
  // pipelineIdle, hidden, inGaps, rounds, makespan, pipelineMakespan, exposed,
  // hiddenShare, bubbleFilled}.
  function withEncoder(pipeline, enc) {
    var order = pipeline.order, c = pipeline.costs, P = order.P, m = order.m, ins, rounds, hidden = 0.0, inGaps = [0, 0];
    if (enc.place === STAGE0) {
      ins = stage0(order, enc);
      rounds = [0, 0];
    } else if (enc.place === SEPARATE) {
      var per = Math.ceil(m / P);
      ins = separate(order, enc);
      rounds = [per, enc.frozen ? 0 : per];
    } else {
      var b = bubbles(order, c, enc, pipeline.weights || null);
      ins = b.ins;
      rounds = b.rounds;
      if (b.plan !== null) {
        b.plan.kind.forEach(function (k) { inGaps[k === EF ? 0 : 1] += 1; });
        hidden = inGaps[0] * enc.ef + inGaps[1] * enc.eb;
      }
    }
    var full = insert(order, ins).order;
    var w = pipeline.weights || null;
    var tl = E.simulate(full, c, durations(full, c, enc, w), true, w);
    var dur = new Float64Array(order.nOps);
    for (var i = 0; i < dur.length; i++) dur[i] = pipeline.end[i] - pipeline.start[i];
    var idle = Math.max(clean(P * pipeline.makespan - E.sum(dur), P * pipeline.makespan), 0.0);
    var total = m * enc.work;
    return {
      settings: enc, order: full, timeline: tl, pipeline: pipeline, pipelineIdle: idle, hidden: hidden,
      inGaps: inGaps, rounds: rounds, makespan: tl.makespan, pipelineMakespan: pipeline.makespan,
      exposed: clean(tl.makespan - pipeline.makespan, tl.makespan),
      hiddenShare: total > 0 ? hidden / total : 0.0,
      bubbleFilled: idle > 0 ? hidden / idle : 0.0,
    };
  }

  Object.assign(E, {
    Encoder: Encoder, ENCODER_PLACES: PLACES, encoderCaveat: encoderCaveat, firstOps: firstOps, insertEncoder: insert,
    encoderGaps: gaps, planEncoder: plan, withEncoder: withEncoder, encoderDurations: durations,
  });
})(typeof window !== 'undefined' ? window : globalThis);
