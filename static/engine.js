/* The pipeviz engine in plain JavaScript (ES2019 syntax, no modules, no dependencies).
 *
 * Twin of the Python engine, which stays the reference: the same orders, the same
 * float arithmetic in the same order (so op times are bit-identical), the same exact
 * fractions and the same messages, held to it by tests/test_js_parity.py.
 *   orders        order.py: the op vocabulary, OrderBuilder, PyTorch's action notation
 *   simulator     simulate.py: validation, dependencies (CSR, with lags), the ASAP loop
 *   metrics       metrics.py: bubbles, idle intervals, in-flight steps and peaks, p2p
 *   closed forms  closed_form.py: exact fractions, caveats, fill and drain
 *   config        costs.py, config.py, registry.py, engine.py
 * Each schedule's generator and closed form is in schedules/<name>.js, which calls
 * `register`; what a schedule is (placement, fixed V, ...) arrives as data
 * (PIPEVIZ_DATA.schedules), its words in the strings table.
 *
 * Errors are thrown as PipevizError objects, which are messages ({key, args}, shown
 * with PipevizText) with a `type`: "ConfigError", "OrderError" or "DeadlockError".
 * Arguments that are Python floats are PipevizText.float(x).
 *
 *   var E = PipevizEngine;
 *   var res = E.run(E.config('1f1b', 4, 8, 1, E.costs(1, 1, 1, 0)));
 *   res.timeline.start, res.metrics.bubbleFraction, res.theory.bubble.toString() ...
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var FMT = T.format;
  var DATA = root.PIPEVIZ_DATA;
  var LIMITS = DATA.engine; // MAX_OPS, RTOL, the cost range: config.py, engine.py, costs.py
  var ZERO = BigInt(0), ONE = BigInt(1), TEN = BigInt(10);

  // ---------------------------------------------------------------------------
  // Errors (errors.py).

  function PipevizError(type, key, args) {
    this.type = type;
    this.key = key;
    this.args = args || {};
  }
  PipevizError.prototype.toString = function () { return this.type + ': ' + T.text(this, 'en'); };

  function configError(key, args) { return new PipevizError('ConfigError', key, args); }
  function orderError(key, args) { return new PipevizError('OrderError', key, args); }

  // DeadlockError: `blocked` lists, for every stuck rank, [rank, op index, op text,
  // awaited index, awaited text, awaited rank]. Its message holds the parts in
  // English, as Python's does; errorText() says it in either language.
  function deadlockError(blocked) {
    var parts = blocked.map(function (b) {
      return T.msg('deadlock.part', { rank: b[0], op: b[2], dep: b[4], dep_rank: b[5] });
    });
    var e = new PipevizError('DeadlockError', 'deadlock', {
      parts: parts.map(function (p) { return T.text(p, 'en'); }).join('; '),
    });
    e.blocked = blocked;
    e.parts = parts;
    // What ran before the order stuck: `timed` marks the ops that ran, `start` and
    // `end` their times (NaN for the others); set by the simulator.
    e.timed = e.start = e.end = null;
    return e;
  }

  // An error's text in `lang` (DeadlockError.text, PipevizError.text).
  function errorText(e, lang) {
    if (e.parts) {
      return T.text(T.msg('deadlock', { parts: T.join(e.parts.map(function (p) { return T.text(p, lang); }), lang) }), lang);
    }
    return T.text(e, lang);
  }

  // ---------------------------------------------------------------------------
  // Costs and Config (costs.py, config.py).

  var COST_NAMES = LIMITS.costNames; // tf, tb, tw, comm, tfb
  var MAY_BE_ZERO = LIMITS.mayBeZero;

  function isNumber(v) { return typeof v === 'number' || v instanceof T.PyFloat; }

  function checkCost(name, value) {
    var zeroOk = MAY_BE_ZERO.indexOf(name) >= 0;
    var low = T.float(LIMITS.costMin), high = T.float(LIMITS.costMax);
    if (!isNumber(value) || !isFinite(value)) {
      throw configError('cost.number', { name: name, value: FMT.str(value), low: low, high: high });
    }
    value = Number(value);
    if (value === 0 && zeroOk) return 0.0;
    if (!(LIMITS.costMin <= value && value <= LIMITS.costMax)) {
      throw configError(zeroOk ? 'cost.range0' : 'cost.range', { name: name, value: T.float(value), low: low, high: high });
    }
    return value;
  }

  // Costs(tf, tb, tw, comm, tfb): each checked in turn, as Costs.__post_init__.
  function costs(tf, tb, tw, comm, tfb) {
    var c = { tf: tf, tb: tb, tw: tw, comm: comm, tfb: tfb === undefined ? null : tfb };
    COST_NAMES.forEach(function (name) {
      if (!(name === 'tfb' && c[name] === null)) c[name] = checkCost(name, c[name]);
    });
    c.fb = c.tfb === null ? c.tf + c.tb + c.tw : c.tfb; // an overlapped F&B
    c.uniform = c.tf === c.tb && c.tb === c.tw && c.comm === 0; // the article's costs, up to a unit
    return c;
  }

  // config.whole: a whole number (a JS number with no fraction stands for a Python int).
  function whole(name, value, low) {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw configError('config.whole', { name: name, value: FMT.str(value) });
    }
    if (value < low) throw configError('config.low', { name: name, low: low, value: value });
    return value;
  }

  // Config(schedule, P, m, V, costs, G, encoder, balance, stageWeights): the Costs
  // come checked (Python builds them first), and so does the encoder (E.Encoder,
  // encoder.js). stageWeights: one weight per stage, or null (every stage 1).
  function config(schedule, P, m, V, c, G, encoder, balance, stageWeights) {
    var cfg = { schedule: schedule, P: P, m: m, V: V, costs: c, G: G === undefined ? null : G,
      encoder: encoder === undefined ? null : encoder, balance: balance === undefined ? null : balance,
      stageWeights: null };
    ['P', 'm', 'V'].forEach(function (name) { whole(name, cfg[name], 1); });
    if (cfg.G !== null) whole('G', cfg.G, 1);
    var self = root.PipevizEngine; // encoder.js and balance.js add to it
    if (cfg.encoder !== null && !(cfg.encoder instanceof self.Encoder)) {
      throw configError('config.encoder', { value: FMT.str(cfg.encoder) });
    }
    self.checkMode(cfg.balance);
    if (stageWeights !== undefined && stageWeights !== null) cfg.stageWeights = checkWeights(stageWeights);
    return cfg;
  }

  // ---------------------------------------------------------------------------
  // Stage weights (stages.py): an op on stage s costs its usual cost times w_s.

  var WEIGHTS = DATA.engine.weights; // min, max, maxShown

  // The weights as an array of numbers if each is a number in [min, max].
  function checkWeights(weights) {
    if (!Array.isArray(weights) && !ArrayBuffer.isView(weights)) {
      throw configError('weights.type', { value: Array.from(FMT.str(weights)).slice(0, 40).join('') });
    }
    if (weights.length === 0) throw configError('weights.empty', {});
    var out = [];
    for (var s = 0; s < weights.length; s++) {
      var w = weights[s], number = isNumber(w) && isFinite(w);
      if (!(number && WEIGHTS.min <= w && w <= WEIGHTS.max)) {
        throw configError('weights.range', {
          stage: s, value: number ? T.float(Number(w)) : FMT.str(w), low: T.float(WEIGHTS.min), high: T.float(WEIGHTS.max),
        });
      }
      out.push(Number(w));
    }
    return out;
  }

  // Weights typed as text: numbers separated by commas, semicolons or spaces; empty:
  // null. Nothing is evaluated.
  var WEIGHT_NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/; // ASCII digits only
  function parseWeights(text) {
    var body = text.replace(PY_STRIP, ''); // Python's whitespace (PY_SPACE, below), as str.strip
    if (!body) return null;
    var tokens = body.split(new RegExp('[' + PY_SPACE + ',;]+')).filter(function (t) { return t; });
    tokens.forEach(function (t) {
      if (!WEIGHT_NUMBER.test(t)) throw configError('weights.parse', { token: Array.from(t).slice(0, 20).join('') });
    });
    return checkWeights(tokens.map(Number));
  }

  function checkLength(weights, S, name) {
    if (weights !== null && weights.length !== S) throw configError('weights.length', { n: weights.length, S: S, name: name });
  }

  // Some stage costs more than another.
  function uneven(weights) {
    return weights !== null && Math.min.apply(null, weights) !== Math.max.apply(null, weights);
  }

  // '1.3, 1, 1, 1.2' (:g each; at most maxShown, then '…').
  function weightsText(weights) {
    var shown = weights.slice(0, WEIGHTS.maxShown).map(FMT.g).join(', ');
    return shown + (weights.length > WEIGHTS.maxShown ? ', \u2026' : '');
  }

  function weightsCaveat(weights) {
    if (!uneven(weights)) return null;
    return T.msg('cf.weights', {
      weights: weightsText(weights), low: T.float(Math.min.apply(null, weights)), high: T.float(Math.max.apply(null, weights)),
    });
  }

  // The closed form, marked as not exact (and why) when the stages are unequal; the
  // peak in-flight counts stay (they depend on each rank's order only).
  function withCaveat(theory, weights) {
    var caveat = weightsCaveat(weights);
    if (caveat === null) return theory;
    if (theory.caveat !== null) caveat = T.msg('cf.and', { first: caveat, second: theory.caveat });
    return Object.assign({}, theory, { caveat: caveat, bubbleExact: false, steadyExact: false });
  }

  // ---------------------------------------------------------------------------
  // Orders (order.py): each rank's ops in execution order, flat and rank-major.

  // The op kinds' codes, their names in the notation (a code is its name's index) and
  // the placements: order.py's, as data (PIPEVIZ_DATA.codes, page_document.codes).
  var CODES = DATA.codes, K = CODES.kinds;
  var F = K.F, B = K.B, I = K.I, W = K.W, FB = K.FB, EF = K.EF, EB = K.EB;
  var KIND_NAMES = CODES.kindNames;
  var KIND_CODES = new Map(KIND_NAMES.map(function (k, i) { return [k, i]; }));
  var PLACEMENTS = CODES.placements;

  // Stage s lives on rank s mod P (GPipe, 1F1B, interleaved).
  function loopPlacement(P, V) {
    var s2r = new Int32Array(P * V);
    for (var s = 0; s < P * V; s++) s2r[s] = s % P;
    return s2r;
  }

  // S = 2P stages in a V: rank r holds stages r and 2P-1-r (ZB-V, DualPipe-V).
  function vPlacement(P) {
    var s2r = new Int32Array(2 * P);
    for (var s = 0; s < 2 * P; s++) s2r[s] = s < P ? s : 2 * P - 1 - s;
    return s2r;
  }

  function placement(name, P, V) { return name === 'v' ? vPlacement(P) : loopPlacement(P, V); }

  // Order: {P, m, stageToRank, kind, mb, stage, mb2, stage2, rankPtr, segment}, typed
  // arrays; segment is null (one segment) or each op's segment (0 prologue, 1
  // pipeline, 2 epilogue), which are barriers.
  function Order(o) {
    this.P = o.P;
    this.m = o.m;
    this.stageToRank = o.stageToRank;
    this.kind = o.kind;
    this.mb = o.mb;
    this.stage = o.stage;
    this.mb2 = o.mb2;
    this.stage2 = o.stage2;
    this.rankPtr = o.rankPtr;
    this.segment = o.segment || null;
    this._rank = null;
  }
  Object.defineProperties(Order.prototype, {
    S: { get: function () { return this.stageToRank.length; } },
    nOps: { get: function () { return this.kind.length; } },
    // Model chunks each rank holds (V for loop placement, 2 for a V).
    chunksPerRank: { get: function () { return Math.floor(this.S / this.P); } },
    // The rank executing each op.
    rank: {
      get: function () {
        if (this._rank === null) {
          var rank = new Int32Array(this.nOps), ptr = this.rankPtr;
          for (var r = 0; r < this.P; r++) rank.fill(r, ptr[r], ptr[r + 1]);
          this._rank = rank;
        }
        return this._rank;
      },
    },
    // Some backward is split into I and W.
    hasW: { get: function () { return this.kind.indexOf(W) >= 0; } },
    kindsUsed: {
      get: function () {
        var kind = this.kind;
        return KIND_NAMES.filter(function (_, k) { return kind.indexOf(k) >= 0; });
      },
    },
  });

  // Op i as a readable array: [kind, mb, stage], ['F&B', mb, stage, mb2, stage2] or
  // [kind, mb] for encoder ops.
  Order.prototype.op = function (i) {
    var k = this.kind[i];
    if (k === FB) return [KIND_NAMES[FB], this.mb[i], this.stage[i], this.mb2[i], this.stage2[i]];
    if (k === EF || k === EB) return [KIND_NAMES[k], this.mb[i]];
    return [KIND_NAMES[k], this.mb[i], this.stage[i]];
  };
  Order.prototype.rankOps = function (r) {
    var out = [];
    for (var i = this.rankPtr[r]; i < this.rankPtr[r + 1]; i++) out.push(this.op(i));
    return out;
  };
  Order.prototype.token = function (i) { return token(this.op(i)); };
  // One line per rank, tokens in execution order.
  Order.prototype.toText = function () {
    var lines = [];
    for (var r = 0; r < this.P; r++) {
      var toks = [];
      for (var i = this.rankPtr[r]; i < this.rankPtr[r + 1]; i++) toks.push(this.token(i));
      lines.push(toks.join(' '));
    }
    return lines.join('\n');
  };

  // Order.from_rank_lists: per-rank lists of op arrays (see Order.op).
  function fromRankLists(m, stageToRank, ranks, segment) {
    var flat = [];
    ranks.forEach(function (ops) { ops.forEach(function (op) { flat.push(op); }); });
    var n = flat.length;
    var kind = new Int8Array(n);
    var mb = new Int32Array(n).fill(-1), stage = new Int32Array(n).fill(-1);
    var mb2 = new Int32Array(n).fill(-1), stage2 = new Int32Array(n).fill(-1);
    flat.forEach(function (op, i) {
      var code = KIND_CODES.get(op[0]);
      if (code === undefined) throw orderError('order.kind', { kind: FMT.str(op[0]), valid: KIND_NAMES.join(', ') });
      kind[i] = code;
      mb[i] = op[1];
      if (code === EF || code === EB) return;
      stage[i] = op[2];
      if (code === FB) { mb2[i] = op[3]; stage2[i] = op[4]; }
    });
    var rankPtr = new Int32Array(ranks.length + 1);
    ranks.forEach(function (ops, r) { rankPtr[r + 1] = rankPtr[r] + ops.length; });
    var seg = null;
    if (segment !== undefined && segment !== null) {
      var flatSeg = [];
      segment.forEach(function (s) { s.forEach(function (x) { flatSeg.push(x); }); });
      seg = Int8Array.from(flatSeg);
    }
    return new Order({
      P: ranks.length, m: m, stageToRank: Int32Array.from(stageToRank), kind: kind, mb: mb, stage: stage,
      mb2: mb2, stage2: stage2, rankPtr: rankPtr, segment: seg,
    });
  }

  function token(op) {
    var kind = op[0];
    var code = KIND_CODES.get(kind);
    if (code === FB) return op[2] + 'F' + op[1] + '&' + op[4] + 'B' + op[3];
    if (code === EF || code === EB) return kind + op[1];
    return op[2] + kind + op[1];
  }

  // PyTorch's action notation, ASCII digits (at most 9 in a number).
  var N = '([0-9]{1,9})';
  var TOKEN = new RegExp('^' + N + '([FBIW])' + N + '$');
  var PAIR = new RegExp('^' + N + 'F' + N + '&' + N + 'B' + N + '$');
  var ENCODER = new RegExp('^E([FB])' + N + '$');
  // PyTorch's communication and sharding actions: read and left out.
  var COMM = /^[0-9]{1,9}(SEND_F|RECV_F|SEND_B|RECV_B|UNSHARD|RESHARD|REDUCE_GRAD)[0-9]{0,9}$/;

  // One token as an op array, [] for a communication action, null if not a token.
  function parseToken(text) {
    var found = TOKEN.exec(text);
    if (found) return [found[2], Number(found[3]), Number(found[1])];
    if ((found = PAIR.exec(text))) return ['F&B', Number(found[2]), Number(found[1]), Number(found[4]), Number(found[3])];
    if ((found = ENCODER.exec(text))) return ['E' + found[1], Number(found[2])];
    if (COMM.test(text)) return [];
    return null;
  }

  // Python's str.isspace() characters, and its line boundaries (str.splitlines).
  var PY_SPACE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
  var PY_STRIP = new RegExp('^[' + PY_SPACE + ']+|[' + PY_SPACE + ']+$', 'g');
  var PY_SPLIT = new RegExp('[' + PY_SPACE + ']+');
  var PY_LINES = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/;

  function splitLines(text) {
    var lines = text.split(PY_LINES);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // a final line break ends a line
    return text === '' ? [] : lines;
  }

  // Each non-comment line's tokens as op arrays (OrderError naming the first bad token).
  function parseRankLists(text) {
    var lines = splitLines(text).map(function (line) {
      var body = line.split('#')[0].replace(/,/g, ' ').replace(PY_STRIP, '');
      return body ? body.split(PY_SPLIT) : [];
    });
    var n = 0;
    lines.forEach(function (toks) { n += toks.length; });
    if (n > LIMITS.maxOps) throw orderError('order.too_many', { n: FMT.commas(n), max: FMT.commas(LIMITS.maxOps) });
    var ranks = [];
    lines.forEach(function (toks, index) {
      if (!toks.length) return;
      var ops = [];
      toks.forEach(function (tok) {
        var op = parseToken(tok);
        if (op === null) throw orderError('order.token', { token: tok, line: index + 1 });
        if (op.length) ops.push(op);
      });
      ranks.push(ops);
    });
    return ranks;
  }

  // parse_order: one line per rank; m from the order, the stage count from the
  // placement and the highest stage used. Validity is the simulator's check.
  function parseOrder(text, placementName, P) {
    placementName = placementName === undefined ? 'loop' : placementName;
    if (PLACEMENTS.indexOf(placementName) < 0) {
      throw orderError('order.placement', { placement: FMT.str(placementName), valid: PLACEMENTS.join(', ') });
    }
    return orderFromRanks(parseRankLists(text), placementName, P);
  }

  // order_from_ranks: an order from each rank's op arrays; m from the order, the
  // stage count from the placement and the highest stage used.
  function orderFromRanks(ranks, placementName, P) {
    placementName = placementName === undefined ? 'loop' : placementName;
    if (PLACEMENTS.indexOf(placementName) < 0) {
      throw orderError('order.placement', { placement: FMT.str(placementName), valid: PLACEMENTS.join(', ') });
    }
    if (!ranks.length) throw orderError('order.empty', {});
    if (P !== undefined && P !== null && ranks.length !== P) throw orderError('order.lines', { lines: ranks.length, P: P });
    P = ranks.length;
    var mbs = [], stages = [];
    ranks.forEach(function (ops) {
      ops.forEach(function (op) {
        mbs.push(op[1]);
        if (op.length > 2) stages.push(op[2]);
        if (op[0] === 'F&B') { mbs.push(op[3]); stages.push(op[4]); }
      });
    });
    if (!stages.length) throw orderError('order.empty', {});
    var m = mbs.reduce(function (a, b) { return Math.max(a, b); }) + 1;
    var S = placementName === 'v' ? 2 * P : P * Math.ceil((stages.reduce(function (a, b) { return Math.max(a, b); }) + 1) / P);
    checkSize(m, S); // before anything of size S or m * S is allocated
    return fromRankLists(m, placementName === 'v' ? vPlacement(P) : loopPlacement(P, S / P), ranks);
  }

  // An order with m micro-batches on S stages holds a forward and a backward of each
  // (mb, stage): 2mS ops at least. Past MAX_OPS it is refused before any (m, S)
  // table is built.
  function checkSize(m, S) {
    var n = BigInt(2) * BigInt(m) * BigInt(S);
    if (n > BigInt(LIMITS.maxOps)) {
      throw orderError('order.too_big', { last_mb: m - 1, last_stage: S - 1, n: FMT.commas(n), max: FMT.commas(LIMITS.maxOps) });
    }
  }

  // OrderBuilder: an order phase by phase, as a generator names them (order.py).
  //
  //   order.steps(m - w, function (r, i, emit) {  // Step 2: m - w_r steady steps
  //     emit(F, w[r] + i, r); emit(B, i, r);       // each runs F(w+i), then B(i)
  //   });
  //
  // `steps(counts, fn)` runs fn for every step i of every rank r when rank r runs
  // counts[r] steps (counts may be one number); emit(kind, mb, stage[, mb2, stage2])
  // appends an op to rank r. Phases land on each rank in the order they are written.
  function OrderBuilder(P, m, stageToRank) {
    this.P = P;
    this.m = m;
    this.stageToRank = stageToRank;
    this.ops = [];
    for (var r = 0; r < P; r++) this.ops.push([]);
  }
  OrderBuilder.prototype.steps = function (counts, fn) {
    var ops = this.ops;
    for (var r = 0; r < this.P; r++) {
      var n = typeof counts === 'number' ? counts : counts[r], list = ops[r];
      var emit = function (kind, mb, stage, mb2, stage2) {
        list.push(kind, mb, stage, mb2 === undefined ? -1 : mb2, stage2 === undefined ? -1 : stage2);
      };
      for (var i = 0; i < n; i++) fn(r, i, emit);
    }
  };
  // Pack the phases rank by rank; `keepMbBelow` drops padding micro-batches.
  OrderBuilder.prototype.build = function (keepMbBelow) {
    var keep = keepMbBelow === undefined ? Infinity : keepMbBelow;
    var n = 0, r, j;
    for (r = 0; r < this.P; r++) {
      if (keep === Infinity) { n += this.ops[r].length / 5; continue; } // every op kept: count without looking
      for (j = 0; j < this.ops[r].length; j += 5) if (this.ops[r][j + 1] < keep && this.ops[r][j + 3] < keep) n++;
    }
    var kind = new Int8Array(n), mb = new Int32Array(n), stage = new Int32Array(n);
    var mb2 = new Int32Array(n), stage2 = new Int32Array(n), rankPtr = new Int32Array(this.P + 1), i = 0;
    for (r = 0; r < this.P; r++) {
      var list = this.ops[r];
      for (j = 0; j < list.length; j += 5) {
        if (!(list[j + 1] < keep && list[j + 3] < keep)) continue;
        kind[i] = list[j]; mb[i] = list[j + 1]; stage[i] = list[j + 2]; mb2[i] = list[j + 3]; stage2[i] = list[j + 4];
        i++;
      }
      rankPtr[r + 1] = i;
    }
    return new Order({
      P: this.P, m: this.m, stageToRank: this.stageToRank, kind: kind, mb: mb, stage: stage, mb2: mb2,
      stage2: stage2, rankPtr: rankPtr,
    });
  };

  // An array with one value per rank: perRank(P, function (r) { ... }).
  function perRank(P, f) {
    var a = new Int32Array(P);
    for (var r = 0; r < P; r++) a[r] = f(r);
    return a;
  }

  // ---------------------------------------------------------------------------
  // The simulator (simulate.py).

  // The duration of each op: a rank's share of the cost, over its chunks, times its
  // stage's weight where stage weights are given. An F&B's parts may sit on stages
  // of different weight: its t_fb is scaled by their mix, each part weighing what it
  // costs alone (t_f, and t_b + t_w).
  function opDurations(order, c, weights) {
    var perKind = new Float64Array(KIND_NAMES.length);
    perKind[F] = c.tf; perKind[B] = c.tb + c.tw; perKind[I] = c.tb; perKind[W] = c.tw; perKind[FB] = c.fb;
    var cpr = order.chunksPerRank;
    for (var k = 0; k < perKind.length; k++) perKind[k] /= cpr;
    var dur = new Float64Array(order.nOps), i;
    for (i = 0; i < dur.length; i++) dur[i] = perKind[order.kind[i]];
    if (weights === undefined || weights === null) return dur;
    if (weights.length !== order.S) throw configError('weights.length', { n: weights.length, S: order.S, name: 'this order' });
    var fPart = c.tf, bPart = c.tb + c.tw;
    for (i = 0; i < dur.length; i++) {
      var s = order.stage[i], scale = s >= 0 ? weights[s] : 1.0; // encoder ops belong to no stage
      if (order.kind[i] === FB) scale = (fPart * weights[s] + bPart * weights[order.stage2[i]]) / (fPart + bPart);
      dur[i] = dur[i] * scale;
    }
    return dur;
  }

  // 'F(mb 3, stage 2)', 'F&B(mb 3, stage 0 + mb 1, stage 5)', 'EF(mb 3)'.
  function describeOp(order, i) {
    var op = order.op(i);
    if (op[0] === 'F&B') return 'F&B(mb ' + op[1] + ', stage ' + op[2] + ' + mb ' + op[3] + ', stage ' + op[4] + ')';
    if (op.length === 2) return op[0] + '(mb ' + op[1] + ')';
    return op[0] + '(mb ' + op[1] + ', stage ' + op[2] + ')';
  }

  // Every op in range and on the rank holding its stage; every (mb, stage) has one
  // forward and one backward (a full B, an I followed by its W, or the backward half
  // of an F&B); encoder ops once per micro-batch or not at all. The first problem, as
  // Python finds it.
  function validate(order) {
    var P = order.P, m = order.m, S = order.S, N = order.nOps, ptr = order.rankPtr, s2r = order.stageToRank;
    var i, s;
    if (ptr.length !== P + 1 || ptr[0] !== 0 || ptr[P] !== N) throw orderError('order.rank_ptr', { n: N, P: P });
    var badMap = S === 0;
    for (s = 0; s < S; s++) if (s2r[s] < 0 || s2r[s] >= P) badMap = true;
    if (badMap) throw orderError('order.stage_to_rank', { last: P - 1 });
    checkSize(m, S);
    var kind = order.kind, mb = order.mb, stage = order.stage, mb2 = order.mb2, stage2 = order.stage2;
    var rank = order.rank;
    for (i = 0; i < N; i++) {
      var k = kind[i], enc = k === EF || k === EB;
      var bad = k < 0 || k >= KIND_NAMES.length || mb[i] < 0 || mb[i] >= m;
      bad = bad || (!enc && (stage[i] < 0 || stage[i] >= S));
      bad = bad || (k === FB && (mb2[i] < 0 || mb2[i] >= m || stage2[i] < 0 || stage2[i] >= S));
      if (bad) {
        throw orderError('order.range', { op: order.token(i), rank: rank[i], last_mb: m - 1, last_stage: S - 1 });
      }
    }
    for (i = 0; i < N; i++) {
      if (kind[i] === EF || kind[i] === EB) continue;
      var home = s2r[stage[i]];
      if (home !== rank[i] || (kind[i] === FB && s2r[Math.max(stage2[i], 0)] !== rank[i])) {
        s = home !== rank[i] ? stage[i] : stage2[i];
        throw orderError('order.wrong_rank', { op: order.token(i), rank: rank[i], stage: s, home: s2r[s] });
      }
    }
    // Count each role per (mb, stage): forward, backward (B, I or F&B's half), I, W.
    var fwd = new Int32Array(m * S), bwd = new Int32Array(m * S), hasI = new Int32Array(m * S), hasW = new Int32Array(m * S);
    for (i = 0; i < N; i++) {
      var at = mb[i] * S + stage[i];
      switch (kind[i]) {
        case F: fwd[at]++; break;
        case B: bwd[at]++; break;
        case I: bwd[at]++; hasI[at]++; break;
        case W: hasW[at]++; break;
        case FB: fwd[at]++; bwd[mb2[i] * S + stage2[i]]++; break;
        default: break;
      }
    }
    exactlyOnce(fwd, 'F', S);
    exactlyOnce(bwd, 'B', S);
    for (i = 0; i < m * S; i++) {
      if (hasW[i] > 1 || hasW[i] !== hasI[i]) {
        var tok = (i % S) + 'W' + Math.floor(i / S), iTok = (i % S) + 'I' + Math.floor(i / S);
        if (hasW[i] > 1) throw orderError('order.twice', { op: tok, n: hasW[i] });
        if (hasI[i]) throw orderError('order.missing_w', { op: tok, i_op: iTok });
        throw orderError('order.stray_w', { op: tok, i_op: iTok });
      }
    }
    var anyEF = encoderOnce(order, EF), anyEB = encoderOnce(order, EB);
    if (anyEB && !anyEF) throw orderError('order.encoder_missing', { op: 'EF0' });
    if (order.segment !== null && order.segment.length !== N) throw orderError('order.segment', { n: N });
  }

  // Encoder ops of kind k: once per micro-batch, or not at all. Whether there are any.
  function encoderOnce(order, k) {
    var kind = order.kind, mb = order.mb, count = new Int32Array(order.m), any = false, j;
    for (j = 0; j < kind.length; j++) if (kind[j] === k) { count[mb[j]]++; any = true; }
    for (j = 0; any && j < count.length; j++) {
      if (count[j] === 1) continue;
      var t = KIND_NAMES[k] + j;
      if (count[j] === 0) throw orderError('order.encoder_missing', { op: t });
      throw orderError('order.twice', { op: t, n: count[j] });
    }
    return any;
  }

  function exactlyOnce(counts, role, S) {
    for (var i = 0; i < counts.length; i++) {
      if (counts[i] === 1) continue;
      var mb = Math.floor(i / S), s = i % S, tok = s + role + mb;
      if (counts[i] === 0) {
        throw orderError(role === 'F' ? 'order.missing_f' : 'order.missing_b', { op: tok, mb: mb, stage: s });
      }
      throw orderError('order.twice', { op: tok, n: counts[i] });
    }
  }

  // The dependencies of every op (docs/model.md), with lags (the comm latency across ranks),
  // CSR style: op i waits for idx[ptr[i] .. ptr[i+1]). Within an op, in Python's
  // order: its forward part's, its backward part's, a W's or an EB's, then barriers.
  //   a forward F(mb, s)        after the forward of (mb, s-1); on stage 0 after EF(mb), if any
  //   a backward B/I(mb, s)     after the backward of (mb, s+1); on the last stage after F(mb, s)
  //   W(mb, s)                  after I(mb, s)
  //   an overlapped F&B         after the dependencies of both of its parts
  //   EB(mb)                    after the backward of (mb, 0)
  //   a segment                 after every op of the one before
  function dependencies(order, comm) {
    var m = order.m, S = order.S, N = order.nOps, kind = order.kind, mb = order.mb, stage = order.stage;
    var mb2 = order.mb2, stage2 = order.stage2, rank = order.rank, i, k;
    // Which op produces each (mb, stage)'s forward activation and input gradient.
    var fwd = new Int32Array(m * S).fill(-1), bwd = new Int32Array(m * S).fill(-1), encF = new Int32Array(m).fill(-1);
    for (i = 0; i < N; i++) {
      k = kind[i];
      if (k === F || k === FB) fwd[mb[i] * S + stage[i]] = i;
      if (k === B || k === I) bwd[mb[i] * S + stage[i]] = i;
    }
    for (i = 0; i < N; i++) if (kind[i] === FB) bwd[mb2[i] * S + stage2[i]] = i;
    for (i = 0; i < N; i++) if (kind[i] === EF) encF[mb[i]] = i;

    var barrierDeps = order.segment !== null ? barriers(order) : new Map();
    var extra = 0;
    barrierDeps.forEach(function (ds) { extra += ds.length; });
    var ptr = new Int32Array(N + 1), idx = new Int32Array(2 * N + extra), lag = new Float64Array(2 * N + extra), n = 0;
    for (i = 0; i < N; i++) {
      k = kind[i];
      var d1 = -1, d2 = -1;
      if (k === F || k === FB) { // forward part: the previous stage, or the encoder
        d1 = stage[i] > 0 ? fwd[mb[i] * S + stage[i] - 1] : encF[mb[i]];
      }
      if (k === B || k === I || k === FB) { // backward part: the next stage, or the last forward
        var bm = k === FB ? mb2[i] : mb[i], bs = k === FB ? stage2[i] : stage[i];
        d2 = bs < S - 1 ? bwd[bm * S + bs + 1] : fwd[bm * S + S - 1];
      }
      if (k === W) d2 = bwd[mb[i] * S + stage[i]];
      if (k === EB) d2 = bwd[mb[i] * S];
      if (d1 >= 0) { idx[n] = d1; lag[n++] = rank[d1] !== rank[i] ? comm : 0.0; }
      if (d2 >= 0) { idx[n] = d2; lag[n++] = rank[d2] !== rank[i] ? comm : 0.0; }
      var waits = extra > 0 ? barrierDeps.get(i) : undefined; // only an encoder's segments have barriers
      if (waits !== undefined) for (var j = 0; j < waits.length; j++) { idx[n] = waits[j]; lag[n++] = 0.0; }
      ptr[i + 1] = n;
    }
    return { ptr: ptr, idx: idx.subarray(0, n), lag: lag.subarray(0, n) }; // views: nothing copied
  }

  // The first op of each segment on each rank waits for the last op of every earlier
  // segment on every rank: op -> the ops it waits for, by rank.
  function barriers(order) {
    var seg = order.segment, rank = order.rank, P = order.P, N = order.nOps, out = new Map();
    var ks = Array.from(new Set(seg)).sort(function (a, b) { return a - b; });
    ks.forEach(function (k) {
      var lasts = [], firsts = [], r, i;
      for (r = 0; r < P; r++) {
        var last = -1, first = -1;
        for (i = 0; i < N; i++) {
          if (rank[i] !== r) continue;
          if (seg[i] < k) last = i;
          else if (seg[i] === k && first < 0) first = i;
        }
        if (last >= 0) lasts.push(last);
        if (first >= 0) firsts.push(first);
      }
      if (!lasts.length) return; // no earlier segment
      firsts.forEach(function (f) { out.set(f, lasts.slice()); });
    });
    return out;
  }

  // simulate._asap: walk the ranks round-robin, advancing each rank through every op
  // whose dependencies are already timed; a round that advances no rank is a
  // deadlock. Returns each rank's next untimed op (its end if done).
  function asap(rankPtr, dur, depPtr, depIdx, depLag, start, end) {
    var P = rankPtr.length - 1;
    var nxt = rankPtr.slice(0, P);
    var free = new Float64Array(P);
    var timed = new Uint8Array(dur.length);
    var left = dur.length;
    while (left > 0) {
      var moved = false;
      for (var r = 0; r < P; r++) {
        var i = nxt[r], hi = rankPtr[r + 1], tFree = free[r];
        while (i < hi) {
          var t = tFree, ready = true;
          for (var k = depPtr[i]; k < depPtr[i + 1]; k++) {
            var d = depIdx[k];
            if (!timed[d]) { ready = false; break; }
            var at = end[d] + depLag[k];
            if (at > t) t = at;
          }
          if (!ready) break;
          start[i] = t;
          tFree = t + dur[i];
          end[i] = tFree;
          timed[i] = 1;
          i += 1;
        }
        if (i !== nxt[r]) {
          moved = true;
          left -= i - nxt[r];
          nxt[r] = i;
          free[r] = tFree;
        }
      }
      if (!moved) break;
    }
    return nxt;
  }

  // Time `order` with costs `c` and stage `weights` (null: all 1), or with the given
  // per-op durations: a timeline {order, costs, start, end, deps, makespan, weights}.
  // check === false skips `validate` for an order its builder vouches for
  // (encoder.js times a pipeline with only some encoder ops while placing the rest).
  function simulate(order, c, dur, check, weights) {
    if (check !== false) validate(order);
    weights = weights === undefined ? null : weights;
    var deps = dependencies(order, c.comm);
    if (dur === undefined || dur === null) dur = opDurations(order, c, weights);
    var N = order.nOps, start = new Float64Array(N), end = new Float64Array(N);
    var nxt = asap(order.rankPtr, dur instanceof Float64Array ? dur : Float64Array.from(dur), deps.ptr, deps.idx, deps.lag,
      start, end);
    var stuck = [];
    for (var r = 0; r < order.P; r++) if (nxt[r] < order.rankPtr[r + 1]) stuck.push(r);
    if (stuck.length) throw deadlock(order, deps, nxt, stuck, start, end);
    return {
      order: order, costs: c, start: start, end: end, deps: deps, makespan: makespan(start, end),
      weights: weights === null ? null : Array.from(weights, Number),
    };
  }

  function makespan(start, end) {
    if (!end.length) return 0.0;
    var hi = -Infinity, lo = Infinity;
    for (var i = 0; i < end.length; i++) {
      if (end[i] > hi) hi = end[i];
      if (start[i] < lo) lo = start[i];
    }
    return hi - lo;
  }

  // For every stuck rank: the op it is stuck at and the first op that one waits for
  // (an op is timed iff it comes before its rank's next untimed op).
  function deadlock(order, deps, nxt, stuck, start, end) {
    var rank = order.rank, N = order.nOps, timed = new Uint8Array(N);
    var s = new Float64Array(N), e = new Float64Array(N);
    for (var i = 0; i < N; i++) {
      timed[i] = i < nxt[rank[i]] ? 1 : 0;
      s[i] = timed[i] ? start[i] : NaN;
      e[i] = timed[i] ? end[i] : NaN;
    }
    var err = deadlockError(stuck.map(function (r) {
      var i = nxt[r], d = -1;
      for (var k = deps.ptr[i]; k < deps.ptr[i + 1]; k++) {
        var j = deps.idx[k];
        if (!(j < nxt[rank[j]])) { d = j; break; }
      }
      return [r, i, describeOp(order, i), d, describeOp(order, d), rank[d]];
    }));
    err.timed = timed;
    err.start = s;
    err.end = e;
    return err;
  }

  // ---------------------------------------------------------------------------
  // Metrics (metrics.py).

  // numpy's float64 sum: pairwise, with 8 accumulators in blocks of up to 128.
  function pairwiseSum(a, lo, n) {
    var i, res;
    if (n < 8) {
      res = -0.0;
      for (i = 0; i < n; i++) res += a[lo + i];
      return res;
    }
    if (n <= 128) {
      var r0 = a[lo], r1 = a[lo + 1], r2 = a[lo + 2], r3 = a[lo + 3];
      var r4 = a[lo + 4], r5 = a[lo + 5], r6 = a[lo + 6], r7 = a[lo + 7];
      for (i = 8; i < n - (n % 8); i += 8) {
        r0 += a[lo + i]; r1 += a[lo + i + 1]; r2 += a[lo + i + 2]; r3 += a[lo + i + 3];
        r4 += a[lo + i + 4]; r5 += a[lo + i + 5]; r6 += a[lo + i + 6]; r7 += a[lo + i + 7];
      }
      res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
      for (; i < n; i++) res += a[lo + i];
      return res;
    }
    var n2 = Math.floor(n / 2);
    n2 -= n2 % 8;
    return pairwiseSum(a, lo, n2) + pairwiseSum(a, lo + n2, n - n2);
  }
  function sum(a) { return 0.0 + pairwiseSum(a, 0, a.length); }

  // Round away float noise (1e-16 bubbles) so a zero bubble reads as zero.
  function clean(x) { return Math.abs(x) < 1e-12 ? 0.0 : x; }

  // Sends between ranks per micro-batch: an activation forward and a gradient back
  // across every stage boundary that crosses ranks.
  function p2pPerMicrobatch(order) {
    var s2r = order.stageToRank, n = 0;
    for (var s = 1; s < s2r.length; s++) if (s2r[s] !== s2r[s - 1]) n++;
    return 2 * n;
  }

  // The article's convention: 2 per micro-batch for one chunk per rank, 2V for V.
  function p2pArticle(order) { return order.P > 1 ? 2 * order.chunksPerRank : 0; }

  function measure(tl) {
    var order = tl.order, P = order.P, N = order.nOps, ptr = order.rankPtr, rank = order.rank;
    var start = tl.start, end = tl.end, ms = tl.makespan, i, r;
    var busy = new Float64Array(P), span = new Float64Array(P), idle = new Float64Array(P), spanMax = -Infinity;
    for (i = 0; i < N; i++) busy[rank[i]] += end[i] - start[i]; // np.bincount: in op order
    for (r = 0; r < P; r++) {
      idle[r] = ms - busy[r];
      span[r] = ptr[r + 1] > ptr[r] ? end[ptr[r + 1] - 1] - start[ptr[r]] : 0.0;
      if (span[r] > spanMax) spanMax = span[r];
    }
    var work = sum(busy);
    var bubble = ms > 0 ? 1.0 - work / (P * ms) : 0.0;
    var steady = ms > 0 ? 1.0 - work / (P * spanMax) : 0.0;
    var out = {
      makespan: ms, busy: busy, idle: idle, span: span,
      bubbleFraction: clean(bubble), steadyBubbleFraction: clean(steady),
      bubbles: idleIntervals(tl),
      p2pPerMicrobatch: p2pPerMicrobatch(order), p2pArticle: p2pArticle(order),
    };
    var inf = inflight(tl);
    Object.keys(inf).forEach(function (k) { out[k] = inf[k]; });
    return out;
  }

  // Every idle interval of every rank within [0, makespan], the leading wait for the
  // first op and the trailing wait for the iteration's end included; by rank, then time.
  function idleIntervals(tl) {
    var order = tl.order, P = order.P, ptr = order.rankPtr, start = tl.start, end = tl.end, ms = tl.makespan;
    var tol = 1e-9 * Math.max(ms, 1.0), rs = [], los = [], his = [];
    for (var r = 0; r < P; r++) {
      var prevEnd = 0.0;
      for (var i = ptr[r]; i < ptr[r + 1]; i++) {
        if (start[i] - prevEnd > tol) { rs.push(r); los.push(prevEnd); his.push(start[i]); }
        prevEnd = end[i];
      }
      if (ms - prevEnd > tol) { rs.push(r); los.push(prevEnd); his.push(ms); }
    }
    return { rank: Int32Array.from(rs), start: Float64Array.from(los), end: Float64Array.from(his) };
  }

  // Event kinds (metrics._events): per op, a start event that adds 1 where the op
  // starts what is counted and an end event that takes 1 away where it ends it.
  var IN_FLIGHT = CODES.counted.INFLIGHT, AWAITING_B = CODES.counted.AWAITING_B, AWAITING_W = CODES.counted.AWAITING_W;
  function up(what, k) { return what !== AWAITING_W && (k === F || k === FB) ? 1 : 0; }
  function down(what, k) {
    if (what === IN_FLIGHT) return k === B || k === W || k === FB ? 1 : 0; // the chunk's last backward op
    if (what === AWAITING_B) return k === B || k === I || k === FB ? 1 : 0; // its input gradient
    return k === W ? 1 : k === I ? -1 : 0; // awaiting W only: from the end of I to the end of W
  }

  // The events' deltas and each rank's running count from 0 at its first event
  // (metrics._rank_cumsum: the ops that ran of a deadlocked order need not end at 0).
  function events(kind, what, rank) {
    var n = kind.length, delta = new Int32Array(2 * n), count = new Int32Array(2 * n), c = 0;
    for (var i = 0; i < n; i++) {
      if (i > 0 && rank[i] !== rank[i - 1]) c = 0;
      var a = up(what, kind[i]), b = -down(what, kind[i]);
      delta[2 * i] = a;
      count[2 * i] = c += a;
      delta[2 * i + 1] = b;
      count[2 * i + 1] = c += b;
    }
    return { delta: delta, count: count };
  }

  // The step function of the events that change something, keeping only the last of
  // simultaneous ones (a chunk freed and the next taken at the same instant is no dip).
  function steps(erank, time, ev) {
    var delta = ev.delta, count = ev.count, n = delta.length, idx = new Int32Array(n), m = 0, q = 0, j;
    for (j = 0; j < n; j++) if (delta[j] !== 0) idx[m++] = j;
    var keep = new Int32Array(m);
    for (j = 0; j < m; j++) {
      var a = idx[j], b = idx[j + 1];
      if (j + 1 === m || erank[b] !== erank[a] || time[b] !== time[a]) keep[q++] = a;
    }
    var out = { rank: new Int32Array(q), time: new Float64Array(q), value: new Int32Array(q) };
    for (j = 0; j < q; j++) {
      out.rank[j] = erank[keep[j]];
      out.time[j] = time[keep[j]];
      out.value[j] = count[keep[j]];
    }
    return out;
  }

  // In-flight chunks of each rank: started forwards whose last backward op (W where
  // split, else B, alone or in an F&B) has not ended; peaks per rank and, where the
  // backward is split, how the peak divides into awaiting B and awaiting W only.
  function inflight(tl) {
    var order = tl.order, kind = order.kind, P = order.P, n = order.nOps, rank = order.rank, ptr = order.rankPtr;
    var main = events(kind, IN_FLIGHT, rank), count = main.count;
    var erank = new Int32Array(2 * n), time = new Float64Array(2 * n), i, r;
    for (i = 0; i < n; i++) {
      erank[2 * i] = erank[2 * i + 1] = rank[i];
      time[2 * i] = tl.start[i];
      time[2 * i + 1] = tl.end[i];
    }
    var peak = new Int32Array(P), atPeak = new Int32Array(P), peakMb = new Float64Array(P);
    for (r = 0; r < P; r++) {
      if (ptr[r + 1] > ptr[r]) {
        var best = count[2 * ptr[r]];
        atPeak[r] = 2 * ptr[r];
        for (i = 2 * ptr[r] + 1; i < 2 * ptr[r + 1]; i++) if (count[i] > best) { best = count[i]; atPeak[r] = i; }
        peak[r] = Math.max(best, 0);
      }
      peakMb[r] = peak[r] / order.chunksPerRank;
    }
    var out = {
      inflight: steps(erank, time, main), peakChunks: peak, peakMicrobatches: peakMb,
      awaitingB: null, awaitingW: null, peakAwaitingB: null, peakAwaitingW: null,
    };
    if (order.hasW) {
      var b = events(kind, AWAITING_B, rank), w = events(kind, AWAITING_W, rank);
      out.awaitingB = steps(erank, time, b);
      out.awaitingW = steps(erank, time, w);
      out.peakAwaitingB = new Int32Array(P);
      out.peakAwaitingW = new Int32Array(P);
      for (r = 0; r < P; r++) { // at the first event where the rank reaches its peak (event 0 if it has none)
        out.peakAwaitingB[r] = b.count[atPeak[r]];
        out.peakAwaitingW[r] = w.count[atPeak[r]];
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------
  // Closed forms (closed_form.py): exact fractions on BigInt, always reduced.

  function gcd(a, b) {
    if (a < ZERO) a = -a;
    if (b < ZERO) b = -b;
    while (b) { var t = a % b; a = b; b = t; }
    return a;
  }

  function Fraction(n, d) {
    n = BigInt(n);
    d = d === undefined ? ONE : BigInt(d);
    if (d === ZERO) throw new Error('Fraction(' + n + ', 0)');
    if (d < ZERO) { n = -n; d = -d; }
    var g = gcd(n, d) || ONE;
    this.n = n / g;
    this.d = d / g;
  }
  function fr(n, d) { return new Fraction(n, d); }
  function asFraction(x) { return x instanceof Fraction ? x : fr(x); }
  Fraction.prototype.add = function (b) { b = asFraction(b); return fr(this.n * b.d + b.n * this.d, this.d * b.d); };
  Fraction.prototype.sub = function (b) { b = asFraction(b); return fr(this.n * b.d - b.n * this.d, this.d * b.d); };
  Fraction.prototype.mul = function (b) { b = asFraction(b); return fr(this.n * b.n, this.d * b.d); };
  Fraction.prototype.div = function (b) { b = asFraction(b); return fr(this.n * b.d, this.d * b.n); };
  Fraction.prototype.cmp = function (b) {
    b = asFraction(b);
    var l = this.n * b.d, r = b.n * this.d;
    return l < r ? -1 : l > r ? 1 : 0;
  };
  // float(Fraction): correctly rounded, as Python's int / int. Scale the quotient to
  // 55-56 bits, keep a sticky bit for the remainder, and let Number() round it.
  Fraction.prototype.toNumber = function () {
    var n = this.n < ZERO ? -this.n : this.n, d = this.d;
    if (n === ZERO) return 0;
    var shift = 55 - (n.toString(2).length - d.toString(2).length);
    if (shift >= 0) n <<= BigInt(shift); else d <<= BigInt(-shift);
    var quo = n / d;
    if (quo * d !== n) quo |= ONE;
    var x = Number(quo);
    for (var s = -shift; s !== 0;) { // times 2^-shift, in exact steps
      var step = Math.max(-1000, Math.min(1000, s));
      x *= Math.pow(2, step);
      s -= step;
    }
    return this.n < ZERO ? -x : x;
  };
  Fraction.prototype.toString = function () { return this.d === ONE ? this.n.toString() : this.n + '/' + this.d; };
  Fraction.prototype.toJSON = function () { return [this.n.toString(), this.d.toString()]; };

  // A cost as the decimal it was written as (0.1 is 1/10), Fraction(repr(x)).
  function exact(x) {
    x = Number(x);
    if (x === 0) return fr(0);
    var parts = Math.abs(x).toExponential().split('e');
    var digits = parts[0].replace('.', ''), e = Number(parts[1]) - (digits.length - 1);
    var n = BigInt(x < 0 ? '-' + digits : digits);
    return e >= 0 ? fr(n * TEN ** BigInt(e)) : fr(n, TEN ** BigInt(-e));
  }

  function costFractions(c) { return [exact(c.tf), exact(c.tb), exact(c.tw)]; }

  // The bubble fraction of a rank that works `work` and idles `idle` per iteration.
  function idleFraction(idle, work) {
    if (idle.cmp(0) < 0) idle = fr(0);
    var total = work.add(idle);
    return total.n === ZERO ? fr(0) : idle.div(total);
  }

  function commCaveat(c) { return c.comm > 0 ? T.msg('cf.comm', { comm: T.float(c.comm) }) : null; }

  // For schedules whose closed form is derived at t_f = t_b = t_w.
  function uniformCaveat(c) {
    if (c.comm > 0) return commCaveat(c);
    if (!c.uniform) return T.msg('cf.uniform', { tf: T.float(c.tf), tb: T.float(c.tb), tw: T.float(c.tw) });
    return null;
  }

  // '3/11', or '' when the exact fraction would be unreadable.
  function fractionText(x, maxDenominator) {
    if (x.d === ONE) return x.n.toString();
    return x.d <= BigInt(maxDenominator === undefined ? 10000 : maxDenominator) ? x.n + '/' + x.d : '';
  }

  // ClosedForm: {bubble, bubbleFormula, bubbleExact, caveat, steadyBubble,
  // steadyExact, peakChunks, peakAwaitingB, peakAwaitingW, p2pPerMicrobatch,
  // authors}; authors (AuthorsBubble, or null) is {who, formula, idle, rank}.
  function closedForm(o) {
    return {
      bubble: o.bubble, bubbleFormula: o.bubbleFormula, bubbleExact: o.bubbleExact, caveat: o.caveat,
      steadyBubble: o.steadyBubble, steadyExact: o.steadyExact, peakChunks: o.peakChunks,
      peakAwaitingB: o.peakAwaitingB || null, peakAwaitingW: o.peakAwaitingW || null,
      p2pPerMicrobatch: o.p2pPerMicrobatch, authors: o.authors || null, source: o.source || null,
      peakExact: o.peakExact === undefined ? true : o.peakExact,
    };
  }

  // GPipe, 1F1B and interleaved: the fill and drain cost (P-1) chunk-steps of
  // t_f + t_b each, a V-th of a rank's share; nothing else idles. Bubble
  // (P-1)/(mV+P-1), the same one iteration or back to back.
  var FILL_DRAIN = DATA.engine.fillDrainFormulas; // closed_form.FILL_DRAIN_FORMULAS
  function fillDrain(P, m, V, c, peak, orderCaveat) {
    var caveat = orderCaveat || commCaveat(c);
    var bubble = fr(P - 1, m * V + P - 1);
    return closedForm({
      bubble: bubble, bubbleFormula: V === 1 ? FILL_DRAIN.bubble : FILL_DRAIN.bubble_v,
      bubbleExact: caveat === null, caveat: caveat, steadyBubble: bubble, steadyExact: caveat === null,
      peakChunks: Int32Array.from(peak), p2pPerMicrobatch: P > 1 ? 2 * (V * P - 1) : 0,
    });
  }

  // ---------------------------------------------------------------------------
  // The registry (registry.py, schedule.py): what each schedule is comes as data;
  // its generator, closed form and check come from schedules/<name>.js.

  var SCHEDULES = new Map();
  DATA.schedules.forEach(function (d) {
    var spec = Object.assign({}, d, { generate: null, closedForm: null, check: null });
    spec.chunksPerRank = function (V) { return this.fixedV || V; };
    spec.ownV = function (V) { return this.fixedV || Math.max(V, this.leastV); }; // schedule.Schedule.own_V
    // Op count, in BigInt: P, m and V may be any whole numbers here.
    spec.nOps = function (cfg) {
      return BigInt(this.opsPerChunk) * BigInt(this.chunksPerRank(cfg.V)) * BigInt(cfg.m) * BigInt(cfg.P);
    };
    SCHEDULES.set(d.name, spec);
  });
  var NAMES = DATA.schedules.map(function (d) { return d.name; });
  // Helpers a schedule module offers the others, by its Python module's name
  // (e.g. modules.one_f_one_b.warmup), as `from . import one_f_one_b` does.
  var modules = {};

  // A schedule module registers its twin: {generate(cfg), closedForm(cfg), check(cfg)?}.
  function register(name, impl) {
    var spec = SCHEDULES.get(name);
    if (spec === undefined) throw new Error('register: no schedule ' + JSON.stringify(name) + ' in PIPEVIZ_DATA');
    spec.generate = impl.generate;
    spec.closedForm = impl.closedForm;
    spec.check = impl.check || null;
    return spec; // its data too: the formulas its closed form shows
  }

  function get(name) {
    var spec = typeof name === 'string' ? SCHEDULES.get(name) : undefined;
    if (spec === undefined) throw configError('schedule.unknown', { name: FMT.str(name), names: NAMES.join(', ') });
    if (spec.generate === null) throw new Error('schedule ' + name + ' has no JavaScript twin (schedules/*.js)');
    return spec;
  }

  // The schedule for `cfg`, or a ConfigError saying what is wrong and what is valid.
  function check(cfg) {
    var spec = get(cfg.schedule);
    if (spec.fixedV !== null && cfg.V !== spec.fixedV) {
      throw configError(spec.fixedV === 1 ? 'schedule.fixed_v1' : 'schedule.fixed_v', { name: spec.name, fixed: spec.fixedV, V: cfg.V });
    }
    if (cfg.G !== null && !spec.takesG) throw configError('schedule.no_G', { name: spec.name });
    checkLength(cfg.stageWeights || null, spec.chunksPerRank(cfg.V) * cfg.P, spec.name);
    // Size first: the schedule's own checks may search for a valid m, which must stay cheap.
    var nOps = spec.nOps(cfg), max = BigInt(LIMITS.maxOps);
    if (nOps > max) {
      var perMb = nOps / BigInt(cfg.m);
      if (perMb > max) {
        throw configError('schedule.too_big_P', { name: spec.name, P: cfg.P, V: cfg.V, n: FMT.commas(perMb), max: FMT.commas(max) });
      }
      throw configError('schedule.too_big', {
        name: spec.name, P: cfg.P, m: cfg.m, V: cfg.V, n: FMT.commas(nOps), max: FMT.commas(max), m_max: Number(max / perMb),
      });
    }
    if (spec.check) spec.check(cfg);
    return spec;
  }

  // ---------------------------------------------------------------------------
  // engine.run: check, generate, time and measure one configuration.

  function close(a, b) { return Math.abs(a - b) <= LIMITS.rtol * Math.max(1.0, Math.abs(a), Math.abs(b)); }

  function sameInts(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // Result: {config, schedule, order, timeline, metrics, theory, encoder, balance} and the agreement
  // flags bubbleAgrees, steadyAgrees, peakAgrees.
  function run(cfg) {
    var spec = check(cfg);
    var weights = cfg.stageWeights || null;
    var order = spec.generate(cfg);
    var timeline = simulate(order, cfg.costs, null, true, weights);
    var theory = spec.closedForm(cfg);
    var self = root.PipevizEngine, enc = null;
    if (cfg.encoder !== null) { // the encoder's ops join the ranks' orders; one simulator times them
      enc = self.withEncoder(timeline, cfg.encoder);
      order = enc.order;
      timeline = enc.timeline;
      theory = Object.assign({}, theory, { bubbleExact: false, steadyExact: false, caveat: self.encoderCaveat() });
    }
    theory = withCaveat(theory, weights); // unequal stages: why the closed form no longer holds
    var metrics = measure(timeline);
    var balance = cfg.balance !== null ? self.bpipe(timeline, metrics) : null;
    var res = {
      config: cfg, schedule: spec, order: order, timeline: timeline, metrics: metrics, theory: theory,
      encoder: enc, balance: balance,
      bubbleAgrees: close(metrics.bubbleFraction, theory.bubble.toNumber()),
      steadyAgrees: close(metrics.steadyBubbleFraction, theory.steadyBubble.toNumber()),
      peakAgrees: sameInts(metrics.peakChunks, theory.peakChunks),
    };
    var parts; // computed once, on first use (Result.bubble_parts)
    Object.defineProperty(res, 'bubbleParts', {
      get: function () { if (parts === undefined) parts = bubbleParts(res); return parts; },
    });
    return res;
  }

  // ---------------------------------------------------------------------------
  // Where the bubble comes from (decompose.py): the same order timed with equal
  // stages (the mean weight) and no comm, with the real weights and no comm, and as
  // it ran. Null when the stages are equal and comm is 0.

  // res's order timed with other costs and weights; its encoder ops (if any) keep
  // their e_f and e_b.
  function timed(res, c, weights) {
    var enc = res.encoder || null;
    if (enc === null) return simulate(res.order, c, null, true, weights);
    return simulate(res.order, c, root.PipevizEngine.encoderDurations(res.order, c, enc.settings, weights), true, weights);
  }

  function bubbleParts(res) {
    var cfg = res.config, order = res.order, weights = cfg.stageWeights || null, c = cfg.costs;
    if (!uneven(weights) && !(c.comm > 0)) return null;
    var noComm = costs(c.tf, c.tb, c.tw, 0.0, c.tfb);
    var mean = null;
    if (weights !== null) {
      var avg = sum(Float64Array.from(weights)) / weights.length;
      mean = weights.map(function () { return avg; });
    }
    var ideal = measure(timed(res, noComm, mean));
    var flat = c.comm > 0 ? measure(timed(res, noComm, weights)) : res.metrics;
    var total = res.metrics.bubbleFraction;
    return {
      ideal: ideal.bubbleFraction, imbalance: clean(flat.bubbleFraction - ideal.bubbleFraction),
      comm: clean(total - flat.bubbleFraction), total: total, makespanIdeal: ideal.makespan,
      makespanNoComm: flat.makespan,
    };
  }

  root.PipevizEngine = {
    // kinds and orders
    F: F, B: B, I: I, W: W, FB: FB, EF: EF, EB: EB, KIND_NAMES: KIND_NAMES, PLACEMENTS: PLACEMENTS,
    loopPlacement: loopPlacement, vPlacement: vPlacement, placement: placement,
    Order: Order, OrderBuilder: OrderBuilder, fromRankLists: fromRankLists, perRank: perRank,
    token: token, parseToken: parseToken, parseRankLists: parseRankLists, parseOrder: parseOrder,
    orderFromRanks: orderFromRanks, checkSize: checkSize, KIND_CODES: KIND_CODES, PY_SPACE: PY_SPACE,
    // simulator and metrics
    opDurations: opDurations, describeOp: describeOp, validate: validate, dependencies: dependencies,
    makespan: makespan,
    simulate: simulate, measure: measure, idleIntervals: idleIntervals, inflight: inflight, sum: sum,
    p2pPerMicrobatch: p2pPerMicrobatch, p2pArticle: p2pArticle,
    // closed forms
    Fraction: Fraction, fraction: fr, exact: exact, costFractions: costFractions, idleFraction: idleFraction,
    commCaveat: commCaveat, uniformCaveat: uniformCaveat, fractionText: fractionText, closedForm: closedForm,
    fillDrain: fillDrain,
    // configuration, registry, run
    costs: costs, checkCost: checkCost, config: config, SCHEDULES: SCHEDULES, NAMES: NAMES, modules: modules, register: register,
    get: get, check: check, run: run,
    // stage weights and the bubble's parts
    checkWeights: checkWeights, parseWeights: parseWeights, checkLength: checkLength, uneven: uneven,
    weightsText: weightsText, weightsCaveat: weightsCaveat, withCaveat: withCaveat, bubbleParts: bubbleParts,
    sum: sum, clean: clean,
    // errors
    PipevizError: PipevizError, configError: configError, orderError: orderError, errorText: errorText,
  };
})(typeof window !== 'undefined' ? window : globalThis);
