/* Memory in bytes from a model config: twin of pipeviz/memory.py (docs/model.md,
 * "Memory in bytes"). Adds PipevizEngine.memory.
 *
 * The presets' shapes, the fields' limits, the activation modes and the byte units
 * arrive as data (PIPEVIZ_DATA.memory). The formulas are memory.py's:
 *   activation bytes per layer per micro-batch, over t: s b h (34 + 5 a s / h)
 *   ("none"), 34 s b h ("flash"), 2 s b h ("full"); awaiting W only 32 s b h / t;
 *   parameters 12 h^2 + 13 h per layer, v h for the embedding (first stage) and an
 *   untied head (last stage), over t, times bytes per parameter.
 * Numerators are whole numbers computed in BigInt and made a Number once, as Python
 * makes its int a float once, so both round alike; every later step repeats numpy's
 * float arithmetic in the same order.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var FMT = root.PipevizText.format;
  var M = root.PIPEVIZ_DATA.memory;
  var PRESETS = new Map(Object.entries(M.presets));

  function big(x) { return BigInt(x); }

  function isWhole(v) { return typeof v === 'number' && Number.isInteger(v); }

  // Model(fields): checked as memory.Model.__post_init__ checks it.
  function Model(f) {
    var self = this;
    ['L', 'h', 'a', 's', 'b', 'vocab', 't'].forEach(function (name) {
      var lim = M.limits[name], v = f[name] === undefined ? M.defaults[name] : f[name];
      if (!isWhole(v) || v < lim[0] || v > lim[1]) {
        throw E.configError('model.whole', { name: name, value: FMT.str(v), low: lim[0], high: lim[1] });
      }
      self[name] = v;
    });
    this.act = f.act === undefined ? M.defaults.act : f.act;
    if (M.actModes.indexOf(this.act) < 0) {
      throw E.configError('model.act', { value: FMT.str(this.act), valid: M.actModes.join(', ') });
    }
    this.bytesPerParam = f.bytesPerParam === undefined ? M.defaults.bytesPerParam : f.bytesPerParam;
    if (M.bytesPerParam.indexOf(this.bytesPerParam) < 0) throw E.configError('model.bpp', { value: FMT.str(this.bytesPerParam) });
    ['embed', 'head'].forEach(function (name) {
      var v = f[name] === undefined ? 0.0 : f[name], number = typeof v === 'number' && isFinite(v);
      if (!(number && v >= 0 && v <= M.extraMax)) {
        throw E.configError('model.extra', {
          name: name, value: number ? root.PipevizText.float(v) : FMT.str(v), high: root.PipevizText.float(M.extraMax),
        });
      }
      self[name] = v;
    });
    this.untied = !!f.untied;
    this.name = f.name === undefined ? M.defaults.name : f.name;
  }

  Model.prototype.actNum = function () {
    var s = big(this.s), b = big(this.b), h = big(this.h), a = big(this.a);
    if (this.act === 'flash') return big(34) * s * b * h;
    if (this.act === 'full') return big(2) * s * b * h;
    return s * b * (big(34) * h + big(5) * a * s);
  };
  Model.prototype.wOnlyNum = function () { return big(32) * big(this.s) * big(this.b) * big(this.h); };
  // Bytes per layer per micro-batch (full activation; W-only share), over t.
  Model.prototype.actBytes = function () { return Number(this.actNum()) / this.t; };
  Model.prototype.wOnlyBytes = function () { return Number(this.wOnlyNum()) / this.t; };
  Model.prototype.layerParams = function () { return 12 * this.h * this.h + 13 * this.h; };
  Model.prototype.vocabParams = function () { return this.vocab * this.h; };

  // A preset's shape with other fields given (memory.preset).
  function preset(name, fields) {
    var shape = PRESETS.get(name);
    if (shape === undefined) {
      throw E.configError('model.unknown', { name: FMT.str(name), names: Array.from(PRESETS.keys()).join(', ') });
    }
    return new Model(Object.assign({}, shape, fields || {}, { name: name }));
  }

  // Layers per stage: as even as possible, the first L mod S stages one more.
  function layerSplit(L, S) {
    if (L < S) throw E.configError('model.few_layers', { L: L, S: S });
    var base = Math.floor(L / S), extra = L % S, out = new Int32Array(S);
    for (var s = 0; s < S; s++) out[s] = base + (s < extra ? 1 : 0);
    return out;
  }

  // w_s = (layers of stage s + its extra layer-equivalents) / (L / S).
  function stageWeights(model, S) {
    var layers = layerSplit(model.L, S), out = [];
    var extra = Float64Array.from(layers);
    extra[0] += model.embed;
    extra[S - 1] += model.head;
    for (var s = 0; s < S; s++) out.push(extra[s] * S / model.L);
    return out;
  }

  // Parameter bytes per rank: each held stage's layers, the embedding on stage 0, an
  // untied head on the last stage; over t, times bytes per parameter.
  function paramBytes(model, order) {
    var S = order.S, layers = layerSplit(model.L, S), count = new Float64Array(S), s;
    for (s = 0; s < S; s++) count[s] = layers[s] * model.layerParams();
    count[0] += model.vocabParams();
    if (model.untied) count[S - 1] += model.vocabParams();
    var perRank = new Float64Array(order.P);
    for (s = 0; s < S; s++) perRank[order.stageToRank[s]] += count[s]; // np.bincount: in stage order
    for (var r = 0; r < order.P; r++) perRank[r] = perRank[r] * model.bytesPerParam / model.t;
    return perRank;
  }

  // Bytes per rank over a timeline, as memory.measure_memory: each op's change at its
  // start (a forward) or end (B frees, I swaps for the W-only share, W frees, F&B frees
  // its backward part); running sums per rank, start before end; the peak is taken
  // at the state after all of an instant's events.
  function measureMemory(tl, model, hbmGib) {
    var order = tl.order, kind = order.kind, P = order.P, n = order.nOps, ptr = order.rankPtr, rank = order.rank;
    var layers = layerSplit(model.L, order.S);
    var act = Number(model.actNum()), wOnly = Number(model.wOnlyNum()), t = model.t, i, r;
    var dB = new Float64Array(2 * n), dW = new Float64Array(2 * n);
    for (i = 0; i < n; i++) {
      var k = kind[i], s = order.stage[i], s2 = order.stage2[i];
      var lay = s >= 0 ? layers[s] : 0, lay2 = s2 >= 0 ? layers[s2] : 0;
      dB[2 * i] = k === E.F || k === E.FB ? lay * act : 0.0;
      dB[2 * i + 1] = -(k === E.B || k === E.I ? lay * act : k === E.FB ? lay2 * act : 0.0);
      dW[2 * i + 1] = (k === E.I ? lay * wOnly : 0.0) - (k === E.W ? lay * wOnly : 0.0);
    }
    var heldB = new Float64Array(2 * n), heldW = new Float64Array(2 * n), total = new Float64Array(2 * n);
    var erank = new Int32Array(2 * n), time = new Float64Array(2 * n);
    for (r = 0; r < P; r++) { // each rank's sums start at exactly 0
      var cb = 0.0, cw = 0.0;
      for (i = 2 * ptr[r]; i < 2 * ptr[r + 1]; i++) {
        cb += dB[i];
        cw += dW[i];
        heldB[i] = cb;
        heldW[i] = cw;
      }
    }
    for (i = 0; i < n; i++) {
      erank[2 * i] = erank[2 * i + 1] = rank[i];
      time[2 * i] = tl.start[i];
      time[2 * i + 1] = tl.end[i];
    }
    for (i = 0; i < 2 * n; i++) total[i] = heldB[i] + heldW[i];
    var peakB = new Float64Array(P), peakW = new Float64Array(P);
    for (r = 0; r < P; r++) {
      var lo = 2 * ptr[r], hi = 2 * ptr[r + 1];
      if (hi === lo) continue;
      var at = lo, best = -Infinity;
      for (i = lo; i < hi; i++) {
        var settled = i + 1 === 2 * n || erank[i + 1] !== erank[i] || time[i + 1] !== time[i];
        var v = settled ? total[i] : -Infinity;
        if (v > best) { best = v; at = i; }
      }
      peakB[r] = heldB[at] / t;
      peakW[r] = heldW[at] / t;
    }
    var params = paramBytes(model, order), peak = new Float64Array(P);
    for (r = 0; r < P; r++) peak[r] = params[r] + peakB[r] + peakW[r];
    var values = new Float64Array(2 * n), changes = new Uint8Array(2 * n);
    for (i = 0; i < 2 * n; i++) {
      values[i] = total[i] / t;
      changes[i] = dB[i] + dW[i] !== 0 ? 1 : 0;
    }
    return memoryReport(model, Number(hbmGib), layers, params, peak, peakB, peakW, steps(erank, time, values, changes));
  }

  // The step function of the changes, keeping the last of simultaneous ones.
  function steps(erank, time, value, changes) {
    var idx = [], j;
    for (j = 0; j < changes.length; j++) if (changes[j]) idx.push(j);
    var keep = [];
    for (j = 0; j < idx.length; j++) {
      var a = idx[j], b = idx[j + 1];
      if (j + 1 === idx.length || erank[b] !== erank[a] || time[b] !== time[a]) keep.push(a);
    }
    var out = { rank: new Int32Array(keep.length), time: new Float64Array(keep.length), value: new Float64Array(keep.length) };
    keep.forEach(function (a, q) {
      out.rank[q] = erank[a];
      out.time[q] = time[a];
      out.value[q] = value[a];
    });
    return out;
  }

  // memory.Memory: the bytes, the HBM line, what is over it, the tightest rank.
  function memoryReport(model, hbmGib, layers, params, peak, peakB, peakW, activations) {
    var P = peak.length, hbm = hbmGib * M.gib, over = new Float64Array(P), tightest = 0, r;
    for (r = 0; r < P; r++) {
      over[r] = Math.max(peak[r] - hbm, 0.0);
      if (peak[r] > peak[tightest]) tightest = r;
    }
    var top = P ? Math.max.apply(null, Array.from(peak)) : -Infinity;
    return {
      model: model, hbmGib: hbmGib, layers: layers, params: params, peak: peak, peakB: peakB, peakW: peakW,
      activations: activations, hbm: hbm, over: over, tightest: tightest, fits: top <= hbm,
    };
  }

  // memory.balance_memory: bytes per rank after BPipe balancing. Each pair's front
  // rank keeps its T oldest in-flight chunks (by forward start), its partner holds the
  // rest, each chunk with its own layers and state; parameters do not move.
  function balanceMemory(mem, tl, pairs) {
    if (!pairs || !pairs.length) return mem;
    var model = mem.model, P = tl.order.P, t = model.t, r;
    var act = Number(model.actNum()), wOnly = Number(model.wOnlyNum());
    var split = {};
    pairs.forEach(function (pair) {
      var front = pair[0], partner = pair[1], T = pair[2];
      var f = walk(tl, front, mem.layers, act, wOnly, T), p = walk(tl, partner, mem.layers, act, wOnly, null);
      split[front] = { time: f.time, b: f.b.map(function (x, i) { return x - f.eb[i]; }),
                       w: f.w.map(function (x, i) { return x - f.ew[i]; }) };
      var at = union(p.time, f.time);
      split[partner] = {
        time: at,
        b: at.map(function (x) { return stepAt(p.time, p.b, x) + stepAt(f.time, f.eb, x); }),
        w: at.map(function (x) { return stepAt(p.time, p.w, x) + stepAt(f.time, f.ew, x); }),
      };
    });
    var peakB = Float64Array.from(mem.peakB), peakW = Float64Array.from(mem.peakW);
    var ranks = [], times = [], values = [], st = mem.activations, i;
    for (r = 0; r < P; r++) {
      if (split[r] !== undefined) {
        var sp = split[r], k = 0, best = -Infinity;
        for (i = 0; i < sp.time.length; i++) if (sp.b[i] + sp.w[i] > best) { best = sp.b[i] + sp.w[i]; k = i; }
        peakB[r] = sp.time.length ? sp.b[k] / t : 0.0;
        peakW[r] = sp.time.length ? sp.w[k] / t : 0.0;
        for (i = 0; i < sp.time.length; i++) {
          ranks.push(r);
          times.push(sp.time[i]);
          values.push((sp.b[i] + sp.w[i]) / t);
        }
      } else {
        for (i = 0; i < st.rank.length; i++) {
          if (st.rank[i] !== r) continue;
          ranks.push(r);
          times.push(st.time[i]);
          values.push(st.value[i]);
        }
      }
    }
    var peak = new Float64Array(P);
    for (r = 0; r < P; r++) peak[r] = mem.params[r] + peakB[r] + peakW[r];
    var out = memoryReport(model, mem.hbmGib, mem.layers, mem.params, peak, peakB, peakW,
      { rank: Int32Array.from(ranks), time: Float64Array.from(times), value: Float64Array.from(values) });
    out.before = mem;
    return out;
  }

  // Rank r's held bytes (times t) after each instant's events, awaiting B and awaiting
  // W only, and with T the part beyond its T oldest in-flight chunks.
  function walk(tl, r, layers, act, wOnly, T) {
    var o = tl.order, alive = [], held = {}, ev = [], i, n;
    for (i = o.rankPtr[r]; i < o.rankPtr[r + 1]; i++) ev.push([tl.start[i], i, false], [tl.end[i], i, true]);
    var out = { time: [], b: [], w: [], eb: [], ew: [] };
    for (n = 0; n < ev.length; n++) {
      var time = ev[n][0], j = ev[n][1], end = ev[n][2], k = o.kind[j], key;
      if (!end && (k === E.F || k === E.FB)) {
        key = o.mb[j] + ',' + o.stage[j];
        alive.push(key);
        held[key] = [layers[o.stage[j]] * act, 0.0];
      } else if (end && (k === E.B || k === E.W)) {
        key = o.mb[j] + ',' + o.stage[j];
        alive.splice(alive.indexOf(key), 1);
        delete held[key];
      } else if (end && k === E.I) {
        held[o.mb[j] + ',' + o.stage[j]] = [0.0, layers[o.stage[j]] * wOnly];
      } else if (end && k === E.FB) {
        key = o.mb2[j] + ',' + o.stage2[j];
        alive.splice(alive.indexOf(key), 1);
        delete held[key];
      }
      if (n + 1 < ev.length && ev[n + 1][0] === time) continue; // the instant's state: after all its events
      var b = 0, w = 0, eb = 0, ew = 0;
      alive.forEach(function (c) {
        b += held[c][0];
        w += held[c][1];
      });
      if (T !== null) {
        alive.slice(T).forEach(function (c) {
          eb += held[c][0];
          ew += held[c][1];
        });
      }
      out.time.push(time);
      out.b.push(b);
      out.w.push(w);
      out.eb.push(eb);
      out.ew.push(ew);
    }
    return out;
  }

  function union(a, b) {
    var all = a.concat(b).sort(function (x, y) { return x - y; }), out = [];
    all.forEach(function (x) { if (!out.length || out[out.length - 1] !== x) out.push(x); });
    return out;
  }

  // A step function (0 before its first step) at time x, right-continuous.
  function stepAt(time, value, x) {
    var lo = 0, hi = time.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (time[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo > 0 ? value[lo - 1] : 0.0;
  }

  E.memory = {
    Model: Model, PRESETS: PRESETS, preset: preset, layerSplit: layerSplit, stageWeights: stageWeights,
    paramBytes: paramBytes, measureMemory: measureMemory, balanceMemory: balanceMemory,
  };
})(typeof window !== 'undefined' ? window : globalThis);
