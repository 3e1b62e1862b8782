/* ZB-V (Qi et al., ICLR 2024): two chunks per rank placed in a V.
 * Twin of pipeviz/schedules/zb_v.py.
 *
 * Rank r holds stage r (chunk 0, on the way down) and stage 2P-1-r (chunk 1, on the
 * way back). The warm-up follows the order PyTorch's ScheduleZBVZeroBubble uses; the
 * seven steps are listed in the Python module's docstring. The phases are written
 * for n = max(m, 2P-1) micro-batches (the warm-up needs 2P-1 to fill the V);
 * micro-batches past m are then dropped, whole. */
(function (E) {
  'use strict';

  var F = E.F, I = E.I, W = E.W;

  function generate(cfg) {
    var P = cfg.P, m = cfg.m, n = Math.max(m, 2 * P - 1); // micro-batches the phases are written for
    var order = new E.OrderBuilder(P, m, E.vPlacement(P));
    var s0 = function (r) { return r; }, s1 = function (r) { return 2 * P - 1 - r; }; // chunk 0 and chunk 1 of rank r
    var per = function (f) { return E.perRank(P, f); };
    var step_1 = per(function (r) { return 2 * (P - r) - 1; });
    var step_2 = per(function (r) { return r; });
    var step_3 = per(function (r) { return P - r; });
    var step_4 = per(function () { return n - P; });
    var step_4_f0 = per(function (r) { return n - (2 * P - 1 - r); }); // of which steps that still have a chunk-0 forward
    var step_5 = per(function (r) { return r; });
    var step_6 = per(function (r) { return P - r; });
    var step_7 = per(function (r) { return r; });

    order.steps(step_1, function (r, i, emit) { emit(F, i, s0(r)); }); // Step 1: 2(P-r)-1 forwards of chunk 0: the way down
    order.steps(step_2, function (r, i, emit) { // Step 2: r pairs (F1, F0): the first micro-batches turn at the bottom
      emit(F, i, s1(r)); emit(F, step_1[r] + i, s0(r));
    });
    order.steps(step_3, function (r, i, emit) { // Step 3: P-r triples (F1, B1, W1) on the way back up
      emit(F, r + i, s1(r)); emit(I, i, s1(r)); emit(W, i, s1(r));
    });
    // Step 4: steady state, n-P steps of (F0, B0, W0, F1, B1, W1); its last P-r-1 steps
    // have no chunk-0 forward left.
    order.steps(step_4_f0, function (r, i, emit) {
      emit(F, step_1[r] + step_2[r] + i, s0(r)); emit(I, i, s0(r)); emit(W, i, s0(r));
      emit(F, P + i, s1(r)); emit(I, step_3[r] + i, s1(r)); emit(W, step_3[r] + i, s1(r));
    });
    order.steps(per(function (r) { return step_4[r] - step_4_f0[r]; }), function (r, j, emit) {
      var i = step_4_f0[r] + j;
      emit(I, i, s0(r)); emit(W, i, s0(r)); emit(F, P + i, s1(r)); emit(I, step_3[r] + i, s1(r)); emit(W, step_3[r] + i, s1(r));
    });
    order.steps(step_5, function (r, i, emit) { emit(I, n - P + i, s0(r)); emit(I, n - r + i, s1(r)); }); // Step 5: cool-down, r pairs (B0, B1)
    order.steps(step_6, function (r, i, emit) { emit(I, n - P + r + i, s0(r)); emit(W, n - P + i, s0(r)); }); // Step 6: P-r pairs (B0, W0)
    order.steps(step_7, function (r, i, emit) { emit(W, n - r + i, s1(r)); }); // Step 7: the W's left: r of chunk 1, then r of chunk 0
    order.steps(step_7, function (r, i, emit) { emit(W, n - r + i, s0(r)); });
    return order.build(m); // drop the padding micro-batches
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, c = cfg.costs, f = E.costFractions(c), tf = f[0], tb = f[1], tw = f[2];
    var work = tf.add(tb).add(tw).mul(m);
    // The one-iteration lower bound: rank P-1 cannot start before the first forward
    // has crossed P-1 half-size chunks, (P-1) t_f / 2. ZB-V meets it at equal costs.
    var bubble = E.idleFraction(tf.mul(P - 1).div(2), work);
    var caveat = E.uniformCaveat(c);
    if (caveat === null && m < 2 * P - 1) caveat = PipevizText.msg('zb-v.few_m', { m: m, need: 2 * P - 1 });
    // Chunk 0's warm-up plus chunk 1's first forwards: 2P chunks (P micro-batches) on
    // every rank once m is large; with few micro-batches, all 2m chunks, or the m+1+r
    // that rank r has started before its first backward.
    var peak = E.perRank(P, function (r) { return Math.min(Math.min(2 * P, 2 * m), m + 1 + r); });
    return E.closedForm({
      bubble: bubble,
      bubbleFormula: spec.formulas.bubble,
      bubbleExact: caveat === null,
      caveat: caveat,
      steadyBubble: E.fraction(0),
      steadyExact: caveat === null,
      peakChunks: peak,
      peakAwaitingB: Int32Array.from(peak), // each W follows its B at once
      peakAwaitingW: new Int32Array(P),
      p2pPerMicrobatch: 4 * (P - 1), // 2P-1 boundaries, one of them inside rank P-1
    });
  }

  var spec = E.register('zb-v', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
