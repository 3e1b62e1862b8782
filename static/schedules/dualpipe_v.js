/* DualPipe-V (DeepSeek's dualpipe/dualpipev.py; PyTorch 2.13's ScheduleDualPipeV).
 * Twin of pipeviz/schedules/dualpipe_v.py: its docstring lists the eight steps.
 *
 * Rank r holds stage r (chunk 0) and stage 2P-1-r (chunk 1); m >= 2P. An overlapped
 * F&B runs the forward of one chunk and the full backward of the other as one op.
 * A W runs the weight gradient of the oldest split backward whose W has not run. */
(function (E) {
  'use strict';

  var F = E.F, B = E.B, I = E.I, W = E.W, FB = E.FB;

  function check(cfg) {
    if (cfg.m < 2 * cfg.P) throw E.configError('dualpipe-v.m_below_2P', { m: cfg.m, P: cfg.P, need: 2 * cfg.P });
  }

  // [mb, stage] of the k-th split backward of steps 6 and 7 on rank r, in the order
  // they run (the W's of steps 7 and 8 pop them first in, first out): an even rank
  // first splits one B0 alone (its step r/2), then every step of step 6 splits (B1,
  // B0) from step r//2 + 1 on; step 7 splits one B0 per step.
  function fifo(P, m, r, k) {
    var lone = r % 2 === 0 ? 1 : 0, h1 = Math.floor(r / 2) + 1;
    if (k < lone) return [m - P + Math.floor(r / 2), r];
    if (k > r) return [m - P + k, r];
    var j = k - lone, step = h1 + Math.floor(j / 2);
    return j % 2 === 0 ? [m - r - 1 + step, 2 * P - 1 - r] : [m - P + step, r];
  }

  function generate(cfg) {
    var P = cfg.P, m = cfg.m;
    var order = new E.OrderBuilder(P, m, E.vPlacement(P));
    var s0 = function (r) { return r; }, s1 = function (r) { return 2 * P - 1 - r; };
    var per = function (f) { return E.perRank(P, f); };
    var step_1 = per(function (r) { return 2 * (P - r - 1); });
    var step_2 = per(function (r) { return r + 1; });
    var step_3 = per(function (r) { return P - r - 1; });
    var step_4 = per(function (r) { return m - 2 * P + r + 1; });
    var step_5 = per(function (r) { return P - r - 1; });
    var step_6 = per(function (r) { return r + 1; });
    var step_7 = per(function (r) { return P - r - 1; });
    var step_8 = per(function (r) { return r + 1; });

    order.steps(step_1, function (r, i, emit) { emit(F, i, s0(r)); }); // Step 1: nF0
    order.steps(step_2, function (r, i, emit) { emit(F, step_1[r] + i, s0(r)); emit(F, i, s1(r)); }); // Step 2: nF0F1
    order.steps(step_3, function (r, i, emit) { // Step 3: nB1W1F1
      emit(I, i, s1(r)); emit(W, i, s1(r)); emit(F, r + 1 + i, s1(r));
    });
    // Step 4: nF0B1F1B0; the last rank's first step runs F0 and B1 one after the other.
    var last = per(function (r) { return r === P - 1 ? 1 : 0; });
    order.steps(last, function (r, i, emit) { emit(F, P + i, s0(r)); emit(B, i, s1(r)); emit(FB, P + i, s1(r), i, s0(r)); });
    order.steps(per(function (r) { return step_4[r] - last[r]; }), function (r, j, emit) {
      var i = last[r] + j;
      emit(FB, 2 * P - r - 1 + i, s0(r), P - r - 1 + i, s1(r)); emit(FB, P + i, s1(r), i, s0(r));
    });
    order.steps(step_5, function (r, i, emit) { // Step 5: nB1F1B0
      emit(B, m - P + i, s1(r)); emit(FB, m - P + r + 1 + i, s1(r), m - 2 * P + r + 1 + i, s0(r));
    });
    // Step 6: nB1B0, B0 split from step (r+1)//2 on, B1 from r//2 + 1 on.
    var h0 = per(function (r) { return Math.floor((r + 1) / 2); });
    var lone = per(function (r) { return r % 2 === 0 ? 1 : 0; });
    order.steps(h0, function (r, i, emit) { emit(B, m - r - 1 + i, s1(r)); emit(B, m - P + i, s0(r)); });
    order.steps(lone, function (r, j, emit) { var i = h0[r] + j; emit(B, m - r - 1 + i, s1(r)); emit(I, m - P + i, s0(r)); });
    order.steps(per(function (r) { return step_6[r] - h0[r] - lone[r]; }), function (r, j, emit) {
      var i = Math.floor(r / 2) + 1 + j;
      emit(I, m - r - 1 + i, s1(r)); emit(I, m - P + i, s0(r));
    });
    order.steps(step_7, function (r, i, emit) { // Step 7: nWB0
      var w = fifo(P, m, r, i);
      emit(W, w[0], w[1]); emit(I, m - P + r + 1 + i, s0(r));
    });
    order.steps(step_8, function (r, i, emit) { var w = fifo(P, m, r, step_7[r] + i); emit(W, w[0], w[1]); }); // Step 8: nW
    return order.build();
  }

  // Overlapped F&B ops on each rank: two per step 4 step (one fewer on the last
  // rank), one per step 5 step.
  function fbCount(P, m) {
    return E.perRank(P, function (r) { return 2 * (m - 2 * P + r + 1) - (r === P - 1 ? 1 : 0) + (P - r - 1); });
  }

  function fbCost(c) {
    var f = E.costFractions(c);
    return c.tfb === null ? f[0].add(f[1]).add(f[2]) : E.exact(c.tfb);
  }

  // DeepSeek's (PP/2-1)(F&B + B - 3W) with a chunk's costs: (P-1)(t_fb + t_b - 2t_w)/2.
  function deepseekIdle(P, c) {
    var f = E.costFractions(c);
    return fbCost(c).add(f[1]).sub(f[2].mul(2)).mul(P - 1).div(2);
  }

  function busy(P, m, c) {
    var f = E.costFractions(c), share = f[0].add(f[1]).add(f[2]);
    var gain = share.sub(fbCost(c)).div(2);
    return Array.from(fbCount(P, m), function (n) { return share.mul(m).sub(gain.mul(n)); });
  }

  function caveatFor(P, c) {
    if (P === 1) return null;
    if (c.comm > 0) return E.commCaveat(c);
    var f = E.costFractions(c), tf = f[0], tb = f[1], tw = f[2];
    if (tf.cmp(tb) !== 0) return PipevizText.msg('dualpipe-v.f_ne_b', { tf: PipevizText.float(c.tf), tb: PipevizText.float(c.tb) });
    if (tw.cmp(tf) > 0) return PipevizText.msg('dualpipe-v.big_w', { tw: PipevizText.float(c.tw), tf: PipevizText.float(c.tf) });
    var fb = fbCost(c);
    if (fb.cmp(tf.add(tw)) < 0) {
      return PipevizText.msg('dualpipe-v.fast_fb', { tfb: PipevizText.float(fb.toNumber()), least: PipevizText.float(tf.add(tw).toNumber()) });
    }
    return null;
  }

  function closedForm(cfg) {
    var P = cfg.P, m = cfg.m, c = cfg.costs;
    var D = deepseekIdle(P, c), work = busy(P, m, c);
    var makespan = work[P - 1].add(D), total = E.fraction(0);
    work.forEach(function (x) { total = total.add(x); });
    var bubble = makespan.cmp(0) > 0 ? E.fraction(1).sub(total.div(makespan.mul(P))) : E.fraction(0);
    var caveat = caveatFor(P, c);
    var equal = work.every(function (x) { return x.cmp(work[0]) === 0; });
    var peak = E.perRank(P, function () { return 2 * P + 1; });
    var out = E.closedForm({
      bubble: bubble,
      bubbleFormula: equal ? spec.formulas.bubble : spec.formulas.bubble_unequal,
      bubbleExact: caveat === null, caveat: caveat,
      steadyBubble: bubble, steadyExact: caveat === null,
      peakChunks: peak, peakAwaitingB: Int32Array.from(peak), peakAwaitingW: new Int32Array(P),
      p2pPerMicrobatch: 4 * (P - 1),
    });
    out.authors = { who: 'dualpipe-v.deepseek', formula: spec.formulas.authors, idle: D, rank: P - 1 };
    return out;
  }

  var spec = E.register('dualpipe-v', { generate: generate, closedForm: closedForm, check: check });
})(PipevizEngine);
