/* V-Min (Qi et al., "Pipeline Parallelism with Controllable Memory"): sail-sg's order
 * (zbv_greedy.py, "min"), op for op. Twin of pipeviz/schedules/v_min.py.
 *
 * Micro-batch 0's building block on rank r (the next micro-batch's 6 units later;
 * g = 2 when 3 divides P, else 0): F0 at r, F1 at 2P-1-r, B1 at 2P+g+r, B0 at
 * 4P+g-1-r. building_blocks.js repeats it, squeezes it and places the W's. The
 * closed forms are the authors' estimates: bubble 2B/3 with B = (P-1)/(m+P-1), peak
 * (P+4)//3 micro-batches. */
(function (E) {
  'use strict';

  function pattern(P) {
    var g = P % 3 === 0 ? 2 : 0, out = [];
    for (var r = 0; r < P; r++) out.push([r, 2 * P - 1 - r, 2 * P + g + r, 4 * P + g - 1 - r]);
    return out;
  }

  function generate(cfg) { return E.modules.building_blocks.vSchedule(cfg.P, cfg.m, pattern(cfg.P)); }

  function peakMicrobatches(P) { return Math.floor((P + 4) / 3); }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, bubble = E.fraction(2 * (P - 1), 3 * (m + P - 1)); // 2B/3
    var peak = E.perRank(P, function () { return Math.min(2 * peakMicrobatches(P), 2 * m); });
    return E.closedForm({
      bubble: bubble, bubbleFormula: '2(P-1)/(3(m+P-1))', bubbleExact: false,
      caveat: PipevizText.msg('v-min.estimate', { peak: peakMicrobatches(P) }),
      steadyBubble: bubble, steadyExact: false, peakChunks: peak, peakAwaitingB: null, peakAwaitingW: null,
      p2pPerMicrobatch: 4 * (P - 1), peakExact: false, // 2P-1 boundaries, one of them inside rank P-1
    });
  }

  E.register('v-min', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
