/* The teaching view: twin of pipeviz/view/teach.py.
 *
 * figureView(res, state, lang) returns {sources, props} for the teaching models that
 * render/teach.py adds to the figures (why a rank idles, the critical path, the
 * cursor's step functions, the browser code's words, the projector's sizes, the
 * slide's legend and readout). draw(explorer, res, lang) applies it after the main
 * figure view, as the served app does. Words and sizes arrive as data
 * (PIPEVIZ_DATA.features.teach).
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  var D = DATA.features.teach; // view/teach.py's constants
  var C = DATA.consts;
  var NONE = E.NONE;

  function labelScale(state) { return state.projector ? D.projectorScale : 1.0; }

  // For each idle gap, its rank's next op (the one that starts when the gap ends), or NONE.
  function nextOps(res, rank, end) {
    var tl = res.timeline, ptr = res.order.rankPtr, tol = 1e-9 * Math.max(1.0, tl.makespan);
    var out = new Int32Array(rank.length);
    for (var g = 0; g < rank.length; g++) {
      var r = rank[g], lo = ptr[r], hi = ptr[r + 1], x = end[g] - tol;
      while (lo < hi) {
        var mid = (lo + hi) >>> 1;
        if (tl.start[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      out[g] = lo < ptr[r + 1] ? lo : NONE;
    }
    return out;
  }

  function opColumns(res, idx, prefix, out) {
    var order = res.order, tl = res.timeline, n = idx.length;
    var cols = { kind: order.kind, mb: order.mb, stage: order.stage, mb2: order.mb2, stage2: order.stage2, rank: order.rank };
    Object.keys(cols).forEach(function (c) {
      var a = new Int32Array(n), src = cols[c];
      for (var g = 0; g < n; g++) a[g] = idx[g] >= 0 ? src[idx[g]] : -1;
      out[prefix + '_' + c] = a;
    });
    var e = new Float64Array(n);
    for (var g = 0; g < n; g++) e[g] = idx[g] >= 0 ? tl.end[idx[g]] : -1;
    out[prefix + '_end'] = e;
  }

  function waits(res) {
    var b = res.metrics.bubbles, n = b.rank.length, order = res.order;
    var dep = E.gapWaits(res.timeline, b.rank, b.end), nxt = nextOps(res, b.rank, b.end);
    var form = new Int32Array(n);
    for (var g = 0; g < n; g++) {
      if (dep[g] === NONE || order.nOps === 0) form[g] = D.waitsEnd;
      else form[g] = order.rank[dep[g]] !== b.rank[g] ? D.waitsOther : D.waitsOwn;
    }
    var out = { rank: b.rank, left: b.start, right: b.end, form: form };
    opColumns(res, nxt, 'next', out);
    opColumns(res, dep, 'dep', out);
    return out;
  }

  function critical(res, on) {
    var tl = res.timeline, order = res.order;
    var path = on ? E.criticalPath(tl) : new Int32Array(0), n = path.length, k = Math.max(n - 1, 0);
    var boxes = { left: new Float64Array(n), right: new Float64Array(n), top: new Float64Array(n),
      bottom: new Float64Array(n), rank: new Float64Array(n), op: path };
    for (var i = 0; i < n; i++) {
      var r = order.rank[path[i]];
      boxes.left[i] = tl.start[path[i]];
      boxes.right[i] = tl.end[path[i]];
      boxes.top[i] = r - C.row;
      boxes.bottom[i] = r + C.row;
      boxes.rank[i] = r;
    }
    var links = { x0: new Float64Array(k), y0: new Float64Array(k), x1: new Float64Array(k), y1: new Float64Array(k) };
    for (var j = 0; j < k; j++) {
      links.x0[j] = tl.end[path[j]];
      links.y0[j] = order.rank[path[j]];
      links.x1[j] = tl.start[path[j + 1]];
      links.y1[j] = order.rank[path[j + 1]];
    }
    return [boxes, links];
  }

  function cursorSteps(res, unit) {
    var mt = res.metrics, scale = unit === C.chunksUnit ? 1.0 : 1.0 / res.order.chunksPerRank;
    var parts = [[0, mt.inflight]];
    if (mt.awaitingB !== null) parts.push([1, mt.awaitingB]);
    var n = parts.reduce(function (s, p) { return s + p[1].rank.length; }, 0), at = 0;
    var out = { what: new Int32Array(n), rank: new Int32Array(n), time: new Float64Array(n), value: new Float64Array(n) };
    parts.forEach(function (p) {
      var s = p[1];
      for (var i = 0; i < s.rank.length; i++, at++) {
        out.what[at] = p[0];
        out.rank[at] = s.rank[i];
        out.time[at] = s.time[i];
        out.value[at] = s.value[i] * scale;
      }
    });
    return out;
  }

  function words(lang) {
    var keys = D.wordKeys.slice(), texts = D.wordKeys.map(function (k) { return T.template(k, lang); });
    D.kindLetters.forEach(function (letter, k) { keys.push('kind.' + k); texts.push(letter); });
    return { key: keys, text: texts };
  }

  // An HTML readout as the text a reader sees (our markup only: tags, entities).
  var NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  function plain(html) {
    return html.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, function (all, name) {
      if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
      return Object.prototype.hasOwnProperty.call(NAMED, name) ? NAMED[name] : all;
    });
  }

  function slideTexts(res, lang) {
    var R = X.readouts, v = R.readoutValues(res), cfg = res.config;
    var bubble = plain(T.fill('ro.bubble', lang, { sim: v.sim, closed: v.closed }, true));
    var head = T.fill('slide.head', lang, { title: T.template('sched.' + cfg.schedule + '.title', lang), P: cfg.P, m: cfg.m,
      V: cfg.V, bubble: bubble });
    var html = R.readoutHtml(v, lang);
    var verdict = plain(/<div class="pv-verdict">(.*?)<\/div>/.exec(html)[1]);
    var summary = plain(/<div class="pv-summary">(.*?)<\/div>/.exec(html)[1]);
    return [head, verdict + D.layoutSep + summary];
  }

  // Fonts and rows for the projector, on or off, by model name.
  function sizes(state) {
    var on = state.projector ? 1 : 0, px = {};
    Object.keys(D.fonts).forEach(function (k) { px[k] = D.fonts[k][on] + 'px'; });
    var out = {};
    D.titles.forEach(function (n) { out[n] = { text_font_size: px.title }; });
    D.axes.forEach(function (n) {
      out[n] = { axis_label_text_font_size: px.axis_label, major_label_text_font_size: px.tick };
    });
    D.labelGlyphs.forEach(function (n) { out[n] = { text_font_size: { value: px.label } }; });
    out.slide_legend = { label_text_font_size: px.legend };
    out.slide_readout = { text_font_size: px.title };
    out.slide_summary = { text_font_size: px.tick };
    out.sweep_legend = { label_text_font_size: px.tick };
    out.sweep_v_legend = { label_text_font_size: px.tick };
    return out;
  }

  // The room a figure's legend and readout lines take below the timeline, in px.
  function slideExtra(projector) { return D.slideLegendPx + D.slideLinePx * (projector ? 3 : 2); }

  function timelineHeight(P, projector) {
    if (!projector) return X.columns.timelineHeight(P);
    return Math.floor(Math.max(220, Math.min(900, 130 + C.rowPx * D.projectorScale * P)));
  }

  function props(res, state, lang) {
    var end = Math.max(res.metrics.makespan, 1e-9), height = timelineHeight(res.config.P, !!state.projector);
    var out = {
      play_time: { end: end, value: end, step: end / 1000 },
      timeline: { height: height },
      inflight: { height: height },
      legend_W: { visible: res.order.hasW },
    };
    [texts(lang), sizes(state)].forEach(function (more) {
      Object.keys(more).forEach(function (name) { out[name] = Object.assign({}, out[name] || {}, more[name]); });
    });
    return out;
  }

  // The teaching models' fixed words in `lang` (view/teach.texts, sent as data).
  function texts(lang) { return JSON.parse(JSON.stringify(D.texts[lang])); }

  // Row mb: how many ops micro-batch mb has (an F&B pair counts for both; view/teach.mb_ops).
  function mbOps(res) {
    var o = res.order, n = new Float64Array(o.m);
    for (var i = 0; i < o.nOps; i++) {
      n[o.mb[i]]++;
      if (o.kind[i] === E.FB && o.mb2[i] !== o.mb[i]) n[o.mb2[i]]++;
    }
    return { n: n };
  }

  function figureView(res, state, lang) {
    var crit = critical(res, !!state.critical), slide = slideTexts(res, lang);
    return {
      sources: {
        waits: waits(res), mb_ops: mbOps(res), critical_path: crit[0], critical_links: crit[1],
        cursor_steps: cursorSteps(res, state.unit), teach_words: words(lang),
        slide_texts: { head: [slide[0]], summary: [slide[1]], extra: [slideExtra(!!state.projector)] },
      },
      props: props(res, state, lang),
    };
  }

  // Apply the teaching view after the explorer's own (Explorer.draw): a source only
  // when what it comes from changed, a property only when its value did.
  function draw(explorer, res, lang) {
    var st = explorer.values, doc = explorer.doc, view = figureView(res, st, lang), drawn = explorer.drawn;
    var from = { waits: [res], mb_ops: [res], critical_path: [res, !!st.critical], critical_links: [res, !!st.critical],
      cursor_steps: [res, st.unit], teach_words: [lang], slide_texts: [res, lang, !!st.projector] };
    Object.keys(from).forEach(function (name) {
      var key = 'teach:' + name;
      if (X.same(drawn[key], from[name])) return;
      explorer.setSource(name, view.sources[name]);
      drawn[key] = from[name];
    });
    // As the served app does: set what differs from what was last set (the browser
    // itself moves the cursor and relabels the play button in between).
    var last = drawn['teach:props'] || (drawn['teach:props'] = {});
    Object.keys(view.props).forEach(function (name) {
      var model = doc.get_model_by_name(name), attrs = view.props[name], changes = {}, any = false;
      if (!model) return;
      var was = last[name] || (last[name] = {});
      Object.keys(attrs).forEach(function (attr) {
        if (!(attr in was) || !X.same(was[attr], attrs[attr])) { changes[attr] = attrs[attr]; was[attr] = attrs[attr]; any = true; }
      });
      if (any) model.setv(changes);
    });
    var page = root.document && root.document.querySelector('.pv-page');
    if (page) page.classList.toggle('pv-projector', !!st.projector);
  }

  X.teach = {
    labelScale: labelScale, nextOps: nextOps, waits: waits, mbOps: mbOps, critical: critical, cursorSteps: cursorSteps, words: words,
    plain: plain, slideTexts: slideTexts, sizes: sizes, timelineHeight: timelineHeight, props: props, texts: texts,
    figureView: figureView, draw: draw,
  };
})(typeof window !== 'undefined' ? window : globalThis);
