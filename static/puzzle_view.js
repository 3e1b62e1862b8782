/* The explorer's side of the puzzles: twin of pipeviz/view/puzzle.py, and the page's
 * glue for its block.
 *
 *   rule(state, changed, notes)   while a puzzle is on: P and m placeable by hand, V in
 *                                 the goal's range, m par accepts, the schedule its par, the moves
 *                                 replayed (the first refused one dropped with the rest,
 *                                 with one note); a schedule or an order of one's own
 *                                 chosen puts it away (state.js calls it first)
 *   act(state, action)            [updates, said]: what a click, key or menu does
 *   blockValues, blockHtml, liveText   the block (markup: PIPEVIZ_DATA.layouts)
 *   figureView(res, lang)         the comparison's row names and hovers
 *   drawn(explorer, res, lang)    after each refresh: the block (static/puzzle_board.js
 *                                 in #pv-puzzle) and the figures' part
 *   handle(explorer, action)      an action, routed here by PipevizExplorer.handle
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA;
  var D = DATA.features.puzzle;
  var LAYOUTS = DATA.layouts;
  var PALETTE = DATA.palette;
  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  var Z = E.puzzle;
  var OFF = D.off;

  function compose(layout, parts) {
    var out = LAYOUTS[layout];
    Object.keys(parts).forEach(function (k) { out = out.split('{' + k + '}').join(parts[k]); });
    return out;
  }
  var esc = T.escape;
  function t(key, lang) { return T.template(key, lang); }

  // -- the state ---------------------------------------------------------------------------

  function shown(state) { return (state.puzzle === undefined ? OFF : state.puzzle) !== OFF; }

  function setupOf(state) {
    var c = E.costs(state.tf, state.tb, state.tw, state.comm, state.tfb || null);
    var enc = new E.Encoder(state.ef, state.eb, D.parPlace, !!state.frozen);
    return Z.setup(state.puzzle, state.P, state.m, state.V, state.cap, c, enc);
  }

  function board(state) { return Z.replayCached(setupOf(state), state.moves); }

  function run(state) { return Z.result(board(state)); }

  function has(changed, key) { return changed.indexOf(key) >= 0; }

  // Why par's schedule refuses the puzzle's size, or null.
  function refusedByPar(state) {
    var s = setupOf(state);
    try {
      E.check(Z.configOf(s, s.goal.known));
    } catch (e) {
      if (e instanceof E.PipevizError && e.type === 'ConfigError') return T.msg(e.key, e.args);
      throw e;
    }
    return null;
  }

  function rule(state, changed, notes) {
    var name = state.puzzle === undefined ? OFF : state.puzzle;
    if (name === OFF) return false;
    if (!has(changed, 'puzzle') && (has(changed, 'schedule') || (state.custom && has(changed, 'custom')))) {
      state.puzzle = OFF;
      notes.push(T.msg('rule.puzzle_off', {}));
      return false;
    }
    var goal = Z.GOALS.get(name);
    state.custom = false;
    if (has(changed, 'puzzle')) { // a puzzle chosen: empty, at its cap (a URL may give both)
      [['cap', goal.cap], ['moves', ''], ['redo', '']].forEach(function (kv) { if (!has(changed, kv[0])) state[kv[0]] = kv[1]; });
    }
    [['P', D.pMax], ['m', D.mMax]].forEach(function (kv) {
      if (state[kv[0]] > kv[1]) {
        state[kv[0]] = kv[1];
        notes.push(T.msg('rule.puzzle_max', { key: kv[0], high: kv[1] }));
      }
    });
    var low = goal.V[0], high = goal.V[1];
    if (!(low <= state.V && state.V <= high)) { // a puzzle chosen brings its V along; a V moved is told
      state.V = Math.min(Math.max(state.V, low), high);
      if (!has(changed, 'puzzle') || has(changed, 'V')) notes.push(T.msg('rule.puzzle_v', { low: low, high: high, V: state.V }));
    }
    state.schedule = goal.known; // par
    try {
      setupOf(state);
    } catch (e) { // costs the engine refuses: the explorer says so, as for any schedule
      if (e instanceof E.PipevizError && e.type === 'ConfigError') return false;
      throw e;
    }
    var why = refusedByPar(state);
    if (why !== null) { // m as par's rule would move it, before the moves are replayed at it
      for (var d = 1, m = null; d < D.mMax && m === null; d++) {
        [state.m + d, state.m - d].forEach(function (c) {
          if (m === null && c >= 1 && c <= D.mMax && refusedByPar(Object.assign({}, state, { m: c })) === null) m = c;
        });
      }
      if (m !== null) {
        state.m = m;
        notes.push(T.msg('rule.m_snap', { why: why, m: m }));
      }
    }
    var b = board(state);
    if (b.refused !== null) {
      state.moves = Z.movesText(b.moves);
      state.redo = '';
      notes.push(T.msg('rule.puzzle_moves', { n: b.refused[0] + 1, text: b.refused[1], why: b.refused[2], kept: b.moves.length }));
    }
    return false;
  }

  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }

  // [updates, said]: the fields an action from the block changes, and what to say.
  function act(state, action) {
    if (action === null || typeof action !== 'object' || Array.isArray(action) || D.actions.indexOf(action.what) < 0) {
      return [{}, null];
    }
    var what = action.what;
    if (what === 'set') {
      var field = action.field, value = action.value, choices = field === D.settable[0] ? D.names : D.caps;
      if (D.settable.indexOf(field) >= 0 && typeof value === 'string' && choices.indexOf(value) >= 0) {
        var up = {};
        up[field] = value;
        return [up, null];
      }
      return [{}, null];
    }
    if (!shown(state)) return [{}, null];
    var s = setupOf(state), moves = state.moves, redo = state.redo, out;
    if (what === 'hint') return [{}, Z.hint(Z.replayCached(s, moves))];
    if (what === 'own') {
      var b = Z.replayCached(s, moves);
      var said = T.msg(s.encoder !== null ? 'puzzle.own_encoder' : 'puzzle.opened', {});
      return [{ order: b.order.toText(), placement: E.PLACEMENTS[0], custom: true, puzzle: OFF }, said];
    }
    if (what === 'place') {
      var text = typeof action.move === 'string' ? Array.from(action.move).slice(0, 40).join('') : '';
      var rank = isInt(action.rank) && action.rank >= 0 && action.rank < s.P ? action.rank : null;
      out = Z.place(s, moves, redo, text, rank);
    } else {
      out = { undo: Z.undo, redo: Z.redoMove, clear: Z.clear }[what](s, moves, redo);
    }
    return [out.moves === null ? {} : { moves: out.moves, redo: out.redo }, out.said];
  }

  // -- the block ------------------------------------------------------------------------------

  function capLabel(cap) {
    if (D.caps.indexOf(cap) < 3) return T.msg('choice.cap.' + cap, {});
    return T.msg('puzzle.cap_n', { n: Number(cap) });
  }

  function opStyle(kind, stage, P, V) {
    var chunk = stage < 0 ? 0 : Math.floor(stage / P);
    var i = PALETTE.displayKind[E.KIND_CODES.get(kind)] * PALETTE.maxChunks + chunk;
    var color = PALETTE.chunkPalettes[V - 1][i];
    return 'background:' + color + ';color:' + PALETTE.labelPalettes[V - 1][i] + ';border-color:' + color;
  }

  function blockValues(state, said) {
    var name = state.puzzle === undefined ? OFF : state.puzzle;
    var out = { puzzle: name, cap: state.cap === undefined ? D.caps[0] : state.cap, said: said || null, ranks: null,
      score: null, text: null, goal: null };
    if (name === OFF) return out;
    var b = board(state), s = b.setup, ranks = [];
    for (var r = 0; r < s.P; r++) {
      var cands = b.candidates(r).map(function (c) {
        var mv = c[0], why = c[1], kind = mv[0], stage = mv[2], text = Z.moveText(mv);
        var status = why === null ? 'ok' : why.key === 'puzzle.cap' ? 'cap' : 'wait';
        return {
          move: text, token: text.split('@')[0], kind: kind, slot: D.encoderKinds.indexOf(kind) >= 0 ? kind : stage + kind,
          op: Z.opMsg(mv), why: why, status: status, style: why === null ? opStyle(kind, stage, s.P, s.V) : '',
        };
      });
      ranks.push({ rank: r, placed: b.ranks[r].length, held: b.held[r], cap: s.capOf(r), free: T.format.g(b.free(r)),
        cands: cands });
    }
    out.goal = s.goal.name;
    out.ranks = ranks;
    out.score = Z.score(b);
    out.text = b.order.toText();
    return out;
  }

  function options(name, values, selected, lang) {
    return values.map(function (v) {
      var text = name === D.settable[0] ? t('choice.puzzle.' + v, lang) : T.text(capLabel(v), lang);
      return compose('pz_option', { value: esc(v), selected: v === selected ? ' selected' : '', text: esc(text) });
    }).join('');
  }

  function select(name, values, selected, lang) {
    return compose('pz_select', { label: esc(t('field.' + name, lang)), name: name, options: options(name, values, selected, lang) });
  }

  function rankHtml(rv, lang) {
    var state = rv.cap === null
      ? T.fill('puzzle.rank_state', lang, { placed: rv.placed, held: rv.held, free: rv.free })
      : T.fill('puzzle.rank_state_cap', lang, { placed: rv.placed, held: rv.held, cap: rv.cap, free: rv.free });
    var name = T.fill('puzzle.rank_name', lang, { rank: rv.rank });
    var ops = rv.cands.map(function (c) {
      var label, mark = '';
      if (c.why === null) {
        label = T.fill('puzzle.cand_ready', lang, { token: c.token, op: c.op });
      } else {
        label = T.fill('puzzle.cand_not', lang, { token: c.token, op: c.op, why: c.why });
        mark = compose('pz_mark', { text: esc(t('puzzle.mark_' + c.status, lang)) });
      }
      return compose('pz_op', { status: c.status, move: esc(c.move), rank: String(rv.rank), kind: c.kind, slot: esc(c.slot),
        label: esc(label), style: c.style, token: esc(c.token), mark: mark });
    });
    if (!ops.length) ops.push(esc(t('puzzle.rank_done', lang)));
    return compose('pz_rank', { rank: String(rv.rank), label: esc(name + ': ' + state), name: esc(name), state: esc(state),
      ops: ops.join('') });
  }

  function peaks(values) { return Array.from(values).map(String).join(', '); }

  function scoreHtml(sc, lang) {
    var line = T.fill('puzzle.score', lang, { placed: sc.placed, total: sc.total, makespan: sc.makespan, bubble: sc.bubble,
      peak: peaks(sc.peak) }, true);
    var par = sc.par, parLine = par !== null
      ? T.fill('puzzle.par', lang, { name: par.name, makespan: par.makespan, bubble: par.bubble, peak: peaks(par.peak) }, true)
      : T.fill('puzzle.no_par', lang, { why: sc.no_par }, true);
    var more = [];
    if (sc.equals !== null) more.push(T.fill('puzzle.equals', lang, { name: sc.equals }, true));
    if (sc.differs !== null) {
      var d = sc.differs;
      var first = T.join(d.first.map(function (m) { return T.text(m, lang); }), lang);
      more.push(T.fill('puzzle.differs', lang, { name: d.name, n: d.n, total: d.total, first: first }, true));
      more.push(T.fill('puzzle.compare', lang, { name: d.name, P: sc.peak.length }, true));
    }
    return compose('pz_score', { score: line, par: parLine, cls: sc.solved ? 'solved' : 'open', verdict: T.html(sc.verdict, lang),
      more: more.map(function (x) { return compose('pz_line', { text: x }); }).join('') });
  }

  function blockHtml(v, lang) {
    var title = esc(t('puzzle.title', lang)), fields = [select('puzzle', D.names, v.puzzle, lang)];
    if (v.ranks === null) {
      var intro = compose('pz_intro', { text: esc(t('puzzle.intro', lang)) }) + compose('pz_setup', { fields: fields[0] });
      return compose('pz_closed', { title: title, body: intro });
    }
    fields.push(select('cap', D.caps, v.cap, lang));
    var goal = t('puzzle.goal.' + v.goal, lang);
    if (v.score.solved) goal += ' ' + t('puzzle.lesson.' + v.goal, lang);
    var tools = ['undo', 'redo', 'clear', 'hint', 'own'].map(function (a) {
      return compose('pz_tool', { act: a, text: esc(t('puzzle.' + a, lang)) });
    }).join('');
    var body = [
      compose('pz_setup', { fields: fields.join('') }),
      compose('pz_goal', { text: esc(goal) }),
      compose('pz_tools', { buttons: tools }),
      LAYOUTS.pz_live,
      compose('pz_board', { label: esc(t('puzzle.board', lang)), keys: esc(t('puzzle.keys', lang)),
        ranks: v.ranks.map(function (rv) { return rankHtml(rv, lang); }).join('') }),
      compose('pz_type', { label: esc(t('puzzle.type', lang)), place: esc(t('puzzle.place', lang)) }),
      scoreHtml(v.score, lang),
      compose('pz_text', { summary: esc(t('puzzle.text', lang)), text: esc(v.text) }),
    ].join('');
    return compose('pz', { title: title, body: body });
  }

  function liveText(v, lang) {
    var sc = v.score, said = v.said;
    if (sc === null) return said === null ? '' : T.text(said, lang);
    var line = T.msg('puzzle.score', { placed: sc.placed, total: sc.total, makespan: sc.makespan, bubble: sc.bubble,
      peak: peaks(sc.peak) });
    if (said === null) return T.fill('puzzle.live_score', lang, { score: line, verdict: sc.verdict });
    return T.fill('puzzle.live', lang, { said: said, score: line, verdict: sc.verdict });
  }

  // -- the figures ---------------------------------------------------------------------------

  function figureView(res, lang) {
    var yours = res.yours || null;
    if (yours === null) return { sources: {}, props: { rank_axis: { major_label_overrides: {} } } };
    var P = yours.config.P, rows = {}, r;
    for (r = 0; r < P; r++) {
      rows[String(r)] = T.fill('puzzle.row_yours', lang, { rank: r });
      rows[String(P + r)] = T.fill('puzzle.row_par', lang, { rank: r });
    }
    var waits = X.teach.waits(res), empty = {}, props = { rank_axis: { major_label_overrides: rows } };
    Object.keys(waits).forEach(function (k) { empty[k] = waits[k].slice(0, 0); });
    Object.keys(D.compareHovers).forEach(function (name) {
      var all = DATA.figureTexts[lang][name].tooltips;
      props[name] = { tooltips: D.compareHovers[name].map(function (i) { return all[i]; }) };
    });
    return { sources: { waits: empty }, props: props };
  }

  // -- the page's glue --------------------------------------------------------------------------

  var mounted = null; // the block's board (static/puzzle_board.js)
  var said = null; // what the last action did, until the next change
  var acting = false;

  function show(explorer) {
    var el = root.document && root.document.getElementById('pv-puzzle');
    if (!el) return;
    if (mounted === null) {
      mounted = X.puzzleBoard.mount(el, function (action) { X.handle(explorer.doc, 'puzzle', action); });
    }
    var lang = explorer.values.lang, v = blockValues(explorer.values, said);
    mounted.show(blockHtml(v, lang), liveText(v, lang));
  }

  // After each refresh: the block, and the figures' part for the result shown.
  function drawn(explorer, res, lang) {
    if (!acting) said = null; // a change the block did not make
    show(explorer);
    if (res === null) return;
    var view = figureView(res, lang), doc = explorer.doc;
    Object.keys(view.sources).forEach(function (name) { explorer.setSource(name, view.sources[name]); });
    Object.keys(view.props).forEach(function (name) {
      var model = doc.get_model_by_name(name), attrs = view.props[name], changes = {}, any = false;
      Object.keys(attrs).forEach(function (attr) {
        var value = attrs[attr];
        if (attr === 'major_label_overrides') { // by tick: numbers, as Bokeh looks them up
          value = new Map(Object.keys(value).map(function (k) { return [Number(k), value[k]]; }));
        }
        if (!X.same(model[attr], value)) { changes[attr] = value; any = true; }
      });
      if (any) model.setv(changes);
    });
  }

  function handle(explorer, action) {
    var out = act(explorer.values, action), updates = Object.keys(out[0]);
    said = out[1];
    acting = true;
    try {
      if (updates.length) explorer.update(new Map(updates.map(function (k) { return [k, out[0][k]]; })), []);
      else show(explorer);
    } finally {
      acting = false;
    }
  }

  X.puzzleView = {
    shown: shown, setupOf: setupOf, board: board, run: run, rule: rule, act: act, capLabel: capLabel, opStyle: opStyle,
    blockValues: blockValues, blockHtml: blockHtml, liveText: liveText, figureView: figureView, drawn: drawn,
    handle: handle,
  };
})(typeof window !== 'undefined' ? window : globalThis);
