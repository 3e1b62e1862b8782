/* Bring your own order: twin of pipeviz/custom.py.
 *
 * read(text, placement, P) reads an order written in PyTorch's action notation (one
 * line per rank) or the JSON export (its object or its `ops`); runOrder(order, costs,
 * placement) times and measures it like a schedule, with no closed form (theory is
 * null). An order that deadlocks is still a result: its order and timeline hold the
 * ops that ran, `deadlock` the error and `stuck` each stuck rank's next op (drawn
 * after the rank's last op that ran) and the op it waits for.
 *
 * JSON is read as Python's json.loads reads it, which a browser's JSON.parse does
 * not quite: a number written with a fraction or an exponent is a float even when
 * whole (1.0), and an integer has at most 4300 digits. The parse's reviver tells
 * them apart from the number's source text, where the browser gives it (Chromium
 * 114, Firefox 135); an older browser takes 1.0 as 1.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var DATA = root.PIPEVIZ_DATA.custom; // name, maxDepth, maxNumber
  var CUSTOM = DATA.name;

  // The schedule an order of one's own is shown under, one per placement.
  var ENTRIES = {};
  E.PLACEMENTS.forEach(function (p) {
    ENTRIES[p] = { name: CUSTOM, placement: p, fixedV: null, opsPerChunk: 3, takesG: false };
  });

  var JSON_START = new RegExp('^[' + E.PY_SPACE + ']*'); // str.lstrip()

  function read(text, placement, P) {
    placement = placement === undefined ? 'loop' : placement;
    if (E.PLACEMENTS.indexOf(placement) < 0) {
      throw E.orderError('order.placement', { placement: root.PipevizText.format.str(placement), valid: E.PLACEMENTS.join(', ') });
    }
    var first = text.replace(JSON_START, '').charAt(0);
    if (first === '{' || first === '[') return fromJson(text, placement, P);
    return E.parseOrder(text, placement, P);
  }

  // json.loads, strictly: see the file's comment.
  function PyFloat(value) { this.value = value; }
  var INT = /^-?(?:0|[1-9][0-9]*)$/;
  var TOO_LONG = {}; // an integer Python would refuse to read (more than 4300 digits)
  function reviver(key, value, context) {
    if (typeof value !== 'number') return value;
    if (context && typeof context.source === 'string') {
      if (!INT.test(context.source)) return new PyFloat(value);
      if (context.source.replace('-', '').length > 4300) throw TOO_LONG;
    } else if (!Number.isInteger(value)) {
      return new PyFloat(value);
    }
    return value === 0 ? 0 : value; // -0 reads as the int 0
  }

  function isDict(x) { return x !== null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof PyFloat); }
  // A JSON object's own members (dict.get), read by name: o.kind, o.mb, ...
  function own(obj) {
    var out = Object.create(null);
    Object.keys(obj).forEach(function (k) { out[k] = obj[k]; });
    return out;
  }

  var STRING = /"(?:[^"\\]|\\[\s\S])*"/g;

  function fromJson(text, placement, P) {
    var depth = 0, bare = text.replace(STRING, '');
    for (var i = 0; i < bare.length; i++) {
      var c = bare.charAt(i);
      if (c === '[' || c === '{') depth += 1;
      else if (c === ']' || c === '}') depth -= 1;
      else continue;
      if (depth > DATA.maxDepth) throw E.orderError('order.json_deep', { depth: DATA.maxDepth });
    }
    var data;
    try {
      data = JSON.parse(text, reviver);
    } catch (e) {
      if (e === TOO_LONG || e instanceof SyntaxError) throw E.orderError('order.json', {});
      throw e;
    }
    var ops = isDict(data) ? own(data).ops : data;
    if (!Array.isArray(ops) || !ops.length) throw E.orderError('order.json_ops', {});
    var byRank = new Map();
    ops.forEach(function (op, n) {
      var got = jsonOp(op, n);
      if (!byRank.has(got[0])) byRank.set(got[0], []);
      byRank.get(got[0]).push(got[1]);
    });
    var ranks = Math.max.apply(null, Array.from(byRank.keys())) + 1;
    if (ranks > byRank.size) {
      var empty = 0;
      while (byRank.has(empty)) empty++;
      throw E.orderError('order.json_empty_rank', { rank: empty });
    }
    if (P !== undefined && P !== null && ranks !== P) throw E.orderError('order.json_ranks', { ranks: ranks, P: P });
    var lists = [];
    for (var r = 0; r < ranks; r++) lists.push(byRank.get(r));
    return E.orderFromRanks(lists, placement);
  }

  // The one member of `field` ({mb: value}) as a whole number from 0 to maxNumber;
  // its name is the message's.
  function whole(field, n) {
    var key = Object.keys(field)[0], value = field[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > DATA.maxNumber) {
      throw E.orderError('order.json_number', { n: n, key: key, max: DATA.maxNumber });
    }
    return value;
  }

  function jsonOp(op, n) {
    if (!isDict(op)) throw E.orderError('order.json_op', { n: n });
    var o = own(op), rank = whole({ rank: o.rank }, n), kind = o.kind;
    if (kind === 'F&B') {
      var parts = o.parts;
      if (!(Array.isArray(parts) && parts.length === 2 && parts.every(isDict)
            && own(parts[0]).kind === 'F' && own(parts[1]).kind === 'B')) {
        throw E.orderError('order.json_pair', { n: n });
      }
      var f = own(parts[0]), b = own(parts[1]);
      return [rank, ['F&B', whole({ mb: f.mb }, n), whole({ stage: f.stage }, n), whole({ mb: b.mb }, n),
        whole({ stage: b.stage }, n)]];
    }
    if (kind === 'EF' || kind === 'EB') return [rank, [kind, whole({ mb: o.mb }, n)]];
    if (kind === 'B' && o.backward === 'input') kind = 'I';
    if (typeof kind !== 'string' || !E.KIND_CODES.has(kind)) throw E.orderError('order.json_kind', { n: n });
    return [rank, [kind, whole({ mb: o.mb }, n), whole({ stage: o.stage }, n)]];
  }

  // Every op is on the rank `placement` puts its stage on (custom._fits).
  function fits(order, placement) {
    var P = order.P;
    for (var i = 0; i < order.nOps; i++) {
      var pairs = [order.stage[i]];
      if (order.stage2[i] >= 0) pairs.push(order.stage2[i]);
      for (var j = 0; j < pairs.length; j++) {
        var s = pairs[j];
        if (s < 0) continue;
        if (placement === 'v') {
          if (s >= 2 * P || (s < P ? s : 2 * P - 1 - s) !== order.rank[i]) return false;
        } else if (s % P !== order.rank[i]) {
          return false;
        }
      }
    }
    return true;
  }

  // The sub-order of the ops that ran, each rank's in its order.
  function ran(order, timed) {
    var idx = [];
    for (var i = 0; i < order.nOps; i++) if (timed[i]) idx.push(i);
    var pick = function (a, Type) { return Type.from(idx, function (i) { return a[i]; }); };
    var rankPtr = new Int32Array(order.P + 1);
    idx.forEach(function (i) { rankPtr[order.rank[i] + 1]++; });
    for (var r = 0; r < order.P; r++) rankPtr[r + 1] += rankPtr[r];
    return new E.Order({
      P: order.P, m: order.m, stageToRank: order.stageToRank, kind: pick(order.kind, Int8Array),
      mb: pick(order.mb, Int32Array), stage: pick(order.stage, Int32Array), mb2: pick(order.mb2, Int32Array),
      stage2: pick(order.stage2, Int32Array), rankPtr: rankPtr,
      segment: order.segment ? pick(order.segment, Int8Array) : null,
    });
  }

  function stuck(order, c, e) {
    var lastEnd = new Float64Array(order.P), dur = E.opDurations(order, c), k = e.blocked.length;
    for (var i = 0; i < order.nOps; i++) {
      var t = e.timed[i] ? e.end[i] : 0.0;
      if (t > lastEnd[order.rank[i]]) lastEnd[order.rank[i]] = t;
    }
    var out = {
      rank: new Int32Array(k), left: new Float64Array(k), right: new Float64Array(k), op: [], waits: [],
      waitsRank: new Int32Array(k), token: [], waitsToken: [], kind: new Int32Array(k), stage: new Int32Array(k),
    };
    e.blocked.forEach(function (b, j) {
      var r = b[0], op = b[1];
      out.rank[j] = r;
      out.left[j] = lastEnd[r];
      out.right[j] = lastEnd[r] + dur[op];
      out.op.push(E.describeOp(order, op));
      out.waits.push(b[4]);
      out.waitsRank[j] = b[5];
      out.token.push(order.token(op));
      out.waitsToken.push(order.token(b[3]));
      out.kind[j] = order.kind[op];
      out.stage[j] = order.stage[op];
    });
    return out;
  }

  function result(cfg, placement, order, tl, extra) {
    var res = Object.assign({
      config: cfg, schedule: ENTRIES[placement], order: order, timeline: tl, metrics: E.measure(tl), theory: null,
      placement: placement, encoder: null, balance: null, deadlock: null, stuck: null, bubbleAgrees: false, steadyAgrees: false, peakAgrees: false,
    }, extra || {});
    var parts; // the bubble's parts, as a schedule's result has them, on first use (an order that ran)
    Object.defineProperty(res, 'bubbleParts', {
      get: function () { if (parts === undefined) parts = res.deadlock ? null : E.bubbleParts(res); return parts; },
    });
    return res;
  }

  // Time and measure `order` (an OrderError if it is not a valid order).
  function runOrder(order, c, placement) {
    var cfg = E.config(CUSTOM, order.P, order.m, order.chunksPerRank, c);
    var tl;
    try {
      tl = E.simulate(order, c);
    } catch (e) {
      if (!(e instanceof E.PipevizError)) throw e;
      if (e.type === 'OrderError') {
        var other = placement === 'loop' ? 'v' : 'loop';
        if (e.key === 'order.wrong_rank' && fits(order, other)) {
          throw E.orderError('order.wrong_placement', Object.assign({}, e.args, { placement: placement, other: other }));
        }
        throw e;
      }
      if (e.type !== 'DeadlockError') throw e;
      var sub = ran(order, e.timed);
      var start = Float64Array.from(e.start.filter(function (_, i) { return e.timed[i]; }));
      var end = Float64Array.from(e.end.filter(function (_, i) { return e.timed[i]; }));
      tl = { order: sub, costs: c, start: start, end: end, deps: E.dependencies(sub, c.comm), makespan: E.makespan(start, end) };
      return result(cfg, placement, sub, tl, { deadlock: e, stuck: stuck(order, c, e) });
    }
    return result(cfg, placement, order, tl);
  }

  function runText(text, placement, c, P) { return runOrder(read(text, placement, P), c, placement); }

  E.custom = {
    CUSTOM: CUSTOM, ENTRIES: ENTRIES, read: read, fromJson: fromJson, runOrder: runOrder, runText: runText, fits: fits,
  };
})(typeof window !== 'undefined' ? window : globalThis);
