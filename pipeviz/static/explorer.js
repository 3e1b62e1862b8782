/* The pipeviz explorer for a page with no server (python -m pipeviz page).
 *
 * The served app (pipeviz/app.py) is the reference; this file repeats its layer
 * above the engine, so the page shows the same columns, text and messages:
 *   columns   <- pipeviz/render/data.py
 *   readouts  <- pipeviz/render/readouts.py
 *   figures   <- Figures.update in pipeviz/render/figures.py
 *   URL       <- pipeviz/urlstate.py
 *   state     <- Explorer in pipeviz/app.py (snapping V, keeping the last good
 *                chart, notes tied to the state they were made for)
 * tests/test_page.py checks each part against Python. Constants (colors, ranges,
 * presets) come from Python in window.PIPEVIZ_CONSTANTS, so there is one source.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var FMT = E.format;
  var C = root.PIPEVIZ_CONSTANTS;
  var KEYS = C.keys; // schedule, P, m, V, tf, tb, tw, comm

  // ---------------------------------------------------------------------------
  // Columns (render/data.py)

  function chunkOf(res) {
    var stage = res.ops.stage, P = res.config.P, n = stage.length, out = new Int32Array(n);
    var v = E.SCHEDULES[res.config.schedule].placement === 'v';
    for (var i = 0; i < n; i++) out[i] = v ? (stage[i] >= P ? 1 : 0) : Math.floor(stage[i] / P);
    return out;
  }

  function opsColumns(res) {
    var o = res.ops, n = o.kind.length, chunk = chunkOf(res);
    var top = new Float64Array(n), bottom = new Float64Array(n), color = new Float64Array(n);
    var kind = new Int32Array(n);
    for (var i = 0; i < n; i++) {
      top[i] = o.rank[i] - C.row;
      bottom[i] = o.rank[i] + C.row;
      kind[i] = o.kind[i];
      color[i] = o.kind[i] * C.maxChunks + chunk[i];
    }
    return { left: o.start, right: o.end, top: top, bottom: bottom, rank: o.rank, kind: kind,
      mb: o.mb, stage: o.stage, chunk: chunk, color: color };
  }

  function digits(mb) {
    var d = 1;
    for (var k = 1; k < 7; k++) if (mb >= Math.pow(10, k)) d++;
    return d;
  }

  function labelColumns(res, plotPx) {
    var o = res.ops, n = o.kind.length;
    var pxPerUnit = plotPx / Math.max(res.metrics.makespan, 1e-12);
    var x = [], y = [], text = [];
    for (var i = 0; i < n; i++) {
      if ((o.end[i] - o.start[i]) * pxPerUnit >= (digits(o.mb[i]) + 1) * C.labelPxPerChar) {
        x.push((o.start[i] + o.end[i]) / 2);
        y.push(o.rank[i]);
        text.push(String(o.mb[i]));
      }
    }
    return { x: Float64Array.from(x), y: Float64Array.from(y), text: text };
  }

  function bubbleColumns(res) {
    var b = res.metrics.bubbles, n = b.rank.length;
    var top = new Float64Array(n), bottom = new Float64Array(n), length = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      top[i] = b.rank[i] - C.row;
      bottom[i] = b.rank[i] + C.row;
      length[i] = b.end[i] - b.start[i];
    }
    return { left: b.start, right: b.end, top: top, bottom: bottom, rank: b.rank, length: length };
  }

  function barColumns(res, unit) {
    var mt = res.metrics, th = res.theory, P = res.config.P;
    var scale = unit === 'chunks' ? 1.0 : 1.0 / res.chunksPerRank;
    var held = mt.peakAwaitingB || mt.peakChunks;
    var out = { rank: new Float64Array(P), zero: new Float64Array(P), b: new Float64Array(P),
      peak: new Float64Array(P), w_only: new Float64Array(P), theory: new Float64Array(P) };
    for (var r = 0; r < P; r++) {
      out.rank[r] = r;
      out.peak[r] = mt.peakChunks[r] * scale;
      out.b[r] = held[r] * scale;
      out.w_only[r] = out.peak[r] - out.b[r];
      out.theory[r] = th.peakChunks[r] * scale;
    }
    return out;
  }

  // Each rank's in-flight count as one step line (data.inflight_steps): from (0, 0),
  // hold each value until the next event, then jump.
  function stepColumns(res) {
    var st = res.metrics.inflight, P = res.config.P, n = st.rank.length, i = 0;
    var xs = [], ys = [], rank = new Float64Array(P);
    for (var r = 0; r < P; r++) {
      var lo = i;
      while (i < n && st.rank[i] === r) i++;
      var k = i - lo, x = new Float64Array(2 * k + 1), y = new Float64Array(2 * k + 1);
      var v = 0.0; // the value before each event
      x[0] = 0.0; y[0] = 0.0;
      for (var e = 0; e < k; e++) {
        x[2 * e + 1] = st.time[lo + e]; y[2 * e + 1] = v; // hold
        v = st.value[lo + e];
        x[2 * e + 2] = st.time[lo + e]; y[2 * e + 2] = v; // jump
      }
      xs.push(x); ys.push(y); rank[r] = r;
    }
    return { xs: xs, ys: ys, rank: rank };
  }

  // Python's round(): half to even.
  function pyRound(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return f % 2 === 0 ? f : f + 1;
  }

  function hex2(v) { return (v < 16 ? '0' : '') + v.toString(16); }

  function chunkPalette(base, chunks) {
    var out = [];
    base.forEach(function (color) {
      var rgb = [1, 3, 5].map(function (i) { return parseInt(color.slice(i, i + 2), 16); });
      for (var c = 0; c < C.maxChunks; c++) {
        var t = chunks > 1 && c < chunks ? 0.6 * c / (chunks - 1) : 0.0;
        out.push('#' + rgb.map(function (x) { return hex2(pyRound(x + (255 - x) * t)); }).join(''));
      }
    });
    return out;
  }

  // ---------------------------------------------------------------------------
  // Readouts (render/readouts.py)

  function escape(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
  }

  function pct(x) { return FMT.fixed(100 * x, 2) + '%'; }
  function num(x) { return FMT.g(x); }

  function fractionText(num_, den) {
    if (den === '1') return num_;
    return BigInt(den) <= BigInt(10000) ? num_ + '/' + den : '';
  }

  function closedFormText(res) {
    var th = res.theory, frac = fractionText(th.bubbleNum, th.bubbleDen);
    var middle = frac && frac.indexOf('/') >= 0 ? ' = ' + frac : '';
    return th.bubbleFormula + middle + ' = ' + pct(th.bubble);
  }

  function bubbleLine(res) { return pct(res.metrics.bubbleFraction) + ' simulated, ' + closedFormText(res); }

  function readoutHtml(res) {
    var mt = res.metrics, th = res.theory, chunks = res.chunksPerRank;
    var verdict = res.agree.bubble
      ? '<span class="pv-agree">simulation and closed form agree</span>'
      : '<span class="pv-differ">they differ: ' + escape(th.caveat || 'the closed form does not cover this case') + '</span>';
    var peak0 = mt.peakChunks[0];
    var peakText = chunks > 1 ? num(mt.peakMicrobatches[0]) + ' micro-batches (' + peak0 + ' chunks)' : peak0 + ' micro-batches';
    var steady = '';
    if (Math.abs(mt.steadyBubbleFraction - mt.bubbleFraction) > 1e-12) {
      steady = ' · <span title="iterations back to back, no global flush (the Zero Bubble paper\'s measure)">' +
        'steady-state bubble <b>' + pct(mt.steadyBubbleFraction) + '</b></span>';
    }
    return '<div class="pv-readout">' +
      '<div class="pv-bubble">Bubble (one iteration): <b class="pv-sim">' + escape(bubbleLine(res)) + '</b></div>' +
      '<div class="pv-verdict">' + verdict + '</div>' +
      '<div class="pv-summary">makespan <b>' + num(mt.makespan) + '</b>' + steady +
      ' · rank 0 peak in flight <b>' + peakText + '</b>' +
      ' · p2p per micro-batch <b>' + mt.p2pPerMicrobatch + '</b></div>' +
      '</div>';
  }

  function barsKeyHtml(res) {
    function swatch(color) {
      return '<span style="display:inline-block;width:10px;height:10px;background:' + color + ';margin-right:4px"></span>';
    }
    var parts = res.splitBackward
      ? [swatch(C.kindColors[0]) + 'awaiting B', swatch(C.wOnlyColor) + 'awaiting W only']
      : [swatch(C.kindColors[0]) + 'in flight'];
    parts.push('&#9671; closed form');
    return '<div style="font-size:11px">' + parts.join(' &nbsp; ') + '</div>';
  }

  function tableConfig(cfg, name) {
    var spec = E.SCHEDULES[name];
    var V = spec.fixedV || (cfg.V > 1 ? cfg.V : 2);
    return { schedule: name, P: cfg.P, m: cfg.m, V: V, G: null, tf: cfg.tf, tb: cfg.tb, tw: cfg.tw, comm: cfg.comm };
  }

  function tableHtml(cfg, run) {
    var rows = E.NAMES.map(function (name) {
      var rowCfg = tableConfig(cfg, name), spec = E.SCHEDULES[name];
      var current = name === cfg.schedule ? ' class="pv-current"' : '';
      var label = escape(spec.title) + (rowCfg.V > 1 ? ' (V=' + rowCfg.V + ')' : '');
      var res = run(rowCfg);
      if (!res.ok) {
        return '<tr' + current + ' data-schedule="' + name + '"><td>' + label + '</td><td colspan="4">' + escape(res.error) + '</td></tr>';
      }
      var mt = res.metrics;
      var peak = num(mt.peakMicrobatches[0]) + (res.chunksPerRank > 1 ? ' (' + mt.peakChunks[0] + ' chunks)' : '');
      return '<tr' + current + ' data-schedule="' + name + '"><td>' + label + '</td>' +
        '<td>' + pct(mt.bubbleFraction) + '</td>' +
        '<td>' + escape(closedFormText(res)) + '</td>' +
        '<td>' + peak + '</td><td>' + mt.p2pPerMicrobatch + '</td></tr>';
    });
    var head = '<tr><th>schedule</th><th>bubble (simulated)</th><th>closed form</th>' +
      '<th>rank 0 peak in flight (micro-batches)</th><th>p2p per micro-batch</th></tr>';
    // The scroll box keeps a narrow page (an iframe) from scrolling sideways as a whole.
    return '<div class="pv-table-box"><table class="pv-table"><thead>' + head + '</thead>' +
      '<tbody>' + rows.join('') + '</tbody></table></div>';
  }

  // ---------------------------------------------------------------------------
  // URL (urlstate.py): read as names and numbers, never evaluated.

  // Python's float() literal: digits with single underscores, a point, an exponent;
  // or inf / infinity / nan. Returns NaN when Python would raise.
  var PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
  // str.strip(): Python's whitespace, which is not quite JS's trim().
  var PY_SPACE = '[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
  var PY_STRIP = new RegExp('^' + PY_SPACE + '+|' + PY_SPACE + '+$', 'g');

  // float() reads any Unicode decimal digit ('٣' is 3): map each to ASCII. Digits
  // come in runs of whole blocks of ten, each starting at its zero.
  function asciiDigits(s) {
    return s.replace(/\p{Nd}/gu, function (ch) {
      var cp = ch.codePointAt(0), start = cp;
      while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
      return String((cp - start) % 10);
    });
  }

  function pyFloat(raw) {
    var s = asciiDigits(raw.replace(PY_STRIP, ''));
    if (/^[+-]?(inf|infinity)$/i.test(s)) return s[0] === '-' ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(s)) return NaN;
    return PY_FLOAT.test(s) ? Number(s.replace(/_/g, '')) : NaN;
  }

  function fmtNumber(x, isInt) { return isInt ? String(x) : FMT.g(x); }

  function parseUrl(query) {
    var updates = {}, notes = [];
    var params = new URLSearchParams(query.replace(/^[?#]+/, ''));
    params.forEach(function (raw, key) {
      if (key === 'schedule') {
        if (E.NAMES.indexOf(raw) >= 0) updates.schedule = raw;
        else notes.push('schedule=' + FMT.repr(raw) + ' is not a schedule; choose one of ' + E.NAMES.join(', ') + ' (ignored)');
        return;
      }
      var f = C.fields[key];
      if (!f) {
        notes.push('ignored unknown URL parameter ' + FMT.repr(key) + '; known: ' + KEYS.join(', '));
        return;
      }
      var range = f.rangeText, value = pyFloat(raw);
      if (!isFinite(value) || (f.isInt && !Number.isInteger(value))) {
        notes.push(key + '=' + FMT.repr(raw) + ' is not ' + (f.isInt ? 'a whole number' : 'a number') + ' in ' + range + '; ignored');
        return;
      }
      var clamped = Math.min(Math.max(value, f.low), f.high);
      if (clamped !== value) notes.push(key + '=' + raw + ' is outside ' + range + '; clamped to ' + fmtNumber(clamped, f.isInt));
      updates[key] = clamped;
    });
    return { updates: updates, notes: notes };
  }

  function encodeUrl(state) {
    return KEYS.map(function (k) {
      var v = k === 'schedule' ? state[k] : fmtNumber(state[k], C.fields[k].isInt);
      return encodeURIComponent(k) + '=' + encodeURIComponent(v).replace(/%20/g, '+');
    }).join('&');
  }

  // ---------------------------------------------------------------------------
  // The explorer's state (app.py): widgets <-> state, engine, figures, notices.

  function Explorer(ui) {
    this.ui = ui;
    this.result = null; // what the figures show: the last valid configuration
    this.notes = [];
    this.notesFor = null;
    this.noticeLines = [];
    this.applying = false; // our own widget changes must not re-enter
  }

  Explorer.prototype.state = function () {
    var ui = this.ui;
    return {
      schedule: E.NAMES[ui.schedule.active], P: ui.P.value, m: ui.m.value, V: ui.V.value,
      tf: ui.tf.value, tb: ui.tb.value, tw: ui.tw.value, comm: ui.comm.value,
    };
  };

  Explorer.prototype.unit = function () { return this.ui.unit.active === 1 ? 'chunks' : 'micro-batches'; };

  Explorer.prototype.set = function (updates) {
    var ui = this.ui;
    this.applying = true;
    try {
      Object.keys(updates).forEach(function (k) {
        if (k === 'schedule') ui.schedule.active = E.NAMES.indexOf(updates[k]);
        else ui[k].value = updates[k];
      });
    } finally {
      this.applying = false;
    }
  };

  Explorer.prototype.note = function (text) { this.notes.push(text); this.notesFor = null; };

  // Apply changed values as param.update does: a schedule change snaps a fixed V.
  Explorer.prototype.update = function (updates) {
    var before = this.state(), changed = {}, self = this;
    Object.keys(updates).forEach(function (k) { if (before[k] !== updates[k]) changed[k] = updates[k]; });
    this.set(changed);
    if ('schedule' in changed) this.fitV();
    this.refresh();
  };

  Explorer.prototype.fitV = function () {
    var st = this.state(), fixed = E.SCHEDULES[st.schedule].fixedV;
    if (fixed && st.V !== fixed) {
      this.note(st.schedule + ' runs ' + (fixed === 1 ? 'one model chunk' : fixed + ' chunks in a V') +
        ' per rank: V set to ' + fixed + '.');
      this.set({ V: fixed });
    }
  };

  // A widget changed (the user): `key` names it.
  Explorer.prototype.changed = function (key) {
    if (this.applying) return;
    if (key === 'schedule') this.fitV();
    this.refresh();
  };

  Explorer.prototype.preset = function (name) { this.update(C.presets[name]); };

  Explorer.prototype.applyUrl = function (loc) {
    var query = loc.hash && loc.hash.length > 1 ? loc.hash : loc.search || '';
    var parsed = parseUrl(query), updates = parsed.updates, self = this;
    parsed.notes.forEach(function (n) { self.note('URL: ' + n); });
    var schedule = updates.schedule || this.state().schedule, fixed = E.SCHEDULES[schedule].fixedV;
    if (fixed && !('V' in updates)) updates.V = fixed;
    this.update(updates);
  };

  Explorer.prototype.refresh = function () {
    var st = this.state();
    var key = KEYS.map(function (k) { return st[k]; }).join('|');
    if (this.notes.length && this.notesFor === null) this.notesFor = key;
    else if (this.notesFor !== key) { this.notes = []; this.notesFor = null; }
    var cfg = { schedule: st.schedule, P: st.P, m: st.m, V: st.V, G: null, tf: st.tf, tb: st.tb, tw: st.tw, comm: st.comm };
    var res = E.run(cfg), lines = [];
    if (!res.ok) {
      var shown = this.result ? describe(this.result.config) : 'nothing yet';
      lines.push('Not valid: ' + res.error + '. The chart still shows ' + shown + '.');
    } else {
      this.result = res;
      this.draw(res);
    }
    this.noticeLines = lines.concat(this.notes);
    var notice = el('pv-notice');
    setHtml(notice, this.noticeLines.map(function (l) { return '<p>' + escape(l) + '</p>'; }).join(''));
    var cls = 'pv-notice ' + (res.ok ? 'pv-info' : 'pv-warning'), hidden = this.noticeLines.length === 0;
    if (notice.className !== cls) notice.className = cls;
    if (notice.hidden !== hidden) notice.hidden = hidden;
    var self = this;
    this.after('url', function () { self.writeUrl(st); });
  };

  // The readouts are plain HTML beside the Bokeh roots (cheaper to replace than a Div).
  function el(id) { return root.document.getElementById(id); }

  // Write only what changed: each write makes the browser restyle the page before
  // Bokeh's next paint, which reads computed styles.
  function setHtml(node, html) {
    if (node.__html !== html) { node.innerHTML = html; node.__html = html; }
  }

  function describe(cfg) { return cfg.schedule + ' with P=' + cfg.P + ', m=' + cfg.m + ', V=' + cfg.V; }

  // Replace a source's columns unless they are equal, which spares a figure's repaint.
  function setData(source, cols) {
    var old = source.data, same = true;
    for (var k in cols) {
      var a = cols[k], b = old[k];
      if (!b || a.length !== b.length) { same = false; break; }
      for (var i = 0; i < a.length && same; i++) same = a[i] === b[i];
      if (!same) break;
    }
    if (!same) source.data = cols;
  }

  // The timeline's plot width as laid out now (Figures.label_px).
  function labelPx(ui) { return ui.timeline.inner_width > 0 ? ui.timeline.inner_width : C.plotPx; }

  Explorer.prototype.relabel = function () {
    if (this.result) this.ui.labels.data = labelColumns(this.result, labelPx(this.ui));
  };

  Explorer.prototype.draw = function (res) {
    var ui = this.ui, unit = this.unit(), P = res.config.P, chunks = res.chunksPerRank;
    var makespan = res.metrics.makespan, r;
    ui.op_colors.palette = chunkPalette(C.kindColors, chunks);
    ui.ops.data = opsColumns(res);
    ui.labels.data = labelColumns(res, labelPx(ui));
    ui.bubbles.data = bubbleColumns(res);
    setData(ui.bars, barColumns(res, unit)); // often unchanged as m moves: no repaint then
    ui.steps.data = stepColumns(res);

    var pad = makespan * 0.01;
    ui.x_range.setv({ start: -pad, end: makespan + pad, reset_start: -pad, reset_end: makespan + pad });
    ui.y_range.setv({ start: P - 0.5, end: -0.5, reset_start: P - 0.5, reset_end: -0.5 });
    var ticks = [], labels = new Map();
    for (r = 0; r < P; r++) { ticks.push(r); labels.set(r, 'rank ' + r); }
    ui.rank_axis.ticker.ticks = ticks;
    ui.rank_axis.major_label_overrides = labels;
    var height = Math.max(160, Math.min(620, 90 + C.rowPx * P));
    ui.timeline.height = height;
    ui.inflight.height = height;
    ui.w_only.visible = res.splitBackward;
    var top = Math.max(Math.max.apply(null, res.metrics.peakChunks), Math.max.apply(null, res.theory.peakChunks));
    if (unit !== 'chunks') top /= chunks;
    ui.inflight.x_range.setv({ start: 0, end: top * 1.15 });
    ui.bars_axis.axis_label = 'peak in flight (' + unit + ')';
    ui.over_time.y_range.setv({ start: 0, end: Math.max.apply(null, res.metrics.peakChunks) * 1.08 + 0.5 });
    ui.over_time_axis.axis_label = chunks > 1 ? 'in flight (chunks)' : 'in flight';
    ui.rank_colors.high = Math.max(P - 1, 1);

    setHtml(el('pv-readout'), readoutHtml(res));
    setHtml(el('pv-bars-key'), barsKeyHtml(res));
    this.after('table', function () { setHtml(el('pv-table'), tableHtml(res.config, E.run)); });
  };

  // Run `fn` after the next paint: the comparison table and the URL wait, so a
  // slider's chart and readout repaint first (the served app also sends them after).
  // Of several calls for one `key` before then, the last one runs.
  Explorer.prototype.after = function (key, fn) {
    var self = this, first = !this.deferred;
    this.deferred = this.deferred || {};
    this.deferred[key] = fn;
    if (!first) return;
    var run = function () {
      var todo = self.deferred;
      self.deferred = null;
      Object.keys(todo).forEach(function (k) { todo[k](); });
    };
    if (root.requestAnimationFrame) root.requestAnimationFrame(function () { setTimeout(run, 0); });
    else run();
  };

  // The fragment follows the state, so the address bar is a permalink (a fragment
  // can change on a file:// page, a query cannot).
  Explorer.prototype.writeUrl = function (st) {
    var loc = root.location;
    if (!loc || !root.history || !root.history.replaceState) return;
    var hash = '#' + encodeUrl(st);
    if (loc.hash !== hash) {
      try { root.history.replaceState(null, '', hash); } catch (e) { /* sandboxed iframe: keep the URL */ }
    }
  };

  var explorer = null;

  root.PipevizExplorer = {
    // Called by the page's CustomJS callbacks with every model they need.
    handle: function (ui, what, key) {
      if (!explorer) explorer = new Explorer(ui);
      if (what === 'ready') {
        // As the served app: draw the view the page was built for, then apply the URL
        // (read first: drawing rewrites the fragment).
        var asked = { hash: root.location.hash, search: root.location.search };
        explorer.refresh();
        explorer.applyUrl(asked);
      }
      else if (what === 'preset') explorer.preset(key);
      else if (what === 'resize') explorer.relabel();
      else explorer.changed(key);
      return explorer;
    },
    get: function () { return explorer; },
    // For tests: the layer above the engine, callable without a page.
    parts: {
      opsColumns: opsColumns, labelColumns: labelColumns, bubbleColumns: bubbleColumns, barColumns: barColumns,
      stepColumns: stepColumns, chunkPalette: chunkPalette, readoutHtml: readoutHtml, barsKeyHtml: barsKeyHtml,
      tableHtml: tableHtml, parseUrl: parseUrl, encodeUrl: encodeUrl, pyFloat: pyFloat,
    },
  };
})(typeof window !== 'undefined' ? window : globalThis);
