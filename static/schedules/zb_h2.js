/* ZB-H2 (Qi et al., ICLR 2024): W's fill the warm-up and cool-down bubbles too.
 * Twin of pipeviz/schedules/zb_h2.py.
 *
 * Each rank may hold up to 2P-1 micro-batches in flight (counted until W). The order
 * is the paper's greedy rule, run at unit costs, one unit of time per step for every
 * rank at once, then timed with the user's costs by the one simulator:
 *
 *     whenever a rank is free it runs its next B if that B is ready;
 *     otherwise its next F if that F is ready and fewer than 2P-1 are in flight;
 *     otherwise its oldest pending W; otherwise it idles for a unit.
 *
 * B's and F's keep micro-batch order, so the rule needs three counters per rank. */
(function (E) {
  'use strict';

  var F = E.F, I = E.I, W = E.W;
  var cache = new Map(); // (P, m) -> Order, as Python's lru_cache(64); orders are never changed

  function maxInflight(P) { return 2 * P - 1; }

  function least(a) {
    var low = Infinity;
    for (var i = 0; i < a.length; i++) if (a[i] < low) low = a[i];
    return low;
  }

  function generate(cfg) {
    var key = cfg.P + ',' + cfg.m, hit = cache.get(key);
    if (hit === undefined) {
      hit = greedy(cfg.P, cfg.m);
      if (cache.size >= 64) cache.delete(cache.keys().next().value);
    } else {
      cache.delete(key);
    }
    cache.set(key, hit);
    return hit;
  }

  // The rule, one unit of time per step, every rank at once: each step reads the
  // counters as they were before it. B(i) on rank r is ready once rank r ran F(i) and
  // rank r+1 ran B(i); F(i) once rank r-1 ran F(i). Rank -1 "ran" all m forwards and
  // rank P all m+1 backwards.
  function greedy(P, m) {
    var cap = maxInflight(P);
    var nf = new Int32Array(P), nb = new Int32Array(P), nw = new Int32Array(P);
    var b = new Uint8Array(P), f = new Uint8Array(P), w = new Uint8Array(P);
    var ran = []; // per rank: the kinds it ran, in time order (idle steps dropped)
    var r;
    for (r = 0; r < P; r++) ran.push([]);
    var step = 0, limit = 16 * (3 * m + 2 * P + 2);
    while (step % 16 !== 0 || least(nw) < m) { // check the end every 16 steps
      step += 1;
      if (step > limit) throw new Error('zb-h2: the greedy rule did not finish');
      for (r = 0; r < P; r++) {
        var nfPrev = r > 0 ? nf[r - 1] : m, nbNext = r < P - 1 ? nb[r + 1] : m + 1;
        b[r] = nb[r] < nf[r] && nb[r] < nbNext ? 1 : 0; // its F ran here and its B ran on the next rank
        f[r] = !b[r] && nf[r] < nfPrev && nf[r] - nw[r] < cap ? 1 : 0; // arrived, and room in flight
        w[r] = !b[r] && !f[r] && nw[r] < nb[r] ? 1 : 0; // otherwise the oldest pending W
      }
      for (r = 0; r < P; r++) {
        if (b[r]) ran[r].push(I, nb[r]++);
        else if (f[r]) ran[r].push(F, nf[r]++);
        else if (w[r]) ran[r].push(W, nw[r]++);
      }
    }
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, 1));
    var counts = E.perRank(P, function (q) { return ran[q].length / 2; });
    order.steps(counts, function (q, t, emit) { emit(ran[q][2 * t], ran[q][2 * t + 1], q); }); // each rank's ops, in time order
    return order.build();
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, c = cfg.costs, fr = E.costFractions(c), tf = fr[0], tb = fr[1], tw = fr[2];
    var T = PipevizText;
    var work = tf.add(tb).add(tw).mul(m);
    // One iteration: the last rank cannot start before the first forward has crossed
    // P-1 ranks, and then works without a gap.
    var bubble = E.idleFraction(tf.mul(P - 1), work);
    // Back to back (the paper's measure): each rank idles (P-1)(t_f + t_b - 2 t_w),
    // zero once t_w >= (t_f + t_b) / 2.
    var steady = E.idleFraction(tf.add(tb).sub(tw.mul(2)).mul(P - 1), work);
    var caveat = E.uniformCaveat(c);
    if (caveat === null && m < P) caveat = T.msg('zb-h2.few_m', { m: m, P: P });
    var steadyCaveat = caveat || (m < 2 * P - 1 ? T.msg('zb-h2.few_steady', { m: m, cap: 2 * P - 1 }) : null);
    var total = Math.min(m, maxInflight(P)); // counted until W, on every rank
    var awaitingB = E.perRank(P, function (r) { return Math.min(2 * (P - r) - 1, m); });
    return E.closedForm({
      bubble: bubble,
      bubbleFormula: spec.formulas.bubble,
      bubbleExact: caveat === null,
      caveat: caveat,
      steadyBubble: steady,
      steadyExact: steadyCaveat === null,
      peakChunks: E.perRank(P, function () { return total; }),
      peakAwaitingB: awaitingB,
      peakAwaitingW: E.perRank(P, function (r) { return total - awaitingB[r]; }),
      p2pPerMicrobatch: 2 * (P - 1),
    });
  }

  var spec = E.register('zb-h2', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
