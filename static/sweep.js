/* The sweep (more micro-batches, or more chunks per rank): twin of
 * pipeviz/view/sweep.py.
 *
 * mRows(cfg): each schedule's closed-form bubble along m (PIPEVIZ_DATA.sweep.mLine)
 * and its simulated bubble at log-spaced m, at cfg's P, V and costs; vRow(cfg):
 * interleaved 1F1B against V at cfg's P, m and costs. figureView(values, cfg, lang)
 * gives the sweep figures' sources and properties; draw(explorer) recomputes what
 * changed (after the main chart's repaint, as the comparison table) and applies it.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  var S = DATA.sweep;
  var CACHE_SIZE = 8;

  function configError(e) { return e instanceof E.PipevizError && e.type === 'ConfigError'; }

  function closed(cfg) {
    try {
      return E.check(cfg).closedForm(cfg).bubble.toNumber();
    } catch (e) {
      if (configError(e)) return null;
      throw e;
    }
  }

  // The simulated one-iteration bubble, as the engine's measure computes it (only that).
  function simulated(cfg) {
    var spec;
    try { spec = E.check(cfg); } catch (e) {
      if (configError(e)) return null;
      throw e;
    }
    var tl = E.simulate(spec.generate(cfg), cfg.costs), order = tl.order, P = order.P;
    var busy = new Float64Array(P);
    for (var i = 0; i < order.nOps; i++) busy[order.rank[i]] += tl.end[i] - tl.start[i];
    var work = E.sum(busy), ms = tl.makespan;
    var bubble = ms > 0 ? 1.0 - work / (P * ms) : 0.0;
    return Math.abs(bubble) < 1e-12 ? 0.0 : bubble;
  }

  function at(name, P, m, V, costs) { return E.config(name, P, m, V, costs, null); }

  function mRows(cfg) {
    return E.NAMES.map(function (name) {
      var V = E.SCHEDULES.get(name).ownV(cfg.V), pm = [], pts = [];
      S.mPoints.forEach(function (m) {
        var b = simulated(at(name, cfg.P, m, V, cfg.costs));
        if (b !== null) { pm.push(m); pts.push(b); }
      });
      return {
        name: name, V: V, closed: S.mLine.map(function (m) { return closed(at(name, cfg.P, m, V, cfg.costs)); }),
        points_m: pm, points: pts,
      };
    });
  }

  function vRow(cfg) {
    var vs = [], pts = [], closedV = [];
    for (var V = 1; V <= S.vMax; V++) {
      var c = at(S.vSchedule, cfg.P, cfg.m, V, cfg.costs), b = simulated(c);
      closedV.push(closed(c));
      if (b !== null) { vs.push(V); pts.push(b); }
    }
    return { closed: closedV, points_v: vs, points: pts };
  }

  function range(n) { var out = []; for (var i = 1; i <= n; i++) out.push(i); return out; }

  function sweepValues(cfg, rows, byV) {
    return { m: S.mLine.slice(), rows: (rows || mRows)(cfg), V: range(S.vMax), by_v: (byV || vRow)(cfg) };
  }

  function nan(xs) { return xs.map(function (x) { return x === null ? NaN : x; }); }

  function figureView(values, cfg, lang) {
    var t = function (k) { return T.template(k, lang); }, sources = {}, props = {};
    values.rows.forEach(function (row, i) {
      sources['sweep_line_' + i] = { x: values.m, y: nan(row.closed) };
      sources['sweep_sim_' + i] = { x: row.points_m, y: row.points };
      props['sweep_key_' + i] = { label: { value: t('sched.' + row.name + '.title') + (row.V > 1 ? ' (V=' + row.V + ')' : '') } };
    });
    var byV = values.by_v, bubble = t('sweep.axis_bubble');
    sources.sweep_v_line = { x: values.V, y: nan(byV.closed) };
    sources.sweep_v_sim = { x: byV.points_v, y: byV.points };
    Object.assign(props, {
      sweep_m_title: { text: t('sweep.title_m') },
      sweep_v_title: { text: t('sweep.title_v') },
      sweep_m_xaxis: { axis_label: t('sweep.axis_m') },
      sweep_v_xaxis: { axis_label: t('sweep.axis_v') },
      sweep_m_yaxis: { axis_label: bubble },
      sweep_v_yaxis: { axis_label: bubble },
      sweep_legend: { title: t('sweep.key') },
      sweep_m_now: { location: cfg.m },
      sweep_v_now: { location: cfg.V },
      sweep_hover: { tooltips: [['m', '@x'], [bubble, '@y{0.00%}']] },
      sweep_v_hover: { tooltips: [['V', '@x'], [bubble, '@y{0.00%}']] },
      sweep_v_key: { label: { value: t('sched.' + S.vSchedule + '.title') + ' (P=' + cfg.P + ', m=' + cfg.m + ')' } },
    });
    return { sources: sources, props: props };
  }

  // Keep the last few of each half (a slider often goes back and forth).
  function cached(cache, key, make) {
    if (cache.has(key)) return cache.get(key);
    var v = make();
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
    cache.set(key, v);
    return v;
  }

  var rowsCache = new Map(), vCache = new Map();

  function costKey(c) { return [c.tf, c.tb, c.tw, c.comm, c.tfb]; }

  function draw(explorer) {
    var res = explorer.result, doc = explorer.doc, drawn = explorer.drawn, lang = explorer.values.lang;
    if (res === null) return;
    var cfg = res.config;
    var rowsKey = JSON.stringify([cfg.P, cfg.V].concat(costKey(cfg.costs)));
    var vKey = JSON.stringify([cfg.P, cfg.m].concat(costKey(cfg.costs)));
    var values = sweepValues(cfg, function () { return cached(rowsCache, rowsKey, function () { return mRows(cfg); }); },
      function () { return cached(vCache, vKey, function () { return vRow(cfg); }); });
    var view = figureView(values, cfg, lang);
    var was = drawn['sweep:sources'] || (drawn['sweep:sources'] = {});
    var from = { rows: values.rows, by_v: values.by_v };
    Object.keys(view.sources).forEach(function (name) {
      var part = name.indexOf('sweep_v_') === 0 ? from.by_v : from.rows;
      if (was[name] === part) return;
      doc.get_model_by_name(name).data = view.sources[name];
      was[name] = part;
    });
    var last = drawn['sweep:props'] || (drawn['sweep:props'] = {});
    Object.keys(view.props).forEach(function (name) {
      var model = doc.get_model_by_name(name), attrs = view.props[name], changes = {}, any = false;
      if (!model) return;
      var seen = last[name] || (last[name] = {});
      Object.keys(attrs).forEach(function (attr) {
        if (!(attr in seen) || !X.same(seen[attr], attrs[attr])) { changes[attr] = attrs[attr]; seen[attr] = attrs[attr]; any = true; }
      });
      if (any) model.setv(changes);
    });
  }

  X.sweep = {
    closed: closed, simulated: simulated, mRows: mRows, vRow: vRow, sweepValues: sweepValues, figureView: figureView,
    draw: draw,
  };
})(typeof window !== 'undefined' ? window : globalThis);
