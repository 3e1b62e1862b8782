/* A real run in the page: twin of pipeviz/view/run_view.py (held to it by
 * tests/test_run_parity.py). A run read by static/trace.js is drawn as a schedule is,
 * its model's ops outlined over the real ones and its communication on a thin lane;
 * the readout and the what-if table are built from the same words and layouts.
 *
 *   var V = PipevizExplorer.runView;
 *   var res = V.resultOf(rep);                        // the run as the figures take a result
 *   var view = V.figureView(rep, res, unit, lang, px);
 *   V.readoutHtml(V.readoutValues(rep), lang); V.whatifHtml(V.whatifValues(rep, what), lang);
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var D = DATA.features.run;
  var ROW = DATA.consts.row;
  var LAYOUTS = DATA.layouts;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  var COMM_KINDS = DATA.trace.commKinds;
  var DEFAULT_COSTS = null;

  function compose(layout, parts) {
    var out = LAYOUTS[layout];
    Object.keys(parts).forEach(function (k) { out = out.split('{' + k + '}').join(parts[k]); });
    return out;
  }

  function ms(x) { return T.format.fixed(x, 2); }
  function pct(x) { return T.format.fixed(100 * x, 2) + '%'; }
  var esc = T.escape;

  // The run as the figures take a result: an order of one's own whose timeline is the measured one.
  function resultOf(rep) {
    var run = rep.run;
    if (DEFAULT_COSTS === null) DEFAULT_COSTS = E.costs(1.0, 1.0, 1.0, 0.0);
    return {
      config: E.config(E.custom.CUSTOM, run.P, run.m, run.V, DEFAULT_COSTS), schedule: E.custom.ENTRIES[run.placement],
      order: run.order, timeline: run.timeline, metrics: run.metrics, theory: null, placement: run.placement,
      encoder: null, balance: null, deadlock: null, stuck: null, bubbleAgrees: false, steadyAgrees: false,
      peakAgrees: false, bubbleParts: null, report: rep,
    };
  }

  function timeWindow(rep) {
    var span = Math.max(rep.run.metrics.makespan, rep.simulatedMetrics.makespan) || 1.0;
    return [-0.01 * span, 1.01 * span];
  }

  // A height in a rank's band [r - ROW, r + ROW] moved to its upper row [r - ROW, r - SPLIT].
  function squeeze(y) {
    var out = new Float64Array(y.length), k = (ROW - D.split) / (2 * ROW);
    for (var i = 0; i < y.length; i++) {
      var r = pyRound(y[i]);
      out[i] = r - ROW + (y[i] - (r - ROW)) * k;
    }
    return out;
  }

  // numpy's rint: halves to even.
  function pyRound(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return f % 2 === 0 ? f : f + 1;
  }

  // The real step's boxes, labels and idle in the upper row of each band (in place).
  function upper(sources) {
    ['ops', 'fb_halves', 'bubbles'].forEach(function (name) {
      var src = sources[name];
      if (src === undefined) return;
      sources[name] = Object.assign({}, src, { top: squeeze(src.top), bottom: squeeze(src.bottom) });
    });
    if (sources.labels !== undefined) sources.labels = Object.assign({}, sources.labels, { y: squeeze(sources.labels.y) });
  }

  function runHeight(P) {
    var h = DATA.consts.timelineHeight;
    return Math.max(h.minPx, Math.min(h.maxPx, h.basePx + D.runRowPx * P));
  }

  function modelColumns(rep) {
    var o = rep.run.order, n = o.kind.length, top = new Float64Array(n), bottom = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      top[i] = o.rank[i] + D.split;
      bottom[i] = o.rank[i] + ROW;
    }
    return { left: Float64Array.from(rep.simulated.start), right: Float64Array.from(rep.simulated.end), top: top,
      bottom: bottom };
  }

  function commCause(kind) {
    var name = COMM_KINDS[kind];
    return name.indexOf('RECV') === 0 ? 0 : name.indexOf('SEND') === 0 ? 1 : 2;
  }

  function commColumns(rep) {
    var c = rep.run.comm, n = c.n, out = { left: new Float64Array(n), right: new Float64Array(n),
      top: new Float64Array(n), bottom: new Float64Array(n), color: new Float64Array(n), token: [] };
    for (var i = 0; i < n; i++) {
      out.left[i] = c.start[i];
      out.right[i] = c.end[i];
      out.top[i] = c.rank[i] + D.commTop;
      out.bottom[i] = c.rank[i] + D.commBottom;
      out.color[i] = commCause(c.kind[i]);
      out.token.push(c.token(i));
    }
    return out;
  }

  function emptySources() {
    var e = function () { return new Float64Array(0); };
    return { run_model: { left: e(), right: e(), top: e(), bottom: e() },
      run_comm: { left: e(), right: e(), top: e(), bottom: e(), color: e(), token: [] } };
  }

  function figureView(rep, res, unit, lang, plotPx) {
    var view = X.columns.figureView(res, unit, lang, plotPx, null, 'count');
    upper(view.sources);
    var height = runHeight(rep.run.P);
    view.props.timeline = { height: height };
    view.props.inflight = { height: height };
    view.sources.run_model = modelColumns(rep);
    view.sources.run_comm = commColumns(rep);
    var w = timeWindow(rep);
    view.props.x_range = { start: w[0], end: w[1], reset_start: w[0], reset_end: w[1] };
    view.props.comm_hover = D.commHover[lang];
    return view;
  }

  // -- the readout ------------------------------------------------------------------------

  function readoutValues(rep) {
    var run = rep.run, costs = rep.costs, mt = run.metrics, sim = rep.simulatedMetrics, S = run.order.S;
    var stages = [], s, j, used = D.stageKinds.map(function () { return false; });
    for (s = 0; s < S; s++) {
      var means = [];
      for (j = 0; j < D.stageKinds.length; j++) {
        var n = costs.stageCount[s][j];
        if (n) used[j] = true;
        means.push(n ? ms(costs.stageMean[s][j]) : '');
      }
      stages.push({ stage: s, rank: costs.stageRank[s], means: means, work: ms(costs.stageWork[s]),
        weight: T.format.fixed(costs.stageWeight[s], 2) });
    }
    var kinds = [];
    D.measuredKinds.forEach(function (k) {
      if (Object.prototype.hasOwnProperty.call(costs.mean, k)) kinds.push([k, ms(costs.mean[k]), costs.count[k]]);
    });
    var cols = D.stageKinds.map(function (_, x) { return x; }).filter(function (x) { return used[x]; });
    return {
      P: run.P, m: run.m, V: run.V, placement: run.placement, n: run.files.length,
      measured: pct(mt.bubbleFraction), model: pct(sim.bubbleFraction),
      makespan: ms(mt.makespan), model_makespan: ms(sim.makespan), gap: ms(rep.gap),
      gaps: rep.gaps.slice(0, D.shownGaps).map(function (g) { return g.msg; }),
      more: Math.max(rep.gaps.length - D.shownGaps, 0), n_gaps: rep.gaps.length,
      kinds: kinds, stage_kinds: cols.map(function (x) { return D.stageKinds[x]; }), stage_cols: cols,
      stages: stages, imbalance: rep.imbalance.msg,
    };
  }

  function cells(list, layout) {
    return list.map(function (c) { return compose(layout, { text: esc(c) }); }).join('');
  }

  function readoutHtml(v, lang) {
    var head = T.fill('run.shown', lang, { P: v.P, m: v.m, V: v.V, placement: T.msg('run.placement_' + v.placement), n: v.n });
    var bubble = T.fill('run.bubble', lang, { measured: v.measured, model: v.model }, true);
    var step = T.fill('run.step', lang, { measured: v.makespan, model: v.model_makespan, gap: v.gap });
    var gaps;
    if (v.gaps.length) {
      var items = v.gaps.map(function (m) { return compose('run_li', { text: T.html(m, lang) }); });
      if (v.more) items.push(compose('run_li', { text: esc(T.fill('run.gaps_more', lang, { n: v.more })) }));
      gaps = compose('run_gaps', { title: esc(T.fill('run.gaps', lang, { n: v.n_gaps })), items: items.join('') });
    } else {
      gaps = compose('run_gaps_none', { title: esc(T.template('run.gaps_none', lang)) });
    }
    var kinds = v.kinds.map(function (k) {
      return esc(T.fill('run.kind_cost', lang, { kind: k[0], ms: k[1], n: k[2] }));
    }).join(' \u00b7 ');
    var head_cells = [T.template('run.stage', lang), T.template('axis.rank', lang)].concat(v.stage_kinds,
      [T.template('run.work', lang), T.template('run.weight', lang)]);
    var rows = v.stages.map(function (st) {
      var list = [String(st.stage), String(st.rank)].concat(v.stage_cols.map(function (j) { return st.means[j]; }),
        [st.work, st.weight]);
      return compose('run_tr', { attrs: '', cells: cells(list, 'run_td') });
    });
    var table = compose('run_table', { head: cells(head_cells, 'run_th'), rows: rows.join('') });
    var costs = compose('run_costs', { title: esc(T.template('run.costs', lang)), kinds: kinds, stages: table });
    return compose('run', { head: esc(head), bubble: bubble, step: esc(step), key: esc(T.template('run.key', lang)),
      gaps: gaps, costs: costs, imbalance: T.html(v.imbalance, lang) });
  }

  // -- what if -----------------------------------------------------------------------------

  function whatifValues(rep, what) {
    var rows = what.rows.map(function (row) {
      var out = { name: row.schedule, V: row.V, error: row.error || null, same: !!row.sameOrder };
      if (!row.error) {
        out.makespan = ms(row.makespan);
        out.bubble = pct(row.bubbleFraction);
        out.peak = T.format.g(row.peakInflightMicrobatches);
        out.vs = (row.vsMeasured > 0 ? '+' : '') + ms(row.vsMeasured);
      }
      return out;
    });
    var c = what.costs;
    return { P: rep.run.P, m: rep.run.m, error: what.error || null, tf: c ? ms(c.tf) : '', tb: c ? ms(c.tb) : '',
      tw: c ? ms(c.tw) : '', split_even: what.splitEven, rows: rows };
  }

  function whatifHtml(v, lang) {
    if (v === null || v === undefined) return compose('run_prompt', { text: esc(T.template('run.whatif_prompt', lang)) });
    if (v.error !== null) return compose('run_prompt', { text: T.html(v.error, lang) });
    var head = D.whatifHead;
    var rows = v.rows.map(function (row) {
      var label = T.template('sched.' + row.name + '.title', lang) + (row.V > 1 ? ' (V=' + row.V + ')' : '');
      if (row.same) label = T.fill('run.ran', lang, { text: label });
      var tds = cells([label], 'run_td');
      if (row.error !== null) tds += compose('run_td_span', { span: String(head.length - 1), text: T.html(row.error, lang) });
      else tds += cells([row.makespan, row.bubble, row.peak, row.vs], 'run_td');
      return compose('run_tr', { attrs: row.same ? compose('run_ran', {}) : '', cells: tds });
    });
    var title = T.fill('run.whatif_title', lang, { P: v.P, m: v.m, tf: v.tf, tb: v.tb, tw: v.tw });
    if (v.split_even) title += ' ' + T.template('trace.split_even', lang);
    var ths = cells(head.map(function (k) { return T.template(k, lang); }), 'run_th');
    return compose('run_whatif', { title: esc(title), table: compose('run_table', { head: ths, rows: rows.join('') }) });
  }

  function mbText(n) { return T.format.fixed(n / 1048576, 1) + ' MB'; }

  // Too large for the page (view/run_view.py too_large(size, limit, "page")).
  function tooLarge(size, limit) {
    return T.msg('run.too_large', { size: mbText(size), max: mbText(limit), where: T.msg(D.wherePage) });
  }

  X.runView = {
    resultOf: resultOf, timeWindow: timeWindow, squeeze: squeeze, upper: upper, runHeight: runHeight, modelColumns: modelColumns, commColumns: commColumns, emptySources: emptySources,
    figureView: figureView, readoutValues: readoutValues, readoutHtml: readoutHtml, whatifValues: whatifValues,
    whatifHtml: whatifHtml, tooLarge: tooLarge, mbText: mbText,
  };
})(typeof window !== 'undefined' ? window : globalThis);
