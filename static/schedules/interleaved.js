/* Interleaved 1F1B: Megatron-core 0.19.2's order, op for op; PyTorch's below m = P.
 * Twin of pipeviz/schedules/interleaved.py.
 *
 * Each rank holds V chunks (stage s on rank s mod P). The forward order of
 * (micro-batch, chunk) pairs is one table shared by every rank: micro-batches in
 * groups of G; within a group chunk 0 for each micro-batch, then chunk 1, ... The k-th
 * backward takes the k-th table entry with its chunk reversed (V-1-c). G is as given
 * (Megatron-core's limits apply) or the smallest G Megatron-core accepts; below m = P,
 * where Megatron-core runs nothing, PyTorch's one round of G = m. With V = 1 the order
 * is 1F1B's. */
(function (E) {
  'use strict';

  var F = E.F, B = E.B;

  function oneFOneB() { return E.modules.one_f_one_b; }

  function megatronAccepts(P, m, G) { return P <= G && G <= m && !(0 < m % G && m % G < P); }

  // Micro-batches per group: G as given, or the smallest G Megatron-core accepts, or
  // below m = P all m (PyTorch's one round).
  function groupSize(P, m, G) {
    if (G === null) {
      if (m < P) return m; // Megatron-core refuses; PyTorch runs one round of all m
      for (var g = P; g <= m; g++) if (megatronAccepts(P, m, g)) return g;
    }
    if (!(P <= G && G <= m)) throw E.configError('interleaved.G_range', { P: P, m: m, G: G });
    if (0 < m % G && m % G < P) throw E.configError('interleaved.G_last', { G: G, rest: m % G, P: P, m: m });
    return G;
  }

  function check(cfg) {
    if (cfg.V > 1) groupSize(cfg.P, cfg.m, cfg.G);
  }

  // (micro-batch, chunk) of the k-th forward on every rank. Full groups of G
  // micro-batches take chunk 0 for each micro-batch, then chunk 1, ...; the last
  // group holds the rest, m - lastStart micro-batches (G when G divides m).
  function forwardTable(m, V, G) {
    var lastStart = Math.floor((m - 1) / G) * G, tail = m - lastStart;
    var mb = new Int32Array(m * V), chunk = new Int32Array(m * V), k;
    for (k = 0; k < lastStart * V; k++) { // the full groups
      var group = Math.floor(k / (G * V)), within = k % (G * V);
      chunk[k] = Math.floor(within / G);
      mb[k] = group * G + within % G;
    }
    for (var j = 0; j < tail * V; j++) { // the last group
      chunk[lastStart * V + j] = Math.floor(j / tail);
      mb[lastStart * V + j] = lastStart + j % tail;
    }
    return { mb: mb, chunk: chunk };
  }

  // Megatron: 2(P-1-r) + (V-1)G warm-up forwards, capped at all mV of them.
  function warmup(P, m, V, G, r) { return Math.min(2 * (P - 1 - r) + (V - 1) * G, m * V); }

  function generate(cfg) {
    var P = cfg.P, m = cfg.m, V = cfg.V;
    if (V === 1) return oneFOneB().generate(cfg); // one chunk per rank: Megatron runs plain 1F1B
    var G = groupSize(P, m, cfg.G);
    var order = new E.OrderBuilder(P, m, E.loopPlacement(P, V));
    var table = forwardTable(m, V, G), total = m * V;
    var w = E.perRank(P, function (r) { return warmup(P, m, V, G, r); });
    var steady = E.perRank(P, function (r) { return total - w[r]; });
    // Chunk c of rank r is stage cP + r; a backward walks the chunks in reverse.
    var forward = function (emit, r, k) { emit(F, table.mb[k], table.chunk[k] * P + r); };
    var backward = function (emit, r, k) { emit(B, table.mb[k], (V - 1 - table.chunk[k]) * P + r); };

    order.steps(w, function (r, k, emit) { forward(emit, r, k); }); // Step 1: w_r warm-up forwards, table[0 .. w_r)
    order.steps(steady, function (r, i, emit) { forward(emit, r, w[r] + i); backward(emit, r, i); }); // Step 2: mV - w_r steady steps: F table[w_r + i], B table[i]
    order.steps(w, function (r, j, emit) { backward(emit, r, total - w[r] + j); }); // Step 3: w_r cool-down backwards, table[mV - w_r ..)
    return order.build();
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, V = cfg.V;
    if (V === 1) return oneFOneB().closedForm(cfg);
    var G = groupSize(P, m, cfg.G);
    // Peak: the warm-up forwards plus the first steady one, capped at all mV chunks.
    var peak = E.perRank(P, function (r) { return Math.min(warmup(P, m, V, G, r) + 1, m * V); });
    var theory = E.fillDrain(P, m, V, cfg.costs, peak);
    if (!pytorchs(P, m, V)) return theory;
    // One round of m < P: micro-batch 0's fill and drain, (VP+m-1) chunk-steps.
    var bubble = E.fraction(V * (P - m) + m - 1, V * P + m - 1);
    return Object.assign({}, theory, {
      bubble: bubble, steadyBubble: bubble, bubbleFormula: '(V(P-m)+m-1)/(VP+m-1)',
      source: PipevizText.msg('interleaved.pytorch', { m: m, P: P }),
    });
  }

  // The order shown is PyTorch's (one round), not Megatron-core's.
  function pytorchs(P, m, V) { return V > 1 && m < P; }

  E.register('interleaved', { generate: generate, closedForm: closedForm, check: check });
})(PipevizEngine);
