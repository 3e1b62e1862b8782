/* The trade-off view: twin of pipeviz/view/tradeoff.py, held to it by
 * tests/test_tradeoff_parity.py.
 *
 * values(state, cfg, run): every schedule at each V it accepts (compare.js) at cfg's
 * P, m and costs with the state's model, HBM and stage weights; figureView(values,
 * current, lang) the figure's sources and properties; noteLines / noteHtml the note.
 * follow(explorer, run, ready) draws it after the chart, in the explorer's slices: between
 * slices the points computed so far (`ready`), and the note says how many are to come.
 * tapped(explorer): a tap on a point shows that schedule at that V (explorer.update).
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  var D = DATA.features.tradeoff; // pending, hollow, frontLine
  var PAL = DATA.palette;
  // Between slices, the points so far are drawn at most this often: each draw repaints
  // the figure, and a draw per run took the page 4.8 s to follow m at (32, 128) (benchmarks/tradeoff.py).
  var PARTIAL_MS = D.partialMs;

  function isConfigError(e) { return e instanceof E.PipevizError && e.type === 'ConfigError'; }

  function key(state, cfg) {
    var c = cfg.costs;
    return JSON.stringify([cfg.P, cfg.m, c.tf, c.tb, c.tw, c.comm, c.tfb, X.memoryView.memoryKey(state), state.stages,
      state.weights]);
  }

  function values(state, cfg, run) {
    var MV = X.memoryView, model = MV.modelOf(state);
    var out = { P: cfg.P, m: cfg.m, gib: model !== null, hbm: null, rows: [], refused: [], pending: 0, problem: null };
    var got;
    try {
      if (model !== null) {
        MV.checkHbm(state);
        out.hbm = state.hbm;
      }
      var weights = state.stages === 'list' ? E.parseWeights(state.weights) : null;
      got = E.compare.compare(cfg.P, cfg.m, cfg.costs, {
        model: model, hbmGib: out.hbm === null ? 80.0 : out.hbm, weights: weights, equalStages: state.stages === 'equal',
        run: run,
      });
    } catch (e) {
      if (!isConfigError(e)) throw e;
      out.problem = T.msg(e.key, e.args);
      return out;
    }
    out.rows = got.rows;
    got.refused.forEach(function (x) {
      if (x.reason.key === D.pending) out.pending++;
      else out.refused.push({ schedule: x.schedule, V: x.V, reason: T.msg(x.reason.key, x.reason.args) });
    });
    return out;
  }

  // A run that gives what `ready` holds and refuses the rest as pending.
  function readyOnly(ready) {
    return function (cfg) {
      var res = ready(cfg);
      if (res === null || res === undefined) throw E.configError(D.pending, {});
      return res;
    };
  }

  function currentOf(cfg) { return cfg !== null && E.SCHEDULES.has(cfg.schedule) ? [cfg.schedule, cfg.V] : null; }

  function style(i) {
    var c = PAL.scheduleColors, mk = PAL.scheduleMarkers;
    return [c[i % c.length], mk[i % mk.length]];
  }

  function label(name, V, lang) {
    var title = T.template('sched.' + name + '.title', lang);
    return E.SCHEDULES.get(name).fixedV ? title : title + ' V=' + V;
  }

  function range(xs, low) {
    if (!xs.length) return { start: 0.0, end: 1.0 };
    var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
    var pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 1.0;
    return { start: low !== null ? low : Math.max(0.0, lo - pad), end: hi + pad };
  }

  function figureView(v, current, lang) {
    var t = function (k) { return T.template(k, lang); };
    var rows = v.rows, gib = v.gib;
    var xs = rows.map(function (r) { return gib ? r.peak_memory_gib : r.peak_inflight_microbatches; });
    var ys = rows.map(function (r) { return r.makespan; });
    var pts = {};
    D.columns.forEach(function (k) { pts[k] = []; });
    var front = [], now = [];
    rows.forEach(function (r, i) {
      var st = style(E.NAMES.indexOf(r.schedule)), marks = gib ? [t(r.fits ? 'tradeoff.fits' : 'tradeoff.over')] : [];
      if (r.pareto) marks.push(t('tradeoff.front'));
      pts.x.push(xs[i]); pts.y.push(ys[i]); pts.schedule.push(r.schedule); pts.V.push(r.V);
      pts.name.push(t('sched.' + r.schedule + '.title')); pts.label.push(label(r.schedule, r.V, lang));
      pts.color.push(st[0]); pts.marker.push(st[1]); pts.fill_alpha.push(r.fits === false ? D.hollow : 1.0);
      pts.line_color.push(r.pareto ? D.frontLine : st[0]);
      pts.line_width.push(r.pareto ? 2.5 : (r.fits === false ? 2.0 : 1.0));
      pts.bubble.push(r.bubble_fraction); pts.mark.push(marks.join(', '));
      if (r.pareto) front.push([xs[i], ys[i]]);
      if (current !== null && r.schedule === current[0] && r.V === current[1]) now.push([xs[i], ys[i]]);
    });
    front.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    now = now.slice(0, 1);
    var hbm = v.hbm, unit = gib ? ' GiB' : '';
    return {
      sources: {
        tradeoff_points: pts,
        tradeoff_front: { x: front.map(function (p) { return p[0]; }), y: front.map(function (p) { return p[1]; }) },
        tradeoff_now: { x: now.map(function (p) { return p[0]; }), y: now.map(function (p) { return p[1]; }) },
      },
      props: {
        tradeoff_title: { text: t('tradeoff.title') },
        tradeoff_xaxis: { axis_label: t(gib ? 'tradeoff.axis_gib' : 'tradeoff.axis_mb') },
        tradeoff_yaxis: { axis_label: t('tradeoff.axis_y') },
        tradeoff_x_range: range(hbm !== null ? xs.concat([hbm]) : xs, 0.0),
        tradeoff_y_range: range(ys, null),
        tradeoff_hbm: { visible: hbm !== null, location: hbm !== null ? hbm : 0.0 },
        tradeoff_hbm_label: { visible: hbm !== null, x: hbm !== null ? hbm : 0.0,
          text: hbm !== null ? T.fill('tradeoff.hbm', lang, { v: T.format.g(hbm) }) : '' },
        tradeoff_hover: { tooltips: [[t('tradeoff.hover_schedule'), '@label'], [t('tradeoff.hover_makespan'), '@y{0.[000]}'],
          [t('tradeoff.hover_bubble'), '@bubble{0.00%}'], [t('tradeoff.hover_memory'), '@x{0.[00]}' + unit],
          [t('tradeoff.hover_mark'), '@mark']] },
      },
    };
  }

  function noteLines(v, own, lang) {
    if (v.problem !== null) {
      return [T.fill('tradeoff.problem', lang, { why: T.text(v.problem, lang) }), T.template('tradeoff.caveat', lang)];
    }
    var lines = [];
    if (v.pending) lines.push(T.fill('tradeoff.computing', lang, { done: v.rows.length, n: v.rows.length + v.pending }));
    lines.push(T.fill(v.gib ? 'tradeoff.key' : 'tradeoff.key_no_model', lang, { P: v.P, m: v.m }));
    if (own) lines.push(T.template('tradeoff.not_shown', lang));
    if (v.refused.length) {
      var groups = new Map();
      v.refused.forEach(function (x) {
        if (!groups.has(x.schedule)) groups.set(x.schedule, []);
        groups.get(x.schedule).push(x);
      });
      lines.push(T.fill('tradeoff.refused', lang, { n: v.refused.length }));
      groups.forEach(function (xs, name) {
        lines.push(T.fill('tradeoff.refused_one', lang, {
          name: T.template('sched.' + name + '.title', lang),
          Vs: xs.map(function (x) { return String(x.V); }).join(', '), why: T.text(xs[0].reason, lang),
        }));
      });
    }
    lines.push(T.template('tradeoff.caveat', lang));
    return lines;
  }

  function noteHtml(v, own, lang) {
    return noteLines(v, own, lang).map(function (line) { return '<p>' + T.escape(line) + '</p>'; }).join('');
  }

  // Draw `v` on the explorer's figure and note (only what changed).
  function show(explorer, v) {
    var res = explorer.result, lang = explorer.values.lang, doc = explorer.doc;
    var view = figureView(v, currentOf(res.config), lang);
    Object.keys(view.sources).forEach(function (name) { explorer.setSource(name, view.sources[name]); });
    Object.keys(view.props).forEach(function (name) {
      var model = doc.get_model_by_name(name), attrs = view.props[name], changes = {}, any = false;
      Object.keys(attrs).forEach(function (attr) {
        if (!X.same(model[attr], attrs[attr])) { changes[attr] = attrs[attr]; any = true; }
      });
      if (any) model.setv(changes);
    });
    explorer.setHtml('pv-tradeoff-note', noteHtml(v, res.theory === null, lang));
  }

  // After the chart, in the explorer's slices (static/explorer.js, Explorer.slice): `run`
  // may end the slice by throwing; then the points `ready` holds are drawn before it ends.
  function follow(explorer, run, ready) {
    var res = explorer.result, state = explorer.resultState;
    if (res === null) return;
    var k = key(state, res.config), cache = explorer.tradeoffValues;
    var v = cache && cache[0] === k ? cache[1] : null;
    if (v === null) {
      try {
        v = values(state, res.config, run);
      } catch (e) {
        var now = root.performance.now();
        if (ready && !(explorer.tradeoffShownAt > now - PARTIAL_MS)) {
          show(explorer, values(state, res.config, readyOnly(ready)));
          explorer.tradeoffShownAt = now;
        }
        throw e;
      }
      explorer.tradeoffValues = [k, v];
    }
    show(explorer, v);
  }

  // A point was tapped: show its schedule at its V, as the schedule menu and V slider would.
  function tapped(explorer) {
    var source = explorer.doc.get_model_by_name('tradeoff_points'), picked = source.selected.indices;
    if (!picked.length) return;
    var i = picked[0], name = source.data.schedule[i], V = source.data.V[i];
    source.selected.indices = [];
    if (name === undefined) return;
    explorer.update(new Map([['schedule', name], ['V', V], ['custom', false]]), []);
  }

  X.tradeoff = {
    key: key, values: values, readyOnly: readyOnly, currentOf: currentOf, figureView: figureView, noteLines: noteLines,
    noteHtml: noteHtml, follow: follow, tapped: tapped,
  };
})(typeof window !== 'undefined' ? window : globalThis);
