/* The explorer's model config, stage weights and memory view: twin of
 * pipeviz/view/memory_view.py. Adds PipevizExplorer.memoryView.
 *
 *   state      normalize (a preset sets its shape; a changed shape makes the model
 *              custom), modelOf, weightsOf, withWeights, rowConfig, memoryOf
 *   figures    the memory bars in GiB, the part over the HBM line, bytes over time,
 *              and the models' properties (figureParts)
 *   readouts   the memory readout, the bubble's parts, the table's memory cells
 * The fields, the model menu, the layouts and the figure's fixed words arrive as data
 * (PIPEVIZ_DATA.fields, .memoryView); the formulas are in memory.js.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var FMT = T.format;
  var DATA = root.PIPEVIZ_DATA;
  var MV = DATA.features.memory;
  var MEM = DATA.memory;
  var GIB = MEM.gib;
  var PRESETS = E.memory.PRESETS;
  var ARCH = MEM.archFields;
  var LAYOUTS = MV.layouts;
  var PALETTE = DATA.palette;
  var NONE = MV.models[0], CUSTOM = MV.models[MV.models.length - 1]; // the menu: none, the presets, custom
  var OVER_TIME = DATA.fields.filter(function (f) { return f.name === 'over_time_unit'; })[0].choices; // count, GiB

  function has(changed, key) { return changed.indexOf(key) >= 0; }

  // -- state --------------------------------------------------------------------------

  // A preset sets its shape; a changed shape makes the model custom (in place).
  function normalize(state, changed, notes) {
    var name = state.model, shape = PRESETS.get(name);
    if (has(changed, 'model') && shape !== undefined) {
      ARCH.forEach(function (k) { state[k] = shape[k]; });
      return;
    }
    if (!ARCH.some(function (k) { return has(changed, k); })) return;
    if (shape !== undefined && ARCH.some(function (k) { return state[k] !== shape[k]; })) {
      state.model = CUSTOM;
      notes.push(T.msg('rule.model_custom', { name: name }));
    } else if (name === NONE) {
      state.model = CUSTOM;
    }
  }

  // The model config the state describes, or null (model "none").
  function modelOf(state) {
    if (state.model === NONE) return null;
    return new E.memory.Model({
      L: state.L, h: state.h, a: state.a, vocab: state.vocab, untied: !!state.untied, s: state.s, b: state.b,
      t: state.t, act: state.act, bytesPerParam: Number(state.bpp), embed: state.embed, head: state.head,
      name: state.model,
    });
  }

  function stagesOf(state) { return E.SCHEDULES.get(state.schedule).chunksPerRank(state.V) * state.P; }

  // The stage weights the state asks for (a ConfigError if they cannot be had).
  function weightsOf(state) {
    if (state.stages === 'list') return E.parseWeights(state.weights);
    if (state.stages === 'model') {
      var model = modelOf(state);
      if (model !== null) {
        var w = E.memory.stageWeights(model, stagesOf(state));
        return w.every(function (x) { return x === 1.0; }) ? null : w;
      }
    }
    return null;
  }

  function checkHbm(state) {
    var hbm = state.hbm, f = root.PipevizExplorer.fields.FIELDS.get('hbm');
    var number = typeof hbm === 'number' && isFinite(hbm);
    if (!(number && f.low <= hbm && hbm <= f.high)) { // an emptied input
      throw E.configError('mem.hbm', { value: number ? T.float(hbm) : FMT.str(hbm), valid: f.rangeText });
    }
  }

  // cfg with the state's stage weights, once the state's model (if any) and HBM are
  // valid (a ConfigError otherwise).
  function withWeights(cfg, state) {
    if (modelOf(state) !== null) checkHbm(state);
    var w = weightsOf(state);
    return w === null ? cfg : E.config(cfg.schedule, cfg.P, cfg.m, cfg.V, cfg.costs, cfg.G, cfg.encoder, cfg.balance, w);
  }

  // The comparison table's row for `name`: the state's P, m, V (the schedule's own
  // where fixed), costs, and the stage weights for that row's stages.
  function rowConfig(state, name) {
    // No encoder, as readouts.tableConfig: the rows compare schedules.
    var row = { schedule: name, V: E.SCHEDULES.get(name).ownV(state.V) };
    row[DATA.features.closing.field] = DATA.features.closing.none;
    return root.PipevizExplorer.state.config(Object.assign({}, state, row));
  }

  // Bytes per rank for the state's model, the reason they cannot be had (a message),
  // or null.
  function memoryOf(res, state) {
    res = res.yours || res; // a result drawn with another below it: the bytes of its own part
    try {
      var model = modelOf(state);
      if (model === null) return null;
      checkHbm(state);
      var mem = E.memory.measureMemory(res.timeline, model, state.hbm), balance = res.balance || null;
      // BPipe: the front ranks' newest chunks held by their partners
      return balance === null ? mem : E.memory.balanceMemory(mem, res.timeline, balance.pairs);
    } catch (e) {
      if (e instanceof E.PipevizError && e.type === 'ConfigError') return T.msg(e.key, e.args);
      throw e;
    }
  }

  function isMemory(m) { return m !== null && m !== undefined && !T.isMsg(m); }

  // What the memory of a given result depends on, beside the result.
  function memoryKey(state) { return JSON.stringify(MV.memoryFields.map(function (k) { return state[k]; })); }

  // -- figure view ---------------------------------------------------------------------

  function gib(a) { return Float64Array.from(a, function (x) { return x / GIB; }); }

  function maxOf(a) {
    var m = -Infinity;
    for (var i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
    return m;
  }

  // GiB per rank: parameters from 0, activations awaiting B, then awaiting W only.
  function bars(mem, P) {
    if (mem === null) {
      var z = new Float64Array(0);
      return { rank: z, zero: z, params: z, act_b: z, total: z };
    }
    var params = gib(mem.params), b = gib(mem.peakB), out = {
      rank: new Float64Array(P), zero: new Float64Array(P), params: params, act_b: new Float64Array(P), total: gib(mem.peak),
    };
    for (var r = 0; r < P; r++) {
      out.rank[r] = r;
      out.act_b[r] = params[r] + b[r];
    }
    return out;
  }

  // The part of each bar above the HBM line, with its label.
  function overBars(mem, lang) {
    var out = { rank: [], left: [], right: [], text: [] };
    if (mem !== null) {
      for (var r = 0; r < mem.peak.length; r++) {
        if (!(mem.peak[r] > mem.hbm)) continue;
        out.rank.push(r);
        out.left.push(mem.hbmGib);
        out.right.push(mem.peak[r] / GIB);
        out.text.push(T.fill('mem.over_label', lang, { v: FMT.fixed(mem.over[r] / GIB, 2) }));
      }
    }
    return { rank: Float64Array.from(out.rank), left: Float64Array.from(out.left), right: Float64Array.from(out.right), text: out.text };
  }

  // Bytes held over time per rank (parameters included), in GiB, as step paths.
  function stepsGib(mem, P) {
    var st = mem.activations, n = st.rank.length, i = 0, xs = [], ys = [], rank = new Float64Array(P);
    for (var r = 0; r < P; r++) {
      var lo = i;
      while (i < n && st.rank[i] === r) i++;
      var k = i - lo, base = mem.params[r], x = new Float64Array(2 * k + 1), y = new Float32Array(2 * k + 1);
      var v = (0.0 + base) / GIB;
      for (var e = 0; e < k; e++) {
        x[2 * e + 1] = x[2 * e + 2] = st.time[lo + e];
        y[2 * e] = y[2 * e + 1] = v;
        v = (st.value[lo + e] + base) / GIB;
      }
      y[2 * k] = v;
      xs.push(x);
      ys.push(y);
      rank[r] = r;
    }
    var style = root.PipevizExplorer.glance.lineStyle(P);
    return { xs: xs, ys: ys, rank: rank, width: style.width, alpha: style.alpha };
  }

  function texts(lang) { return JSON.parse(JSON.stringify(MV.texts[lang])); }

  function props(mem, overTime, lang, height, P) {
    var shown = mem !== null, ticks = [];
    for (var r = 0; r < P; r++) ticks.push(r);
    var out = Object.assign({
      memory: { visible: shown, height: height },
      memory_rank_ticker: { ticks: ticks },
      over_time_hbm: { visible: shown && overTime === OVER_TIME[1] },
    }, texts(lang));
    if (shown) {
      var top = Math.max(maxOf(gib(mem.peak)), mem.hbmGib);
      out.memory_x_range = { start: 0, end: top * 1.3 };
      out.hbm_line = { location: mem.hbmGib };
      out.hbm_label = { x: mem.hbmGib, text: T.fill('mem.hbm_label', lang, { v: FMT.g(mem.hbmGib) }) };
      out.over_time_hbm.location = mem.hbmGib;
      if (overTime === OVER_TIME[1]) {
        out.over_time_y_range = { start: 0, end: top * 1.08 };
        out.over_time_yaxis = { axis_label: T.template('axis.gib_held', lang) };
        out.over_time_title = { text: T.template('title.over_time_gib', lang) };
      }
    }
    return out;
  }

  // {sources, props} this module adds to columns.figureView.
  function figureParts(res, mem, overTime, lang, height) {
    var P = res.config.P;
    var sources = { memory_bars: bars(mem, P), memory_over: overBars(mem, lang) };
    if (mem !== null && overTime === OVER_TIME[1]) {
      sources.steps = stepsGib(mem, P);
      // after balancing, the bytes before it (dashed, as the counts are)
      var before = mem.before ? stepsGib(mem.before, P) : { xs: [], ys: [], rank: new Float64Array(0) };
      sources.steps_before = { xs: before.xs, ys: before.ys, rank: before.rank };
    }
    return { sources: sources, props: props(mem, overTime, lang, height, P) };
  }

  // -- readouts ------------------------------------------------------------------------

  function compose(layout, parts) {
    var out = LAYOUTS[layout];
    Object.keys(parts).forEach(function (k) { out = out.split('{' + k + '}').join(parts[k]); });
    return out;
  }

  // The memory readout's numbers as text (null without a model).
  function memoryValues(mem) {
    if (mem === null) return null;
    if (!isMemory(mem)) return { error: mem };
    var r = mem.tightest, model = mem.model, over = [];
    for (var k = 0; k < mem.over.length; k++) if (mem.over[k] > 0) over.push([k, FMT.fixed(mem.over[k] / GIB, 2)]);
    return {
      error: null, model: model.name, act: model.act, t: model.t, per_layer: FMT.g(model.actBytes() / MEM.mib),
      hbm: FMT.g(mem.hbmGib), rank: r, peak: FMT.fixed(mem.peak[r] / GIB, 2), params: FMT.fixed(mem.params[r] / GIB, 2),
      acts: FMT.fixed((mem.peakB[r] + mem.peakW[r]) / GIB, 2), over: over,
    };
  }

  function memoryHtml(v, lang) {
    if (v === null) return '';
    if (v.error !== null) return compose('memory', { head: T.fill('mem.cannot', lang, { why: v.error }, true), tight: '', over: '' });
    var head = T.fill('mem.head', lang, {
      model: v.model, act: T.template('choice.act.' + v.act, lang), t: v.t, per_layer: v.per_layer,
    }, true);
    var tight = T.fill(v.over.length ? 'mem.tight_over' : 'mem.tight', lang, {
      rank: v.rank, peak: v.peak, hbm: v.hbm, params: v.params, acts: v.acts,
    }, true);
    var over = '';
    if (v.over.length) {
      var ranks = v.over.map(function (o) { return T.fill('mem.over_rank', lang, { rank: o[0], v: o[1] }); }).join(', ');
      over = compose('over', { text: T.fill('mem.over', lang, { n: v.over.length, ranks: ranks, hbm: v.hbm }, true) });
    }
    return compose('memory', { head: head, tight: tight, over: over });
  }

  // What the memory bars show: colours with words, the line, the hatch.
  function memoryKeyHtml(lang) {
    var R = root.PipevizExplorer.readouts;
    var item = function (color, key) { return R.compose('swatch', { color: color }) + T.template(key, lang); };
    var items = [item(PALETTE.paramsColor, 'key.params'), item(PALETTE.kindColors[0], 'key.awaiting_b'),
      item(PALETTE.wOnlyColor, 'key.awaiting_w'), LAYOUTS.dash + T.template('key.hbm', lang),
      LAYOUTS.hatch + T.template('key.over', lang)];
    return R.compose('key', { items: items.join(' &nbsp; ') });
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.memoryView = {
    normalize: normalize, modelOf: modelOf, stagesOf: stagesOf, weightsOf: weightsOf, checkHbm: checkHbm,
    withWeights: withWeights,
    rowConfig: rowConfig, memoryOf: memoryOf, isMemory: isMemory, memoryKey: memoryKey, bars: bars,
    overBars: overBars, stepsGib: stepsGib, texts: texts, props: props, figureParts: figureParts,
    memoryValues: memoryValues, memoryHtml: memoryHtml, memoryKeyHtml: memoryKeyHtml, maxOf: maxOf,
  };
})(typeof window !== 'undefined' ? window : globalThis);
