/* Every word the page shows, filled in as pipeviz/text.py fills it (plain ES2019).
 *
 * The strings table (English and Chinese) arrives as data, PIPEVIZ_DATA.strings;
 * nothing here repeats it. A message travels as {key, args}, as Msg.as_dict()
 * writes it, and is filled in the reader's language when it is shown. Arguments
 * are formatted as text.arg_text does:
 *   a message ({key, args})   its text, in the same language
 *   a bool                    "true" / "false"
 *   a whole number            its digits (a Python int)
 *   any other number          Python's :g (six significant digits)
 *   PipevizText.float(x)      Python's :g also for a whole number: a Python float
 *                             (1e6 is "1e+06" as a float, "1000000" as an int)
 *   an array                  its items, joined with ", "
 *   anything else             String(), null as Python's "None"
 *
 * Python's number formatting lives here too (format.g, format.fixed, ...), exactly:
 * rounding half-even on the exact binary value, as Python does.
 */
(function (root) {
  'use strict';

  var STRINGS = new Map(Object.entries(root.PIPEVIZ_DATA.strings)); // key -> [English, Chinese]
  var SLOT = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
  var ZERO = BigInt(0), ONE = BigInt(1), TEN = BigInt(10);

  // ---------------------------------------------------------------------------
  // Python's number formatting.

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
    if (e < -4 || e >= 16) return sign + scientific(digits, e);
    if (e < 0) return sign + '0.' + '0'.repeat(-e - 1) + digits;
    while (digits.length < e + 1) digits += '0';
    return sign + digits.slice(0, e + 1) + '.' + (digits.slice(e + 1) || '0');
  }

  // A finite double exactly as a decimal: digits * 10^exp (every double is one).
  function exactDecimal(x) {
    var dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, x);
    var hi = dv.getUint32(0), lo = dv.getUint32(4);
    var bexp = (hi >>> 20) & 0x7ff;
    var mant = (BigInt(hi & 0xfffff) << BigInt(32)) | BigInt(lo);
    var e2 = bexp === 0 ? -1074 : bexp - 1075;
    if (bexp !== 0) mant |= ONE << BigInt(52);
    if (e2 >= 0) return { digits: (mant << BigInt(e2)).toString(), exp: 0 };
    return { digits: (mant * BigInt(5) ** BigInt(-e2)).toString(), exp: e2 }; // m/2^k = m*5^k/10^k
  }

  // Round `digits` (a decimal string) to its first `keep` digits, half-even on all
  // the rest, as Python rounds the exact value.
  function roundsUp(head, rest) {
    return rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || head[head.length - 1] % 2 === 1));
  }

  // f"{x:g}" (and f"{x:.6g}"): 6 significant digits, trailing zeros dropped,
  // exponent form outside 1e-4 <= |x| < 1e6.
  function fmtG(x) {
    if (!isFinite(x)) return nonFinite(x);
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
    var sign = x < 0 ? '-' : '';
    var d = exactDecimal(Math.abs(x)), digits = d.digits, k = d.exp;
    if (digits.length > 6) {
      var head = digits.slice(0, 6), rest = digits.slice(6);
      k += rest.length;
      if (roundsUp(head, rest)) head = String(Number(head) + 1);
      if (head.length > 6) { head = head.slice(0, 6); k += 1; }
      digits = head;
    }
    digits = digits.replace(/0+$/, function (z) { k += z.length; return ''; }) || '0';
    var e = digits.length - 1 + k; // exponent in scientific notation
    if (e < -4 || e >= 6) return sign + scientific(digits, e);
    if (k >= 0) return sign + digits + '0'.repeat(k);
    var intLen = digits.length + k;
    if (intLen > 0) return sign + digits.slice(0, intLen) + '.' + digits.slice(intLen);
    return sign + '0.' + '0'.repeat(-intLen) + digits;
  }

  // f"{x:.{places}f}".
  function fmtFixed(x, places) {
    if (!isFinite(x)) return nonFinite(x);
    var neg = x < 0 || Object.is(x, -0);
    var d = exactDecimal(Math.abs(x)), digits = d.digits, k = d.exp; // |x| = digits * 10^k
    var keep = digits.length + k + places; // digits left of the cut
    var q;
    if (k + places >= 0) {
      q = BigInt(digits) * TEN ** BigInt(k + places);
    } else if (keep <= 0) {
      var half = keep === 0 && (digits[0] > '5' || (digits[0] === '5' && /[1-9]/.test(digits.slice(1))));
      q = half ? ONE : ZERO; // below the last place: rounds to 0, or up past one half
    } else {
      var head = digits.slice(0, keep);
      q = BigInt(head);
      if (roundsUp(head, digits.slice(keep))) q += ONE;
    }
    var s = q.toString();
    if (places > 0) {
      while (s.length <= places) s = '0' + s;
      s = s.slice(0, s.length - places) + '.' + s.slice(s.length - places);
    }
    return (neg ? '-' : '') + s;
  }

  // f"{n:,}" of a whole number (a number or a BigInt).
  function commas(n) { return BigInt(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

  // str() of the Python value a JS value stands for: a whole number is an int.
  function pyStr(v) {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (v instanceof PyFloat) return floatRepr(v.value);
    if (typeof v === 'number') return Number.isInteger(v) ? intStr(v) : floatRepr(v);
    return String(v);
  }

  // A Python float among a message's arguments (see the top of this file).
  function PyFloat(value) { this.value = value; }
  PyFloat.prototype.valueOf = function () { return this.value; };
  PyFloat.prototype.toJSON = function () { return this.value; };

  // ---------------------------------------------------------------------------
  // Messages.

  function template(key, lang) {
    var pair = STRINGS.get(key);
    if (pair === undefined) throw new Error('no string ' + JSON.stringify(key));
    return lang === 'zh' ? pair[1] : pair[0];
  }

  function isMsg(v) {
    return v !== null && typeof v === 'object' && typeof v.key === 'string' && v.args !== null &&
      typeof v.args === 'object' && !Array.isArray(v.args);
  }

  function argText(value, lang) {
    if (isMsg(value)) return text(value, lang);
    if (value === true || value === false) return value ? 'true' : 'false';
    if (value instanceof PyFloat) return fmtG(value.value);
    if (typeof value === 'number') return Number.isInteger(value) ? intStr(value) : fmtG(value);
    if (Array.isArray(value)) return value.map(function (v) { return argText(v, lang); }).join(', ');
    return pyStr(value);
  }

  // The string `key` in `lang` with its slots filled. With html true the template
  // is markup (ours) and each argument is escaped.
  function fill(key, lang, args, html) {
    args = args || {};
    return template(key, lang).replace(SLOT, function (_, name) {
      if (!Object.prototype.hasOwnProperty.call(args, name)) {
        throw new Error('string ' + JSON.stringify(key) + ' needs argument ' + JSON.stringify(name));
      }
      var value = argText(args[name], lang);
      return html ? escape(value) : value;
    });
  }

  function msg(key, args) { return { key: key, args: args || {} }; }

  function text(m, lang) { return fill(m.key, lang, m.args); }

  // A message as HTML: its text, escaped (a message is plain text, never markup).
  function html(m, lang) { return escape(text(m, lang)); }

  // html.escape(s, quote=True)
  function escape(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
  }

  // text.join: parts of one sentence, in the language's separator.
  function join(parts, lang) { return parts.join(lang === 'zh' ? '\uff1b' : '; '); }

  root.PipevizText = {
    template: template,
    fill: fill,
    argText: argText,
    msg: msg,
    isMsg: isMsg,
    text: text,
    html: html,
    escape: escape,
    join: join,
    float: function (x) { return new PyFloat(x); },
    PyFloat: PyFloat,
    format: { g: fmtG, fixed: fmtFixed, repr: floatRepr, str: pyStr, int: intStr, commas: commas },
  };
})(typeof window !== 'undefined' ? window : globalThis);
