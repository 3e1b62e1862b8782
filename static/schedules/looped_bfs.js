/* Looped BFS (Lamy-Poirier, Breadth-First Pipeline Parallelism): PyTorch 2.13's
 * ScheduleLoopedBFS order, op for op. Twin of pipeviz/schedules/looped_bfs.py.
 *
 * Loop placement, V chunks per rank (chunk c of rank r is stage cP + r). Rank r runs
 * Step 1: Vm forwards, every micro-batch through chunk 0, then chunk 1, ...; Step 2:
 * Vm backwards, the last chunk first, micro-batches m-1 down to 0. */
(function (E) {
  'use strict';

  var F = E.F, B = E.B;

  function generate(cfg) {
    var P = cfg.P, m = cfg.m, V = cfg.V;
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, V));
    var step_1 = V * m, step_2 = V * m;
    order.steps(step_1, function (r, i, emit) { // Step 1: chunk i // m for micro-batch i % m, breadth first
      emit(F, i % m, Math.floor(i / m) * P + r);
    });
    order.steps(step_2, function (r, i, emit) { // Step 2: the last chunk first, micro-batches in reverse
      emit(B, m - 1 - i % m, (V - 1 - Math.floor(i / m)) * P + r);
    });
    return order.build();
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, V = cfg.V;
    var theory = E.fillDrain(P, m, V, cfg.costs, E.perRank(P, function () { return V * m; })); // every forward before any backward
    if (m >= P) return theory;
    // Below m = P each loop waits for micro-batch 0 to come back: (VP+m-1) chunk-steps each way.
    var bubble = E.fraction(V * (P - m) + m - 1, V * P + m - 1);
    return Object.assign({}, theory, { bubble: bubble, steadyBubble: bubble, bubbleFormula: '(V(P-m)+m-1)/(VP+m-1)' });
  }

  E.register('looped-bfs', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
