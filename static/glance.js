/* Read the explorer at a glance: twin of pipeviz/view/glance.py.
 *
 * legendValues/legendHtml   the timeline's key (kinds x chunks the order uses, idle)
 * lineStyle/linesKeyHtml    the in-flight lines' widths and opacities, and their key
 * opsTableValues/Html       one rank's ops as a table a keyboard can reach
 * matchingPreset            the preset the view is, or null
 * mStart                    the m slider's lowest value: the smallest m the order accepts
 * Layouts, the table's head, the kinds' string keys and the names of the controls
 * arrive as data (PIPEVIZ_DATA.glance); the palette as PIPEVIZ_DATA.palette.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var G = DATA.glance;
  var PALETTE = DATA.palette;
  var LAYOUTS = G.layouts;
  var MAX_CHUNKS = PALETTE.maxChunks, DISPLAY_KIND = PALETTE.displayKind, DISPLAY_NAMES = PALETTE.displayNames;
  var FB = E.FB, EF = E.EF, EB = E.EB;

  function compose(layout, parts) {
    var out = LAYOUTS[layout];
    Object.keys(parts).forEach(function (k) { out = out.split('{' + k + '}').join(parts[k]); });
    return out;
  }

  function num(x) { return T.format.g(x); }

  // The palette's colours and their label colours for `chunks` chunks per rank.
  function palettes(chunks) { return [PALETTE.chunkPalettes[chunks - 1], PALETTE.labelPalettes[chunks - 1]]; }

  function legendValues(res) {
    var order = res.order, chunks = order.chunksPerRank, used = order.kindsUsed;
    var pal = palettes(chunks), colors = pal[0], inks = pal[1];
    var has = function (k) { return used.indexOf(k) >= 0; };
    var shown = [];
    for (var k = 0; k < DISPLAY_KIND.length; k++) {
      if (k !== FB && order.kind.indexOf(k) >= 0 && shown.indexOf(DISPLAY_KIND[k]) < 0) shown.push(DISPLAY_KIND[k]);
    }
    if (has('F&B')) [0, 1].forEach(function (d) { if (shown.indexOf(d) < 0) shown.push(d); });
    shown.sort(function (a, b) { return a - b; });
    var items = shown.map(function (d) {
      var name = 'legend.' + DISPLAY_NAMES[d];
      if (d === 1 && has('I')) name = has('B') ? 'legend.B_both' : 'legend.B_split';
      var n = d === 3 ? 1 : chunks, chips = [];
      for (var c = 0; c < n; c++) {
        var i = d * MAX_CHUNKS + c;
        chips.push({ text: DISPLAY_NAMES[d] + (n > 1 ? String(c) : ''), color: colors[i], ink: inks[i] });
      }
      return { name: name, chips: chips };
    });
    var pair = null;
    if (has('F&B')) pair = { top: colors[0], top_ink: inks[0], bottom: colors[MAX_CHUNKS], bottom_ink: inks[MAX_CHUNKS] };
    return { items: items, pair: pair, chunks: chunks, hatch: PALETTE.bubbleHatch };
  }

  function legendHtml(v, lang) {
    var items = v.items.map(function (item) {
      var chips = item.chips.map(function (c) {
        return compose('chip', { color: c.color, ink: c.ink, text: T.escape(c.text) });
      }).join('');
      return compose('legend_item', { chips: chips, name: T.escape(T.template(item.name, lang)) });
    });
    if (v.pair !== null) {
      items.push(compose('legend_item', {
        chips: compose('chip_pair', v.pair), name: T.escape(T.template('legend.pair', lang)),
      }));
    }
    items.push(compose('legend_item', {
      chips: compose('chip_idle', { hatch: v.hatch }), name: T.escape(T.template('legend.idle', lang)),
    }));
    var note = v.chunks > 1 ? T.fill('legend.chunks', lang, { last: v.chunks - 1 }) : T.template('legend.mb', lang);
    items.push(compose('legend_note', { text: T.escape(note) }));
    return compose('legend', { items: items.join('') });
  }

  function lineStyle(P) {
    var width = new Float64Array(P), alpha = new Float64Array(P), ends = P > G.emphasisAbove;
    for (var r = 0; r < P; r++) {
      var which = !ends ? 'all' : r === 0 || r === P - 1 ? 'ends' : 'rest';
      width[r] = G.lineWidth[which];
      alpha[r] = G.lineAlpha[which];
    }
    return { width: width, alpha: alpha };
  }

  function linesKeyHtml(P, lang) {
    var key = P > G.emphasisAbove ? 'lines.ends' : 'lines.all';
    return compose('lines_key', { text: T.escape(T.fill(key, lang, { last: P - 1 })) });
  }

  function opsTableValues(res, rank, limit) {
    var order = res.order, tl = res.timeline, P = order.P;
    if (limit === undefined) limit = G.opsTableMax;
    rank = Math.min(Math.max(Math.trunc(rank), 0), P - 1);
    var lo = order.rankPtr[rank], hi = order.rankPtr[rank + 1], vShape = res.schedule.placement === 'v';
    var chunk = function (stage) { return vShape ? (stage >= P ? 1 : 0) : Math.floor(stage / P); };
    var rows = [], prevEnd = 0.0;
    for (var i = lo; i < Math.min(hi, lo + limit); i++) {
      var k = order.kind[i], start = tl.start[i], end = tl.end[i], mb = order.mb[i], stage = order.stage[i];
      var mbText, stageText, chunkText;
      if (k === FB) {
        mbText = mb + ' & ' + order.mb2[i];
        stageText = stage + ' & ' + order.stage2[i];
        chunkText = chunk(stage) + ' & ' + chunk(order.stage2[i]);
      } else if (k === EF || k === EB) {
        mbText = String(mb); stageText = '-'; chunkText = '-';
      } else {
        mbText = String(mb); stageText = String(stage); chunkText = String(chunk(stage));
      }
      rows.push({
        n: String(i - lo + 1), token: order.token(i), kind: G.kindKeys[k], mb: mbText, stage: stageText,
        chunk: chunkText, start: num(start), end: num(end), idle: num(Math.max(start - prevEnd, 0.0)),
      });
      prevEnd = end;
    }
    return { rank: rank, P: P, total: hi - lo, rows: rows, chunks: order.chunksPerRank };
  }

  function opsTableHtml(v, lang) {
    var head = G.opsHead.map(function (k) { return compose('th', { text: T.escape(T.template(k, lang)) }); }).join('');
    var rows = v.rows.map(function (r) {
      var cells = [r.n, r.token, T.template('kind.' + r.kind, lang), r.mb, r.stage, r.chunk, r.start, r.end, r.idle];
      return compose('ops_row', { cells: cells.map(function (c) { return compose('td', { text: T.escape(c) }); }).join('') });
    }).join('');
    var caption = T.escape(T.fill('ops.caption', lang, { rank: v.rank, n: v.total }));
    var more = '';
    if (v.total > v.rows.length) {
      more = compose('more', { text: T.escape(T.fill('ops.more', lang, { shown: v.rows.length, n: v.total })) });
    }
    return compose('ops_table', { label: caption, caption: caption, head: head, rows: rows, more: more });
  }

  function matchingPreset(state) {
    var found = null;
    root.PipevizExplorer.fields.PRESETS.forEach(function (values, name) {
      if (found !== null) return;
      if (Object.keys(values).every(function (k) { return state[k] === values[k]; })) found = name;
    });
    return found;
  }

  // The m slider's lowest value: the smallest m the schedule accepts (glance.m_start).
  // Checked for every m up to the answer on each change, so kept by everything but m.
  var mStarts = new Map();
  function mStart(state) {
    var key = JSON.stringify(Object.assign({}, state, { m: null })), hit = mStarts.get(key);
    if (hit === undefined) {
      hit = firstM(state);
      if (mStarts.size >= 16) mStarts.delete(mStarts.keys().next().value);
      mStarts.set(key, hit);
    }
    return hit;
  }

  function firstM(state) {
    var f = root.PipevizExplorer.fields.FIELDS.get('m');
    for (var m = Math.trunc(f.low); m <= Math.trunc(f.high); m++) {
      if (root.PipevizExplorer.state.problem(Object.assign({}, state, { m: m })) === null) return m;
    }
    return Math.trunc(f.low);
  }

  // -- the page's glue (explorer.js calls these; the served app does the same in app.py)

  function byId(id) { return root.document.getElementById(id); }

  // The rank the ops table shows: the page's <select>, kept to 0..P-1.
  function syncRankOptions(P) {
    var select = byId('pv-ops-rank');
    if (!select) return 0;
    if (select.options.length !== P) {
      var keep = Math.min(Number(select.value) || 0, P - 1);
      select.textContent = '';
      for (var r = 0; r < P; r++) {
        var option = root.document.createElement('option');
        option.value = option.textContent = String(r);
        select.appendChild(option);
      }
      select.value = String(keep);
    }
    return Number(select.value) || 0;
  }

  function showOps(explorer) {
    var res = explorer.result, details = byId('pv-ops');
    if (res === null || !details) return;
    var rank = syncRankOptions(res.config.P);
    if (details.open) explorer.setHtml('pv-ops-table', opsTableHtml(opsTableValues(res, rank), explorer.values.lang));
  }

  // After each refresh: the key and the lines' key for what is drawn, the ops table,
  // and the preset menu naming the preset the view is (or its prompt).
  function drawn(explorer, res, lang) {
    explorer.setHtml('pv-legend', legendHtml(legendValues(res), lang));
    explorer.setHtml('pv-lines-key', linesKeyHtml(res.config.P, lang));
    showOps(explorer);
    var slider = explorer.doc.get_model_by_name('m'), low = mStart(explorer.values);
    if (slider && slider.start !== low) slider.start = low; // only values the order accepts
    var menu = explorer.doc.get_model_by_name('preset'), match = matchingPreset(explorer.values);
    if (menu && menu.value !== (match || '')) menu.value = match || '';
  }

  function relabel(lang) {
    var summary = byId('pv-ops-summary'), label = byId('pv-ops-rank-label');
    if (summary) summary.textContent = T.template('ops.title', lang);
    if (label) label.textContent = T.template('field.ops_rank', lang);
  }

  function start(explorer) {
    var select = byId('pv-ops-rank'), details = byId('pv-ops');
    if (select) select.addEventListener('change', function () { showOps(explorer); });
    if (details) details.addEventListener('toggle', function () { showOps(explorer); });
    X.a11y.watch(function () { return G.names[explorer.values.lang]; });
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.glance = {
    drawn: drawn, relabel: relabel, start: start, showOps: showOps,
    legendValues: legendValues, legendHtml: legendHtml, lineStyle: lineStyle, linesKeyHtml: linesKeyHtml,
    opsTableValues: opsTableValues, opsTableHtml: opsTableHtml, matchingPreset: matchingPreset, mStart: mStart,
  };
})(typeof window !== 'undefined' ? window : globalThis);
