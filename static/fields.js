/* The explorer's fields, presets and URL: twin of pipeviz/view/fields.py.
 *
 * The fields (type, range, default, label) and the presets arrive as data
 * (PIPEVIZ_DATA.fields, .presets); this file reads and writes URLs exactly as
 * fields.parse and fields.encode do. Parsing never evaluates anything: a value is a
 * choice (exact) or a number written with ASCII digits; a number out of range is
 * clamped with a note, anything else is ignored with a note (notes are messages,
 * {key, args}). The query and the fragment are both read; the fragment wins.
 *
 * Fields and presets are looked up in Maps, so a URL key such as __proto__ or
 * toString is an unknown parameter like any other.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var DATA = root.PIPEVIZ_DATA;
  var MAX_RAW = DATA.url.maxRaw; // longer URL values are not read (and are shown cut to this length)
  var FIELDS = new Map(DATA.fields.map(function (f) { return [f.name, f]; }));
  var PRESETS = new Map(Object.entries(DATA.presets));
  var NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/; // ASCII digits only

  // Python's min and max of two numbers: the first one on a tie (max(-0.0, 0) is -0.0).
  function pyMax(a, b) { return b > a ? b : a; }
  function pyMin(a, b) { return b < a ? b : a; }

  // Lengths and cuts in code points, as Python counts a str.
  function codePoints(s) { return Array.from(s); }

  function defaults() {
    var out = {};
    FIELDS.forEach(function (f, k) { out[k] = f['default']; });
    return out;
  }

  // A finite number written with ASCII digits, or null.
  function readNumber(raw) {
    var text = raw.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
    if (!NUMBER.test(text)) return null;
    var value = Number(text);
    return isFinite(value) ? value : null;
  }

  // A URL value as a note quotes it: at most MAX_RAW characters.
  function shown(raw) {
    var cp = codePoints(raw);
    return cp.length <= MAX_RAW ? raw : cp.slice(0, MAX_RAW).join('') + '\u2026';
  }

  // The valid value nearest to a number (Field.nearest): clamped to the range, and a
  // value between 0 and the field's least non-zero value moved to the nearer of the two.
  function nearest(f, value) {
    var x = pyMin(pyMax(value, f.low), f.high);
    if (f.least !== null && x > 0 && x < f.least) x = x < f.least / 2 ? 0 : f.least;
    return x;
  }

  // [value, note]: value null when it is ignored.
  function readValue(f, raw) {
    if (codePoints(raw).length > f.maxLen) {
      return [null, T.msg('url.too_long', { key: f.name, value: shown(raw), n: f.maxLen })];
    }
    if (f.kind === 'text') return [raw, null]; // plain text, never evaluated: the field's module parses it
    if (f.kind === 'choice') {
      if (f.choices.indexOf(raw) >= 0) return [raw, null];
      return [null, T.msg('url.choice', { key: f.name, value: raw, valid: f.rangeText })];
    }
    var value = readNumber(raw);
    if (f.kind === 'bool') {
      if (value === 0 || value === 1) return [value === 1, null];
      return [null, T.msg('url.choice', { key: f.name, value: raw, valid: f.rangeText })];
    }
    if (value === null || (f.kind === 'int' && !Number.isInteger(value))) {
      return [null, T.msg(f.kind === 'int' ? 'url.not_whole' : 'url.not_number', { key: f.name, value: raw, valid: f.rangeText })];
    }
    var clamped = nearest(f, value);
    var typed = f.kind === 'int' ? Math.trunc(clamped) : clamped;
    if (clamped !== value) {
      var to = f.kind === 'int' ? typed : T.float(typed);
      return [typed, T.msg('url.clamped', { key: f.name, value: raw, valid: f.rangeText, to: to })];
    }
    return [typed, null];
  }

  // urllib.parse.unquote: %xx escapes in each run of ASCII characters decoded as
  // UTF-8, invalid bytes replaced; other characters kept as they are.
  var UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  var HEX2 = /^[0-9A-Fa-f]{2}/;

  function unquoteAscii(s) {
    var bytes = [], bits = s.split('%'), i, j;
    for (j = 0; j < bits[0].length; j++) bytes.push(bits[0].charCodeAt(j));
    for (i = 1; i < bits.length; i++) {
      var item = bits[i], rest = item;
      if (HEX2.test(item)) {
        bytes.push(parseInt(item.slice(0, 2), 16));
        rest = item.slice(2);
      } else {
        bytes.push(37); // '%'
      }
      for (j = 0; j < rest.length; j++) bytes.push(rest.charCodeAt(j));
    }
    return UTF8.decode(Uint8Array.from(bytes));
  }

  function unquote(s) {
    if (s.indexOf('%') < 0) return s;
    return s.replace(/[\x00-\x7f]+/g, unquoteAscii);
  }

  // urllib.parse.parse_qsl(qs, keep_blank_values=True): [name, value] pairs.
  function parseQsl(qs) {
    var out = [];
    (qs ? qs.split('&') : []).forEach(function (nameValue) {
      if (!nameValue) return;
      var at = nameValue.indexOf('=');
      var name = at < 0 ? nameValue : nameValue.slice(0, at), value = at < 0 ? '' : nameValue.slice(at + 1);
      out.push([unquote(name.replace(/\+/g, ' ')), unquote(value.replace(/\+/g, ' '))]);
    });
    return out;
  }

  function urlKeys() {
    var out = [];
    FIELDS.forEach(function (f, k) { if (f.inUrl) out.push(k); });
    return out;
  }

  // {updates, notes}: values to apply and notes about anything clamped or ignored.
  // preset=NAME applies the preset first; other fields in the URL then override it.
  function parse(search, fragment) {
    var pairs = parseQsl((search || '').replace(/^\?+/, '')).concat(parseQsl((fragment || '').replace(/^#+/, '')));
    var updates = new Map(), notes = [], chosen = null;
    pairs.forEach(function (pair) {
      var key = pair[0], raw = pair[1];
      if (key === 'preset') {
        if (PRESETS.has(raw)) chosen = raw;
        else notes.push(T.msg('url.choice', { key: 'preset', value: shown(raw), valid: Array.from(PRESETS.keys()).join(', ') }));
        return;
      }
      var f = FIELDS.get(key);
      if (f === undefined || !f.inUrl) {
        notes.push(T.msg('url.unknown', { key: shown(key), known: urlKeys().concat(['preset']).join(', ') }));
        return;
      }
      var read = readValue(f, raw);
      if (read[1] !== null) notes.push(read[1]);
      if (read[0] !== null) updates.set(key, read[0]);
    });
    if (chosen !== null) {
      var merged = new Map(Object.entries(PRESETS.get(chosen)));
      updates.forEach(function (v, k) { merged.set(k, v); });
      updates = merged;
    }
    return { updates: updates, notes: notes };
  }

  // A value as the URL writes it (fields._fmt): a bool as 1 / 0, a float as :g.
  function fmt(f, x) {
    if (x === true || x === false) return x ? '1' : '0';
    if (f.kind === 'float' && typeof x === 'number') return T.format.g(x);
    return T.format.str(x);
  }

  // urllib.parse.quote(s, safe='-.,'): UTF-8, unreserved characters and commas kept.
  function quote(s) {
    var bytes = new TextEncoder().encode(s), out = '';
    for (var i = 0; i < bytes.length; i++) {
      var b = bytes[i], c = String.fromCharCode(b);
      out += /[A-Za-z0-9_.~,-]/.test(c) && b < 128 ? c : '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
    }
    return out;
  }

  // 'schedule=1f1b&P=4&...': every URL field the state holds, in the fields' order.
  // The URL fields whose values differ from `base` (fields.encode; default: the defaults).
  function encode(state, base) {
    base = base || defaults();
    return urlKeys().filter(function (k) { return Object.prototype.hasOwnProperty.call(state, k) && state[k] !== base[k]; })
      .map(function (k) { return k + '=' + quote(fmt(FIELDS.get(k), state[k])); }).join('&');
  }

  // A URL's values as a whole view: the fields it does not name at `base`'s value (fields.with_base).
  function withBase(updates, base) {
    base = base || defaults();
    var out = new Map(urlKeys().map(function (k) { return [k, base[k]]; }));
    updates.forEach(function (v, k) { out.set(k, v); });
    return out;
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.fields = {
    FIELDS: FIELDS, PRESETS: PRESETS, defaults: defaults, readNumber: readNumber, shown: shown, readValue: readValue,
    parseQsl: parseQsl, unquote: unquote, parse: parse, urlKeys: urlKeys, encode: encode, withBase: withBase,
    quote: quote,
  };
})(typeof window !== 'undefined' ? window : globalThis);
