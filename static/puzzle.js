/* Learn by building: twin of pipeviz/puzzle.py.
 *
 * A puzzle is a goal (PIPEVIZ_DATA.features.puzzle.goals: par's schedule, a split
 * backward, encoder ops) at a size: setup(goal, P, m, V, cap, costs, encoder). The
 * student places ops one at a time, each as its rank's next op; the engine's
 * simulator times the order placed so far. replay(setup, moves) reads the board back
 * from the moves' text ('0F0,1F0,EF3@2'), stopping at the first refused move; a
 * move is refused, with a message, when it is not an op of the puzzle, is placed
 * already, waits for an op not placed yet, or would hold more activations on its
 * rank than the cap. The board gives each rank's next ops (candidates), a hint, the
 * score against par and the result the explorer draws; place, undo, redoMove and
 * clear are what the block's buttons and keys do. tests/test_puzzle_parity.py holds
 * it to Python over generated move sequences.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var D = root.PIPEVIZ_DATA.features.puzzle;
  var FMT = T.format;
  var GOALS = new Map(D.goals.map(function (g) { return [g.name, g]; }));
  var ENC = D.encoderKinds; // EF, EB
  var N_KINDS = E.KIND_NAMES.length;
  var STAGE_OP = /^([0-9]{1,9})([FBIW])([0-9]{1,9})$/;
  var ENCODER_OP = /^E([FB])([0-9]{1,9})(?:@([0-9]{1,9}))?$/;
  var PY_STRIP = new RegExp('^[' + E.PY_SPACE + ']+|[' + E.PY_SPACE + ']+$', 'g');

  function isEnc(kind) { return ENC.indexOf(kind) >= 0; }

  // -- moves: [kind, mb, stage, rank]; an encoder op's stage is -1 --------------------------

  function moveText(mv) { return isEnc(mv[0]) ? mv[0] + mv[1] + '@' + mv[3] : mv[2] + mv[0] + mv[1]; }

  function opMsg(mv) {
    if (isEnc(mv[0])) return T.msg('op.encoder', { kind: mv[0], mb: mv[1] });
    return T.msg('op.desc', { kind: mv[0], mb: mv[1], stage: mv[2] });
  }

  var SPLIT = new RegExp('[,' + E.PY_SPACE + ']+'); // re.split(r"[,\s]+"): Python's whitespace
  function splitMoves(text) { return text.split(SPLIT).filter(function (t) { return t; }); }

  function sameMove(a, b) { return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3]; }

  function Setup(goal, P, m, V, cap, c, encoder) {
    this.goal = goal;
    this.P = P;
    this.m = m;
    this.V = V;
    this.cap = cap;
    this.costs = c;
    this.encoder = goal.encoder ? encoder : null;
    this.S = P * V;
    var kinds = goal.split ? ['F', 'I', 'W'] : ['F', 'B'];
    if (goal.encoder) kinds = kinds.concat(this.encoder !== null && this.encoder.frozen ? [ENC[0]] : ENC);
    this.kinds = kinds;
    var enc = kinds.filter(isEnc).length;
    this.total = m * this.S * (goal.split ? 3 : 2) + m * enc;
    var e = this.encoder;
    this.key = JSON.stringify([goal.name, P, m, V, cap, c.tf, c.tb, c.tw, c.comm, c.tfb, e && [e.ef, e.eb, e.frozen]]);
  }

  // The most activations rank r may hold, or null.
  Setup.prototype.capOf = function (r) {
    if (this.cap === D.caps[0]) return null;
    if (this.cap === D.caps[1]) return this.P - r;
    if (this.cap === D.caps[2]) return this.P;
    return Number(this.cap);
  };

  Setup.prototype.back = function () { return this.goal.split ? 'I' : 'B'; };

  // The move `text` names (an encoder op without its rank goes on `rank`), or why it names none.
  Setup.prototype.parse = function (text, rank) {
    var t = text.replace(PY_STRIP, ''), found = STAGE_OP.exec(t);
    if (found) {
      var stage = Number(found[1]);
      return [found[2], Number(found[3]), stage, stage % this.P];
    }
    found = ENCODER_OP.exec(t);
    var given = rank !== undefined && rank !== null;
    if (found && (found[3] !== undefined || given)) {
      return ['E' + found[1], Number(found[2]), -1, found[3] !== undefined ? Number(found[3]) : rank];
    }
    return T.msg('puzzle.not_op', { text: Array.from(t).slice(0, 20).join(''), kinds: this.kinds.join(', ') });
  };

  // The op `mv` waits for, as a move whose rank is its stage's (an EF's: -1), or null.
  Setup.prototype.dependency = function (mv) {
    var kind = mv[0], mb = mv[1], stage = mv[2], S = this.S, P = this.P;
    if (kind === 'F') {
      if (stage > 0) return ['F', mb, stage - 1, (stage - 1) % P];
      return this.goal.encoder ? [ENC[0], mb, -1, -1] : null;
    }
    if (kind === 'B' || kind === 'I') {
      if (stage < S - 1) return [kind, mb, stage + 1, (stage + 1) % P];
      return ['F', mb, S - 1, (S - 1) % P];
    }
    if (kind === 'W') return ['I', mb, stage, stage % P];
    if (kind === ENC[1]) return [this.back(), mb, 0, 0];
    return null;
  };

  function setup(goal, P, m, V, cap, c, encoder) { return new Setup(GOALS.get(goal), P, m, V, cap, c, encoder); }

  // -- the board ------------------------------------------------------------------------------

  function Board(s, moves, refused, placedOn, held) {
    this.setup = s;
    this.moves = moves;
    this.refused = refused;
    this.placedOn = placedOn;
    this.held = held;
    this.complete = moves.length === s.total;
    this._order = this._timeline = this._metrics = this._index = this._ranks = null;
  }

  function at(s, kind, mb, stage) { return (E.KIND_CODES.get(kind) * s.m + mb) * Math.max(s.S, 1) + Math.max(stage, 0); }

  Board.prototype.rankOf = function (mv) { return this.placedOn[at(this.setup, mv[0], mv[1], mv[2])]; };

  Object.defineProperties(Board.prototype, {
    ranks: {
      get: function () {
        if (this._ranks === null) {
          var out = [];
          for (var r = 0; r < this.setup.P; r++) out.push([]);
          this.moves.forEach(function (mv) { out[mv[3]].push(mv); });
          this._ranks = out;
        }
        return this._ranks;
      },
    },
    order: {
      get: function () {
        if (this._order === null) {
          var s = this.setup;
          var ops = this.ranks.map(function (r) {
            return r.map(function (mv) { return isEnc(mv[0]) ? [mv[0], mv[1]] : [mv[0], mv[1], mv[2]]; });
          });
          this._order = E.fromRankLists(s.m, E.loopPlacement(s.P, s.V), ops);
        }
        return this._order;
      },
    },
    // The placed ops timed by the simulator (the order is incomplete: unchecked).
    timeline: {
      get: function () {
        if (this._timeline === null) {
          var s = this.setup, order = this.order;
          var dur = s.encoder !== null ? E.encoderDurations(order, s.costs, s.encoder) : E.opDurations(order, s.costs);
          this._timeline = E.simulate(order, s.costs, dur, false);
        }
        return this._timeline;
      },
    },
    metrics: {
      get: function () {
        if (this._metrics === null) this._metrics = E.measure(this.timeline);
        return this._metrics;
      },
    },
    // Each placed op's index in the order (rank-major), -1 if not placed.
    index: {
      get: function () {
        if (this._index === null) {
          var s = this.setup, out = new Int32Array(this.placedOn.length).fill(-1), ptr = this.order.rankPtr;
          this.ranks.forEach(function (ops, r) {
            ops.forEach(function (mv, j) { out[at(s, mv[0], mv[1], mv[2])] = ptr[r] + j; });
          });
          this._index = out;
        }
        return this._index;
      },
    },
  });

  // When rank r's next op could start at the earliest: its last op's end.
  Board.prototype.free = function (r) {
    var ptr = this.order.rankPtr;
    return ptr[r + 1] > ptr[r] ? this.timeline.end[ptr[r + 1] - 1] : 0.0;
  };

  // Why `mv` cannot be placed now, or null (pipeviz/puzzle.py's checks, in order).
  Board.prototype.whyNot = function (mv) {
    var s = this.setup, kind = mv[0], mb = mv[1], stage = mv[2], rank = mv[3], text = moveText(mv);
    if (s.kinds.indexOf(kind) < 0) {
      if (kind === 'B' && s.goal.split) return T.msg('puzzle.split_b', { text: text });
      if ((kind === 'I' || kind === 'W') && !s.goal.split) return T.msg('puzzle.whole_b', { text: text });
      return T.msg(s.goal.encoder ? 'puzzle.frozen' : 'puzzle.no_encoder', { text: text });
    }
    if (!(mb < s.m && stage < s.S && rank >= 0 && rank < s.P)) {
      return T.msg('puzzle.range', { text: text, last_mb: s.m - 1, last_stage: s.S - 1, last_rank: s.P - 1 });
    }
    if (this.rankOf(mv) >= 0) return T.msg('puzzle.placed', { op: opMsg(mv), rank: this.rankOf(mv) });
    var dep = s.dependency(mv);
    if (dep !== null && this.rankOf(dep) < 0) {
      if (dep[0] === ENC[0]) return T.msg('puzzle.waits_encoder', { op: opMsg(mv), dep: opMsg(dep) });
      return T.msg('puzzle.waits', { op: opMsg(mv), dep: opMsg(dep), rank: dep[3] });
    }
    var cap = s.capOf(rank);
    if (kind === 'F' && cap !== null && this.held[rank] + 1 > cap) {
      return T.msg('puzzle.cap', { rank: rank, n: this.held[rank] + 1, cap: cap });
    }
    return null;
  };

  // When `mv` would start if placed now (as the simulator would time it).
  Board.prototype.startIf = function (mv) {
    var s = this.setup, t = this.free(mv[3]), dep = s.dependency(mv);
    if (dep !== null) {
      var i = this.index[at(s, dep[0], mv[1], dep[2])];
      var lag = this.rankOf(dep) !== mv[3] ? s.costs.comm : 0.0, when = this.timeline.end[i] + lag;
      if (when > t) t = when;
    }
    return t;
  };

  // Rank r's next ops: for each of its stages and kinds, the first micro-batch that can
  // be placed now, else the first not placed (with why not); then the encoder's.
  Board.prototype.candidates = function (r) {
    var s = this.setup, slots = [], out = [], c, j;
    for (c = 0; c < s.V; c++) for (j = 0; j < s.kinds.length; j++) if (!isEnc(s.kinds[j])) slots.push([s.kinds[j], c * s.P + r]);
    s.kinds.filter(isEnc).forEach(function (k) { slots.push([k, -1]); });
    for (j = 0; j < slots.length; j++) {
      var first = null;
      for (var mb = 0; mb < s.m; mb++) {
        var mv = [slots[j][0], mb, slots[j][1], r];
        if (this.rankOf(mv) >= 0) continue;
        var why = this.whyNot(mv);
        if (why === null) { first = [mv, null]; break; }
        if (first === null) first = [mv, why];
      }
      if (first !== null) out.push(first);
    }
    return out;
  };

  function replay(s, text) {
    var placedOn = new Int32Array(N_KINDS * s.m * Math.max(s.S, 1)).fill(-1), held = new Int32Array(s.P);
    var board = new Board(s, [], null, placedOn, held), moves = [], refused = null, backEnd = s.goal.split ? 'W' : 'B';
    var toks = splitMoves(text);
    for (var i = 0; i < toks.length; i++) {
      var mv = s.parse(toks[i]), why = Array.isArray(mv) ? board.whyNot(mv) : mv;
      if (why !== null) {
        refused = [i, Array.from(toks[i]).slice(0, 20).join(''), why];
        break;
      }
      placedOn[at(s, mv[0], mv[1], mv[2])] = mv[3];
      held[mv[3]] += mv[0] === 'F' ? 1 : mv[0] === backEnd ? -1 : 0;
      moves.push(mv);
    }
    return new Board(s, moves, refused, placedOn, held);
  }

  var boards = new Map(); // replay_cached
  function replayCached(s, text) {
    var key = s.key + '\n' + text, hit = boards.get(key);
    if (hit === undefined) {
      hit = replay(s, text);
      if (boards.size >= 64) boards.delete(boards.keys().next().value);
      boards.set(key, hit);
    }
    return hit;
  }

  function movesText(moves) { return moves.map(moveText).join(D.sep); }

  // -- actions ---------------------------------------------------------------------------------

  function outcome(moves, redo, said) { return { moves: moves, redo: redo, said: said }; }

  function place(s, moves, redo, text, rank) {
    var board = replayCached(s, moves), mv = s.parse(text, rank), why = Array.isArray(mv) ? board.whyNot(mv) : mv;
    if (why !== null) return outcome(null, null, T.msg('puzzle.refused', { why: why }));
    var fresh = movesText(board.moves.concat([mv])), after = replayCached(s, fresh);
    var i = after.index[at(s, mv[0], mv[1], mv[2])], stack = splitMoves(redo);
    var next = stack.length ? s.parse(stack[0]) : null;
    var rest = next !== null && Array.isArray(next) && sameMove(next, mv) ? stack.slice(1).join(D.sep) : '';
    var said = T.msg('puzzle.placed_at', {
      op: opMsg(mv), rank: mv[3], start: T.float(after.timeline.start[i]), end: T.float(after.timeline.end[i]),
    });
    if (!after.complete && !anyPlaceable(after)) said = T.msg('puzzle.and', { first: said, then: T.msg('puzzle.hint_stuck', {}) });
    return outcome(fresh, rest, said);
  }

  function anyPlaceable(board) {
    for (var r = 0; r < board.setup.P; r++) {
      if (board.candidates(r).some(function (c) { return c[1] === null; })) return true;
    }
    return false;
  }

  function undo(s, moves, redo) {
    var board = replayCached(s, moves);
    if (!board.moves.length) return outcome(null, null, T.msg('puzzle.no_undo', {}));
    var last = board.moves[board.moves.length - 1];
    return outcome(movesText(board.moves.slice(0, -1)), [moveText(last)].concat(splitMoves(redo)).join(D.sep),
      T.msg('puzzle.undone', { op: opMsg(last), rank: last[3] }));
  }

  function redoMove(s, moves, redo) {
    var stack = splitMoves(redo);
    if (!stack.length) return outcome(null, null, T.msg('puzzle.no_redo', {}));
    return place(s, moves, redo, stack[0]);
  }

  function clear(s, moves, redo) {
    var board = replayCached(s, moves);
    return outcome('', board.moves.map(moveText).concat(splitMoves(redo)).join(D.sep), T.msg('puzzle.cleared', {}));
  }

  // -- par, the hint, the score ----------------------------------------------------------------

  function configOf(s, name, place) {
    var enc = s.encoder === null ? null : new E.Encoder(s.encoder.ef, s.encoder.eb, place || D.parPlace, s.encoder.frozen);
    return E.config(name, s.P, s.m, E.SCHEDULES.get(name).fixedV || s.V, s.costs, null, enc);
  }

  function attempt(cfg) {
    try {
      return { res: E.run(cfg) };
    } catch (e) {
      if (e instanceof E.PipevizError && e.type === 'ConfigError') return { error: e };
      throw e;
    }
  }

  var pars = new Map();
  // The goal's schedule at the puzzle's size, or why there is none ({res} or {error}).
  function par(s) {
    if (!pars.has(s.key)) {
      if (pars.size >= 64) pars.delete(pars.keys().next().value);
      pars.set(s.key, attempt(configOf(s, s.goal.known)));
    }
    return pars.get(s.key);
  }

  function parName(s, name, place) {
    var title = T.msg('sched.' + (name || s.goal.known) + '.title', {});
    if (s.encoder === null) return title;
    return T.msg('puzzle.with_encoder', { name: title, place: T.msg('choice.encoder.' + (place || D.parPlace), {}) });
  }

  function tokens(order, r) {
    var out = [];
    for (var i = order.rankPtr[r]; i < order.rankPtr[r + 1]; i++) out.push(order.token(i));
    return out;
  }

  function sameList(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // One good next op and why.
  function hint(board) {
    var s = board.setup, best = null, r, k;
    if (board.complete) return T.msg('puzzle.hint_done', {});
    var known = par(s);
    if (known.res) {
      for (r = 0; r < s.P; r++) {
        var mine = tokens(board.order, r), theirs = tokens(known.res.order, r);
        if (mine.length < theirs.length && sameList(theirs.slice(0, mine.length), mine)) {
          var mv = s.parse(theirs[mine.length], r);
          if (Array.isArray(mv) && board.whyNot(mv) === null) {
            var t = board.startIf(mv);
            if (best === null || t < best[0]) best = [t, mv];
          }
        }
      }
    }
    if (best !== null) {
      return T.msg('puzzle.hint_par', { op: opMsg(best[1]), rank: best[1][3], name: parName(s), start: T.float(best[0]) });
    }
    for (r = 0; r < s.P; r++) {
      var cands = board.candidates(r);
      for (k = 0; k < cands.length; k++) {
        if (cands[k][1] !== null) continue;
        var when = board.startIf(cands[k][0]);
        if (best === null || when < best[0]) best = [when, cands[k][0]];
      }
    }
    if (best === null) return T.msg('puzzle.hint_stuck', {});
    return T.msg('puzzle.hint_ready', { op: opMsg(best[1]), rank: best[1][3], start: T.float(best[0]) });
  }

  function sameOrder(a, b) {
    if (a.P !== b.P) return false;
    for (var r = 0; r < a.P; r++) if (!sameList(tokens(a, r), tokens(b, r))) return false;
    return true;
  }

  var knowns = new Map();
  // Every known schedule at the puzzle's size and placement: [name, place, result].
  function known(s) {
    if (!knowns.has(s.key)) {
      var out = [], places = s.encoder !== null ? E.ENCODER_PLACES : [null];
      E.NAMES.forEach(function (name) {
        var spec = E.SCHEDULES.get(name);
        if (spec.placement !== E.PLACEMENTS[0] || (spec.fixedV || s.V) !== s.V) return;
        places.forEach(function (place) {
          var got = attempt(configOf(s, name, place));
          if (got.res) out.push([name, place, got.res]);
        });
      });
      if (knowns.size >= 16) knowns.delete(knowns.keys().next().value);
      knowns.set(s.key, out);
    }
    return knowns.get(s.key);
  }

  function equals(board) {
    if (!board.complete) return null;
    var all = known(board.setup);
    for (var i = 0; i < all.length; i++) if (sameOrder(board.order, all[i][2].order)) return all[i];
    return null;
  }

  function differences(board, res) {
    var out = [];
    for (var r = 0; r < board.setup.P; r++) {
      var mine = tokens(board.order, r), theirs = tokens(res.order, r);
      for (var j = 0; j < Math.max(mine.length, theirs.length); j++) {
        var a = j < mine.length ? mine[j] : '', b = j < theirs.length ? theirs[j] : '';
        if (a !== b) out.push([r, j, a, b]);
      }
    }
    return out;
  }

  function num(x) { return FMT.g(x); }
  function pct(x) { return FMT.fixed(100 * x, 2) + '%'; }

  function score(board) {
    var s = board.setup, mt = board.metrics, kn = par(s), peaks = Array.from(mt.peakChunks);
    var out = {
      placed: board.moves.length, total: s.total, makespan: num(mt.makespan), bubble: pct(mt.bubbleFraction), peak: peaks,
      par: null, no_par: null, complete: board.complete, solved: false, verdict: null, equals: null, differs: null,
    };
    var res = kn.res || null;
    if (res !== null) {
      out.par = { name: parName(s), makespan: num(res.metrics.makespan), bubble: pct(res.metrics.bubbleFraction),
        peak: Array.from(res.metrics.peakChunks) };
    } else {
      out.no_par = T.msg(kn.error.key, kn.error.args);
    }
    if (!board.complete) {
      out.verdict = T.msg('puzzle.todo', { left: s.total - board.moves.length });
      return out;
    }
    var slower = res !== null && mt.makespan > res.metrics.makespan * (1 + 1e-9), short = null;
    if (s.goal.holdsAll) {
      for (var r = 0; r < peaks.length && short === null; r++) if (peaks[r] < s.m * s.V) short = r;
    }
    if (short !== null) {
      out.verdict = T.msg('puzzle.not_all', { rank: short, peak: peaks[short], n: s.m * s.V });
    } else if (slower) {
      out.verdict = T.msg('puzzle.slower', { makespan: num(mt.makespan), par: num(res.metrics.makespan) });
    } else {
      out.solved = true;
      out.verdict = res !== null ? T.msg('puzzle.solved', { makespan: num(mt.makespan), par: num(res.metrics.makespan) })
        : T.msg('puzzle.solved_free', { makespan: num(mt.makespan) });
    }
    var found = equals(board);
    if (found !== null) out.equals = parName(s, found[0], found[1]);
    if (res !== null && !sameOrder(board.order, res.order)) {
      var diff = differences(board, res), nothing = T.msg('puzzle.nothing', {});
      out.differs = {
        name: parName(s), n: diff.length, total: s.total,
        first: diff.slice(0, D.diffShown).map(function (d) {
          return T.msg('puzzle.diff_item', { rank: d[0], slot: d[1], yours: d[2] || nothing, theirs: d[3] || nothing, name: parName(s) });
        }),
      };
    }
    return out;
  }

  // -- what the explorer draws -----------------------------------------------------------------

  // A puzzle's result, as custom.js's results are (no closed form, no bubble parts).
  function puzzleResult(cfg, order, tl, metrics, label, yours) {
    return {
      config: cfg, schedule: E.custom.ENTRIES[E.PLACEMENTS[0]], order: order, timeline: tl, metrics: metrics,
      theory: null, placement: E.PLACEMENTS[0], encoder: null, balance: null, deadlock: null, stuck: null,
      bubbleAgrees: false, steadyAgrees: false, peakAgrees: false, bubbleParts: null, label: label, yours: yours,
    };
  }

  function ownResult(board) {
    var s = board.setup;
    var label = T.msg('puzzle.shown', { placed: board.moves.length, total: s.total, P: s.P, m: s.m, V: s.V });
    return puzzleResult(E.config(E.custom.CUSTOM, s.P, s.m, s.V, s.costs), board.order, board.timeline, board.metrics,
      label, null);
  }

  function sameArray(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function result(board) {
    var mine = ownResult(board);
    if (!board.complete) return mine;
    var kn = par(board.setup);
    if (!kn.res) return mine;
    if (sameOrder(board.order, kn.res.order)) {
      var tl = kn.res.timeline;
      return sameArray(tl.start, board.timeline.start) && sameArray(tl.end, board.timeline.end) ? kn.res : mine;
    }
    return compared(mine, kn.res, board.setup);
  }

  function cat(Type, a, b) {
    var out = new Type(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  // `mine` on ranks 0..P-1 and `known` on ranks P..2P-1 of one order (puzzle.compared).
  function compared(mine, kn, s) {
    var P = s.P, a = mine.order, b = kn.order;
    var stages = function (o, shift) {
      return Int32Array.from(o.stage, function (st) { return st >= 0 ? Math.floor(st / P) * 2 * P + shift + st % P : st; });
    };
    var ptrB = Int32Array.from(b.rankPtr.subarray(1), function (x) { return x + a.nOps; });
    var order = new E.Order({
      P: 2 * P, m: a.m, stageToRank: E.loopPlacement(2 * P, s.V), kind: cat(Int8Array, a.kind, b.kind),
      mb: cat(Int32Array, a.mb, b.mb), stage: cat(Int32Array, stages(a, 0), stages(b, P)),
      mb2: cat(Int32Array, a.mb2, b.mb2), stage2: cat(Int32Array, a.stage2, b.stage2),
      rankPtr: cat(Int32Array, a.rankPtr, ptrB), segment: null,
    });
    var da = mine.timeline.deps, db = kn.timeline.deps;
    var deps = {
      ptr: cat(Int32Array, da.ptr, Int32Array.from(db.ptr.subarray(1), function (x) { return x + da.idx.length; })),
      idx: cat(Int32Array, da.idx, Int32Array.from(db.idx, function (x) { return x + a.nOps; })),
      lag: cat(Float64Array, da.lag, db.lag),
    };
    var start = cat(Float64Array, mine.timeline.start, kn.timeline.start), end = cat(Float64Array, mine.timeline.end, kn.timeline.end);
    var tl = { order: order, costs: s.costs, start: start, end: end, deps: deps, makespan: E.makespan(start, end) };
    return puzzleResult(E.config(E.custom.CUSTOM, 2 * P, a.m, s.V, s.costs), order, tl, E.measure(tl),
      T.msg('puzzle.shown_compare', { name: parName(s) }), mine);
  }

  E.puzzle = {
    GOALS: GOALS, setup: setup, Setup: Setup, Board: Board, replay: replay, replayCached: replayCached,
    moveText: moveText, movesText: movesText, opMsg: opMsg, splitMoves: splitMoves,
    place: place, undo: undo, redoMove: redoMove, clear: clear, par: par, parName: parName, hint: hint, tokens: tokens,
    sameOrder: sameOrder, equals: equals, configOf: configOf, differences: differences, score: score, result: result, compared: compared,
    num: num, pct: pct,
  };
})(typeof window !== 'undefined' ? window : globalThis);
