/* ZB-H1 (Qi et al., Zero Bubble Pipeline Parallelism, ICLR 2024).
 * Twin of pipeviz/schedules/zb_h1.py.
 *
 * 1F1B with each backward split into I (input gradient, the paper's B) and W (weight
 * gradient). Rank r lets up to r W's wait, so its W's fill the bubble 1F1B leaves on
 * that rank while the peak in-flight memory stays 1F1B's (P on rank 0). */
(function (E) {
  'use strict';

  var F = E.F, I = E.I, W = E.W;

  function generate(cfg) {
    var P = cfg.P, m = cfg.m;
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, 1));
    var w = E.perRank(P, function (r) { return E.modules.one_f_one_b.warmup(P, m, r); });
    var steady = E.perRank(P, function (r) { return m - w[r]; });
    var held = E.perRank(P, function (r) { return Math.min(r, steady[r]); }); // steady steps whose W waits: rank r lets r W's wait
    var firstW = E.perRank(P, function (r) { return steady[r] - held[r]; }); // W's run in the steady state: W(0 .. firstW)

    order.steps(w, function (r, i, emit) { emit(F, i, r); }); // Step 1: w_r = min(P-1-r, m) warm-up forwards, as 1F1B
    order.steps(held, function (r, i, emit) { emit(F, w[r] + i, r); emit(I, i, r); }); // Step 2a: the first r steady steps: F(w+i), B(i); the W waits
    order.steps(firstW, function (r, j, emit) { // Step 2b: the other steady steps also run the oldest W
      var i = held[r] + j;
      emit(F, w[r] + i, r); emit(I, i, r); emit(W, i - r, r);
    });
    order.steps(w, function (r, j, emit) { emit(I, steady[r] + j, r); emit(W, firstW[r] + j, r); }); // Step 3: cool-down, w_r steps of B, then the oldest pending W
    order.steps(held, function (r, j, emit) { emit(W, firstW[r] + w[r] + j, r); }); // Step 4: the r W's still pending, oldest first
    return order.build();
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, c = cfg.costs, f = E.costFractions(c), tf = f[0], tb = f[1], tw = f[2];
    // The fill and drain cost (P-1)(t_f + t_b) on the critical path, as in 1F1B with
    // W taken off it, and each rank's pending W's fill (P-1) t_w of that: each rank
    // idles (P-1)(t_f + t_b - t_w), a third of 1F1B's at equal costs.
    var bubble = E.idleFraction(tf.add(tb).sub(tw).mul(P - 1), tf.add(tb).add(tw).mul(m));
    var caveat = E.commCaveat(c);
    var T = PipevizText;
    if (caveat === null && m < P) caveat = T.msg('zb-h1.few_m', { m: m, P: P });
    if (caveat === null && tw.cmp(tf.cmp(tb) <= 0 ? tf : tb) > 0) {
      caveat = T.msg('zb-h1.big_w', { tw: T.float(c.tw), tf: T.float(c.tf), tb: T.float(c.tb) });
    }
    var total = Math.min(P, m); // counted until W: P-r awaiting B plus r awaiting W only
    var awaitingB = E.perRank(P, function (r) { return Math.min(P - r, m); });
    return E.closedForm({
      bubble: bubble,
      bubbleFormula: spec.formulas.bubble,
      bubbleExact: caveat === null,
      caveat: caveat,
      steadyBubble: bubble, // rank 0 runs from the first op to the last
      steadyExact: caveat === null,
      peakChunks: E.perRank(P, function () { return total; }),
      peakAwaitingB: awaitingB,
      peakAwaitingW: E.perRank(P, function (r) { return total - awaitingB[r]; }),
      p2pPerMicrobatch: 2 * (P - 1),
    });
  }

  var spec = E.register('zb-h1', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
