/* GPipe: every forward, then every backward (Huang et al., 2019).
 * Twin of pipeviz/schedules/gpipe.py. */
(function (E) {
  'use strict';

  var F = E.F, B = E.B;

  function generate(cfg) {
    var P = cfg.P, m = cfg.m;
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, 1));
    order.steps(m, function (r, i, emit) { emit(F, i, r); }); // Step 1: m forwards, in micro-batch order
    order.steps(m, function (r, i, emit) { emit(B, i, r); }); // Step 2: m backwards, in micro-batch order
    return order.build();
  }

  function closedForm(cfg) {
    // Every rank holds all m activations when its first backward starts.
    return E.fillDrain(cfg.P, cfg.m, 1, cfg.costs, E.perRank(cfg.P, function () { return cfg.m; }));
  }

  E.register('gpipe', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
