/* What each figure receives for one engine result: twin of pipeviz/view/columns.py.
 *
 * figureView(res, unit, lang, plotPx) returns {sources: {name: columns}, props:
 * {model name: {attribute: value}}}; the explorer assigns it to the Bokeh models by
 * name, as render.figures.Figures.apply does in the served app. Numeric columns are
 * typed arrays. The figures' fixed words arrive as data (columns.texts, per
 * language), the palettes and row sizes too.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var PALETTE = DATA.palette;
  var C = DATA.consts;
  var ROW = C.row, ROW_PX = C.rowPx, LABEL_PX_PER_CHAR = C.labelPxPerChar;
  var MAX_CHUNKS = PALETTE.maxChunks, DISPLAY_KIND = PALETTE.displayKind;
  var POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000];

  // The index of each op's chunk within its rank, 0 .. chunks per rank - 1.
  function chunkOf(res) {
    var order = res.order, P = order.P, n = order.nOps, out = new Int32Array(n);
    var v = res.schedule.placement === 'v'; // chunk 0 on the way down, chunk 1 on the way back
    for (var i = 0; i < n; i++) {
      var k = order.kind[i], s = order.stage[i];
      if (k === E.EF || k === E.EB) out[i] = 0;
      else out[i] = v ? (s >= P ? 1 : 0) : Math.floor(s / P); // else stage cP + r is chunk c of rank r
    }
    return out;
  }

  function ops(res) {
    var order = res.order, tl = res.timeline, n = order.nOps, rank = order.rank, chunk = chunkOf(res);
    var top = new Float64Array(n), bottom = new Float64Array(n), kind = new Int32Array(n), color = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      top[i] = rank[i] - ROW;
      bottom[i] = rank[i] + ROW;
      kind[i] = order.kind[i];
      color[i] = DISPLAY_KIND[kind[i]] * MAX_CHUNKS + chunk[i];
    }
    return {
      left: tl.start, right: tl.end, top: top, bottom: bottom, rank: rank, kind: kind, mb: order.mb,
      stage: order.stage, mb2: order.mb2, stage2: order.stage2, chunk: chunk, color: color,
    };
  }

  // Micro-batch numbers, centred in the boxes that are wide enough at full view.
  function labels(res, plotPx) {
    var order = res.order, tl = res.timeline, n = order.nOps;
    var pxPerUnit = plotPx / Math.max(tl.makespan, 1e-12);
    var x = [], y = [], text = [];
    for (var i = 0; i < n; i++) {
      var mb = order.mb[i], digits = 1;
      for (var k = 1; k < 7; k++) if (mb >= POW10[k]) digits++; // exact, unlike log10
      if (order.kind[i] === E.FB) digits += 1 + digits; // "3|1"
      if ((tl.end[i] - tl.start[i]) * pxPerUnit >= (digits + 1) * LABEL_PX_PER_CHAR) {
        x.push((tl.start[i] + tl.end[i]) / 2);
        y.push(order.rank[i]);
        text.push(order.kind[i] === E.FB ? mb + '|' + order.mb2[i] : String(mb));
      }
    }
    return { x: Float64Array.from(x), y: Float64Array.from(y), text: text };
  }

  function bubbles(res) {
    var b = res.metrics.bubbles, n = b.rank.length;
    var top = new Float64Array(n), bottom = new Float64Array(n), length = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      top[i] = b.rank[i] - ROW;
      bottom[i] = b.rank[i] + ROW;
      length[i] = b.end[i] - b.start[i];
    }
    return { left: b.start, right: b.end, top: top, bottom: bottom, rank: b.rank, length: length };
  }

  // Peak in-flight per rank, stacked (awaiting B, then awaiting W only) where the
  // backward is split, with the closed-form value; in chunks or micro-batches.
  function inflightBars(res, unit) {
    var mt = res.metrics, th = res.theory, P = res.config.P;
    var scale = unit === C.chunksUnit ? 1.0 : 1.0 / res.order.chunksPerRank;
    var held = mt.peakAwaitingB !== null ? mt.peakAwaitingB : mt.peakChunks;
    var out = {
      rank: new Float64Array(P), zero: new Float64Array(P), b: new Float64Array(P), peak: new Float64Array(P),
      w_only: new Float64Array(P), theory: new Float64Array(P),
    };
    for (var r = 0; r < P; r++) {
      out.rank[r] = r;
      out.b[r] = held[r] * scale;
      out.peak[r] = mt.peakChunks[r] * scale;
      out.w_only[r] = out.peak[r] - out.b[r];
      out.theory[r] = th.peakChunks[r] * scale;
    }
    return out;
  }

  // Each rank's in-flight count over time as one step line: from (0, 0), hold each
  // value until the next change, then jump.
  function inflightSteps(res) {
    var st = res.metrics.inflight, P = res.config.P, n = st.rank.length, i = 0;
    var xs = [], ys = [], rank = new Float64Array(P);
    for (var r = 0; r < P; r++) {
      var lo = i;
      while (i < n && st.rank[i] === r) i++; // steps are rank-major
      var k = i - lo, x = new Float64Array(2 * k + 1), y = new Float64Array(2 * k + 1), v = 0.0;
      for (var e = 0; e < k; e++) { // t0, t1, t1, t2, ... and v0, v0, v1, v1, ...
        x[2 * e + 1] = x[2 * e + 2] = st.time[lo + e];
        y[2 * e + 1] = v;
        v = st.value[lo + e];
        y[2 * e + 2] = v;
      }
      xs.push(x);
      ys.push(y);
      rank[r] = r;
    }
    return { xs: xs, ys: ys, rank: rank };
  }

  function timelineHeight(P) { return Math.max(160, Math.min(620, 90 + ROW_PX * P)); }

  // Display kind * MAX_CHUNKS + chunk -> colour for `chunks` chunks per rank
  // (palette.chunk_palette, sent ready-made for 1..MAX_CHUNKS).
  function chunkPalette(chunks) { return PALETTE.chunkPalettes[chunks - 1].slice(); }

  function max(a) {
    var m = -Infinity;
    for (var i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
    return m;
  }

  // The models' properties for `res`, by model name (see render.figures).
  function props(res, unit, lang) {
    var P = res.config.P, makespan = res.metrics.makespan, chunks = res.order.chunksPerRank;
    var pad = makespan * 0.01, height = timelineHeight(P), ticks = [];
    for (var r = 0; r < P; r++) ticks.push(r);
    var top = Math.max(max(res.metrics.peakChunks), max(res.theory.peakChunks));
    if (unit !== C.chunksUnit) top /= chunks;
    var out = {
      x_range: { start: -pad, end: makespan + pad, reset_start: -pad, reset_end: makespan + pad },
      y_range: { start: P - 0.5, end: -0.5, reset_start: P - 0.5, reset_end: -0.5 },
      rank_ticker: { ticks: ticks },
      op_colors: { palette: chunkPalette(chunks) },
      timeline: { height: height },
      inflight: { height: height },
      w_only: { visible: res.order.hasW },
      bars_x_range: { start: 0, end: top * 1.15 },
      bars_xaxis: { axis_label: T.fill('axis.peak', lang, { unit: T.template('choice.unit.' + unit, lang) }) },
      over_time_y_range: { start: 0, end: max(res.metrics.peakChunks) * 1.08 + 0.5 },
      over_time_yaxis: { axis_label: T.template(chunks > 1 ? 'axis.inflight_chunks' : 'axis.inflight', lang) },
      rank_colors: { high: Math.max(P - 1, 1) },
    };
    return Object.assign(out, texts(lang));
  }

  // The figures' fixed words in `lang` (columns.texts, sent as data).
  function texts(lang) { return JSON.parse(JSON.stringify(DATA.figureTexts[lang])); }

  function figureView(res, unit, lang, plotPx) {
    return {
      sources: {
        ops: ops(res),
        labels: labels(res, plotPx === undefined ? C.plotPx : plotPx),
        bubbles: bubbles(res),
        bars: inflightBars(res, unit),
        steps: inflightSteps(res),
      },
      props: props(res, unit, lang),
    };
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.columns = {
    chunkOf: chunkOf, ops: ops, labels: labels, bubbles: bubbles, inflightBars: inflightBars,
    inflightSteps: inflightSteps, timelineHeight: timelineHeight, chunkPalette: chunkPalette, props: props,
    texts: texts, figureView: figureView,
  };
})(typeof window !== 'undefined' ? window : globalThis);
