/* 1F1B (PipeDream-flush), Megatron-core's order, op for op.
 * Twin of pipeviz/schedules/one_f_one_b.py.
 *
 * Rank r: min(P-1-r, m) warm-up forwards, then alternate one F and one B, then the
 * remaining Bs. Backwards run in micro-batch order. */
(function (E) {
  'use strict';

  var F = E.F, B = E.B;

  function warmup(P, m, r) { return Math.min(P - 1 - r, m); }

  function generate(cfg) {
    var P = cfg.P, m = cfg.m;
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, 1));
    var w = E.perRank(P, function (r) { return warmup(P, m, r); });
    var steady = E.perRank(P, function (r) { return m - w[r]; });
    order.steps(w, function (r, i, emit) { emit(F, i, r); }); // Step 1: w_r = min(P-1-r, m) warm-up forwards
    order.steps(steady, function (r, i, emit) { emit(F, w[r] + i, r); emit(B, i, r); }); // Step 2: m - w_r steady steps: F(w_r + i), then B(i)
    order.steps(w, function (r, i, emit) { emit(B, m - w[r] + i, r); }); // Step 3: w_r cool-down backwards, the ones left
    return order.build();
  }

  // Warm-up + the first steady forward: min(P-r, m).
  function peakInflight(P, m) { return E.perRank(P, function (r) { return Math.min(P - r, m); }); }

  function closedForm(cfg) { return E.fillDrain(cfg.P, cfg.m, 1, cfg.costs, peakInflight(cfg.P, cfg.m)); }

  E.modules.one_f_one_b = { warmup: warmup, generate: generate, peakInflight: peakInflight, closedForm: closedForm };
  E.register('1f1b', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
