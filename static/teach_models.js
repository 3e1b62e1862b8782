/* What only the browser does with the teaching models, written once for both
 * explorers (the served app and the standalone page run this same code as Bokeh
 * CustomJS; see render/teach.py). Plain ES2019.
 *
 *   why        the sentence for an idle gap: its rank's next op and what it waits for
 *              (hover tooltip and tap), from the "waits" source's numbers and the
 *              templates in "teach_words" (the strings table, current language)
 *   follow     tapping an op selects every op of its micro-batch (Bokeh dims the
 *              rest); tapping one of them again, or empty space, clears. It stays
 *              followed through zooms, resizes and new parameters while it exists;
 *              a box of merged narrow ops asks the reader to zoom in
 *   play       a cursor over the timeline: play/pause, a time slider to scrub (the
 *              cursor line can be dragged too; its header is the clock), a speed; ops
 *              after the cursor are covered, the in-flight bars show the count at the
 *              cursor's time
 *   download   the timeline and the in-flight bars, with the legend and the readout,
 *              as one PNG made in the browser
 *
 * `refs` holds the models by role (render/teach.py's REFS). State that is not a
 * model's (the followed micro-batch, the play loop) lives in one object per
 * document, PipevizTeach.state(refs).
 */
(function (root) {
  'use strict';
  if (root.PipevizTeach) return;

  // refs.consts (render/teach.py): {kinds: the op kinds' codes FB, EF, EB (order.py),
  // waits: how a gap ends, other and own (view/teach.py), speeds: the speed buttons'
  // factors, seconds: one iteration's play at 1x}.
  var states = {};

  function state(refs) {
    var id = refs.ops.id;
    if (!states[id]) states[id] = { following: null, why: false, ours: null, playing: false, last: null, frames: [], steps: null, ends: -1 };
    return states[id];
  }

  function words(refs) {
    var d = refs.words.data, out = {};
    for (var i = 0; i < d.key.length; i++) out[d.key[i]] = d.text[i];
    return out;
  }

  function fill(template, args) {
    return String(template || '').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, function (all, name) {
      return Object.prototype.hasOwnProperty.call(args, name) ? String(args[name]) : all;
    });
  }

  // A time as a reader wants it: at most three decimals, no trailing zeros.
  function num(x) { return String(Math.round(x * 1000) / 1000); }

  function opText(w, d, prefix, i, kinds) {
    var kind = d[prefix + '_kind'][i], FB = kinds.FB, EF = kinds.EF, EB = kinds.EB;
    var args = { kind: w['kind.' + kind], mb: d[prefix + '_mb'][i], stage: d[prefix + '_stage'][i],
      mb2: d[prefix + '_mb2'][i], stage2: d[prefix + '_stage2'][i] };
    if (kind === FB) return fill(w['op.pair'], args);
    if (kind === EF || kind === EB) return fill(w['op.encoder'], args);
    return fill(w['op.desc'], args);
  }

  // The waits row of the bubble at row `b` of the bubbles source (the same gap: rank and start).
  function waitsRow(refs, b) {
    var bd = refs.bubbles.data, d = refs.waits.data, n = d.rank.length;
    if (b < n && d.rank[b] === bd.rank[b] && d.left[b] === bd.left[b]) return b;
    for (var i = 0; i < n; i++) if (d.rank[i] === bd.rank[b] && d.left[i] === bd.left[b]) return i;
    return -1;
  }

  function why(refs, b) {
    var i = waitsRow(refs, b);
    if (i < 0) return '';
    var w = words(refs), d = refs.waits.data, form = d.form[i], c = refs.consts, k = c.kinds;
    var args = { rank: d.rank[i], end: num(form === c.waits.other ? d.dep_end[i] : d.right[i]) };
    if (form === c.waits.other) {
      args.next = opText(w, d, 'next', i, k);
      args.dep = opText(w, d, 'dep', i, k);
      args.dep_rank = d.dep_rank[i];
      return fill(w['why.other'], args);
    }
    if (form === c.waits.own) {
      args.next = opText(w, d, 'next', i, k);
      return fill(w['why.own'], args);
    }
    return fill(w['why.end'], args);
  }

  function say(refs, text) {
    if (refs.why.text !== text) refs.why.text = text;
  }

  // The note under the timeline when nothing is selected.
  function idleNote(refs) {
    var w = words(refs), c = refs.critical.data;
    if (c.op && c.op.length) {
      var makespan = refs.time.end;
      return fill(w['critical.note'], { n: c.op.length, makespan: num(makespan) });
    }
    return w['why.hint'] || '';
  }

  // -- follow a micro-batch ------------------------------------------------------

  function same(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // Select `indices` ourselves. Bokeh runs a CustomJS callback later (its execute is
  // async), so the change event this causes is recognised by its indices, not by a
  // flag set around the assignment.
  function setSelection(refs, indices) {
    var st = state(refs);
    if (same(refs.ops.selected.indices, indices)) return; // no change, no event
    st.ours = indices;
    refs.ops.selected.indices = indices;
  }

  // Box j is an op of micro-batch mb (an F&B pair is an op of both of its micro-batches).
  function isOf(d, j, mb, fb) { return d.mb[j] === mb || (d.kind[j] === fb && d.mb2[j] === mb); }

  // The boxes of micro-batch mb that stand for one op each (a run of narrow ops
  // merged into one box is not its own: the reader zooms in to follow one).
  function opsOf(d, mb, fb) {
    var out = [], n = d.mb.length;
    for (var j = 0; j < n; j++) if (d.count[j] === 1 && isOf(d, j, mb, fb)) out.push(j);
    return out;
  }

  function follow(refs, mb) {
    var st = state(refs), all = opsOf(refs.ops.data, mb, refs.consts.kinds.FB), n = refs.mb_ops.data.n;
    st.following = mb;
    setSelection(refs, all);
    say(refs, fill(words(refs)['follow.on'], { mb: mb, n: n[mb] }));
  }

  function unfollow(refs, note) {
    state(refs).following = null;
    setSelection(refs, []);
    say(refs, note);
  }

  function onOpsSelected(refs) {
    var st = state(refs), idx = refs.ops.selected.indices, d = refs.ops.data, ours = st.ours;
    st.ours = null;
    if (ours !== null && same(ours, idx)) return;
    st.why = false; // a tap on the ops: what a gap said is replaced
    if (!idx.length) return unfollow(refs, idleNote(refs)); // a tap on empty space
    var i = idx[0];
    if (d.count[i] > 1) return unfollow(refs, fill(words(refs)['follow.merged'], { count: d.count[i] }));
    if (st.following !== null && idx.length === 1 && isOf(d, i, st.following, refs.consts.kinds.FB)) return unfollow(refs, idleNote(refs));
    follow(refs, d.mb[i]);
  }

  function onBubblesSelected(refs) {
    // Only a cleared gap's own sentence goes back to the idle note: the same tap that
    // clears the gaps may have just followed an op or said a box is merged.
    var idx = refs.bubbles.selected.indices, st = state(refs);
    if (idx.length) { say(refs, why(refs, idx[0])); st.why = true; }
    else if (st.why) { st.why = false; if (st.following === null) say(refs, idleNote(refs)); }
  }

  // New boxes (a zoom, a resize, a new schedule): the old indices mean nothing now.
  // The followed micro-batch stays followed while it exists. Done once Bokeh has
  // taken the new data in (a selection changed inside the data's own change event
  // meets the old indices).
  function onOpsData(refs) {
    var st = state(refs);
    root.setTimeout(function () {
      if (refs.bubbles.selected.indices.length) refs.bubbles.selected.indices = [];
      var mb = st.following, n = refs.mb_ops.data.n;
      if (mb !== null && mb < n.length && n[mb] > 0) follow(refs, mb);
      else unfollow(refs, idleNote(refs));
    }, 0);
  }

  // -- play ----------------------------------------------------------------------

  // Per (what, rank): the rows of cursor_steps, in time order (the source is sorted so).
  function segments(refs) {
    var st = state(refs), d = refs.steps.data;
    if (st.steps && st.steps.data === d) return st.steps;
    var seg = { data: d, total: {}, held: {}, split: false }, n = d.rank.length;
    for (var i = 0; i < n; i++) {
      var into = d.what[i] === 0 ? seg.total : seg.held;
      if (d.what[i] !== 0) seg.split = true;
      var r = d.rank[i];
      if (!into[r]) into[r] = [i, i + 1];
      else into[r][1] = i + 1;
    }
    st.steps = seg;
    return seg;
  }

  // The value a step function holds at time t: that of its last step at or before t.
  function valueAt(d, range, t) {
    if (!range) return 0;
    var lo = range[0], hi = range[1];
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (d.time[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo > range[0] ? d.value[lo - 1] : 0;
  }

  function countsAt(refs, t) {
    var seg = segments(refs), d = refs.steps.data, P = refs.bars.data.rank.length;
    var rank = new Float64Array(P), zero = new Float64Array(P), held = new Float64Array(P), total = new Float64Array(P);
    for (var r = 0; r < P; r++) {
      rank[r] = r;
      total[r] = valueAt(d, seg.total[r], t);
      held[r] = seg.split ? valueAt(d, seg.held[r], t) : total[r];
    }
    return { rank: rank, zero: zero, held: held, total: total };
  }

  function active(refs) {
    var end = refs.time.end;
    return refs.time.value < end - 1e-9 * Math.max(1, end);
  }

  function setIf(model, attrs) {
    var changes = {}, any = false;
    Object.keys(attrs).forEach(function (k) {
      if (model[k] !== attrs[k]) { changes[k] = attrs[k]; any = true; }
    });
    if (any) model.setv(changes);
  }

  // Draw the cursor where the time slider is. (The clock is the slider's own header:
  // render/teach.py's CLOCK_JS formats its value.)
  function showCursor(refs) {
    // No steps yet (the served app sends them after the chart: app._defer_cursor_steps):
    // no cursor, rather than counts of the result before.
    var t = refs.time.value, on = active(refs) && refs.steps.data.rank.length > 0;
    refs.cursors.forEach(function (span) { setIf(span, { location: t, visible: on }); });
    refs.curtains.forEach(function (box) { setIf(box, { left: t, visible: on }); });
    setIf(refs.bars_dim, { visible: on });
    refs.cursor_glyphs.forEach(function (r) { setIf(r, { visible: on }); });
    // The counts change only where an op starts or ends: a new data object on every
    // frame would make the bars' plot measure its ranges and layout again each time.
    var bars = on ? countsAt(refs, t) : { rank: [], zero: [], held: [], total: [] }, now = refs.cursor_bars.data;
    if (!sameColumns(now, bars)) refs.cursor_bars.data = bars;
  }

  // Bokeh writes the slider's header when its value or title changes; a new end (the
  // makespan) under a cursor that stays where it was needs the header written again.
  function showClock(refs) {
    refs.time.show_value = false;
    refs.time.show_value = true;
  }

  function sameColumns(a, b) {
    var keys = Object.keys(b);
    for (var k = 0; k < keys.length; k++) {
      var x = a[keys[k]], y = b[keys[k]];
      if (!x || x.length !== y.length) return false;
      for (var i = 0; i < y.length; i++) if (x[i] !== y[i]) return false;
    }
    return true;
  }

  function playLabel(refs) {
    var w = words(refs), label = refs.play.active ? w['play.pause'] : w['play.play'];
    if (refs.play.label !== label) refs.play.label = label;
  }

  function frame(refs, stamp) {
    var st = state(refs);
    if (!refs.play.active) { st.playing = false; return; }
    var end = refs.time.end;
    if (st.last !== null) {
      var dt = Math.min(stamp - st.last, 250) / 1000; // a hidden tab does not jump to the end
      var c = refs.consts, t = Math.min(refs.time.value + dt * c.speeds[refs.speed.active] * end / c.seconds, end);
      refs.time.value = t;
      if (st.frames.length < 100000) st.frames.push(stamp);
      if (t >= end) { refs.play.active = false; st.playing = false; return; }
    }
    st.last = stamp;
    root.requestAnimationFrame(function (s) { frame(refs, s); });
  }

  function onPlay(refs) {
    var st = state(refs);
    playLabel(refs);
    if (!refs.play.active) { st.playing = false; showCursor(refs); return; }
    if (st.playing) return;
    if (!active(refs)) refs.time.value = 0; // at the end: play from the start
    st.playing = true;
    st.last = null;
    root.requestAnimationFrame(function (s) { frame(refs, s); });
  }

  // The slider moved (a reader, the play loop) or a new result changed its end.
  function onTime(refs) {
    var st = state(refs), end = refs.time.end;
    if (st.ends !== end) { // a new makespan: stay at the end, or where the cursor was if it still fits
      var wasAtEnd = st.ends >= 0 && refs.time.value >= st.ends - 1e-9 * Math.max(1, st.ends);
      st.ends = end; // (the first time, in the served app, the end came before this code ran)
      if (wasAtEnd || refs.time.value > end) { refs.time.value = end; return; }
      if (refs.time.value < end) showClock(refs); // at the end, the header came with the value
    }
    if (refs.time.value < 0) { refs.time.value = 0; return; }
    showCursor(refs);
  }

  // The cursor line was dragged.
  function onSpan(refs, span) {
    var t = Math.max(0, Math.min(span.location, refs.time.end));
    if (t !== refs.time.value) refs.time.value = t;
  }

  // -- download ------------------------------------------------------------------

  function nextFrame() { return new Promise(function (ok) { root.requestAnimationFrame(function () { ok(); }); }); }

  // The slide's legend joins the timeline only for a figure (render/teach.py's
  // add_slide_legend): below the axis, above the readout; its view is built later.
  function showLegend(refs, on) {
    var tl = refs.timeline, legend = refs.slide[0], below = tl.below.filter(function (m) { return m !== legend; });
    if (on) below.splice(Math.max(below.indexOf(refs.slide[1]), 0), 0, legend);
    tl.below = below;
    legend.items.forEach(function (item) { item.renderers.forEach(function (r) { r.visible = on; }); });
  }

  function viewOf(model, frames) {
    var view = root.Bokeh.index.find_one(model);
    if (view || frames <= 0) return Promise.resolve(view);
    return nextFrame().then(function () { return viewOf(model, frames - 1); });
  }

  // The readout line `text` cut into lines that each `fits`, at the best of the breaks
  // that do (view/teach.py's slide_lines is the twin; there, widths are estimated).
  function slideLines(text, fits, breaks, level) {
    level = level || 0;
    if (fits(text) || level === breaks.length) return [text];
    var lines = [], line = '';
    pieces(text, breaks[level]).forEach(function (piece) {
      if (line && !fits(trimLine(line + piece, breaks))) {
        lines.push(trimLine(line, breaks));
        line = piece;
      } else line += piece;
    });
    lines.push(trimLine(line, breaks));
    return [].concat.apply([], lines.map(function (l) { return slideLines(l, fits, breaks, level + 1); }));
  }

  // `text` cut after each break (the earliest first; on a tie, the first listed).
  function pieces(text, breaks) {
    var out = [], start = 0;
    for (;;) {
      var at = -1, end = 0;
      breaks.forEach(function (b) {
        var i = text.indexOf(b, start);
        if (i >= 0 && (at < 0 || i < at)) { at = i; end = i + b.length; }
      });
      if (at < 0) break;
      out.push(text.slice(start, end));
      start = end;
    }
    if (start < text.length) out.push(text.slice(start));
    return out;
  }

  // A line's end without its separator (the first break) or spaces.
  function trimLine(line, breaks) {
    var sep = breaks[0][0];
    if (line.length >= sep.length && line.slice(line.length - sep.length) === sep) line = line.slice(0, line.length - sep.length);
    return line.replace(/ +$/, '');
  }

  // A title's text wrapped to `room` px as the canvas measures it in the title's font.
  function wrapTitle(title, text, room, wrap) {
    var ctx = root.document.createElement('canvas').getContext('2d');
    ctx.font = [title.text_font_style, title.text_font_size, title.text_font].join(' ');
    return slideLines(text, function (t) { return ctx.measureText(t).width <= room; }, wrap.breaks);
  }

  function download(refs, name) {
    var slide = refs.slide, wrap = refs.slide_wrap;
    var views = [refs.timeline, refs.inflight].map(function (m) { return root.Bokeh.index.find_one(m); });
    if (!views[0]) return Promise.resolve(null);
    var texts = refs.slide_texts.data;
    // The titles start at the plot's left edge, right of the rank axis.
    var room = views[0].bbox.width - views[0].frame.bbox.left - wrap.margin;
    var head = wrapTitle(slide[1], texts.head.length ? texts.head[0] : '', room, wrap);
    var summary = wrapTitle(slide[2], texts.summary.length ? texts.summary[0] : '', room, wrap);
    slide[1].text = head.join('\n');
    slide[2].text = summary.join('\n');
    // The legend and the readout take room below the timeline: both plots grow by it,
    // the bars' below their axis, so the two keep their rows side by side. Each line
    // past a title's first adds its line height (view/teach.py's slide_extra).
    var more = function (title, lines) { return (lines - 1) * Math.ceil(parseFloat(title.text_font_size) * wrap.line_height); };
    var tl = refs.timeline, bars = refs.inflight;
    var extra = (texts.extra.length ? texts.extra[0] : 0) + more(slide[1], head.length) + more(slide[2], summary.length);
    var was = { height: tl.height, barsHeight: bars.height, border: bars.min_border_bottom };
    var barsView = views[1], below = barsView ? barsView.bbox.height - barsView.frame.bbox.bottom : 0;
    showLegend(refs, true);
    return viewOf(slide[0], 60).then(function () {
      slide.forEach(function (m) { m.visible = true; });
      tl.height = was.height + extra;
      bars.setv({ height: was.barsHeight + extra, min_border_bottom: below + extra });
    }).then(nextFrame).then(nextFrame).then(function () {
      var layers = views.filter(Boolean).map(function (v) { return v.export('png', true); });
      slide.forEach(function (m) { m.visible = false; });
      showLegend(refs, false);
      tl.height = was.height;
      bars.setv({ height: was.barsHeight, min_border_bottom: was.border });
      var canvas = root.document.createElement('canvas');
      canvas.width = layers.reduce(function (s, l) { return s + l.canvas.width; }, 0);
      canvas.height = layers.reduce(function (h, l) { return Math.max(h, l.canvas.height); }, 0);
      var ctx = canvas.getContext('2d'), x = 0;
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      layers.forEach(function (l) { ctx.drawImage(l.canvas, x, 0); x += l.canvas.width; });
      return new Promise(function (ok) { canvas.toBlob(ok, 'image/png'); });
    }).then(function (blob) {
      if (!blob) return null;
      var link = root.document.createElement('a');
      link.href = root.URL.createObjectURL(blob);
      link.download = name;
      link.dispatchEvent(new root.MouseEvent('click'));
      state(refs).lastDownload = blob;
      return blob;
    });
  }

  // -- one entry for every event ------------------------------------------------

  function on(refs, obj) {
    if (obj === refs.ops.selected) onOpsSelected(refs);
    else if (obj === refs.bubbles.selected) onBubblesSelected(refs);
    else if (obj === refs.ops) onOpsData(refs);
    else if (obj === refs.play) onPlay(refs);
    else if (obj === refs.time) onTime(refs);
    else if (refs.cursors.indexOf(obj) >= 0) onSpan(refs, obj);
    else if (obj === refs.words) {
      playLabel(refs); showCursor(refs);
      if (!refs.ops.selected.indices.length) say(refs, idleNote(refs));
      var title = words(refs)['page.title'];
      if (title && root.document) root.document.title = title; // the browser tab, in the current language
    }
    else if (obj === refs.steps || obj === refs.bars) showCursor(refs);
    else if (obj === refs.critical) { if (state(refs).following === null) say(refs, idleNote(refs)); }
    else if (obj === refs.download || (obj && obj.origin === refs.download)) download(refs, 'pipeviz.png'); // an event
  }

  root.PipevizTeach = {
    on: on, why: why, download: download, countsAt: countsAt, slideLines: slideLines, state: state,
  };
})(typeof window !== 'undefined' ? window : globalThis);
