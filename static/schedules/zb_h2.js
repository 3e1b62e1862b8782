/* ZB-H2 (Qi et al., ICLR 2024): W's fill the warm-up and cool-down bubbles too.
 * Twin of pipeviz/schedules/zb_h2.py: its docstring has the three steps.
 *
 * Rank r: Step 1, w_r = min(2(P-r)-1, m) warm-up forwards; Step 2, the paper's greedy
 * rule picks each op up to rank r's last B; Step 3, c_r = max(1, min(2r+1, m-2(P-1-r)))
 * cool-down W's. The rule, run at unit costs, one unit of time per step for every rank:
 *
 *     whenever a rank is free it runs its next B if that B is ready;
 *     otherwise its next F if that F is ready and fewer than 2P-1 are in flight;
 *     otherwise its oldest pending W; otherwise it idles for a unit. */
(function (E) {
  'use strict';

  var F = E.F, I = E.I, W = E.W;
  var cache = new Map(); // (P, m) -> step 2's picks, as Python's lru_cache(64); never changed

  function maxInflight(P) { return 2 * P - 1; }

  // Step 1: F(0), F(1), ... at times r, r+1, ... until the first B comes back at 2P-1-r.
  function warmup(P, m, r) { return Math.min(2 * (P - r) - 1, m); }

  // Step 3: the W's pending after rank r's last B.
  function cooldown(P, m, r) { return Math.max(1, Math.min(2 * r + 1, m - 2 * (P - 1 - r))); }

  function generate(cfg) {
    var P = cfg.P, m = cfg.m;
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, 1));
    var step_1 = E.perRank(P, function (r) { return warmup(P, m, r); });
    var step_3 = E.perRank(P, function (r) { return cooldown(P, m, r); });
    var picks = greedySteady(P, m);

    order.steps(step_1, function (r, i, emit) { emit(F, i, r); }); // Step 1: w_r warm-up forwards
    order.steps(E.perRank(P, function (r) { return picks[r].length / 2; }), function (r, t, emit) { // Step 2: the rule's picks
      emit(picks[r][2 * t], picks[r][2 * t + 1], r);
    });
    order.steps(step_3, function (r, i, emit) { emit(W, m - step_3[r] + i, r); }); // Step 3: c_r cool-down W's, oldest first
    return order.build();
  }

  function greedySteady(P, m) {
    var key = P + ',' + m, hit = cache.get(key);
    if (hit === undefined) {
      hit = rule(P, m);
      if (cache.size >= 64) cache.delete(cache.keys().next().value);
    } else {
      cache.delete(key);
    }
    cache.set(key, hit);
    return hit;
  }

  // Step 2 of every rank: per rank, [kind, mb, kind, mb, ...] of the ops the rule picks
  // after the warm-up and up to the rank's last B, in time order. The rule runs one
  // unit per step from time 0, each step reading the counters as they were before
  // it. Its invariant, in order at unit cost: whatever ran at an earlier step has
  // ended, and each rank runs its F's, B's and W's each in micro-batch order; so
  // B(nb[r]) is ready once nb[r] < nf[r] and nb[r] < nb[r+1], F(nf[r]) once
  // nf[r] < nf[r-1]. Rank -1 "ran" all m forwards and rank P all m+1 backwards.
  function rule(P, m) {
    var cap = maxInflight(P);
    var nf = new Int32Array(P), nb = new Int32Array(P), nw = new Int32Array(P), seen = new Int32Array(P);
    var pick = new Int8Array(P), r, k;
    var out = [];
    for (r = 0; r < P; r++) out.push([]);
    var done = function () { for (var q = 0; q < P; q++) if (nb[q] < m) return false; return true; };
    var limit = 3 * m + 2 * P + 2;
    for (var step = 0; !done(); step++) {
      if (step > limit) throw new Error('zb-h2: the greedy rule did not finish');
      for (r = 0; r < P; r++) {
        var nfPrev = r > 0 ? nf[r - 1] : m, nbNext = r < P - 1 ? nb[r + 1] : m + 1;
        if (nb[r] < nf[r] && nb[r] < nbNext) pick[r] = I; // its F ran here and its B ran on the next rank
        else if (nf[r] < nfPrev && nf[r] - nw[r] < cap) pick[r] = F; // arrived, and room in flight
        else if (nw[r] < nb[r] && nb[r] < m) pick[r] = W; // the oldest pending W (past the last B: step 3)
        else pick[r] = -1;
      }
      for (r = 0; r < P; r++) {
        k = pick[r];
        if (k < 0) continue;
        var mb = k === I ? nb[r]++ : k === F ? nf[r]++ : nw[r]++;
        if (seen[r]++ >= warmup(P, m, r)) out[r].push(k, mb); // the first w_r picks are step 1
      }
    }
    return out;
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
