"""Helpers for holding the page's JavaScript to its Python original.

Both sides describe what they computed in one layout (`summary`): numbers, strings,
booleans and messages as they are, and every numeric array longer than SHORT as its
length and two 32-bit hashes of its IEEE-754 bits (so "equal" means bit-identical,
-0.0 included, without shipping every op's times through the browser). A mismatch
is then shown in full by asking the page for the arrays themselves.
"""

from __future__ import annotations

import json
import math

import numpy as np

from pipeviz.page_document import scripts
from pipeviz.text import Msg

SHORT = 16  # arrays up to this long are compared value by value (and shown in full)
K1, K2 = 0x9E3779B1, 0x85EBCA77  # odd multipliers of the two positional hashes


def _powers(n: int, k: int) -> np.ndarray:
    p = np.full(n, k, dtype=np.uint64)
    if n:
        p[0] = 1
    return np.cumprod(p, dtype=np.uint64)  # wraps mod 2**64, which keeps every power mod 2**32


def digest(values) -> dict:
    """{"n": length, "h": [h1, h2]}: sum of word_i * K^i mod 2**32 over the float64
    bits as little-endian 32-bit words. The same as DIGEST_JS."""
    words = np.ascontiguousarray(np.asarray(values, dtype="<f8")).view("<u4").astype(np.uint64)
    with np.errstate(over="ignore"):
        h = [int((words * _powers(words.size, k)).sum(dtype=np.uint64)) & 0xFFFFFFFF for k in (K1, K2)]
    return {"n": int(words.size // 2), "h": h}


def _number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def summary(value):
    """The comparable layout of a Python value (see the module docstring)."""
    if isinstance(value, Msg):
        return msg_data(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return summary(list(value))
        value = value.tolist() if value.dtype.kind == "b" else value
        if isinstance(value, list):
            return value
        if value.size > SHORT:
            return digest(value)
        return ["nan" if math.isnan(x) else x for x in value.astype(np.float64).tolist()]
    if isinstance(value, dict):
        return {str(k): summary(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if value and all(_number(x) for x in value):
            return ["nan" if math.isnan(x) else float(x) for x in value] if len(value) <= SHORT else digest(value)
        if value and all(isinstance(x, str) for x in value) and len(value) > 4 * SHORT:
            return {"joined": "\x1f".join(value)}
        return [summary(v) for v in value]
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def msg_data(m: Msg | None):
    """A message as the page holds it, with its text in both languages."""
    if m is None:
        return None
    return {**json.loads(json.dumps(m.as_dict())), "text": {lang: m.text(lang) for lang in ("en", "zh")}}


# The same layout in the page. Loaded after the page's scripts (test code only).
TWIN_JS = r"""
window.__twin = (() => {
  const T = PipevizText, E = PipevizEngine;
  const SHORT = __SHORT__, K1 = __K1__, K2 = __K2__;
  const digest = (a) => {
    const f = Float64Array.from(a), u = new Uint32Array(f.buffer);
    let h1 = 0, h2 = 0, p1 = 1, p2 = 1;
    for (let i = 0; i < u.length; i++) {
      h1 = (h1 + Math.imul(u[i], p1)) >>> 0; p1 = Math.imul(p1, K1) >>> 0;
      h2 = (h2 + Math.imul(u[i], p2)) >>> 0; p2 = Math.imul(p2, K2) >>> 0;
    }
    return {n: f.length, h: [h1, h2]};
  };
  const isMsg = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)
    && typeof v.key === 'string' && v.args && typeof v.args === 'object';
  const msgArgs = (v) => {
    if (isMsg(v)) return {key: v.key, args: Object.fromEntries(Object.entries(v.args).map(([k, x]) => [k, msgArgs(x)]))};
    if (v instanceof T.PyFloat) return v.value;
    if (Array.isArray(v)) return v.map(msgArgs);
    return v;
  };
  const msg = (m) => m === null || m === undefined ? null
    : Object.assign(msgArgs(m), {text: {en: T.text(m, 'en'), zh: T.text(m, 'zh')}});
  const isNum = (x) => typeof x === 'number' || typeof x === 'bigint';
  const summary = (v) => {
    if (v === null || v === undefined) return null;
    if (isMsg(v) && !('text' in v)) return msg(v); // an error's data (error()) is already laid out
    if (v instanceof E.Fraction) return [v.n.toString(), v.d.toString()];
    if (v instanceof T.PyFloat) return v.value;
    if (ArrayBuffer.isView(v) || (Array.isArray(v) && v.length && v.every(isNum))) {
      return v.length <= SHORT ? Array.from(v, (x) => (isNaN(Number(x)) ? 'nan' : Number(x))) : digest(Array.from(v, Number));
    }
    if (Array.isArray(v)) {
      if (v.length > 4 * SHORT && v.every((x) => typeof x === 'string')) return {joined: v.join('\x1f')};
      return v.map(summary);
    }
    if (v instanceof Map) return summary(Object.fromEntries(v));
    if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, summary(x)]));
    if (typeof v === 'number' && isNaN(v)) return 'nan';
    return v;
  };
  // Every numeric array in full (for showing a mismatch).
  const full = (v) => {
    if (v === null || v === undefined) return null;
    if (ArrayBuffer.isView(v)) return Array.from(v, Number);
    if (v instanceof E.Fraction) return [v.n.toString(), v.d.toString()];
    if (v instanceof T.PyFloat) return v.value;
    if (Array.isArray(v)) return v.map(full);
    if (v instanceof Map) return full(Object.fromEntries(v));
    if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, full(x)]));
    return v;
  };
  const error = (e) => {
    if (e instanceof E.PipevizError) {
      return Object.assign({type: e.type}, msg(e), {text: {en: E.errorText(e, 'en'), zh: E.errorText(e, 'zh')}});
    }
    return {exception: String(e && e.stack || e)};
  };
  return {digest, summary, full, msg, error};
})();
""".replace("__SHORT__", str(SHORT)).replace("__K1__", str(K1)).replace("__K2__", str(K2))


def page_html() -> str:
    """A blank page holding PIPEVIZ_DATA and every script of the standalone page."""
    return f"<!doctype html><html><head><meta charset='utf-8'>{scripts()}</head><body></body></html>"


def load(page) -> set[str]:
    """Load the page's scripts into a blank page; the globals they added."""
    page.goto("about:blank")
    before = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    page.set_content(page_html())
    after = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    page.add_script_tag(content=TWIN_JS)
    return after - before


class Diff:
    """Walks expected (Python) and actual (JavaScript) summaries together."""

    def __init__(self, limit: int = 8):
        self.errors: list[str] = []
        self.limit = limit
        self.compared = 0

    def walk(self, path: str, e, a) -> None:
        if len(self.errors) >= self.limit:
            return
        self.compared += 1
        if isinstance(e, dict):
            if not isinstance(a, dict) or set(a) != set(e):
                keys = sorted(set(e) ^ set(a)) if isinstance(a, dict) else type(a).__name__
                self.errors.append(f"{path}: keys differ: {keys} (python {_short(e)}, js {_short(a)})")
                return
            for k in e:
                self.walk(f"{path}.{k}" if path else k, e[k], a[k])
        elif isinstance(e, list):
            if not isinstance(a, list) or len(a) != len(e):
                self.errors.append(f"{path}: python {_short(e)}, js {_short(a)}")
                return
            for i, (x, y) in enumerate(zip(e, a)):
                self.walk(f"{path}[{i}]", x, y)
        elif _number(e) and not isinstance(e, bool):
            if not (_number(a) and not isinstance(a, bool) and float(a) == float(e)):
                self.errors.append(f"{path}: python {e!r}, js {a!r}")
        elif e != a or type(e) is not type(a):  # strings, booleans, None: exactly
            self.errors.append(f"{path}: python {_short(e)}, js {_short(a)}")


def _short(v, n: int = 300) -> str:
    text = repr(v)
    return text if len(text) <= n else text[:n] + "…"


def first_difference(e, a, path: str = "") -> str | None:
    """Where two full (unsummarised) values first differ, for a readable failure."""
    if isinstance(e, np.ndarray):
        e = e.tolist()
    if isinstance(e, dict) and isinstance(a, dict):
        for k in e:
            found = first_difference(e[k], a.get(k), f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(e, (list, tuple)) and isinstance(a, list):
        if len(e) != len(a):
            return f"{path}: length python {len(e)}, js {len(a)}"
        for i, (x, y) in enumerate(zip(e, a)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    if _number(e) and _number(a):
        if float(e) == float(a) and math.copysign(1, float(e)) == math.copysign(1, float(a)):
            return None
        return f"{path}: python {float(e)!r}, js {float(a)!r}"
    return None if e == a else f"{path}: python {_short(e)}, js {_short(a)}"
