/* V-Half (Qi et al., "Pipeline Parallelism with Controllable Memory"): sail-sg's order
 * (zbv_greedy.py, "half"), op for op. Twin of pipeviz/schedules/v_half.py.
 *
 * Micro-batch 0's building block on rank r (the next micro-batch's 6 units later;
 * g = 3 when P is even, else 0): F0 at 2r, F1 at 3P-2-r, B1 at 3P+g+2r-1, B0 at
 * 6P+g-2-r. building_blocks.js repeats it, squeezes it and places the W's. The
 * closed forms are the authors' estimates: bubble B/2 with B = (P-1)/(m+P-1), peak
 * (P+2)//2 micro-batches. */
(function (E) {
  'use strict';

  function pattern(P) {
    var g = P % 2 === 0 ? 3 : 0, out = [];
    for (var r = 0; r < P; r++) out.push([2 * r, 3 * P - 2 - r, 3 * P + g + 2 * r - 1, 6 * P + g - 2 - r]);
    return out;
  }

  function generate(cfg) { return E.modules.building_blocks.vSchedule(cfg.P, cfg.m, pattern(cfg.P)); }

  function peakMicrobatches(P) { return Math.floor((P + 2) / 2); }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, bubble = E.fraction(P - 1, 2 * (m + P - 1)); // B/2
    var peak = E.perRank(P, function () { return Math.min(2 * peakMicrobatches(P), 2 * m); });
    return E.closedForm({
      bubble: bubble, bubbleFormula: '(P-1)/(2(m+P-1))', bubbleExact: false,
      caveat: PipevizText.msg('v-half.estimate', { peak: peakMicrobatches(P) }),
      steadyBubble: bubble, steadyExact: false, peakChunks: peak, peakAwaitingB: null, peakAwaitingW: null,
      p2pPerMicrobatch: 4 * (P - 1), peakExact: false, // 2P-1 boundaries, one of them inside rank P-1
    });
  }

  E.register('v-half', { generate: generate, closedForm: closedForm });
})(PipevizEngine);
