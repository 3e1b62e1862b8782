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
  var ROW = C.row, ROW_PX = C.rowPx, LABEL_PX_PER_CHAR = C.labelPxPerChar, LABEL_PAD_PX = C.labelPadPx;
  var HEIGHT = C.timelineHeight; // columns.timeline_height's bounds
  var MAX_CHUNKS = PALETTE.maxChunks, DISPLAY_KIND = PALETTE.displayKind;
  var LOD = C.lod; // view/lod.py's MIN_PX, OUTLINE_PX, CULL, BUBBLE_PX and STEP_PX
  var POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000];
  var X = root.PipevizExplorer = root.PipevizExplorer || {};

  // Index within its rank of each stage's chunk, 0 .. chunks per rank - 1.
  function chunkOfStage(res, stage) {
    var P = res.order.P, n = stage.length, out = new Int32Array(n);
    var v = res.schedule.placement === 'v'; // chunk 0 on the way down, chunk 1 on the way back
    for (var i = 0; i < n; i++) {
      var s = Math.max(stage[i], 0);
      out[i] = v ? (s >= P ? 1 : 0) : Math.floor(s / P); // else stage cP + r is chunk c of rank r
    }
    return out;
  }

  // The time range the timeline shows before any zoom (the x_range's reset values);
  // a deadlocked order's with room for its stuck ops and what they wait for.
  function fullWindow(res) {
    var makespan = res.metrics.makespan;
    if (res.stuck) makespan = Math.max(makespan, max(res.stuck.right)) * 1.4;
    makespan = makespan || 1.0; // nothing ran
    var pad = makespan * 0.01;
    return [-pad, makespan + pad];
  }

  // The index of each op's chunk within its rank (an F&B's: its forward part's).
  function chunkOf(res) {
    var order = res.order, n = order.nOps, out = chunkOfStage(res, order.stage);
    for (var i = 0; i < n; i++) if (order.kind[i] === E.EF || order.kind[i] === E.EB) out[i] = 0;
    return out;
  }

  // The lower (backward) half of every overlapped F&B box the timeline draws as its
  // own (`boxes` from ops(): a run of narrow ops keeps its one colour), coloured as a
  // backward of the chunk its backward part runs on.
  function fbHalves(res, boxes) {
    var pair = [];
    for (var e = 0; e < boxes.kind.length; e++) if (boxes.kind[e] === E.FB && boxes.count[e] === 1) pair.push(e);
    var n = pair.length, color = backwardHalfColor(res, Int32Array.from(pair, function (e) { return boxes.stage2[e]; }));
    var out = { left: new Float64Array(n), right: new Float64Array(n), top: new Float64Array(n),
      bottom: new Float64Array(n), color: new Float64Array(n) };
    pair.forEach(function (e, j) {
      out.left[j] = boxes.left[e];
      out.right[j] = boxes.right[e];
      out.top[j] = boxes.rank[e];
      out.bottom[j] = boxes.rank[e] + ROW;
      out.color[j] = color[j];
    });
    return out;
  }

  // The palette index of an F&B box's lower half: a backward of the chunk its backward
  // part (stage2) runs on (view/columns.backward_half_color).
  function backwardHalfColor(res, stage2) {
    return Array.from(chunkOfStage(res, stage2), function (c) { return DISPLAY_KIND[E.B] * MAX_CHUNKS + c; });
  }

  // Where a deadlocked order stuck (view/own_order.stuck_columns): each stuck rank's
  // next op, after its last op that ran, in the op's colour, and what it waits for.
  function stuckColumns(res, lang) {
    var s = res.stuck, out = { left: new Float64Array(0), right: new Float64Array(0), top: new Float64Array(0),
      bottom: new Float64Array(0), rank: new Float64Array(0), color: new Float64Array(0), x: new Float64Array(0),
      y: new Float64Array(0), op: [], waits: [], label: [] };
    if (!s) return out;
    var k = s.rank.length, chunk = chunkOfStage(res, s.stage);
    out.rank = Float64Array.from(s.rank);
    out.top = out.rank.map(function (r) { return r - ROW; });
    out.bottom = out.rank.map(function (r) { return r + ROW; });
    out.color = new Float64Array(k);
    for (var j = 0; j < k; j++) out.color[j] = DISPLAY_KIND[s.kind[j]] * MAX_CHUNKS + chunk[j];
    out.left = s.left;
    out.right = s.right;
    out.x = s.right;
    out.y = out.rank;
    out.op = s.op.slice();
    out.waits = s.waits.map(function (w, j) { return T.fill('own.waits', lang, { op: w, rank: s.waitsRank[j] }); });
    out.label = s.token.map(function (t, j) {
      return T.fill('own.waits_label', lang, { op: t, dep: s.waitsToken[j], rank: s.waitsRank[j] });
    });
    return out;
  }

  // Level of detail (twin of view/lod.py): per rank and in time order, an op at least
  // LOD.minPx wide is its own box; narrower ones fall into bins LOD.minPx wide, each
  // drawn in the colour covering most of its time (ties: the lower index), and
  // consecutive bins of one colour merge; ops beyond the window widened by LOD.cull
  // of its width on each side are left out.
  function level(start, end, rankPtr, color, nColors, x0, x1, plotPx) {
    var span = Math.max(x1 - x0, 1e-300), px = Math.max(plotPx, 1.0);
    var unit = span / px * LOD.minPx, lo = x0 - LOD.cull * span, hi = x1 + LOD.cull * span;
    // At most one box per op: filled in place (a push per box cost 1 ms at (32,128,8)).
    var n = start.length, m = 0, rep = new Int32Array(n), left = new Float64Array(n), right = new Float64Array(n);
    var col = new Int32Array(n), count = new Int32Array(n), sums = new Float64Array(nColors);
    for (var r = 0; r + 1 < rankPtr.length; r++) {
      var inBin = false, bIdx = 0, bFirst = 0, bLast = 0, bCount = 0, runOpen = false, runBin = 0;
      for (var i = rankPtr[r]; i <= rankPtr[r + 1]; i++) {
        var last = i === rankPtr[r + 1];
        var skip = last || end[i] < lo || start[i] > hi;
        var wide = !skip && end[i] - start[i] >= unit;
        var b = skip || wide ? 0 : Math.floor((start[i] - lo) / unit);
        if (inBin && (skip || wide || b !== bIdx)) { // close the bin
          var best = 0, c, j;
          for (c = 1; c < nColors; c++) if (sums[c] > sums[best]) best = c;
          var first = bFirst;
          for (j = bFirst; j <= bLast; j++) if (color[j] === best) { first = j; break; }
          if (runOpen && runBin === bIdx - 1 && col[m - 1] === best) {
            right[m - 1] = end[bLast];
            count[m - 1] += bCount;
          } else {
            rep[m] = first; left[m] = start[bFirst]; right[m] = end[bLast]; col[m] = best; count[m] = bCount; m++;
          }
          runOpen = true;
          runBin = bIdx;
          for (j = bFirst; j <= bLast; j++) sums[color[j]] = 0.0;
          inBin = false;
        }
        if (last) break;
        if (skip) { runOpen = false; continue; }
        if (wide) {
          rep[m] = i; left[m] = start[i]; right[m] = end[i]; col[m] = color[i]; count[m] = 1; m++;
          runOpen = false;
          continue;
        }
        if (!inBin) { inBin = true; bIdx = b; bFirst = i; bCount = 0; }
        sums[color[i]] += end[i] - start[i];
        bLast = i;
        bCount++;
      }
    }
    var outline = new Float64Array(m);
    for (var e = 0; e < m; e++) outline[e] = count[e] === 1 && (right[e] - left[e]) * (px / span) >= LOD.outlinePx ? 1.0 : 0.0;
    return { rep: rep.slice(0, m), left: left.slice(0, m), right: right.slice(0, m), color: col.slice(0, m),
             count: count.slice(0, m), outline: outline };
  }

  // The vertices of a path (x nondecreasing) drawn for the window [x0, x1] over plotPx
  // pixels (twin of lod.thin, M4): per column LOD.stepPx wide, the first, lowest,
  // highest and last (the first of equal values), in order; beyond the window widened
  // by LOD.cull, only the vertex next to it on either side.
  function thin(x, y, x0, x1, plotPx) {
    var span = Math.max(x1 - x0, 1e-300), px = Math.max(plotPx, 1.0);
    var unit = span / px * LOD.stepPx, lo = x0 - LOD.cull * span, hi = x1 + LOD.cull * span;
    var n = x.length, keep = new Int32Array(n), k = 0, i = 0;
    while (i < n && x[i] < lo) i++;
    if (i > 0) keep[k++] = i - 1;
    while (i < n && x[i] <= hi) {
      var c = Math.floor((x[i] - lo) / unit), low = i, high = i, j = i + 1;
      for (; j < n && x[j] <= hi && Math.floor((x[j] - lo) / unit) === c; j++) {
        if (y[j] < y[low]) low = j;
        if (y[j] > y[high]) high = j;
      }
      var picks = [i, Math.min(low, high), Math.max(low, high), j - 1];
      for (var p = 0; p < 4; p++) if (k === 0 || keep[k - 1] !== picks[p]) keep[k++] = picks[p];
      i = j;
    }
    if (i < n) keep[k++] = i;
    return keep.subarray(0, k);
  }

  // A multi-line source's columns with each line's xs and ys thinned (thin).
  function thinLines(lines, x0, x1, plotPx) {
    var out = Object.assign({}, lines), xs = [], ys = [];
    lines.xs.forEach(function (x, r) {
      var y = lines.ys[r], keep = thin(x, y, x0, x1, plotPx), m = keep.length;
      var tx = new Float64Array(m), ty = new y.constructor(m);
      for (var e = 0; e < m; e++) { tx[e] = x[keep[e]]; ty[e] = y[keep[e]]; }
      xs.push(tx);
      ys.push(ty);
    });
    out.xs = xs;
    out.ys = ys;
    return out;
  }

  var LINES = C.lines; // the multi-line sources thinned to the pixels

  // The over-time lines drawn for the visible window: figureView's `lines`, each
  // line's vertices kept where they show (columns.over_time_lines).
  function overTimeLines(lines, plotPx, window) {
    var out = {};
    LINES.forEach(function (name) { out[name] = thinLines(lines[name], window[0], window[1], plotPx); });
    return out;
  }

  // The timeline's boxes for the visible window (default: the full view), at the
  // level of detail its pixels allow.
  function ops(res, plotPx, window) {
    var order = res.order, tl = res.timeline, n = order.nOps, chunk = chunkOf(res), color = new Int32Array(n);
    for (var i = 0; i < n; i++) color[i] = DISPLAY_KIND[order.kind[i]] * MAX_CHUNKS + chunk[i];
    var w = window || fullWindow(res);
    var px = plotPx === undefined ? C.plotPx : plotPx;
    var boxes = level(tl.start, tl.end, order.rankPtr, color, PALETTE.kindColors.length * MAX_CHUNKS, w[0], w[1], px);
    var m = boxes.rep.length;
    var out = {
      left: boxes.left, right: boxes.right, top: new Float64Array(m), bottom: new Float64Array(m),
      rank: new Int32Array(m), kind: new Int32Array(m), mb: new Int32Array(m), stage: new Int32Array(m),
      mb2: new Int32Array(m), stage2: new Int32Array(m), chunk: new Int32Array(m), color: new Float64Array(m),
      count: boxes.count, outline: boxes.outline,
    };
    for (var e = 0; e < m; e++) {
      var o = boxes.rep[e], r = order.rank[o];
      out.top[e] = r - ROW;
      out.bottom[e] = r + ROW;
      out.rank[e] = r;
      out.kind[e] = order.kind[o];
      out.mb[e] = order.mb[o];
      out.stage[e] = order.stage[o];
      out.mb2[e] = order.mb2[o];
      out.stage2[e] = order.stage2[o];
      out.chunk[e] = chunk[o];
      out.color[e] = boxes.color[e];
    }
    return out;
  }

  // Micro-batch numbers, centred in the boxes that are wide enough in the visible
  // window (default: the full view).
  function labels(res, plotPx, window) {
    var order = res.order, tl = res.timeline, n = order.nOps;
    var x0 = window ? window[0] : 0.0, x1 = window ? window[1] : tl.makespan;
    var pxPerUnit = plotPx / Math.max(x1 - x0, 1e-12), widest = 0;
    for (var j = 0; j < n; j++) if (tl.end[j] - tl.start[j] > widest) widest = tl.end[j] - tl.start[j];
    if (widest * pxPerUnit < LABEL_PX_PER_CHAR + LABEL_PAD_PX) { // no op has room even for one digit (the sliders' ends)
      return { x: new Float64Array(0), y: new Float64Array(0), text: [], dark: new Float64Array(0) };
    }
    var x = [], y = [], text = [], dark = [], chunk = chunkOf(res);
    var inks = PALETTE.labelPalettes[order.chunksPerRank - 1];
    var digitsOf = function (mb) { var d = 1; for (var k = 1; k < 7; k++) if (mb >= POW10[k]) d++; return d; }; // exact, unlike log10
    var ink = function (color) { return inks[color] === '#000000' ? 1 : 0; }; // black on a light box
    for (var i = 0; i < n; i++) {
      var mb = order.mb[i], fb = order.kind[i] === E.FB;
      var digits = fb ? Math.max(digitsOf(mb), digitsOf(order.mb2[i])) : digitsOf(mb);
      if ((tl.end[i] - tl.start[i]) * pxPerUnit >= digits * LABEL_PX_PER_CHAR + LABEL_PAD_PX && tl.end[i] > x0 && tl.start[i] < x1) {
        var cx = (tl.start[i] + tl.end[i]) / 2;
        x.push(cx);
        y.push(order.rank[i] - (fb ? ROW / 2 : 0));
        text.push(String(mb));
        dark.push(ink(DISPLAY_KIND[order.kind[i]] * MAX_CHUNKS + chunk[i]));
        if (fb) { // an F&B's backward micro-batch, in the lower half of its box (fbHalves)
          x.push(cx);
          y.push(order.rank[i] + ROW / 2);
          text.push(String(order.mb2[i]));
          dark.push(ink(backwardHalfColor(res, [order.stage2[i]])[0]));
        }
      }
    }
    return { x: Float64Array.from(x), y: Float64Array.from(y), text: text, dark: Float64Array.from(dark) };
  }

  // The idle gaps hatched in the visible window (default: the full view): those at
  // least LOD.bubblePx pixels wide there, within the window widened by LOD.cull.
  function bubbles(res, plotPx, window) {
    var b = res.metrics.bubbles, n = b.rank.length, w = window || fullWindow(res);
    var span = Math.max(w[1] - w[0], 1e-300), px = Math.max(plotPx === undefined ? C.plotPx : plotPx, 1.0);
    var lo = w[0] - LOD.cull * span, hi = w[1] + LOD.cull * span, keep = [];
    for (var i = 0; i < n; i++) {
      if ((b.end[i] - b.start[i]) * (px / span) >= LOD.bubblePx && b.end[i] >= lo && b.start[i] <= hi) keep.push(i);
    }
    var m = keep.length, out = { left: new Float64Array(m), right: new Float64Array(m), top: new Float64Array(m),
      bottom: new Float64Array(m), rank: new Int32Array(m), length: new Float64Array(m) };
    for (var j = 0; j < m; j++) {
      var k = keep[j];
      out.left[j] = b.start[k];
      out.right[j] = b.end[k];
      out.top[j] = b.rank[k] - ROW;
      out.bottom[j] = b.rank[k] + ROW;
      out.rank[j] = b.rank[k];
      out.length[j] = b.end[k] - b.start[k];
    }
    return out;
  }

  // Peak in-flight per rank, stacked (awaiting B, then awaiting W only) where the
  // backward is split, with the closed-form value; in chunks or micro-batches. After
  // balancing (BPipe) the bar is the peak resident and `before` the peak in flight
  // (drawn only then; otherwise it is the bar itself).
  function inflightBars(res, unit) {
    var mt = res.metrics, th = res.theory, P = res.config.P;
    var scale = unit === C.chunksUnit ? 1.0 : 1.0 / res.order.chunksPerRank;
    var held = mt.peakAwaitingB !== null ? mt.peakAwaitingB : mt.peakChunks, peak = mt.peakChunks;
    if (res.balance !== null) held = peak = res.balance.peakChunks;
    var out = {
      rank: new Float64Array(P), zero: new Float64Array(P), b: new Float64Array(P), peak: new Float64Array(P),
      w_only: new Float64Array(P), theory: new Float64Array(P), before: new Float64Array(P),
    };
    for (var r = 0; r < P; r++) {
      out.rank[r] = r;
      out.b[r] = held[r] * scale;
      out.peak[r] = peak[r] * scale;
      out.w_only[r] = out.peak[r] - out.b[r];
      out.theory[r] = th !== null ? th.peakChunks[r] * scale : NaN; // an order of one's own: no diamonds
      out.before[r] = mt.peakChunks[r] * scale;
    }
    return out;
  }

  // Each rank's in-flight count over time as one step line: from (0, 0), hold each
  // value until the next change, then jump. After balancing, the resident count, and
  // with before = true the in-flight count it came from (no lines without balancing).
  function inflightSteps(res, before) {
    if (res.balance === null && before) return { xs: [], ys: [], rank: new Float64Array(0) };
    var st = res.balance === null || before ? res.metrics.inflight : res.balance.resident;
    var P = res.config.P, n = st.rank.length, i = 0;
    var xs = [], ys = [], rank = new Float64Array(P);
    for (var r = 0; r < P; r++) {
      var lo = i;
      while (i < n && st.rank[i] === r) i++; // steps are rank-major
      var k = i - lo, x = new Float64Array(2 * k + 1), y = new Float32Array(2 * k + 1), v = 0.0; // values: drawn only
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
    if (before) return { xs: xs, ys: ys, rank: rank }; // the dashed lines before balancing: one style
    var style = X.glance.lineStyle(P); // rank 0 and the last rank emphasised at large P
    return { xs: xs, ys: ys, rank: rank, width: style.width, alpha: style.alpha };
  }

  function timelineHeight(P) { return Math.max(HEIGHT.minPx, Math.min(HEIGHT.maxPx, HEIGHT.basePx + ROW_PX * P)); }

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
    var P = res.config.P, chunks = res.order.chunksPerRank;
    var full = fullWindow(res), height = timelineHeight(P), ticks = [];
    for (var r = 0; r < P; r++) ticks.push(r);
    var peaks = res.metrics.peakChunks, peakTop = peaks.length ? max(peaks) : 0;
    var top = Math.max(peakTop, res.theory !== null ? max(res.theory.peakChunks) : 0, 1);
    if (unit !== C.chunksUnit) top /= chunks;
    var balanced = res.balance !== null;
    var out = {
      x_range: { start: full[0], end: full[1], reset_start: full[0], reset_end: full[1] },
      y_range: { start: P - 0.5, end: -0.5, reset_start: P - 0.5, reset_end: -0.5 },
      rank_ticker: { ticks: ticks },
      op_colors: { palette: chunkPalette(chunks) },
      timeline: { height: height },
      inflight: { height: height },
      w_only: { visible: res.order.hasW },
      before_bars: { visible: balanced },
      bars_x_range: { start: 0, end: top * 1.15 },
      bars_xaxis: {
        axis_label: T.fill(balanced ? 'axis.peak_resident' : 'axis.peak', lang, { unit: T.template('choice.unit.' + unit, lang) }),
      },
      over_time_y_range: { start: 0, end: Math.max(peakTop, 0) * 1.08 + 0.5 },
      over_time_yaxis: { axis_label: T.template(chunks > 1 ? 'axis.inflight_chunks' : 'axis.inflight', lang) },
      rank_colors: { high: Math.max(P - 1, 1) },
    };
    return Object.assign(out, texts(lang), balanced ? JSON.parse(JSON.stringify(DATA.balancedTexts[lang])) : {});
  }

  // The figures' fixed words in `lang` (columns.texts, sent as data).
  function texts(lang) { return JSON.parse(JSON.stringify(DATA.figureTexts[lang])); }

  // mem: the run's memory (memory.js) with a model, else null; overTime: the
  // over-time view's unit (count, or GiB with a model).
  function figureView(res, unit, lang, plotPx, mem, overTime) {
    var boxes = ops(res, plotPx === undefined ? C.plotPx : plotPx);
    var sources = {
      ops: boxes,
      fb_halves: fbHalves(res, boxes),
      stuck_ops: stuckColumns(res, lang),
      labels: labels(res, plotPx === undefined ? C.plotPx : plotPx),
      bubbles: bubbles(res, plotPx === undefined ? C.plotPx : plotPx),
      bars: inflightBars(res, unit),
      steps: inflightSteps(res),
      steps_before: inflightSteps(res, true),
    };
    var more = X.memoryView.figureParts(res, mem === undefined ? null : mem, overTime, lang, timelineHeight(res.config.P));
    Object.assign(sources, more.sources);
    // The over-time lines at every vertex, which a zoom thins again (overTimeLines).
    var lines = {};
    LINES.forEach(function (name) { lines[name] = sources[name]; });
    Object.assign(sources, overTimeLines(lines, plotPx === undefined ? C.plotPx : plotPx, fullWindow(res)));
    return { sources: sources, props: Object.assign(props(res, unit, lang), more.props), lines: lines };
  }

  X.columns = {
    chunkOfStage: chunkOfStage, chunkOf: chunkOf, fbHalves: fbHalves, stuckColumns: stuckColumns, fullWindow: fullWindow,
    level: level, thin: thin, thinLines: thinLines, overTimeLines: overTimeLines, ops: ops, labels: labels,
    bubbles: bubbles, inflightBars: inflightBars,
    inflightSteps: inflightSteps, timelineHeight: timelineHeight, chunkPalette: chunkPalette, props: props,
    texts: texts, figureView: figureView,
  };
})(typeof window !== 'undefined' ? window : globalThis);
