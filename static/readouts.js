/* The explorer's readouts: twin of pipeviz/view/readouts.py.
 *
 * Each readout is built in two steps, as in Python: *Values computes the numbers as
 * text, *Html puts them into templates from the strings table (words, escaped
 * arguments) and the layouts (markup only, PIPEVIZ_DATA.layouts). Everything that
 * came from a user is escaped.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var LAYOUTS = DATA.layouts;
  var TABLE_HEAD = DATA.tableHead;
  var PALETTE = DATA.palette;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};

  // Put HTML parts into a layout (the parts are already escaped).
  function compose(layout, parts) {
    var out = LAYOUTS[layout];
    Object.keys(parts).forEach(function (k) { out = out.split('{' + k + '}').join(parts[k]); });
    return out;
  }

  function pct(x) { return T.format.fixed(100 * x, 2) + '%'; }

  function num(x) { return T.format.g(x); }

  // '(P-1)/(m+P-1) = 3/11 = 27.27%'.
  function closedFormText(res) {
    var th = res.theory, frac = E.fractionText(th.bubble);
    var middle = frac && frac.indexOf('/') >= 0 ? ' = ' + frac : '';
    return th.bubbleFormula + middle + ' = ' + pct(th.bubble.toNumber());
  }

  function sameTime(a, b, makespan) { return Math.abs(a - b) <= 1e-9 * Math.max(1.0, makespan); }

  // A bubble its authors state as idle time (DeepSeek's), beside the simulated idle of
  // every rank: which ranks idle exactly that long, and whether it is the longest.
  function authorsValues(res) {
    var th = res.theory, mt = res.metrics;
    if (th === null || !th.authors) return null;
    var a = th.authors, value = a.idle.toNumber(), idle = Array.from(mt.idle), ranks = [], top = 0;
    idle.forEach(function (x, r) {
      if (sameTime(x, value, mt.makespan)) ranks.push(r);
      if (x > idle[top]) top = r;
    });
    return {
      who: a.who, formula: a.formula, value: num(value), idle: idle.map(num), ranks: ranks,
      largest: ranks.length > 0 && sameTime(idle[top], value, mt.makespan), top: top, top_idle: num(idle[top]),
    };
  }

  function authorsVerdict(v) {
    if (v.largest) return T.msg('ro.authors_largest', { ranks: v.ranks });
    if (v.ranks.length) return T.msg('ro.authors_rank', { ranks: v.ranks, top: v.top, top_idle: v.top_idle });
    return T.msg('ro.authors_none', {}); // the bubble's verdict says why
  }

  function authorsHtml(v, lang) {
    if (v === null) return '';
    var text = T.fill('ro.authors', lang, {
      who: T.msg(v.who, {}), formula: v.formula, value: v.value, idle: v.idle, verdict: authorsVerdict(v),
    }, true);
    return compose('authors', { text: text });
  }

  // What the readout says of an order of one's own (view/own_order.readout_values).
  // `label` says what it is instead, where it is not a pasted order (a puzzle's).
  function ownValues(res, label) {
    return { P: res.config.P, m: res.config.m, V: res.config.V, placement: res.schedule.placement,
      deadlock: res.deadlock !== null && res.deadlock !== undefined, label: label || null };
  }

  function ownVerdict(own) {
    if (own.label) return own.label;
    return T.msg('own.shown', { P: own.P, m: own.m, V: own.V, placement: own.placement });
  }

  // A result drawn with another below it (a puzzle's order beside par) reports its own
  // part's numbers (`yours`), under its own label.
  function readoutValues(res) {
    var label = res.label || null;
    res = res.yours || res;
    var mt = res.metrics, th = res.theory;
    var steady = Math.abs(mt.steadyBubbleFraction - mt.bubbleFraction) > 1e-12;
    return {
      sim: pct(mt.bubbleFraction),
      closed: th !== null ? closedFormText(res) : null,
      agree: res.bubbleAgrees,
      why: th !== null ? th.caveat : null,
      own: th === null ? ownValues(res, label) : null, // an order of one's own
      makespan: num(mt.makespan),
      steady: steady ? pct(mt.steadyBubbleFraction) : null,
      peak_mb: num(mt.peakMicrobatches[0]),
      peak_chunks: mt.peakChunks[0],
      chunks: res.order.chunksPerRank,
      p2p_article: mt.p2pArticle,
      p2p_total: mt.p2pPerMicrobatch,
      // unequal stages or comm: the bubble's parts (an order of one's own's too, if it ran)
      parts: partsValues(res),
      authors: authorsValues(res),
      source: th !== null ? th.source : null,
    };
  }

  function peakText(v, lang) {
    if (v.chunks > 1) return T.fill('ro.peak_mb_chunks', lang, { mb: v.peak_mb, chunks: v.peak_chunks });
    return T.fill('ro.peak_mb', lang, { mb: v.peak_mb });
  }

  function summaryHtml(v, lang) {
    var summary = [T.fill('ro.makespan', lang, { v: v.makespan }, true)];
    if (v.steady !== null) summary.push(T.fill('ro.steady', lang, { v: v.steady }, true));
    summary.push(T.fill('ro.peak', lang, { v: peakText(v, lang) }, true));
    summary.push(T.fill('ro.p2p', lang, { article: v.p2p_article, total: v.p2p_total }, true));
    return summary.join(LAYOUTS.sep);
  }

  // An order of one's own: its simulated numbers, what was read from it, no closed
  // form; a deadlocked one says so (the notice names the stuck ops).
  function ownReadoutHtml(v, lang) {
    var own = v.own, verdict = compose('verdict', { cls: 'own', text: T.html(ownVerdict(own), lang) });
    if (own.deadlock) {
      return compose('readout', { bubble: T.fill('own.deadlock', lang, {}, true), verdict: verdict, authors: '', summary: '' });
    }
    return compose('readout', {
      bubble: T.fill('own.bubble', lang, { sim: v.sim }, true), verdict: verdict + partsHtml(v.parts, lang),
      authors: '', summary: summaryHtml(v, lang),
    });
  }

  function readoutHtml(v, lang) {
    if (v.own !== null) return ownReadoutHtml(v, lang);
    var verdict;
    if (v.agree) {
      verdict = compose('verdict', { cls: 'agree', text: T.fill('ro.agree', lang, {}, true) });
    } else {
      var why = v.why !== null ? v.why : T.msg('ro.no_caveat', {});
      verdict = compose('verdict', { cls: 'differ', text: T.fill('ro.differ', lang, { why: why }, true) });
    }
    return compose('readout', {
      bubble: T.fill('ro.bubble', lang, { sim: v.sim, closed: v.closed }, true),
      verdict: verdict + partsHtml(v.parts, lang),
      authors: authorsHtml(v.authors, lang) + sourceHtml(v.source, lang),
      summary: summaryHtml(v, lang),
    });
  }

  // Whose order is shown, where it is not the one the schedule's summary names.
  function sourceHtml(source, lang) {
    return source === null ? '' : compose('source', { text: T.html(source, lang) });
  }

  // What the in-flight bars show, under them (after balancing: resident, and the
  // bars as they stood before as dashed outlines).
  function barsKeyHtml(hasW, lang, balanced) {
    var item = function (color, key) { return compose('swatch', { color: color }) + T.template(key, lang); };
    var items;
    if (balanced) {
      items = [item(PALETTE.kindColors[0], 'key.resident'),
        compose('swatch_outline', { color: PALETTE.beforeOutline }) + T.template('key.before', lang)];
    } else if (hasW) {
      items = [item(PALETTE.kindColors[0], 'key.awaiting_b'), item(PALETTE.wOnlyColor, 'key.awaiting_w')];
    } else {
      items = [item(PALETTE.kindColors[0], 'key.in_flight')];
    }
    items.push('&#9671; ' + T.template('key.closed_form', lang));
    return compose('key', { items: items.join(' &nbsp; ') });
  }

  // The row of `name` in the comparison table: the current P, m, V and costs, with
  // the schedule's own V where it has a fixed one.
  function tableConfig(cfg, name) {
    // The current encoder and balancing too, so the current row is what the chart shows.
    return E.config(name, cfg.P, cfg.m, E.SCHEDULES.get(name).ownV(cfg.V), cfg.costs, null, cfg.encoder, cfg.balance);
  }

  // The table's row for an order of one's own (first, and current).
  function ownRow(res, memory) {
    res = res.yours || res; // a result drawn with another below it: its own part's row
    var row = { name: res.config.schedule, V: res.config.V, current: true, mem: null, best: false };
    if (res.deadlock) return Object.assign(row, { error: T.msg('own.deadlock_row', {}) });
    var mt = res.metrics;
    return Object.assign(row, {
      error: null, sim: pct(mt.bubbleFraction), closed: '\u2014', steady: pct(mt.steadyBubbleFraction),
      peak_mb: num(mt.peakMicrobatches[0]), peak_chunks: mt.peakChunks[0], chunks: res.order.chunksPerRank,
      p2p_article: mt.p2pArticle, p2p_total: mt.p2pPerMicrobatch, makespan: mt.makespan,
      mem: memory ? rowMemory(memory(res)) : null,
    });
  }

  // One row per schedule at cfg's P, m and V; `run` is the engine (or a cache in
  // front of it); rowConfig(name) a row's configuration (default tableConfig); with
  // memory(res) (a memory, a message or null) each row gets its peak GiB and whether
  // it fits, and the fastest row that fits is marked; with an order of one's own
  // shown (`own`), its row first.
  function tableValues(cfg, run, rowConfig, memory, own) {
    own = own || null;
    var rows = (own !== null ? [ownRow(own, memory)] : []).concat(E.NAMES.map(function (name) {
      var row = { name: name, V: tableConfig(cfg, name).V, current: own === null && name === cfg.schedule, mem: null,
                  best: false };
      var res;
      try {
        res = run(rowConfig ? rowConfig(name) : tableConfig(cfg, name));
      } catch (e) {
        if (!(e instanceof E.PipevizError && e.type === 'ConfigError')) throw e;
        row.error = T.msg(e.key, e.args);
        return row;
      }
      var mt = res.metrics;
      return Object.assign(row, {
        error: null, sim: pct(mt.bubbleFraction), closed: closedFormText(res), steady: pct(mt.steadyBubbleFraction),
        peak_mb: num(mt.peakMicrobatches[0]), peak_chunks: mt.peakChunks[0], chunks: res.order.chunksPerRank,
        p2p_article: mt.p2pArticle, p2p_total: mt.p2pPerMicrobatch, makespan: mt.makespan,
        mem: memory ? rowMemory(memory(res)) : null,
      });
    }));
    markFastestFit(rows);
    return rows;
  }

  function tableHtml(rows, lang) {
    var withMemory = rows.some(function (row) { return row.mem !== null && row.mem !== undefined; });
    var headKeys = withMemory ? TABLE_HEAD.concat([DATA.tableMemoryHead]) : TABLE_HEAD;
    var out = rows.map(function (row) {
      var label = T.template('sched.' + row.name + '.title', lang) + (row.V > 1 ? ' (V=' + row.V + ')' : '');
      var cells = [compose('td', { text: T.escape(label) })];
      if (row.error !== null) {
        cells.push(compose('td_span', { span: String(headKeys.length - 1), text: T.html(row.error, lang) }));
      } else {
        [row.sim, row.closed, row.steady, peakText(row, lang), String(row.p2p_article), String(row.p2p_total)]
          .forEach(function (text) { cells.push(compose('td', { text: T.escape(text) })); });
        if (withMemory) cells.push(compose('td', { text: rowMemoryText(row, lang) }));
      }
      var classes = rowClasses(row);
      var attrs = classes.length ? compose('row_class', { classes: classes.join(' ') }) : '';
      if (row.current) attrs += compose('row_current', {});
      return compose('row', { current: attrs, name: row.name, cells: cells.join('') });
    });
    var head = headKeys.map(function (k) { return compose('th', { text: T.template(k, lang) }); }).join('');
    return compose('table', { head: head, rows: out.join('') });
  }

  // -- the table's memory column and the bubble's parts (readouts.py) --

  // The bubble's parts as percentages, where stages differ or comm > 0.
  function partsValues(res) {
    var parts = res.bubbleParts;
    if (parts === null) return null;
    return { ideal: pct(parts.ideal), imbalance: pct(parts.imbalance), comm: pct(parts.comm), total: pct(parts.total) };
  }

  function partsHtml(v, lang) {
    if (v === null || v === undefined) return '';
    return compose('parts', { text: T.fill('ro.parts', lang, v, true) });
  }

  // A table row's memory: its tightest rank's peak and whether it fits.
  function rowMemory(mem) {
    if (mem === null) return null;
    if (!X.memoryView.isMemory(mem)) return { error: mem, peak: '', fits: false };
    return { error: null, peak: T.format.fixed(X.memoryView.maxOf(mem.peak) / DATA.memory.gib, 2), fits: mem.fits };
  }

  // Mark the row with the shortest makespan among those that fit (the first on a tie).
  function markFastestFit(rows) {
    var best = null;
    rows.forEach(function (row) {
      if (row.error === null && row.mem && row.mem.fits && (best === null || row.makespan < best.makespan)) best = row;
    });
    if (best !== null) best.best = true;
  }

  function rowClasses(row) {
    var classes = row.current ? ['pv-current'] : [];
    if (row.error === null && row.mem !== null && row.mem !== undefined && !row.mem.fits) classes.push('pv-nofit');
    if (row.best) classes.push('pv-best');
    return classes;
  }

  function rowMemoryText(row, lang) {
    var mem = row.mem;
    if (mem === null) return '';
    if (mem.error !== null) return T.html(mem.error, lang);
    var key = row.best ? 'tbl.best' : mem.fits ? 'tbl.fits' : 'tbl.nofit';
    return T.fill(key, lang, { v: mem.peak }, true);
  }

  X.readouts = {
    compose: compose, pct: pct, num: num, closedFormText: closedFormText, readoutValues: readoutValues,
    authorsValues: authorsValues, authorsVerdict: authorsVerdict, authorsHtml: authorsHtml, ownRow: ownRow,
    summaryHtml: summaryHtml, ownReadoutHtml: ownReadoutHtml,
    peakText: peakText, readoutHtml: readoutHtml, barsKeyHtml: barsKeyHtml, tableConfig: tableConfig,
    tableValues: tableValues, tableHtml: tableHtml, partsValues: partsValues, partsHtml: partsHtml,
    rowMemory: rowMemory, markFastestFit: markFastestFit, rowClasses: rowClasses, rowMemoryText: rowMemoryText,
  };
})(typeof window !== 'undefined' ? window : globalThis);
