/* The closing section's readouts (an encoder in the bubbles, activation balancing):
 * twin of pipeviz/view/closing.py. Values first (closingValues, placementsValues:
 * what the parity tests compare), then HTML from the strings table and the layouts.
 * The explorer writes closingHtml under the readout and placementsHtml under the
 * charts (with the comparison table, after the repaint).
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var CLOSING = DATA.features.closing;
  var PALETTE = DATA.palette;
  var X = root.PipevizExplorer;
  var R = X.readouts;
  var BUBBLES = CLOSING.places[2]; // encoder.PLACES' order: part of stage 0, separate, in the bubbles
  var ENCODER_COLOR = PALETTE.kindColors[PALETTE.displayKind[E.EF]];

  function encoderValues(res) {
    var e = res.encoder;
    if (e === null) return null;
    var s = e.settings, others = Math.max(0, res.config.m - res.config.P);
    return {
      place: s.place, frozen: s.frozen,
      makespan: R.num(e.makespan), pipeline: R.num(e.pipelineMakespan), exposed: R.num(e.exposed),
      hidden: R.pct(e.hiddenShare), filled: R.pct(e.bubbleFilled),
      fit_f: e.inGaps[0], fit_b: e.inGaps[1], others_f: others, others_b: s.frozen ? 0 : others,
      rounds_f: e.rounds[0], rounds_b: e.rounds[1],
    };
  }

  function max(a) {
    var m = -Infinity;
    for (var i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
    return m;
  }

  function balanceValues(res) {
    var b = res.balance;
    if (b === null) return null;
    var mt = res.metrics;
    return {
      moved: b.moved,
      rank0: R.num(b.peakMicrobatches[0]), rank0_before: R.num(mt.peakMicrobatches[0]),
      most: R.num(max(b.peakMicrobatches)), most_before: R.num(max(mt.peakMicrobatches)),
      transfers: R.num(b.transfers),
    };
  }

  function closingValues(res) { return { encoder: encoderValues(res), balance: balanceValues(res) }; }

  // The encoder's and the balancing's readout lines, or '' when neither is on.
  function closingHtml(v, lang) {
    var lines = [], e = v.encoder, b = v.balance;
    if (e !== null) {
      lines.push(R.compose('swatch', { color: ENCODER_COLOR }) + T.fill('cl.encoder', lang, {
        place: T.template('choice.' + CLOSING.field + '.' + e.place, lang), makespan: e.makespan,
        pipeline: e.pipeline, exposed: e.exposed, hidden: e.hidden, filled: e.filled,
      }, true));
      if (e.place === BUBBLES && e.others_f === 0) {
        lines.push(T.fill('cl.fit_none', lang, {}, true));
      } else if (e.place === BUBBLES) {
        lines.push(T.fill(e.frozen ? 'cl.fit_frozen' : 'cl.fit', lang, {
          fit_f: e.fit_f, fit_b: e.fit_b, others_f: e.others_f, others_b: e.others_b, rounds_f: e.rounds_f,
          rounds_b: e.rounds_b,
        }, true));
      }
    }
    if (b !== null) {
      if (b.moved) {
        lines.push(T.fill('cl.balance', lang, {
          rank0: b.rank0, rank0_before: b.rank0_before, most: b.most, most_before: b.most_before, transfers: b.transfers,
        }, true));
      } else {
        lines.push(T.fill('cl.balance_none', lang, {}, true));
      }
    }
    if (!lines.length) return '';
    return R.compose('closing', { lines: lines.map(function (x) { return R.compose('closing_line', { text: x }); }).join('') });
  }

  // The three placements at the current settings, one row each (none without an
  // encoder); `run` is the engine (or a cache in front of it).
  function placementsValues(cfg, run) {
    if (cfg.encoder === null) return [];
    var enc = cfg.encoder;
    return CLOSING.places.map(function (place) {
      var row = { place: place, current: place === enc.place }, e;
      try {
        var c = E.config(cfg.schedule, cfg.P, cfg.m, cfg.V, cfg.costs, cfg.G, new E.Encoder(enc.ef, enc.eb, place, enc.frozen), null);
        e = run(c).encoder;
      } catch (err) {
        if (!(err instanceof E.PipevizError && err.type === 'ConfigError')) throw err;
        row.error = T.msg(err.key, err.args);
        return row;
      }
      return Object.assign(row, {
        error: null, makespan: R.num(e.makespan), pipeline: R.num(e.pipelineMakespan), exposed: R.num(e.exposed),
        hidden: R.pct(e.hiddenShare), filled: R.pct(e.bubbleFilled),
      });
    });
  }

  function placementsHtml(rows, lang) {
    if (!rows.length) return '';
    var head = CLOSING.placesHead;
    var out = rows.map(function (row) {
      var cells = [R.compose('td', { text: T.template('choice.' + CLOSING.field + '.' + row.place, lang) })];
      if (row.error !== null) {
        cells.push(R.compose('td_span', { span: String(head.length - 1), text: T.html(row.error, lang) }));
      } else {
        [row.makespan, row.pipeline, row.exposed, row.hidden, row.filled]
          .forEach(function (text) { cells.push(R.compose('td', { text: text })); });
      }
      var current = row.current ? R.compose('row_class', { classes: 'pv-current' }) + R.compose('row_current', {}) : '';
      return R.compose('place_row', { current: current, place: row.place, cells: cells.join('') });
    });
    var th = head.map(function (k) { return R.compose('th', { text: T.template(k, lang) }); }).join('');
    return R.compose('places', {
      title: T.template('cl.places', lang), table: R.compose('table', { head: th, rows: out.join('') }),
      note: T.template('cl.why', lang),
    });
  }

  X.closing = {
    encoderValues: encoderValues, balanceValues: balanceValues, closingValues: closingValues, closingHtml: closingHtml,
    placementsValues: placementsValues, placementsHtml: placementsHtml,
  };
})(typeof window !== 'undefined' ? window : globalThis);
