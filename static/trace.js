/* A real run read from its profiler traces, in the browser: twin of pipeviz/trace
 * (stream.py, names.py, read.py, report.py, whatif.py), with the same reading, the
 * same numbers and the same messages, held to Python by tests/test_trace_parity.py.
 *
 *   var X = PipevizEngine.trace;
 *   X.readFiles(files, {ranks, offsetsMs, pattern, patternKinds}, onProgress)  // Promise of a run
 *   X.readTexts([{name, text}], options)  // the same, from text already in hand
 *   var rep = X.report(run), what = X.whatIf(rep);
 *
 * A run: files, declared, offsetsMs, placement, P, m, V, order (E.Order), start and end
 * (ms from the first compute start), names, comm {rank, start, end, kind, mb, stage,
 * peer, rankPtr, n, token(i)}, t0Us, timeline and metrics (as for a schedule). A
 * report: costs {mean, count, stageMean, stageCount, stageRank, stageWork,
 * stageWeight}, simulated (a timeline of the same order at the measured means,
 * comm 0), simulatedMetrics, gap, gaps [{rank, op, waited, model, excess, cause,
 * comm, spent, msg}], imbalance {makespan, extra, slowest, ratio, msg}. whatIf:
 * {costs, splitEven, rows [{schedule, V, error | makespan, bubbleFraction,
 * peakInflightMicrobatches, peakInflightChunks, vsMeasured, vsModel, sameOrder}], error}.
 * Refusals are thrown as PipevizError objects of type 'TraceError' (or OrderError
 * where Python raises one).
 *
 * Reading: a file is read as a stream (gzip by its magic bytes, through the browser's
 * DecompressionStream), decoded as UTF-8 (fatal), and its JSON walked a value at a
 * time by the grammar of stream.py: every value's extent is found first (a string's
 * closing quote, the bracket that brings the nesting back to 0, a bare word's next
 * delimiter), then JSON.parse reads that slice; a value whose extent the text ends
 * inside is cut short. Known differences: an integer of more than 4300 digits, or an
 * event nested about a thousand levels deep, is not JSON to Python and is to a browser.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var T = root.PipevizText;
  var FMT = T.format;
  var DATA = root.PIPEVIZ_DATA.trace;
  var KIND_NAMES = E.KIND_NAMES;

  function traceError(key, args) { return new E.PipevizError('TraceError', key, args || {}); }

  // ---------------------------------------------------------------------------
  // The JSON, a value at a time (stream.py).

  var WS = ' \t\n\r';
  var DELIMS = ',]} \t\n\r';

  // One past the closing quote of the string whose body starts at j, or -1.
  function stringEnd(text, j) {
    var n = text.length;
    while (j < n) {
      var c = text.charCodeAt(j);
      if (c === 34) return j + 1; // "
      j += c === 92 ? 2 : 1; // a backslash and what it escapes
    }
    return -1;
  }

  // Where the value starting at text[i] ends, or -1 if the text ends first.
  function extent(text, i) {
    var c = text.charAt(i), n = text.length, j;
    if (c === '"') return stringEnd(text, i + 1);
    if (c === '{' || c === '[') {
      var depth = 0;
      for (j = i; j < n; j++) {
        var ch = text.charCodeAt(j);
        if (ch === 34) {
          j = stringEnd(text, j + 1);
          if (j < 0) return -1;
          j -= 1;
        } else if (ch === 123 || ch === 91) {
          depth += 1;
        } else if (ch === 125 || ch === 93) {
          depth -= 1;
          if (depth === 0) return j + 1;
        }
      }
      return -1;
    }
    for (j = i; j < n; j++) if (DELIMS.indexOf(text.charAt(j)) >= 0) return j;
    return -1;
  }

  // A value of distributedInfo: numbers written with a fraction or an exponent are
  // not whole (Python reads them as floats); see custom.js.
  var INT = /^-?(?:0|[1-9][0-9]*)$/;
  function NotWhole(value) { this.value = value; }
  function strictReviver(key, value, context) {
    if (typeof value !== 'number') return value;
    if (context && typeof context.source === 'string') return INT.test(context.source) ? value : new NotWhole(value);
    return Number.isInteger(value) ? value : new NotWhole(value);
  }

  // Where the grammar is: before the top-level value, before an object's key, its colon,
  // its value, the comma or brace after it, an event (or the list's end), the comma or
  // bracket after it, after the top-level value.
  var START = 0, KEY = 1, COLON = 2, VALUE = 3, OBJSEP = 4, ELEM = 5, ARRSEP = 6, AFTER = 7;

  // The grammar as a machine fed text: push(text) as it comes, end() at the end of the
  // file. onEvent(event) for every event that is a JSON object, in file order.
  function Reader(file, onEvent) {
    this.file = file;
    this.onEvent = onEvent;
    this.buf = '';
    this.pos = 0;
    this.eof = false;
    this.state = START;
    this.inObject = false; // the events list is a member of the top-level object
    this.first = true; // the events list's (or the object's) first item may be its closer
    this.started = false; // a text has come (its first character may be a byte-order mark)
    this.key = null;
    this.rank = null;
    this.hasEvents = false;
  }

  Reader.prototype.fail = function (key) { throw traceError(key, { file: this.file }); };

  // The next character that is not whitespace, or '' when the text (so far) ends.
  Reader.prototype.peek = function () {
    var buf = this.buf, n = buf.length;
    while (this.pos < n && WS.indexOf(buf.charAt(this.pos)) >= 0) this.pos++;
    return this.pos < n ? buf.charAt(this.pos) : '';
  };

  // The value at pos, parsed, or `undefined` when its extent is not in the text yet.
  Reader.prototype.value = function (strict) {
    var end = extent(this.buf, this.pos);
    if (end < 0) {
      if (this.eof) this.fail('trace.truncated');
      return undefined;
    }
    var slice = this.buf.slice(this.pos, end), v;
    try {
      v = strict ? JSON.parse(slice, strictReviver) : JSON.parse(slice);
    } catch (e) {
      this.fail('trace.not_json');
    }
    this.pos = end;
    return v;
  };

  Reader.prototype.push = function (text) {
    if (!this.started && text.length) {
      this.started = true;
      if (text.charAt(0) === '\ufeff') text = text.slice(1);
    }
    this.buf = this.buf.slice(this.pos) + text;
    this.pos = 0;
    this.run();
  };

  // Whether a character is needed and the text has ended: cut short.
  Reader.prototype.need = function (c) {
    if (c === '' && this.eof) this.fail('trace.truncated');
    return c !== '';
  };

  Reader.prototype.run = function () {
    for (;;) {
      var c = this.peek(), v;
      switch (this.state) {
        case START:
          if (c === '') {
            if (this.eof) this.fail('trace.empty');
            return;
          }
          this.pos++;
          if (c === '[') { this.state = ELEM; this.first = true; this.hasEvents = true; }
          else if (c === '{') { this.state = KEY; this.inObject = true; this.first = true; }
          else this.fail('trace.not_json');
          break;
        case KEY:
          if (!this.need(c)) return;
          if (this.first && c === '}') { this.pos++; this.state = AFTER; break; }
          if (c !== '"') this.fail('trace.not_json');
          v = this.value(false);
          if (v === undefined) return;
          this.key = v;
          this.first = false;
          this.state = COLON;
          break;
        case COLON:
          if (!this.need(c)) return;
          if (c !== ':') this.fail('trace.not_json');
          this.pos++;
          this.state = VALUE;
          break;
        case VALUE:
          if (!this.need(c)) return;
          if (this.key === DATA.eventsKey && c === '[') {
            this.pos++;
            this.state = ELEM;
            this.first = true;
            this.hasEvents = true;
            break;
          }
          v = this.value(this.key === DATA.infoKey);
          if (v === undefined) return;
          if (this.key === DATA.infoKey) {
            var info = v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof NotWhole) ? v : null;
            var rank = info !== null && Object.prototype.hasOwnProperty.call(info, DATA.rankKey) ? info[DATA.rankKey] : null;
            this.rank = typeof rank === 'number' && rank >= 0 ? rank : null;
          }
          this.state = OBJSEP;
          break;
        case OBJSEP:
          if (!this.need(c)) return;
          this.pos++;
          if (c === ',') { this.state = KEY; this.first = false; }
          else if (c === '}') this.state = AFTER;
          else this.fail('trace.not_json');
          break;
        case ELEM:
          if (!this.need(c)) return;
          if (this.first && c === ']') { this.pos++; this.state = this.inObject ? OBJSEP : AFTER; break; }
          v = this.value(false);
          if (v === undefined) return;
          this.first = false;
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) this.onEvent(v);
          this.state = ARRSEP;
          break;
        case ARRSEP:
          if (!this.need(c)) return;
          this.pos++;
          if (c === ',') { this.state = ELEM; this.first = false; }
          else if (c === ']') this.state = this.inObject ? OBJSEP : AFTER;
          else this.fail('trace.not_json');
          break;
        default: // after the top-level value: only whitespace
          if (c !== '') this.fail('trace.not_json');
          return;
      }
    }
  };

  Reader.prototype.end = function () {
    this.eof = true;
    this.run();
    if (this.state !== AFTER) this.fail('trace.truncated');
    return { rank: this.rank, hasEvents: this.hasEvents };
  };

  // ---------------------------------------------------------------------------
  // What an event's name says (names.py).

  var COMPUTE_RE = /^([0-9]{1,9})([FIBW])([0-9]{1,9})$/;
  var OVERLAP_RE = /^\(([\s\S]*)\)OVERLAP_F_B$/;
  var MOVE_RE = /^([0-9]{1,9})(SEND_F|RECV_F|SEND_B|RECV_B)([0-9]{1,9})$/;
  var BOOK_RE = /^([0-9]{1,9})(UNSHARD|RESHARD|REDUCE_GRAD)$/;
  var GPIPE_RE = /^(Forward|Backward) ([0-9]{1,9})$/;
  var OWN_STAGE = DATA.ownStage;

  function OverlapError(name) { this.name = name; }

  function ppAction(action) {
    var f = COMPUTE_RE.exec(action);
    if (f) return [f[2], Number(f[3]), Number(f[1]), -1, -1];
    if ((f = MOVE_RE.exec(action))) return [f[2], Number(f[3]), Number(f[1]), -1, -1];
    if ((f = BOOK_RE.exec(action))) return [f[2], -1, Number(f[1]), -1, -1];
    if ((f = OVERLAP_RE.exec(action))) {
      var parts = f[1].split(';').map(function (p) { return COMPUTE_RE.exec(p); });
      var ok = parts.every(Boolean) && parts.length === 2;
      var fw = ok ? parts.filter(function (p) { return p[2] === 'F'; }) : [];
      var bw = ok ? parts.filter(function (p) { return p[2] === 'B'; }) : [];
      if (fw.length !== 1 || bw.length !== 1) throw new OverlapError(DATA.ppPrefix + action);
      return ['F&B', Number(fw[0][3]), Number(fw[0][1]), Number(bw[0][3]), Number(bw[0][1])];
    }
    return null;
  }

  function gpipe(name) {
    var f = GPIPE_RE.exec(name);
    return f ? [f[1] === 'Forward' ? 'F' : 'B', Number(f[2]), OWN_STAGE, -1, -1] : null;
  }

  // Characters as Python counts them (code points).
  function pyLength(s) {
    var n = s.length;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        var d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
      }
    }
    return n;
  }

  var PIECE = /\{([^{}]*)\}|\*/g;
  var WORD = /^[A-Za-z_]+$/;
  var STRIP = new RegExp('^[' + E.PY_SPACE + ']+|[' + E.PY_SPACE + ']+$', 'g');
  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&'); }

  function Pattern(template, regex, groups, words) {
    this.template = template;
    this.regex = regex;
    this.groups = groups;
    this.words = words;
  }
  Pattern.prototype.match = function (name) {
    if (name.length > DATA.maxName && pyLength(name) > DATA.maxName) return null;
    var f = this.regex.exec(name);
    if (!f) return null;
    var got = {};
    this.groups.forEach(function (g, j) { got[g] = f[j + 1]; });
    var kind = this.words.get(got.kind.toLowerCase());
    if (kind === undefined) return null;
    var stage = got.stage !== undefined ? Number(got.stage) : OWN_STAGE;
    return [kind, Number(got.mb), stage, -1, -1];
  };

  function compilePattern(template, kinds) {
    if (!template || pyLength(template) > DATA.maxName) throw traceError('trace.pattern_length', { max: DATA.maxName });
    var parts = [], groups = [], at = 0, stars = 0, found;
    PIECE.lastIndex = 0;
    while ((found = PIECE.exec(template)) !== null) {
      parts.push(escapeRe(template.slice(at, found.index)));
      at = found.index + found[0].length;
      if (found[0] === '*') {
        stars += 1;
        parts.push('[\\s\\S]*?');
        continue;
      }
      var slot = found[1];
      if (DATA.slots.indexOf(slot) < 0 || groups.indexOf(slot) >= 0) {
        throw traceError('trace.pattern_slot', { pattern: template, slot: found[0], slots: DATA.slotsText });
      }
      groups.push(slot);
      parts.push(slot === DATA.slots[0] ? '([A-Za-z_]+)' : '([0-9]{1,9})');
    }
    parts.push(escapeRe(template.slice(at)));
    if (groups.indexOf(DATA.slots[0]) < 0 || groups.indexOf(DATA.slots[1]) < 0) {
      throw traceError('trace.pattern_needs', { pattern: template, slots: DATA.needsText, stage: DATA.stageText });
    }
    if (stars > DATA.maxStars) throw traceError('trace.pattern_stars', { pattern: template, max: DATA.maxStars });
    var words = new Map(Object.entries(DATA.kindWords));
    parseKinds(kinds).forEach(function (k, w) { words.set(w, k); });
    return new Pattern(template, new RegExp('^' + parts.join('') + '$'), groups, words);
  }

  function parseKinds(text) {
    var out = new Map();
    if (!text) return out;
    text.split(',').forEach(function (item) {
      var trimmed = item.replace(STRIP, ''), eq = trimmed.indexOf('=');
      var word = eq < 0 ? trimmed : trimmed.slice(0, eq).replace(STRIP, '');
      var kind = eq < 0 ? '' : trimmed.slice(eq + 1).replace(STRIP, '');
      if (eq < 0 || !WORD.test(word) || DATA.patternKinds.indexOf(kind) < 0) {
        throw traceError('trace.pattern_kinds', { item: trimmed, kinds: DATA.patternKinds.join(', ') });
      }
      out.set(word.toLowerCase(), kind);
    });
    return out;
  }

  function classify(name, pattern) {
    if (name.slice(0, DATA.ppPrefix.length) === DATA.ppPrefix) return ppAction(name.slice(DATA.ppPrefix.length));
    if (pattern) return pattern.match(name);
    if (GPIPE_RE.test(name)) return gpipe(name);
    return null;
  }

  // ---------------------------------------------------------------------------
  // Files -> a run (read.py).

  var COMPUTE_KINDS = root.PIPEVIZ_DATA.codes.traceKinds; // trace/names.py's, as data (page_document.codes)

  function isNumber(x) { return typeof x === 'number' && isFinite(x); }

  // What one file holds, as its events come.
  function FileOps(name, pattern, budget) {
    this.name = name;
    this.pattern = pattern;
    this.budget = budget;
    this.ops = []; // [start µs, end µs, op, event name]
    this.comm = [];
    this.examples = [];
  }
  FileOps.prototype.onEvent = function (ev) {
    if (ev.ph !== 'X') return;
    var name = ev.name;
    if (typeof name !== 'string') return;
    var op;
    try {
      op = classify(name, this.pattern);
    } catch (e) {
      if (e instanceof OverlapError) throw traceError('trace.overlap', { file: this.name, name: name });
      throw e;
    }
    if (op === null) {
      if (this.examples.length < DATA.examples && ev.cat === 'user_annotation' && this.examples.indexOf(name) < 0) {
        this.examples.push(name);
      }
      return;
    }
    var ts = ev.ts, dur = ev.dur;
    if (!isNumber(ts) || !isNumber(dur) || dur < 0) return;
    this.budget[0] -= 1;
    if (this.budget[0] < 0) throw traceError('trace.too_many', { max: FMT.commas(DATA.maxKept) });
    (COMPUTE_KINDS.indexOf(op[0]) >= 0 ? this.ops : this.comm).push([ts, ts + dur, op, name]);
  };

  function checkOptions(n, options) {
    if (n === 0) throw traceError('trace.no_files', {});
    if (n > DATA.maxFiles) throw traceError('trace.too_many_files', { n: n, max: DATA.maxFiles });
    var ranks = options.ranks, offsets = options.offsetsMs;
    if (ranks !== undefined && ranks !== null) {
      if (ranks.length !== n) throw traceError('trace.ranks_count', { given: ranks.length, n: n });
      var sorted = ranks.slice().sort(function (a, b) { return a - b; });
      if (!sorted.every(function (r, i) { return r === i; })) {
        throw traceError('trace.ranks_perm', { ranks: ranks.join(', '), last: n - 1 });
      }
    }
    if (offsets !== undefined && offsets !== null) {
      if (offsets.length !== n) throw traceError('trace.offsets_count', { given: offsets.length, n: n });
      offsets.forEach(function (x) {
        if (!isNumber(x) || Math.abs(x) > DATA.maxOffsetMs) {
          throw traceError('trace.offset', { value: typeof x === 'number' ? FMT.repr(x) : String(x), max: FMT.g(DATA.maxOffsetMs) });
        }
      });
    }
  }

  // A file done: refused if it holds no pipeline op.
  function fileDone(f, head) {
    if (f.ops.length) return;
    if (!head.hasEvents) throw traceError('trace.no_events', { file: f.name });
    if (f.examples.length) {
      throw traceError('trace.no_ops_named', { file: f.name, names: f.examples.map(pyRepr).join(', ') });
    }
    throw traceError('trace.no_ops', { file: f.name });
  }

  // repr() of a str, as Python writes it: ' unless the text holds ' and not ", and
  // every character str.isprintable() refuses escaped (\\xhh, \\uhhhh, \\Uhhhhhhhh).
  var NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
  var ESCAPES = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  function hex(cp, width) { return ('0000000' + cp.toString(16)).slice(-width); }
  function pyRepr(s) {
    var q = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'", out = q;
    for (var c of s) {
      var cp = c.codePointAt(0);
      if (ESCAPES[c] !== undefined) out += ESCAPES[c];
      else if (c === q) out += '\\' + c;
      else if (c !== ' ' && NOT_PRINTABLE.test(c)) {
        out += cp < 0x100 ? '\\x' + hex(cp, 2) : cp < 0x10000 ? '\\u' + hex(cp, 4) : '\\U' + hex(cp, 8);
      } else out += c;
    }
    return out + q;
  }

  // Each file's pipeline rank, from what the files say (read._ranks).
  function ranksOf(names, declared) {
    var known = [], i;
    declared.forEach(function (d, j) { if (d !== null) known.push(j); });
    if (!known.length) return names.map(function (_, j) { return j; });
    if (known.length < names.length) {
      var missing = declared.indexOf(null);
      throw traceError('trace.rank_unknown', { file: names[missing], other: names[known[0]] });
    }
    var seen = new Map();
    for (i = 0; i < declared.length; i++) {
      if (seen.has(declared[i])) throw traceError('trace.same_rank', { file: names[seen.get(declared[i])], other: names[i], rank: declared[i] });
      seen.set(declared[i], i);
    }
    var ascending = Array.from(seen.keys()).sort(function (a, b) { return a - b; });
    return declared.map(function (d) { return ascending.indexOf(d); });
  }

  function finish(files, heads, options) {
    var n = files.length;
    var rankOf = options.ranks ? options.ranks.slice() : ranksOf(files.map(function (f) { return f.name; }),
      heads.map(function (h) { return h.rank; }));
    var byRank = new Array(n);
    rankOf.forEach(function (r, i) { byRank[r] = i; });
    var offsets = options.offsetsMs ? options.offsetsMs.map(Number) : files.map(function () { return 0.0; });
    return assemble(byRank.map(function (i) { return files[i]; }), byRank.map(function (i) { return heads[i].rank; }),
      offsets);
  }

  function shifted(items, off, rank) {
    var out = items.map(function (it) {
      var op = it[2];
      if (op[2] === OWN_STAGE) op = [op[0], op[1], rank, op[3], op[4]];
      return [it[0] + off, it[1] + off, op, it[3]];
    });
    out.sort(function (a, b) { return a[0] - b[0]; }); // stable: ties in file order
    return out;
  }

  function vHome(s, P) { return s < P ? s : 2 * P - 1 - s; }

  // [S, placement, stageToRank] the ranks' stages fit (read._placement).
  function placementOf(files, ops) {
    var P = files.length, r, j;
    var stages = ops.map(function (rank) {
      var out = [];
      rank.forEach(function (o) { out.push(o[2][2]); if (o[2][0] === 'F&B') out.push(o[2][4]); });
      return out;
    });
    var S = 0;
    stages.forEach(function (ss) { ss.forEach(function (s) { if (s + 1 > S) S = s + 1; }); });
    if (S % P) throw traceError('trace.stages', { last: S - 1, S: S, P: P });
    var V = S / P;
    var first = function (bad) {
      for (r = 0; r < P; r++) for (j = 0; j < stages[r].length; j++) if (bad(stages[r][j], r)) return [r, stages[r][j]];
      return null;
    };
    var loopBad = first(function (s, rr) { return s % P !== rr; });
    var s2r = new Int32Array(S), s;
    if (loopBad === null) {
      for (s = 0; s < S; s++) s2r[s] = s % P;
      return [S, 'loop', s2r];
    }
    if (V !== 2) {
      throw traceError('trace.placement', { file: files[loopBad[0]].name, rank: loopBad[0], stage: loopBad[1],
        home: loopBad[1] % P, P: P });
    }
    var neither = first(function (st, rr) { return st % P !== rr && vHome(st, P) !== rr; });
    if (neither !== null) {
      throw traceError('trace.placement_v', { file: files[neither[0]].name, rank: neither[0], stage: neither[1],
        home: neither[1] % P, home_v: vHome(neither[1], P) });
    }
    var vBad = first(function (st, rr) { return vHome(st, P) !== rr; });
    if (vBad === null) {
      for (s = 0; s < S; s++) s2r[s] = vHome(s, P);
      return [S, 'v', s2r];
    }
    throw traceError('trace.placement_mixed', { file: files[loopBad[0]].name, stage: loopBad[1], rank: loopBad[0],
      other: files[vBad[0]].name, stage2: vBad[1], rank2: vBad[0] });
  }

  var DEFAULT_COSTS = null; // E.costs(1, 1, 1, 0), made on first use

  function defaultCosts() {
    if (DEFAULT_COSTS === null) DEFAULT_COSTS = E.costs(1.0, 1.0, 1.0, 0.0);
    return DEFAULT_COSTS;
  }

  function assemble(files, declared, offsets) {
    var P = files.length, r;
    var ops = [], comm = [];
    files.forEach(function (f, rr) {
      var off = offsets[rr] * 1000.0;
      ops.push(shifted(f.ops, off, rr));
      comm.push(shifted(f.comm, off, rr));
    });
    var t0 = Infinity;
    ops.forEach(function (o) { if (o[0][0] < t0) t0 = o[0][0]; });
    for (r = 0; r < P; r++) {
      for (var j = 0; j + 1 < ops[r].length; j++) {
        var a = ops[r][j], b = ops[r][j + 1];
        if (b[0] < a[1] - DATA.abutUs) throw traceError('trace.overlap_ops', { file: files[r].name, a: a[3], b: b[3] });
      }
    }
    var pl = placementOf(files, ops), S = pl[0], s2r = pl[2];
    var m = 0;
    ops.forEach(function (rank) {
      rank.forEach(function (o) {
        if (o[2][1] + 1 > m) m = o[2][1] + 1;
        if (o[2][0] === 'F&B' && o[2][3] + 1 > m) m = o[2][3] + 1;
      });
    });
    E.checkSize(m, S);
    var lists = ops.map(function (rank) {
      return rank.map(function (o) { return o[2][0] === 'F&B' ? o[2] : o[2].slice(0, 3); });
    });
    var order = E.fromRankLists(m, s2r, lists);
    var N = order.nOps, start = new Float64Array(N), end = new Float64Array(N), names = [], k = 0;
    ops.forEach(function (rank) {
      rank.forEach(function (o) {
        start[k] = (o[0] - t0) / 1000.0;
        end[k] = (o[1] - t0) / 1000.0;
        names.push(o[3]);
        k++;
      });
    });
    var dur = new Float64Array(N);
    for (k = 0; k < N; k++) dur[k] = end[k] - start[k];
    try {
      E.simulate(order, defaultCosts(), dur);
    } catch (e) {
      if (!(e instanceof E.PipevizError)) throw e;
      if (e.type === 'OrderError') throw traceError('trace.disagree', { why: T.msg(e.key, e.args) });
      if (e.type === 'DeadlockError') throw traceError('trace.deadlock', { why: e.parts[0] });
      throw e;
    }
    return makeRun({
      files: files.map(function (f) { return f.name; }), declared: declared, offsetsMs: offsets, placement: pl[1],
      order: order, start: start, end: end, names: names, comm: makeComm(comm, s2r, S, t0), t0Us: t0,
    });
  }

  var COMM_CODE = new Map(DATA.commKinds.map(function (k, i) { return [k, i]; }));

  function makeComm(comm, s2r, S, t0) {
    var n = 0;
    comm.forEach(function (c) { n += c.length; });
    var out = {
      rank: new Int32Array(n), start: new Float64Array(n), end: new Float64Array(n), kind: new Int8Array(n),
      mb: new Int32Array(n), stage: new Int32Array(n), peer: new Int32Array(n), rankPtr: new Int32Array(comm.length + 1),
      n: n,
    };
    var k = 0;
    comm.forEach(function (items, r) {
      items.forEach(function (it) {
        var op = it[2], kind = op[0];
        var toward = kind === 'SEND_F' || kind === 'RECV_B' ? 1 : kind === 'RECV_F' || kind === 'SEND_B' ? -1 : 0;
        var nb = op[2] + toward;
        out.rank[k] = r;
        out.start[k] = (it[0] - t0) / 1000.0;
        out.end[k] = (it[1] - t0) / 1000.0;
        out.kind[k] = COMM_CODE.get(kind);
        out.mb[k] = op[1];
        out.stage[k] = op[2];
        out.peer[k] = toward && nb >= 0 && nb < S ? s2r[nb] : -1;
        k++;
      });
      out.rankPtr[r + 1] = k;
    });
    out.token = function (i) {
      return out.stage[i] + DATA.commKinds[out.kind[i]] + (out.mb[i] >= 0 ? String(out.mb[i]) : '');
    };
    return out;
  }

  function makeRun(o) {
    var run = Object.assign(o, { P: o.order.P, m: o.order.m, V: o.order.chunksPerRank });
    var tl, mt;
    Object.defineProperties(run, {
      timeline: {
        get: function () {
          if (tl === undefined) {
            tl = { order: run.order, costs: defaultCosts(), start: run.start, end: run.end,
              deps: E.dependencies(run.order, 0.0), makespan: E.makespan(run.start, run.end), weights: null };
          }
          return tl;
        },
      },
      metrics: { get: function () { if (mt === undefined) mt = E.measure(run.timeline); return mt; } },
    });
    return run;
  }

  function patternOf(options) {
    return options.pattern !== undefined && options.pattern !== null
      ? compilePattern(options.pattern, options.patternKinds) : null;
  }

  // read_traces from text already decoded: [{name, text}].
  function readTexts(list, options) {
    options = options || {};
    var pattern = patternOf(options);
    checkOptions(list.length, options);
    var budget = [DATA.maxKept], files = [], heads = [];
    list.forEach(function (item) {
      var f = new FileOps(item.name, pattern, budget);
      var reader = new Reader(item.name, function (ev) { f.onEvent(ev); });
      reader.push(item.text);
      var head = reader.end();
      fileDone(f, head);
      files.push(f);
      heads.push(head);
    });
    return finish(files, heads, options);
  }

  // read_traces from File or Blob objects (each with a name): a Promise of the run.
  // onProgress(done, total) in bytes as stored.
  function readFiles(list, options, onProgress) {
    options = options || {};
    try {
      var pattern = patternOf(options);
      checkOptions(list.length, options);
    } catch (e) {
      return Promise.reject(e);
    }
    var total = 0, base = 0, budget = [DATA.maxKept], files = [], heads = [];
    list.forEach(function (file) { total += file.size; });
    var chain = Promise.resolve();
    list.forEach(function (file) {
      chain = chain.then(function () {
        var f = new FileOps(file.name, pattern, budget);
        return readOne(file, f, function (n) { if (onProgress) onProgress(base + n, total); }).then(function (head) {
          base += file.size;
          fileDone(f, head);
          files.push(f);
          heads.push(head);
        });
      });
    });
    return chain.then(function () { return finish(files, heads, options); });
  }

  function readOne(file, f, progress) {
    var reader = new Reader(file.name, function (ev) { f.onEvent(ev); });
    return file.slice(0, 2).arrayBuffer().then(function (head) {
      var b = new Uint8Array(head), gz = b.length === 2 && b[0] === DATA.gzipMagic[0] && b[1] === DATA.gzipMagic[1];
      var seen = 0;
      var stream = file.stream().pipeThrough(new TransformStream({
        transform: function (chunk, ctl) { seen += chunk.byteLength; ctl.enqueue(chunk); },
      }));
      if (gz) stream = stream.pipeThrough(new DecompressionStream('gzip'));
      // The mark is the reader's to skip (once, as Python does), not the decoder's.
      var bytes = stream.getReader(), decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      var decode = function (chunk, more) {
        try {
          return decoder.decode(chunk, { stream: more });
        } catch (e) {
          throw traceError('trace.not_text', { file: file.name });
        }
      };
      var step = function () {
        return bytes.read().then(function (got) {
          if (got.done) {
            reader.push(decode(undefined, false));
            return reader.end();
          }
          reader.push(decode(got.value, true));
          progress(seen);
          return step();
        }, function (e) {
          if (e instanceof E.PipevizError) throw e;
          if (gz) throw traceError('trace.gzip', { file: file.name });
          throw traceError('trace.open', { file: file.name, why: String(e && e.message || e) });
        });
      };
      return step();
    }, function (e) {
      throw traceError('trace.open', { file: file.name, why: String(e && e.message || e) });
    });
  }

  // ---------------------------------------------------------------------------
  // The numbers (report.py).

  var MEASURED = DATA.measuredKinds, STAGE_KINDS = DATA.stageKinds;

  function ms(x) { return FMT.fixed(x, 2); }

  function measuredCosts(run) {
    var order = run.order, N = order.nOps, S = order.S, i, j, s;
    var total = {}, count = {};
    MEASURED.forEach(function (k) { total[k] = 0.0; count[k] = 0; });
    var stTotal = [], stCount = [];
    for (s = 0; s < S; s++) { stTotal.push([0.0, 0.0, 0.0, 0.0]); stCount.push([0, 0, 0, 0]); }
    var dur = new Float64Array(N);
    for (i = 0; i < N; i++) dur[i] = run.end[i] - run.start[i];
    for (i = 0; i < N; i++) {
      var name = KIND_NAMES[order.kind[i]];
      total[name] += dur[i];
      count[name] += 1;
      j = STAGE_KINDS.indexOf(name);
      if (j >= 0) {
        stTotal[order.stage[i]][j] += dur[i];
        stCount[order.stage[i]][j] += 1;
      }
    }
    var mean = {}, counts = {};
    MEASURED.forEach(function (k) { if (count[k]) { mean[k] = total[k] / count[k]; counts[k] = count[k]; } });
    var fPart = 'F' in mean ? mean.F : 0.0;
    var bPart = 'B' in mean ? mean.B : ('I' in mean ? mean.I : 0.0) + ('W' in mean ? mean.W : 0.0);
    var work = [];
    for (s = 0; s < S; s++) work.push(0 + stTotal[s][0] + stTotal[s][1] + stTotal[s][2] + stTotal[s][3]);
    for (i = 0; i < N; i++) {
      if (order.kind[i] !== E.FB) continue;
      var share = fPart + bPart > 0 ? fPart / (fPart + bPart) : 0.5;
      work[order.stage[i]] += dur[i] * share;
      work[order.stage2[i]] += dur[i] * (1.0 - share);
    }
    work = work.map(function (w) { return w / order.m; });
    var sumW = 0;
    work.forEach(function (w) { sumW += w; });
    var avg = sumW / S;
    var stageMean = [];
    for (s = 0; s < S; s++) {
      stageMean.push(stTotal[s].map(function (t, jj) { return stCount[s][jj] ? t / stCount[s][jj] : NaN; }));
    }
    return {
      mean: mean, count: counts, stageMean: stageMean, stageCount: stCount, stageRank: Int32Array.from(order.stageToRank),
      stageWork: Float64Array.from(work),
      stageWeight: Float64Array.from(work, function (w) { return avg > 0 ? w / avg : 1.0; }),
    };
  }

  function gapLines(run, sim) {
    var order = run.order, comm = run.comm, out = [];
    var threshold = DATA.gapShare * run.metrics.makespan;
    for (var r = 0; r < order.P; r++) {
      var lo = order.rankPtr[r], hi = order.rankPtr[r + 1], cHi = comm.rankPtr[r + 1], j = comm.rankPtr[r];
      var prev = 0.0, sPrev = 0.0;
      for (var i = lo; i < hi; i++) {
        var waited = run.start[i] - prev, model = sim.start[i] - sPrev, excess = waited - model;
        if (excess > threshold) {
          while (j < cHi && comm.end[j] <= prev) j++;
          var best = 0.0, bestAt = -1, covered = 0.0;
          for (var k = j; k < cHi && comm.start[k] < run.start[i]; k++) {
            var part = Math.min(comm.end[k], run.start[i]) - Math.max(comm.start[k], prev);
            if (part > 0) {
              covered += part;
              if (part > best) { best = part; bestAt = k; }
            }
          }
          out.push(gap(run, r, i, waited, model, excess, bestAt, best, waited - covered));
        }
        prev = run.end[i];
        sPrev = sim.end[i];
      }
    }
    out.sort(function (a, b) { return b.excess - a.excess || a.rank - b.rank || a.op - b.op; });
    return out;
  }

  var RECV = DATA.causes[0], SEND = DATA.causes[1], BOOK = DATA.causes[2], NONE = DATA.causes[3];

  function gap(run, r, i, waited, model, excess, at, best, bare) {
    var args = { rank: r, ms: ms(excess), op: run.order.token(i) };
    var g = { rank: r, op: i, waited: waited, model: model, excess: excess };
    if (at < 0 || bare > best) {
      return Object.assign(g, { cause: NONE, comm: -1, spent: Math.max(bare, 0.0), msg: T.msg('trace.gap.' + NONE, args) });
    }
    var kind = DATA.commKinds[run.comm.kind[at]], peer = run.comm.peer[at];
    var cause = kind.indexOf('RECV') === 0 ? RECV : kind.indexOf('SEND') === 0 ? SEND : BOOK;
    if (cause !== BOOK && peer < 0) cause = BOOK;
    args.comm = kind;
    if (cause !== BOOK) args.peer = peer;
    return Object.assign(g, { cause: cause, comm: at, spent: best, msg: T.msg('trace.gap.' + cause, args) });
  }

  function imbalance(run, costs, simulated) {
    var order = run.order, N = order.nOps, total = new Map(), count = new Map(), keys = [], i;
    for (i = 0; i < N; i++) {
      var key = order.kind[i] + ',' + order.stage[i] + ',' + order.stage2[i], d = run.end[i] - run.start[i];
      keys.push(key);
      total.set(key, (total.has(key) ? total.get(key) : 0.0) + d);
      count.set(key, (count.has(key) ? count.get(key) : 0) + 1);
    }
    var perOp = Float64Array.from(keys, function (k) { return total.get(k) / count.get(k); });
    var tl = E.simulate(order, defaultCosts(), perOp);
    var makespan = tl.makespan, weight = costs.stageWeight, slowest = 0;
    for (i = 1; i < weight.length; i++) if (weight[i] > weight[slowest]) slowest = i;
    var ratio = weight[slowest], extra = makespan - simulated;
    var msg = T.msg(extra >= 0 ? 'trace.imbalance' : 'trace.imbalance_shorter', {
      stage: slowest, rank: costs.stageRank[slowest], ratio: FMT.fixed(ratio, 2), ms: ms(Math.abs(extra)),
      with_stages: ms(makespan), without: ms(simulated),
    });
    return { makespan: makespan, extra: extra, slowest: slowest, ratio: ratio, msg: msg };
  }

  function report(run) {
    var costs = measuredCosts(run), order = run.order;
    var dur = Float64Array.from(order.kind, function (k) { return costs.mean[KIND_NAMES[k]]; });
    var sim = E.simulate(order, defaultCosts(), dur);
    var simMetrics = E.measure(sim);
    return {
      run: run, costs: costs, simulated: sim, simulatedMetrics: simMetrics, gap: run.metrics.makespan - simMetrics.makespan,
      gaps: gapLines(run, sim), imbalance: imbalance(run, costs, simMetrics.makespan),
    };
  }

  // ---------------------------------------------------------------------------
  // What if (whatif.py).

  function sameOrder(a, b) {
    var same = function (x, y) {
      if (x.length !== y.length) return false;
      for (var i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
      return true;
    };
    return same(a.stageToRank, b.stageToRank) && same(a.rankPtr, b.rankPtr) && same(a.kind, b.kind) &&
      same(a.mb, b.mb) && same(a.stage, b.stage) && same(a.mb2, b.mb2) && same(a.stage2, b.stage2);
  }

  function scheduleCosts(rep) {
    var mean = rep.costs.mean, c = rep.run.V, splitEven = !('I' in mean), tb, tw;
    if (splitEven) tb = tw = ('B' in mean ? mean.B : 0.0) * c / 2;
    else { tb = mean.I * c; tw = mean.W * c; }
    var tfb = 'F&B' in mean ? mean['F&B'] * c : null;
    return [E.costs(('F' in mean ? mean.F : 0.0) * c, tb, tw, 0.0, tfb), splitEven];
  }

  function whatIf(rep) {
    var run = rep.run, got;
    try {
      got = scheduleCosts(rep);
    } catch (e) {
      if (!(e instanceof E.PipevizError)) throw e;
      return { costs: null, splitEven: false, rows: [], error: T.msg(e.key, e.args) };
    }
    var c = got[0], measured = run.metrics.makespan, model = rep.simulatedMetrics.makespan;
    var rows = E.NAMES.map(function (name) {
      var V = name === DATA.interleaved ? (run.V >= 2 ? run.V : 2) : (E.get(name).fixedV || 1);
      var res;
      try {
        res = E.run(E.config(name, run.P, run.m, V, c));
      } catch (e) {
        if (!(e instanceof E.PipevizError)) throw e;
        return { schedule: name, V: V, error: T.msg(e.key, e.args) };
      }
      var mt = res.metrics, peakMb = -Infinity, peakChunks = -Infinity;
      for (var r = 0; r < run.P; r++) {
        if (mt.peakMicrobatches[r] > peakMb) peakMb = mt.peakMicrobatches[r];
        if (mt.peakChunks[r] > peakChunks) peakChunks = mt.peakChunks[r];
      }
      return {
        schedule: name, V: V, error: null, makespan: mt.makespan, bubbleFraction: mt.bubbleFraction,
        peakInflightMicrobatches: peakMb, peakInflightChunks: peakChunks, vsMeasured: mt.makespan - measured,
        vsModel: mt.makespan - model, sameOrder: sameOrder(res.order, run.order),
      };
    });
    return { costs: c, splitEven: got[1], rows: rows, error: null };
  }

  E.trace = {
    extent: extent, Reader: Reader, classify: classify, ppAction: ppAction, compilePattern: compilePattern,
    readTexts: readTexts, readFiles: readFiles, report: report, whatIf: whatIf, measuredCosts: measuredCosts,
    OWN_STAGE: OWN_STAGE, COMM_KINDS: DATA.commKinds,
  };
})(typeof window !== 'undefined' ? window : globalThis);
