/* pipeviz schedule engine in plain JavaScript (ES2019, no modules, no dependencies).
 *
 * A port of the Python package pipeviz (config, registry, schedules/*, simulate,
 * metrics, closed_form, engine), which stays the reference: the same orders, the
 * same float arithmetic in the same order, the same exact fractions and the same
 * error messages. tests/test_js_parity.py checks this against Python in Chromium.
 *
 *   var res = PipevizEngine.run({schedule: "1f1b", P: 4, m: 8, V: 1,
 *                                tf: 1, tb: 1, tw: 1, comm: 0, G: null});
 *   if (!res.ok) show(res.error); else draw(res.ops, res.metrics, res.theory);
 *
 * Inputs follow Python keyword arguments: a field left undefined takes Config's or
 * Costs' default, null is Python's None, an integral number is a Python int and any
 * other number a float (so P = 2.5 gives Python's "P must be a whole number, got 2.5").
 */
(function (root) {
  'use strict';

  var MAX_OPS = 1000000; // config.py
  var RTOL = 1e-9; // engine.py
  var F = 0, B = 1, W = 2;
  var KIND_NAMES = ['F', 'B', 'W'];

  function ConfigError(message) { this.message = message; }

  // ---------------------------------------------------------------------------
  // Python's formatting, for messages that must match character for character.

  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }

  // str(int): BigInt spells large integers in full (1e21 -> "1000000000000000000000").
  function intStr(v) { return BigInt(v).toString(); }

  function pad2(e) { return e < 10 ? '0' + e : String(e); }

  // Python's spelling of nan and the infinities.
  function nonFinite(x) { return x !== x ? 'nan' : x > 0 ? 'inf' : '-inf'; }

  // Significant digits and a decimal exponent as Python writes them: "1.5e-07".
  function scientific(digits, e) {
    var mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    return mant + 'e' + (e < 0 ? '-' : '+') + pad2(Math.abs(e));
  }

  // repr(float): the shortest round-trip digits (JS finds the same ones), laid out
  // as Python does: fixed for 1e-4 <= |x| < 1e16 with ".0" on whole numbers, else
  // exponent with at least two digits ("1e-07", "1e+16").
  function floatRepr(x) {
    if (!isFinite(x)) return nonFinite(x);
    if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
    var sign = x < 0 ? '-' : '';
    var parts = Math.abs(x).toExponential().split('e');
    var digits = parts[0].replace('.', ''), e = Number(parts[1]);
    if (e < -4 || e >= 16) {
      return sign + scientific(digits, e);
    }
    if (e < 0) return sign + '0.' + '0'.repeat(-e - 1) + digits;
    while (digits.length < e + 1) digits += '0';
    return sign + digits.slice(0, e + 1) + '.' + (digits.slice(e + 1) || '0');
  }

  function strRepr(s) {
    var q = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    var out = '';
    for (var i = 0; i < s.length; i++) {
      var c = s[i], code = s.charCodeAt(i);
      if (c === '\\' || c === q) out += '\\' + c;
      else if (c === '\n') out += '\\n';
      else if (c === '\r') out += '\\r';
      else if (c === '\t') out += '\\t';
      else if (code < 32 || code === 127) out += '\\x' + (code < 16 ? '0' : '') + code.toString(16);
      else out += c;
    }
    return q + out + q;
  }

  // repr() of the Python value a JS input stands for.
  function pyRepr(v) {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (typeof v === 'number') return isInt(v) ? intStr(v) : floatRepr(v);
    if (typeof v === 'string') return strRepr(v);
    return String(v);
  }

  // A finite double exactly as a decimal: digits * 10^exp (every double is one).
  function exactDecimal(x) {
    var dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, x);
    var hi = dv.getUint32(0), lo = dv.getUint32(4);
    var bexp = (hi >>> 20) & 0x7ff;
    var mant = (BigInt(hi & 0xfffff) << BigInt(32)) | BigInt(lo);
    var e2 = bexp === 0 ? -1074 : bexp - 1075;
    if (bexp !== 0) mant |= BigInt(1) << BigInt(52);
    if (e2 >= 0) return { digits: (mant << BigInt(e2)).toString(), exp: 0 };
    return { digits: (mant * BigInt(5) ** BigInt(-e2)).toString(), exp: e2 }; // m/2^k = m*5^k/10^k
  }

  // f"{x:g}": 6 significant digits, rounded half-even on the exact binary value as
  // Python does (JS's toPrecision rounds ties up), trailing zeros dropped, exponent
  // form outside 1e-4 <= |x| < 1e6.
  function fmtG(x) {
    if (!isFinite(x)) return nonFinite(x);
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
    var sign = x < 0 ? '-' : '';
    var d = exactDecimal(Math.abs(x)), digits = d.digits, k = d.exp;
    if (digits.length > 6) {
      var head = digits.slice(0, 6), rest = digits.slice(6);
      k += rest.length;
      var up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || head[5] % 2 === 1));
      if (up) head = String(Number(head) + 1);
      if (head.length > 6) { head = head.slice(0, 6); k += 1; }
      digits = head;
    }
    digits = digits.replace(/0+$/, function (z) { k += z.length; return ''; }) || '0';
    var e = digits.length - 1 + k; // exponent in scientific notation
    if (e < -4 || e >= 6) {
      return sign + scientific(digits, e);
    }
    if (k >= 0) return sign + digits + '0'.repeat(k);
    var intLen = digits.length + k;
    if (intLen > 0) return sign + digits.slice(0, intLen) + '.' + digits.slice(intLen);
    return sign + '0.' + '0'.repeat(-intLen) + digits;
  }

  // f"{x:.{places}f}": the exact binary value rounded half-even, as Python does
  // (JS's toFixed rounds ties up).
  function fmtFixed(x, places) {
    if (!isFinite(x)) return nonFinite(x);
    var neg = x < 0 || Object.is(x, -0);
    var d = exactDecimal(Math.abs(x)), digits = d.digits, k = d.exp; // |x| = digits * 10^k
    var keep = digits.length + k + places; // digits left of the cut
    var q;
    if (k + places >= 0) {
      q = BigInt(digits) * BigInt(10) ** BigInt(k + places);
    } else if (keep <= 0) {
      var half = keep === 0 && (digits[0] > '5' || (digits[0] === '5' && /[1-9]/.test(digits.slice(1))));
      q = half ? ONE : ZERO; // below the last place: rounds to 0, or up past one half
    } else {
      var head = digits.slice(0, keep), rest = digits.slice(keep);
      q = BigInt(head);
      var up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || head[head.length - 1] % 2 === 1));
      if (up) q += ONE;
    }
    var s = q.toString();
    if (places > 0) {
      while (s.length <= places) s = '0' + s;
      s = s.slice(0, s.length - places) + '.' + s.slice(s.length - places);
    }
    return (neg ? '-' : '') + s;
  }

  // f"{n:,}"
  function withCommas(n) { return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

  // ---------------------------------------------------------------------------
  // Exact fractions (Python's fractions.Fraction), on BigInt, always reduced.
  // BigInt(k) rather than literals like 0n keeps the syntax ES2019.

  var ZERO = BigInt(0), ONE = BigInt(1);

  function gcd(a, b) {
    if (a < ZERO) a = -a;
    if (b < ZERO) b = -b;
    while (b) { var t = a % b; a = b; b = t; }
    return a;
  }

  function frac(n, d) {
    n = BigInt(n);
    d = d === undefined ? ONE : BigInt(d);
    if (d < ZERO) { n = -n; d = -d; }
    var g = gcd(n, d) || ONE;
    return { n: n / g, d: d / g };
  }
  function fadd(a, b) { return frac(a.n * b.d + b.n * a.d, a.d * b.d); }
  function fsub(a, b) { return frac(a.n * b.d - b.n * a.d, a.d * b.d); }
  function fmul(a, b) { return frac(a.n * b.n, a.d * b.d); }
  function fdiv(a, b) { return frac(a.n * b.d, a.d * b.n); }
  function fcmp(a, b) { var l = a.n * b.d, r = b.n * a.d; return l < r ? -1 : l > r ? 1 : 0; }
  function fint(k) { return frac(k, 1); }

  // closed_form.exact: a cost as the decimal it was written as, Fraction(repr(x)).
  function exact(x) {
    if (x === 0) return fint(0);
    var parts = Math.abs(x).toExponential().split('e');
    var digits = parts[0].replace('.', ''), e = Number(parts[1]) - (digits.length - 1);
    var n = BigInt(x < 0 ? '-' + digits : digits), ten = BigInt(10);
    return e >= 0 ? frac(n * ten ** BigInt(e), ONE) : frac(n, ten ** BigInt(-e));
  }

  function bitLen(n) { return n.toString(2).length; }

  // float(Fraction): correctly rounded, as Python's int / int. Scale the quotient
  // to 55-56 bits, keep a sticky bit for the remainder, and let Number() round it.
  function ftoNumber(q) {
    var n = q.n < ZERO ? -q.n : q.n, d = q.d;
    if (n === ZERO) return 0;
    var shift = 55 - (bitLen(n) - bitLen(d));
    if (shift >= 0) n <<= BigInt(shift); else d <<= BigInt(-shift);
    var quo = n / d;
    if (quo * d !== n) quo |= ONE;
    var x = Number(quo);
    for (var s = -shift; s !== 0;) { // times 2^-shift, in exact steps
      var step = Math.max(-1000, Math.min(1000, s));
      x *= Math.pow(2, step);
      s -= step;
    }
    return q.n < ZERO ? -x : x;
  }

  // closed_form.idle_fraction: a rank that works `work` and idles `idle`.
  function idleFraction(idle, work) {
    var zero = fint(0);
    if (fcmp(idle, zero) < 0) idle = zero;
    var total = fadd(work, idle);
    return total.n === ZERO ? zero : fdiv(idle, total);
  }

  // ---------------------------------------------------------------------------
  // Config and Costs (config.py, costs.py).

  function pick(input, key, dflt) {
    var v = input[key];
    return v === undefined ? dflt : v;
  }

  // Python builds Costs(...) before Config(...) receives it, so cost errors come first.
  function normalize(input) {
    input = input || {};
    var cfg = {
      schedule: pick(input, 'schedule', '1f1b'),
      P: pick(input, 'P', 4),
      m: pick(input, 'm', 8),
      V: pick(input, 'V', 1),
      G: pick(input, 'G', null),
      tf: pick(input, 'tf', 1),
      tb: pick(input, 'tb', 1),
      tw: pick(input, 'tw', 1),
      comm: pick(input, 'comm', 0),
    };
    ['tf', 'tb', 'tw', 'comm'].forEach(function (name) {
      var v = cfg[name];
      if (typeof v !== 'number' || !isFinite(v)) {
        throw new ConfigError(name + ' must be a finite number, got ' + pyRepr(v));
      }
    });
    if (cfg.tf <= 0 || cfg.tb <= 0) {
      throw new ConfigError('tf and tb must be > 0 (got tf=' + fmtG(cfg.tf) + ', tb=' + fmtG(cfg.tb) + ')');
    }
    if (cfg.tw < 0 || cfg.comm < 0) {
      throw new ConfigError('tw and comm must be >= 0 (got tw=' + fmtG(cfg.tw) + ', comm=' + fmtG(cfg.comm) + ')');
    }
    ['P', 'm', 'V'].forEach(function (name) {
      var v = cfg[name];
      if (!isInt(v)) throw new ConfigError(name + ' must be a whole number, got ' + pyRepr(v));
      if (v < 1) throw new ConfigError(name + ' must be at least 1, got ' + intStr(v));
    });
    if (cfg.G !== null && (!isInt(cfg.G) || cfg.G < 1)) {
      throw new ConfigError('G must be a whole number of at least 1, got ' + pyRepr(cfg.G));
    }
    return cfg;
  }

  // ---------------------------------------------------------------------------
  // Orders (order.py): each rank's ops in execution order, flat and rank-major.
  // Generators run rank by rank, phase by phase, which is the order Python's
  // OrderBuilder gets by stable-sorting its phases by rank.

  function loopPlacement(P, V) {
    var s2r = new Int32Array(P * V);
    for (var s = 0; s < P * V; s++) s2r[s] = s % P;
    return s2r;
  }

  function vPlacement(P) {
    var s2r = new Int32Array(2 * P);
    for (var s = 0; s < 2 * P; s++) s2r[s] = s < P ? s : 2 * P - 1 - s;
    return s2r;
  }

  // `capacity` is the op count; ops with mb >= keepBelow are dropped (ZB-V's padding).
  function OrderBuilder(P, m, stageToRank, splitBackward, capacity, keepBelow) {
    this.P = P; this.m = m; this.S = stageToRank.length;
    this.chunksPerRank = this.S / P;
    this.stageToRank = stageToRank;
    this.splitBackward = splitBackward;
    this.kind = new Int8Array(capacity);
    this.mb = new Int32Array(capacity);
    this.stage = new Int32Array(capacity);
    this.rank = new Int32Array(capacity);
    this.rankPtr = new Int32Array(P + 1);
    this.n = 0;
    this.r = 0;
    this.keepBelow = keepBelow === undefined ? Infinity : keepBelow;
  }
  OrderBuilder.prototype.op = function (kind, mb, stage) {
    if (mb >= this.keepBelow) return;
    var i = this.n++;
    this.kind[i] = kind; this.mb[i] = mb; this.stage[i] = stage; this.rank[i] = this.r;
  };
  OrderBuilder.prototype.nextRank = function () { this.rankPtr[++this.r] = this.n; };

  // --- GPipe (schedules/gpipe.py)
  function genGPipe(P, m) {
    var o = new OrderBuilder(P, m, loopPlacement(P, 1), false, 2 * m * P), i;
    for (var r = 0; r < P; r++) {
      for (i = 0; i < m; i++) o.op(F, i, r); // Step 1: m forwards, in micro-batch order
      for (i = 0; i < m; i++) o.op(B, i, r); // Step 2: m backwards, in micro-batch order
      o.nextRank();
    }
    return o;
  }

  // --- 1F1B (schedules/one_f_one_b.py)
  function warmup1F1B(P, m, r) { return Math.min(P - 1 - r, m); }

  function gen1F1B(P, m) {
    var o = new OrderBuilder(P, m, loopPlacement(P, 1), false, 2 * m * P), i;
    for (var r = 0; r < P; r++) {
      var w = warmup1F1B(P, m, r);
      for (i = 0; i < w; i++) o.op(F, i, r); // Step 1: w = min(P-1-r, m) warm-up forwards
      for (i = 0; i < m - w; i++) { o.op(F, w + i, r); o.op(B, i, r); } // Step 2: m - w steady steps: F(w+i), B(i)
      for (i = 0; i < w; i++) o.op(B, m - w + i, r); // Step 3: w cool-down backwards, the ones left
      o.nextRank();
    }
    return o;
  }

  // --- Interleaved 1F1B (schedules/interleaved.py)
  function pytorchRounds(P, m) { return Math.max(1, Math.floor(m / P)); }
  function pytorchAccepts(P, m) { return m % pytorchRounds(P, m) === 0; }

  // The nearest m on each side that `ok` accepts, as 'a or b'.
  function nearest(m, ok) {
    var below = null, above = null, k;
    for (k = m - 1; k > 0; k--) if (ok(k)) { below = k; break; }
    for (k = m + 1; k < 4 * m + 8; k++) if (ok(k)) { above = k; break; }
    return below ? below + ' or ' + above : String(above);
  }

  // Micro-batches per group: P when P divides m, else PyTorch's rule; an explicit G
  // follows Megatron-core's limits.
  function groupSize(P, m, G) {
    if (G === null) {
      if (m % P === 0) return P;
      if (!pytorchAccepts(P, m)) {
        var rounds = pytorchRounds(P, m);
        throw new ConfigError(
          'interleaved with P=' + P + ' cannot split m=' + m + ' micro-batches into ' + rounds +
          " equal rounds (PyTorch's rule, rounds = max(1, m//P)); use a multiple of P, or a valid m such as " +
          nearest(m, function (k) { return pytorchAccepts(P, k); }));
      }
      return m / pytorchRounds(P, m);
    }
    if (!(P <= G && G <= m)) {
      throw new ConfigError('interleaved group size G must satisfy P <= G <= m, here ' + P +
        ' <= G <= ' + m + '; got G=' + intStr(G));
    }
    if (m % G > 0 && m % G < P) {
      throw new ConfigError('interleaved G=' + G + ' leaves a last group of ' + (m % G) +
        ' micro-batches, fewer than P=' + P + ' (Megatron-core rejects it); use a G that divides m=' + m +
        ' or leaves at least ' + P);
    }
    return G;
  }

  function warmupInterleaved(P, m, V, G, r) { return Math.min(2 * (P - 1 - r) + (V - 1) * G, m * V); }

  function genInterleaved(P, m, V, G) {
    if (V === 1) return gen1F1B(P, m); // one chunk per rank: Megatron runs plain 1F1B
    G = groupSize(P, m, G);
    // The forward table, (micro-batch, chunk) of the k-th forward on every rank: full
    // groups of G take chunk 0 for each micro-batch, then chunk 1, ...; the last group
    // holds the rest, m - lastStart micro-batches.
    var total = m * V, lastStart = Math.floor((m - 1) / G) * G, tail = m - lastStart;
    var fMb = new Int32Array(total), fChunk = new Int32Array(total), k;
    for (k = 0; k < lastStart * V; k++) {
      var group = Math.floor(k / (G * V)), within = k % (G * V);
      fChunk[k] = Math.floor(within / G);
      fMb[k] = group * G + within % G;
    }
    for (var j = 0; j < tail * V; j++) {
      fChunk[lastStart * V + j] = Math.floor(j / tail);
      fMb[lastStart * V + j] = lastStart + j % tail;
    }
    var o = new OrderBuilder(P, m, loopPlacement(P, V), false, 2 * total * P), i;
    for (var r = 0; r < P; r++) {
      // Chunk c of rank r is stage cP + r; a backward walks the chunks in reverse.
      var fwd = function (k) { o.op(F, fMb[k], fChunk[k] * P + r); };
      var bwd = function (k) { o.op(B, fMb[k], (V - 1 - fChunk[k]) * P + r); };
      var w = warmupInterleaved(P, m, V, G, r);
      for (i = 0; i < w; i++) fwd(i); // Step 1: w warm-up forwards, table[0 .. w)
      for (i = 0; i < total - w; i++) { fwd(w + i); bwd(i); } // Step 2: mV - w steady steps: F table[w+i], B table[i]
      for (i = 0; i < w; i++) bwd(total - w + i); // Step 3: w cool-down backwards, table[mV - w ..)
      o.nextRank();
    }
    return o;
  }

  // --- ZB-H1 (schedules/zb_h1.py)
  function genZBH1(P, m) {
    var o = new OrderBuilder(P, m, loopPlacement(P, 1), true, 3 * m * P), i;
    for (var r = 0; r < P; r++) {
      var w = warmup1F1B(P, m, r), steady = m - w;
      var held = Math.min(r, steady); // steady steps whose W waits: rank r lets r W's wait
      var firstW = steady - held; // W's run in the steady state: W(0 .. firstW)
      for (i = 0; i < w; i++) o.op(F, i, r); // Step 1: w = min(P-1-r, m) warm-up forwards, as 1F1B
      for (i = 0; i < held; i++) { o.op(F, w + i, r); o.op(B, i, r); } // Step 2a: first r steady steps; the W waits
      for (i = held; i < held + firstW; i++) { // Step 2b: the other steady steps also run the oldest W
        o.op(F, w + i, r); o.op(B, i, r); o.op(W, i - r, r);
      }
      for (i = 0; i < w; i++) { o.op(B, steady + i, r); o.op(W, firstW + i, r); } // Step 3: cool-down, B then oldest W
      for (i = 0; i < held; i++) o.op(W, firstW + w + i, r); // Step 4: the r W's still pending, oldest first
      o.nextRank();
    }
    return o;
  }

  // --- ZB-H2 (schedules/zb_h2.py): the paper's greedy rule at unit costs, one unit
  // of time per step for every rank, on three counters per rank. Cached per (P, m).
  var zbh2Cache = new Map();

  function genZBH2(P, m) {
    var key = P + ',' + m, hit = zbh2Cache.get(key);
    if (hit) return hit;
    var cap = 2 * P - 1, per = 3 * m;
    var o = new OrderBuilder(P, m, loopPlacement(P, 1), true, per * P);
    var nf = new Int32Array(P), nb = new Int32Array(P), nw = new Int32Array(P), len = new Int32Array(P);
    var left = P * m; // W's still to run
    while (left > 0) {
      var progress = false;
      var prevF = m; // F's rank r-1 had run before this step; rank -1 "ran" all m
      for (var r = 0; r < P; r++) {
        // Every rule reads the counters as they were before this step: rank r+1 has
        // not moved yet, and prevF saved rank r-1's count before it moved.
        var f = nf[r], b = nb[r], w = nw[r], nextB = r + 1 < P ? nb[r + 1] : m + 1, kind = -1, mb = 0;
        if (b < f && b < nextB) { kind = B; mb = b; nb[r]++; } // its F ran here, its B on the next rank
        else if (f < prevF && f - w < cap) { kind = F; mb = f; nf[r]++; } // arrived, and room in flight
        else if (w < b) { kind = W; mb = w; nw[r]++; left--; } // otherwise the oldest pending W
        if (kind >= 0) {
          var j = r * per + len[r]++;
          o.kind[j] = kind; o.mb[j] = mb; o.stage[j] = r; o.rank[j] = r;
          progress = true;
        }
        prevF = f;
      }
      if (!progress) throw new Error('zb-h2 greedy rule stalled at P=' + P + ', m=' + m);
    }
    for (var q = 0; q <= P; q++) o.rankPtr[q] = q * per;
    o.n = per * P;
    if (zbh2Cache.size >= 64) zbh2Cache.delete(zbh2Cache.keys().next().value);
    zbh2Cache.set(key, o);
    return o;
  }

  // --- ZB-V (schedules/zb_v.py): phases written for n = max(m, 2P-1) micro-batches,
  // those past m dropped as they are emitted.
  function genZBV(P, m) {
    var n = Math.max(m, 2 * P - 1), i, j;
    var o = new OrderBuilder(P, m, vPlacement(P), true, 6 * m * P, m);
    for (var r = 0; r < P; r++) {
      var s0 = r, s1 = 2 * P - 1 - r; // chunk 0 and chunk 1 of rank r
      var withF0 = n - (2 * P - 1 - r); // steady steps that still have a chunk-0 forward
      for (i = 0; i < 2 * (P - r) - 1; i++) o.op(F, i, s0); // Step 1: 2(P-r)-1 forwards of chunk 0: the way down
      for (i = 0; i < r; i++) { o.op(F, i, s1); o.op(F, 2 * (P - r) - 1 + i, s0); } // Step 2: r pairs (F1, F0)
      for (i = 0; i < P - r; i++) { o.op(F, r + i, s1); o.op(B, i, s1); o.op(W, i, s1); } // Step 3: P-r triples (F1, B1, W1)
      // Step 4: steady state, n-P steps of (F0, B0, W0, F1, B1, W1); the last P-r-1
      // steps have no chunk-0 forward left.
      for (i = 0; i < withF0 + P - 1 - r; i++) {
        if (i < withF0) o.op(F, 2 * P - 1 - r + i, s0);
        o.op(B, i, s0); o.op(W, i, s0);
        o.op(F, P + i, s1); o.op(B, P - r + i, s1); o.op(W, P - r + i, s1);
      }
      for (i = 0; i < r; i++) { o.op(B, n - P + i, s0); o.op(B, n - r + i, s1); } // Step 5: cool-down, r pairs (B0, B1)
      for (i = 0; i < P - r; i++) { o.op(B, n - P + r + i, s0); o.op(W, n - P + i, s0); } // Step 6: P-r pairs (B0, W0)
      for (j = 0; j < r; j++) o.op(W, n - r + j, s1); // Step 7: the W's left: r of chunk 1,
      for (j = 0; j < r; j++) o.op(W, n - r + j, s0); // then r of chunk 0
      o.nextRank();
    }
    return o;
  }

  // ---------------------------------------------------------------------------
  // Simulator (simulate.py): as soon as possible, each rank's order fixed. Ops fall
  // into runs, each headed by an op that may wait (cross-rank dependency, or first of
  // its rank); the rest start as the previous op ends. Times are run start + offset
  // from one global cumulative sum, exactly Python's arithmetic.

  function describeOp(o, i) { return KIND_NAMES[o.kind[i]] + '(mb ' + o.mb[i] + ', stage ' + o.stage[i] + ')'; }

  function simulate(o, cfg) {
    var N = o.n, P = o.P, m = o.m, S = o.S;
    var kind = o.kind, mbA = o.mb, stage = o.stage, rank = o.rank, ptr = o.rankPtr;
    var i, r, h;

    // Dependencies: F after F(s-1); B after B(s+1), or F(s) on the last stage; W after B.
    var where = new Int32Array(3 * m * S).fill(-1);
    for (i = 0; i < N; i++) where[(kind[i] * m + mbA[i]) * S + stage[i]] = i;
    var dep = new Int32Array(N);
    for (i = 0; i < N; i++) {
      var s = stage[i], b = mbA[i];
      if (kind[i] === F) dep[i] = s > 0 ? where[(F * m + b) * S + s - 1] : -1;
      else if (kind[i] === B) dep[i] = s < S - 1 ? where[(B * m + b) * S + s + 1] : where[(F * m + b) * S + s];
      else dep[i] = where[(B * m + b) * S + s];
    }

    // Durations: a rank's share of each cost, over its chunks.
    var cpr = o.chunksPerRank;
    var perKind = [cfg.tf / cpr, (o.splitBackward ? cfg.tb : cfg.tb + cfg.tw) / cpr, cfg.tw / cpr];

    // Runs, and offsets within them from one global cumulative sum (np.cumsum).
    var head = new Uint8Array(N), cross = new Uint8Array(N), H = 0;
    for (i = 0; i < N; i++) {
      var d = dep[i];
      cross[i] = d >= 0 && rank[d] !== rank[i] ? 1 : 0;
      head[i] = cross[i] || (d >= 0 && d > i) ? 1 : 0;
    }
    for (r = 0; r < P; r++) if (ptr[r + 1] > ptr[r]) head[ptr[r]] = 1;
    for (i = 0; i < N; i++) H += head[i];
    var heads = new Int32Array(H), runOf = new Int32Array(N), csum = new Float64Array(N + 1);
    for (i = 0, h = -1; i < N; i++) {
      if (head[i]) heads[++h] = i;
      runOf[i] = h;
      csum[i + 1] = csum[i] + perKind[kind[i]];
    }
    var runBase = new Float64Array(H), runDur = new Float64Array(H);
    for (h = 0; h < H; h++) runBase[h] = csum[heads[h]];
    for (h = 0; h < H; h++) runDur[h] = (h + 1 < H ? runBase[h + 1] : csum[N]) - runBase[h];
    var offStart = new Float64Array(N), offEnd = new Float64Array(N);
    for (i = 0; i < N; i++) {
      offStart[i] = csum[i] - runBase[runOf[i]];
      offEnd[i] = csum[i + 1] - runBase[runOf[i]];
    }

    // What each run waits for: a run (-1: nothing) and the lag from that run's start.
    var waitsOn = new Int32Array(H), lag = new Float64Array(H);
    for (h = 0; h < H; h++) {
      var dh = dep[heads[h]];
      waitsOn[h] = dh >= 0 ? runOf[dh] : -1;
      if (dh >= 0) lag[h] = offEnd[dh] + (cross[heads[h]] ? cfg.comm : 0.0);
    }

    // Time the runs. Python times every ready rank per numpy wave; a run's start only
    // depends on its rank's previous run and the run it waits for, so advancing each
    // rank as far as it can gives the same numbers, and the same stuck ops on deadlock.
    var runStart = new Float64Array(H), timed = new Uint8Array(H);
    var cur = new Int32Array(P), last = new Int32Array(P), free = new Float64Array(P);
    for (r = 0; r < P; r++) {
      cur[r] = ptr[r + 1] > ptr[r] ? runOf[ptr[r]] : 0;
      last[r] = ptr[r + 1] > ptr[r] ? runOf[ptr[r + 1] - 1] : -1;
    }
    var remaining = H;
    while (remaining > 0) {
      var progress = false;
      for (r = 0; r < P; r++) {
        while (cur[r] <= last[r]) {
          var q = cur[r], w = waitsOn[q];
          if (w >= 0 && !timed[w]) break;
          var t0 = w < 0 ? free[r] : Math.max(free[r], runStart[w] + lag[q]);
          runStart[q] = t0;
          timed[q] = 1;
          free[r] = t0 + runDur[q];
          cur[r]++;
          remaining--;
          progress = true;
        }
      }
      if (!progress) {
        var parts = [];
        for (r = 0; r < P; r++) {
          if (cur[r] > last[r]) continue;
          var hi = heads[cur[r]], di = dep[hi];
          parts.push('rank ' + r + ' is stuck at ' + describeOp(o, hi) + ', which waits for ' +
            describeOp(o, di) + ' on rank ' + rank[di]);
        }
        throw new ConfigError('deadlock: ' + parts.join('; '));
      }
    }
    var start = new Float64Array(N), end = new Float64Array(N);
    for (i = 0; i < N; i++) {
      var base = runStart[runOf[i]];
      start[i] = base + offStart[i];
      end[i] = base + offEnd[i];
    }
    return { start: start, end: end, dep: dep };
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

  // Round away float noise (1e-16 bubbles) so a zero bubble reads as zero.
  function clean(x) { return Math.abs(x) < 1e-12 ? 0.0 : x; }

  // A step function per rank, flat, keeping only the events that change the value.
  function steps(rank, time, value, delta) {
    var n = 0, i, j = 0;
    for (i = 0; i < delta.length; i++) if (delta[i] !== 0) n++;
    var out = { rank: new Int32Array(n), time: new Float64Array(n), value: new Int32Array(n) };
    for (i = 0; i < delta.length; i++) {
      if (delta[i] === 0) continue;
      out.rank[j] = rank[i]; out.time[j] = time[i]; out.value[j] = value[i]; j++;
    }
    return out;
  }

  function measure(o, tl) {
    var P = o.P, N = o.n, ptr = o.rankPtr, rank = o.rank, kind = o.kind;
    var start = tl.start, end = tl.end, i, r;

    var maxEnd = -Infinity, minStart = Infinity;
    for (i = 0; i < N; i++) {
      if (end[i] > maxEnd) maxEnd = end[i];
      if (start[i] < minStart) minStart = start[i];
    }
    var makespan = N ? maxEnd - minStart : 0.0;
    var busy = new Float64Array(P), idle = new Float64Array(P), span = new Float64Array(P), spanMax = -Infinity;
    for (i = 0; i < N; i++) busy[rank[i]] += end[i] - start[i]; // np.bincount: in op order
    for (r = 0; r < P; r++) {
      idle[r] = makespan - busy[r];
      span[r] = end[ptr[r + 1] - 1] - start[ptr[r]];
      if (span[r] > spanMax) spanMax = span[r];
    }
    var work = 0.0 + pairwiseSum(busy, 0, P); // busy.sum()
    var bubble = makespan > 0 ? 1.0 - work / (P * makespan) : 0.0;
    var steady = makespan > 0 ? 1.0 - work / (P * spanMax) : 0.0;

    // Idle intervals within [0, makespan], leading and trailing waits included. Ops on
    // a rank never overlap, so each rank's gaps come out sorted by start.
    var tol = 1e-9 * Math.max(makespan, 1.0);
    var bR = [], bS = [], bE = [];
    for (r = 0; r < P; r++) {
      var prevEnd = 0.0;
      for (i = ptr[r]; i < ptr[r + 1]; i++) {
        if (start[i] - prevEnd > tol) { bR.push(r); bS.push(prevEnd); bE.push(start[i]); }
        prevEnd = end[i];
      }
      if (makespan - prevEnd > tol) { bR.push(r); bS.push(prevEnd); bE.push(makespan); }
    }

    // In flight: +1 when an F starts, -1 when the chunk's last backward op ends. Each
    // rank starts and ends with nothing in flight, so one running sum serves all ranks.
    var lastBackward = o.splitBackward ? W : B;
    var delta = new Int8Array(N), time = new Float64Array(N), count = new Int32Array(N), c = 0;
    for (i = 0; i < N; i++) {
      delta[i] = (kind[i] === F ? 1 : 0) - (kind[i] === lastBackward ? 1 : 0);
      time[i] = kind[i] === F ? start[i] : end[i];
      count[i] = c += delta[i];
    }
    var peak = new Int32Array(P), atPeak = new Int32Array(P), peakMb = new Float64Array(P);
    for (r = 0; r < P; r++) {
      atPeak[r] = ptr[r];
      for (i = ptr[r] + 1; i < ptr[r + 1]; i++) if (count[i] > count[atPeak[r]]) atPeak[r] = i; // first max
      peak[r] = count[atPeak[r]];
      peakMb[r] = peak[r] / o.chunksPerRank;
    }
    var out = {
      makespan: makespan, busy: busy, idle: idle, span: span,
      bubbleFraction: clean(bubble), steadyBubbleFraction: clean(steady),
      bubbles: { rank: Int32Array.from(bR), start: Float64Array.from(bS), end: Float64Array.from(bE) },
      inflight: steps(rank, time, count, delta),
      awaitingB: null, awaitingW: null,
      peakChunks: peak, peakMicrobatches: peakMb,
      peakAwaitingB: null, peakAwaitingW: null,
      p2pPerMicrobatch: p2pPerMicrobatch(o.stageToRank),
    };
    if (o.splitBackward) {
      // Awaiting B: F started, B not ended. Awaiting W only: B ended, W not ended.
      var dB = new Int8Array(N), dW = new Int8Array(N), cB = new Int32Array(N), cW = new Int32Array(N), sb = 0, sw = 0;
      for (i = 0; i < N; i++) {
        dB[i] = kind[i] === F ? 1 : kind[i] === B ? -1 : 0;
        dW[i] = kind[i] === B ? 1 : kind[i] === W ? -1 : 0;
        cB[i] = sb += dB[i];
        cW[i] = sw += dW[i];
      }
      out.awaitingB = steps(rank, time, cB, dB);
      out.awaitingW = steps(rank, time, cW, dW);
      out.peakAwaitingB = new Int32Array(P);
      out.peakAwaitingW = new Int32Array(P);
      for (r = 0; r < P; r++) {
        out.peakAwaitingB[r] = cB[atPeak[r]];
        out.peakAwaitingW[r] = cW[atPeak[r]];
      }
    }
    return out;
  }

  // Sends between ranks per micro-batch: one each way across every stage boundary
  // that crosses ranks.
  function p2pPerMicrobatch(s2r) {
    var n = 0;
    for (var s = 1; s < s2r.length; s++) if (s2r[s] !== s2r[s - 1]) n++;
    return 2 * n;
  }

  // ---------------------------------------------------------------------------
  // Closed forms (closed_form.py and each schedule module).

  function ranks(P, f) {
    var a = new Int32Array(P);
    for (var r = 0; r < P; r++) a[r] = f(r);
    return a;
  }

  function commCaveat(c) {
    return c.comm > 0 ? 'comm = ' + fmtG(c.comm) + ' adds latency at every cross-rank hop of the fill and drain, ' +
      'which the closed form leaves out' : '';
  }

  // For schedules whose closed form is derived at t_f = t_b = t_w.
  function uniformCaveat(c) {
    if (c.comm > 0) return commCaveat(c);
    if (!(c.tf === c.tb && c.tb === c.tw && c.comm === 0)) {
      return 'the closed form is derived at t_f = t_b = t_w (here ' + fmtG(c.tf) + ', ' + fmtG(c.tb) + ', ' +
        fmtG(c.tw) + '); other costs shift where W\'s fit';
    }
    return '';
  }

  function closedForm(o) {
    return {
      bubble: o.bubble, bubbleFormula: o.bubbleFormula, bubbleExact: !o.caveat, caveat: o.caveat,
      steady: o.steady, steadyExact: o.steadyExact === undefined ? !o.caveat : o.steadyExact,
      peakChunks: o.peakChunks, peakAwaitingB: o.peakAwaitingB || null, peakAwaitingW: o.peakAwaitingW || null,
      p2pPerMicrobatch: o.p2p,
    };
  }

  // GPipe, 1F1B and interleaved: (P-1) chunk-steps of fill and drain, the same one
  // iteration or back to back.
  function fillDrain(cfg, V, peak, orderCaveat) {
    var P = cfg.P, bubble = frac(P - 1, cfg.m * V + P - 1);
    return closedForm({
      bubble: bubble, steady: bubble,
      bubbleFormula: V === 1 ? '(P-1)/(m+P-1)' : '(P-1)/(mV+P-1)',
      caveat: orderCaveat || commCaveat(cfg),
      peakChunks: peak, p2p: P > 1 ? 2 * (V * P - 1) : 0,
    });
  }

  function cfGPipe(cfg) { return fillDrain(cfg, 1, ranks(cfg.P, function () { return cfg.m; })); }

  function cf1F1B(cfg) {
    return fillDrain(cfg, 1, ranks(cfg.P, function (r) { return Math.min(cfg.P - r, cfg.m); }));
  }

  function cfInterleaved(cfg) {
    var P = cfg.P, m = cfg.m, V = cfg.V;
    if (V === 1) return cf1F1B(cfg);
    var G = groupSize(P, m, cfg.G);
    // Peak: the warm-up forwards plus the first steady one, capped at all mV chunks.
    var peak = ranks(P, function (r) { return Math.min(warmupInterleaved(P, m, V, G, r) + 1, m * V); });
    var caveat = m < P ? 'with m = ' + m + ' < P = ' + P + ', a micro-batch comes back to a rank for its next ' +
      'chunk before the pipeline has filled, so ranks also idle between chunks; the closed form (exact for ' +
      "m >= P, Megatron-core's range) leaves that out" : '';
    return fillDrain(cfg, V, peak, caveat);
  }

  function cfZBH1(cfg) {
    var P = cfg.P, m = cfg.m, tf = exact(cfg.tf), tb = exact(cfg.tb), tw = exact(cfg.tw);
    // Each rank idles (P-1)(t_f + t_b - t_w): the fill and drain, less the W's that fill it.
    var bubble = idleFraction(fmul(fint(P - 1), fsub(fadd(tf, tb), tw)), fmul(fint(m), fadd(fadd(tf, tb), tw)));
    var caveat = commCaveat(cfg);
    if (!caveat && m < P) {
      caveat = 'with m = ' + m + ' < P = ' + P + ' the steady state never starts, so too few W\'s are pending ' +
        'to fill the drain; the closed form holds for m >= P';
    }
    if (!caveat && fcmp(tw, fcmp(tf, tb) <= 0 ? tf : tb) > 0) {
      caveat = 't_w = ' + fmtG(cfg.tw) + ' is more than t_f = ' + fmtG(cfg.tf) + ' or t_b = ' + fmtG(cfg.tb) +
        ': a W no longer fits in the wait it fills, so the W\'s push the cool-down out; the closed form holds ' +
        'for t_w <= min(t_f, t_b)';
    }
    var total = Math.min(P, m); // counted until W: P-r awaiting B plus r awaiting W only
    return closedForm({
      bubble: bubble, steady: bubble, caveat: caveat,
      bubbleFormula: '(P-1)(t_f+t_b-t_w) / (m(t_f+t_b+t_w) + (P-1)(t_f+t_b-t_w))',
      peakChunks: ranks(P, function () { return total; }),
      peakAwaitingB: ranks(P, function (r) { return Math.min(P - r, m); }),
      peakAwaitingW: ranks(P, function (r) { return total - Math.min(P - r, m); }),
      p2p: 2 * (P - 1),
    });
  }

  function cfZBH2(cfg) {
    var P = cfg.P, m = cfg.m, tf = exact(cfg.tf), tb = exact(cfg.tb), tw = exact(cfg.tw);
    var work = fmul(fint(m), fadd(fadd(tf, tb), tw));
    // One iteration: rank P-1 starts after the first forward crossed P-1 ranks.
    var bubble = idleFraction(fmul(fint(P - 1), tf), work);
    // Back to back: each rank idles (P-1)(t_f + t_b - 2 t_w).
    var steady = idleFraction(fmul(fint(P - 1), fsub(fadd(tf, tb), fmul(fint(2), tw))), work);
    var caveat = uniformCaveat(cfg);
    if (!caveat && m < P) caveat = 'with m = ' + m + ' < P = ' + P + ' the pipeline never fills; the closed form holds for m >= P';
    var steadyCaveat = caveat || (m < 2 * P - 1 ? 'm = ' + m + ' < 2P-1 = ' + (2 * P - 1) +
      ': too few micro-batches to keep 2P-1 in flight' : '');
    var total = Math.min(m, 2 * P - 1); // counted until W, on every rank
    return closedForm({
      bubble: bubble, steady: steady, caveat: caveat, steadyExact: !steadyCaveat,
      bubbleFormula: '(P-1)t_f / (m(t_f+t_b+t_w) + (P-1)t_f)',
      peakChunks: ranks(P, function () { return total; }),
      peakAwaitingB: ranks(P, function (r) { return Math.min(2 * (P - r) - 1, m); }),
      peakAwaitingW: ranks(P, function (r) { return total - Math.min(2 * (P - r) - 1, m); }),
      p2p: 2 * (P - 1),
    });
  }

  function cfZBV(cfg) {
    var P = cfg.P, m = cfg.m, tf = exact(cfg.tf), tb = exact(cfg.tb), tw = exact(cfg.tw);
    var work = fmul(fint(m), fadd(fadd(tf, tb), tw));
    // The one-iteration lower bound: the first forward crosses P-1 half-size chunks.
    var bubble = idleFraction(fdiv(fmul(fint(P - 1), tf), fint(2)), work);
    var caveat = uniformCaveat(cfg);
    if (!caveat && m < 2 * P - 1) {
      caveat = 'm = ' + m + ' < 2P-1 = ' + (2 * P - 1) + ' micro-batches cannot fill the V; ' +
        'the lower bound is met for m >= 2P-1';
    }
    // 2P chunks once m is large; else all 2m, or the m+1+r rank r starts before its first B.
    var peak = ranks(P, function (r) { return Math.min(Math.min(2 * P, 2 * m), m + 1 + r); });
    return closedForm({
      bubble: bubble, steady: fint(0), caveat: caveat,
      bubbleFormula: '(P-1)t_f/2 / (m(t_f+t_b+t_w) + (P-1)t_f/2)',
      peakChunks: peak, peakAwaitingB: peak.slice(), peakAwaitingW: new Int32Array(P),
      p2p: 4 * (P - 1), // 2P-1 boundaries, one of them inside rank P-1
    });
  }

  // ---------------------------------------------------------------------------
  // Registry (registry.py).

  var SCHEDULES = {};
  var IMPL = {};
  function add(name, title, summary, placement, splitBackward, fixedV, takesG, generate, cf) {
    SCHEDULES[name] = {
      name: name, title: title, summary: summary, placement: placement,
      splitBackward: splitBackward, fixedV: fixedV, takesG: takesG,
    };
    IMPL[name] = { generate: generate, closedForm: cf };
  }
  add('gpipe', 'GPipe', 'all forwards, then all backwards: every rank holds all m activations',
    'loop', false, 1, false, function (c) { return genGPipe(c.P, c.m); }, cfGPipe);
  add('1f1b', '1F1B', 'warm-up, then one forward and one backward: at most P-r activations on rank r',
    'loop', false, 1, false, function (c) { return gen1F1B(c.P, c.m); }, cf1F1B);
  add('interleaved', 'Interleaved 1F1B',
    "V chunks per rank (Megatron's order): the fill shrinks V-fold, warm-up memory grows",
    'loop', false, null, true, function (c) { return genInterleaved(c.P, c.m, c.V, c.G); }, cfInterleaved);
  add('zb-h1', 'ZB-H1', "1F1B with W split off the backward: W's fill the drain at 1F1B's memory",
    'loop', true, 1, false, function (c) { return genZBH1(c.P, c.m); }, cfZBH1);
  add('zb-h2', 'ZB-H2', "up to 2P-1 micro-batches in flight: W's fill warm-up and drain, zero steady bubble",
    'loop', true, 1, false, function (c) { return genZBH2(c.P, c.m); }, cfZBH2);
  add('zb-v', 'ZB-V', 'two chunks per rank in a V: about zero bubble at about P micro-batches on every rank',
    'v', true, 2, false, function (c) { return genZBV(c.P, c.m); }, cfZBV);
  var NAMES = Object.keys(SCHEDULES);

  // The schedule for `cfg`, or a ConfigError saying what is wrong and what is valid.
  function check(cfg) {
    var name = cfg.schedule;
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(SCHEDULES, name)) {
      throw new ConfigError('unknown schedule ' + pyRepr(name) + '; choose one of ' + NAMES.join(', '));
    }
    var spec = SCHEDULES[name];
    if (spec.fixedV !== null && cfg.V !== spec.fixedV) {
      if (spec.fixedV === 1) {
        throw new ConfigError(name + ' runs one model chunk per rank, so V must be 1 (got V=' + intStr(cfg.V) +
          '); for V > 1 choose interleaved');
      }
      throw new ConfigError(name + ' places exactly ' + spec.fixedV + ' chunks per rank in a V, so V must be ' +
        spec.fixedV + ' (got V=' + intStr(cfg.V) + ')');
    }
    if (cfg.G !== null && !spec.takesG) {
      throw new ConfigError('the group size G only applies to interleaved, not ' + name + '; leave G unset');
    }
    // Size first (registry.check): the group-size check may search for a valid m.
    // Op count in BigInt: P, m and V may be any whole numbers here.
    var nOps = BigInt(spec.splitBackward ? 3 : 2) * BigInt(spec.fixedV || cfg.V) * BigInt(cfg.m) * BigInt(cfg.P);
    if (nOps > BigInt(MAX_OPS)) {
      var perMb = nOps / BigInt(cfg.m);
      throw new ConfigError(name + ' with P=' + intStr(cfg.P) + ', m=' + intStr(cfg.m) + ', V=' + intStr(cfg.V) +
        ' has ' + withCommas(nOps) + ' ops, more than the ' + withCommas(MAX_OPS) +
        ' pipeviz times quickly; use m <= ' + (BigInt(MAX_OPS) / perMb) + ' at this P and V');
    }
    if (name === 'interleaved' && cfg.V > 1) groupSize(cfg.P, cfg.m, cfg.G);
    return spec;
  }

  // ---------------------------------------------------------------------------
  // engine.run

  function close(a, b) { return Math.abs(a - b) <= RTOL * Math.max(1.0, Math.abs(a), Math.abs(b)); }

  function sameInts(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function run(input) {
    var cfg, o, tl;
    try {
      cfg = normalize(input);
      var spec = check(cfg);
      o = IMPL[spec.name].generate(cfg);
      tl = simulate(o, cfg);
    } catch (e) {
      if (e instanceof ConfigError) return { ok: false, error: e.message };
      throw e;
    }
    var mt = measure(o, tl);
    var th = IMPL[cfg.schedule].closedForm(cfg);
    var bubble = ftoNumber(th.bubble), steady = ftoNumber(th.steady);
    return {
      ok: true,
      config: cfg,
      title: SCHEDULES[cfg.schedule].title,
      S: o.S,
      chunksPerRank: o.chunksPerRank,
      splitBackward: o.splitBackward,
      stageToRank: o.stageToRank.slice(),
      rankPtr: o.rankPtr.slice(),
      // Copies: zb-h2's order is cached and must not be changed by a caller.
      ops: { kind: o.kind.slice(), mb: o.mb.slice(), stage: o.stage.slice(), rank: o.rank.slice(),
        start: tl.start, end: tl.end, dep: tl.dep },
      metrics: mt,
      theory: {
        bubbleNum: th.bubble.n.toString(), bubbleDen: th.bubble.d.toString(), bubble: bubble,
        bubbleFormula: th.bubbleFormula, bubbleExact: th.bubbleExact, caveat: th.caveat,
        steadyNum: th.steady.n.toString(), steadyDen: th.steady.d.toString(), steady: steady,
        steadyExact: th.steadyExact,
        peakChunks: th.peakChunks, peakAwaitingB: th.peakAwaitingB, peakAwaitingW: th.peakAwaitingW,
        p2pPerMicrobatch: th.p2pPerMicrobatch,
      },
      agree: {
        bubble: close(mt.bubbleFraction, bubble),
        steady: close(mt.steadyBubbleFraction, steady),
        peak: sameInts(mt.peakChunks, th.peakChunks),
      },
    };
  }

  root.PipevizEngine = {
    NAMES: NAMES,
    SCHEDULES: SCHEDULES,
    MAX_OPS: MAX_OPS,
    run: run,
    // Python's number formatting, for text that must read as the served app's.
    format: { g: fmtG, fixed: fmtFixed, repr: pyRepr },
  };
})(typeof window !== 'undefined' ? window : globalThis);
