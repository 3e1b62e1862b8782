"""The page's JavaScript repeats no data of Python's: no schedule names, titles or
summaries, no field ranges, no presets, no message texts, no markup layouts or
colours. All of that reaches the page as data (page_document.page_data()); a copy typed into a
.js file would drift from Python unnoticed. Also: plain ES2019 syntax, no modules.

The scan reads every string literal of every file under static/ (comments
and regular expressions skipped) and the code between them, and the JavaScript held
in Python modules too (a CustomJS's `code`, a `*_JS` constant, a component's `_esm`).
Besides the data the page gets, it compares constants: a `var NAME = <number or
array of numbers>` (or an object's field) whose value is that of a Python module's
constant of the same name (case and underscores aside), an array of numbers equal
to a Python tuple or list of numbers, and a string literal of 25 or more characters
that stands verbatim in a Python file of the package. test_the_scan_catches_* feed
it copies of each kind, many of which used to live in the old engine.js and
explorer.js, so a scan that stopped catching them would fail too.
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

import pytest

import pipeviz
from pipeviz.page_document import page_data, schedule_scripts, script_names
from pipeviz.registry import NAMES
from pipeviz.render.teach import LIBRARY
from pipeviz.view.fields import FIELDS, PRESETS

PACKAGE = Path(pipeviz.__file__).parent
STATIC = PACKAGE.parent / "static"
JS_FILES = sorted(STATIC.rglob("*.js"))
PY_FILES = sorted(PACKAGE.rglob("*.py"))
DATA = page_data()

# -- a small JavaScript lexer: string literals, and the code with literals and comments blanked

_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_REGEX_BEFORE = set("(,=:[!&|?{};~+-*%<>^") | {""}
_REGEX_KEYWORDS = {"return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "else", "do"}


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1] if i + 1 < len(body) else ""
        if n == "u" and body[i + 2 : i + 3] == "{":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3 : end], 16)))
            i = end + 1
        elif n == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif n == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif n == "\n":
            i += 2
        else:
            out.append(_ESC.get(n, n))
            i += 2
    return "".join(out)


def lex(code: str) -> tuple[list[str], str, str]:
    """(string literals, the code with every literal, comment and regex blanked, the
    code with only comments and regexes blanked)."""
    literals, kept, with_literals = [], [], []
    i, n, last = 0, len(code), ""
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            i = code.find("\n", i) if "\n" in code[i:] else n
            continue
        if code.startswith("/*", i):
            i = code.index("*/", i) + 2
            continue
        if c in "'\"`":
            j, parts, depth = i + 1, [], 0
            start = j
            while j < n:
                if code[j] == "\\":
                    j += 2
                    continue
                if c == "`" and code.startswith("${", j) and depth == 0:
                    parts.append(code[start:j])
                    depth, j = 1, j + 2
                    while depth:
                        depth += {"{": 1, "}": -1}.get(code[j], 0)
                        j += 1
                    start = j
                    continue
                if code[j] == c:
                    break
                j += 1
            parts.append(code[start:j])
            literals.append("".join(_unescape(p) for p in parts))
            kept.append(' "" ')
            with_literals.append(f' "{literals[-1]}" ')
            i, last = j + 1, '"'
            continue
        if c == "/" and (last in _REGEX_BEFORE or last in _REGEX_KEYWORDS):
            j, in_class = i + 1, False
            while j < n and (code[j] != "/" or in_class):
                if code[j] == "\\":
                    j += 1
                elif code[j] == "[":
                    in_class = True
                elif code[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and code[j].isalpha():
                j += 1
            kept.append(" /re/ ")
            with_literals.append(" /re/ ")
            i, last = j, "/re/"
            continue
        if not c.isspace() and (c.isalnum() or c in "_$."):
            word = re.match(r"[A-Za-z0-9_$.]+", code[i:]).group(0)
            kept.append(word)
            with_literals.append(word)
            i += len(word)
            last = word
            continue
        kept.append(c)
        with_literals.append(c)
        last = c if not c.isspace() else last
        i += 1
    return literals, "".join(kept), "".join(with_literals)


# -- what must not be typed again ---------------------------------------------------------

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def data_strings() -> set[str]:
    """Every word and markup the page gets as data: the strings table (both languages),
    the figures' and widgets' texts, the layouts, colours and the fields' range texts."""
    out = set()
    for en, zh in DATA["strings"].values():
        out |= {en, zh}
    out |= set(DATA["layouts"].values()) - {DATA["layouts"]["sep"]}
    out |= {f["rangeText"] for f in DATA["fields"]}
    palette = DATA["palette"]
    out |= set(palette["kindColors"] + palette["rankPalette"] + [palette["wOnlyColor"], palette["bubbleHatch"]])
    out |= {c for p in palette["chunkPalettes"] for c in p}
    out |= {c.lower() for c in out if c.startswith("#")}

    def walk(v):
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(DATA["figureTexts"])
    # A field's name is the state's and the URL's key (the code's vocabulary), even
    # where an English label happens to spell the same ("schedule").
    return {s.strip() for s in out if s.strip()} - set(FIELDS)


def fragments() -> set[str]:
    """The fixed parts of every template and layout between its {slots}: a message
    typed again piece by piece ('URL: ' + key + ' is outside ' + ...) shows as these."""
    out = set()
    texts = [t for pair in DATA["strings"].values() for t in pair] + list(DATA["layouts"].values())
    for text in texts:
        for part in re.split(r"\{[A-Za-z_][A-Za-z0-9_]*\}", text):
            part = part.strip()
            if len(part) >= 8 or (CJK.search(part) and len(part) >= 2):
                out.add(part)
    return out - set(FIELDS)


def number_forms(x) -> list[str]:
    x = float(x)
    forms = {repr(x), f"{x:g}"}
    if x.is_integer():
        forms.add(str(int(x)))
    return [re.escape(f) for f in forms]


def scan(name: str, code: str) -> list[str]:
    """Everything in one file that repeats Python's data."""
    literals, _, plain = lex(code)  # plain: the code without comments
    problems = []
    words, parts = data_strings(), fragments()
    own = next((n for n in NAMES if f"schedules/{n.replace('-', '_')}.js" == name), None)
    for lit in literals:
        s = lit.strip()
        if not s:
            continue
        if s in words:
            problems.append(f"{name}: {s!r} is a string the page gets as data")
        elif s in parts:
            problems.append(f"{name}: {s!r} is part of a message in the strings table")
        elif len(s) >= 12 and any(len(w) >= 12 and w in s for w in words | parts):
            problems.append(f"{name}: {s!r} contains text the page gets as data")
        elif len(s) >= 12 and any(s in w for w in words | parts):
            problems.append(f"{name}: {s!r} is a piece of text the page gets as data")
        if s in NAMES and s != own:
            problems.append(f"{name}: schedule name {s!r} (the schedules come as data)")
        if s in PRESETS:
            problems.append(f"{name}: preset name {s!r} (the presets come as data)")
    if own is not None:  # a schedule's twin names itself once, where it registers
        if [lit for lit in literals if lit == own] and not re.search(r"register\(\s*['\"]" + re.escape(own), code):
            problems.append(f"{name}: names {own!r} other than in its register() call")
        if len([lit for lit in literals if lit == own]) > 1:
            problems.append(f"{name}: names {own!r} more than once")
    # A field's range next to its name ({P: {low: 1, high: 32}}, ['m', 1, 128], ...).
    for f in FIELDS.values():
        if f.low is None:
            continue
        lows, highs = "|".join(number_forms(f.low)), "|".join(number_forms(f.high))
        key = rf"(?<![\w.$])['\"]?{re.escape(f.name)}['\"]?\W"
        near = r"[^;\n]{0,40}?"
        if re.search(rf"{key}{near}(?<![\w.])(?:{lows})(?![\w.]){near}(?<![\w.])(?:{highs})(?![\w.])", plain):
            problems.append(f"{name}: field {f.name}'s range {f.low}..{f.high} next to its name")
    # A preset's values next to their fields' names: three or more is a copy of the preset.
    for preset, values in PRESETS.items():
        found = []
        for k, v in values.values.items():
            key = rf"(?<![\w.$])['\"]?{re.escape(k)}['\"]?\s*[:=,]\s*"
            value = rf"['\"]{re.escape(v)}['\"]" if isinstance(v, str) else rf"(?:{'|'.join(number_forms(v))})(?![\w.])"
            if re.search(key + value, plain):
                found.append(k)
        if len(found) >= 3:
            problems.append(f"{name}: preset {preset}'s values ({', '.join(found)})")
    return problems


# -- JavaScript held in Python, and constants typed again ----------------------------------


def held_js(source: str) -> list[tuple[str, str]]:
    """The JavaScript a Python module holds, as (where, code): the string constants in
    the value of a `*_JS` or `_esm` assignment and in any call's `code=` argument
    (CustomJS, CustomJSHover, CustomJSTickFormatter, CustomJSFilter), joined."""
    out = []

    def code_of(node) -> str:
        return "\n".join(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name) and (t.id.endswith("_JS") or t.id == "_esm")]
            if names:
                out.append((f"{names[0]} (line {node.lineno})", code_of(node.value)))
        elif isinstance(node, ast.Call):
            out += [(f"code= (line {node.lineno})", code_of(kw.value)) for kw in node.keywords if kw.arg == "code"]
    return out


def held_in_python() -> list[tuple[Path, str, str]]:
    """Every piece of JavaScript held in the package's Python modules: (file, where, code)."""
    return [(path, where, code) for path in PY_FILES for where, code in held_js(path.read_text(encoding="utf-8"))]


HELD = held_in_python()


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numbers(v) -> bool:
    return isinstance(v, (tuple, list)) and len(v) > 0 and all(_number(x) for x in v)


def _strings(v) -> bool:
    return isinstance(v, (tuple, list, set, frozenset)) and len(v) >= 2 and all(isinstance(x, str) for x in v)


def _key(name: str) -> str:
    """A constant's name as both languages may spell it: SPEEDS, speeds, MAX_OPS, maxOps."""
    return name.replace("_", "").lower()


# The layers whose constants the JavaScript must not type again (tests/test_layers.py):
# all below the explorers.
CONSTANT_LAYERS = ("words", "config", "orders", "engine", "outputs", "view", "render")


@cache
def python_constants() -> tuple[dict[str, list[tuple[str, object]]], list[tuple[str, tuple]]]:
    """({name's key: [(module.NAME, value)]}, [(module.NAME, table)]): every module-level
    constant (an upper-case name the module itself assigns) of those layers whose value
    is a number, a tuple or list of numbers, or a tuple, list or set of strings (or a
    dict's names, in order); the tables are those of three numbers or more and those of
    strings."""
    from test_layers import LAYERS, layer_of

    wanted = {i for i, (name, _) in enumerate(LAYERS) if name in CONSTANT_LAYERS}
    by_name: dict[str, list[tuple[str, object]]] = {}
    for path in PY_FILES:
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        if module.endswith("__main__") or layer_of(module) not in wanted:
            continue
        names = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for t in targets:  # NAME = ..., or A, B = ...
                names |= {n.id for n in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]) if isinstance(n, ast.Name)}
        loaded = importlib.import_module(module)
        for name in sorted(n for n in names if re.fullmatch(r"[A-Z][A-Z0-9_]*", n)):
            value = getattr(loaded, name, None)
            if isinstance(value, dict) and _strings(list(value)):
                value = tuple(value)  # a table by name: its names, in order
            if _number(value) or _numbers(value) or _strings(value):
                by_name.setdefault(_key(name), []).append((f"{module}.{name}", value))
    tables = [(where, v) for found in by_name.values() for where, v in found
              if (_numbers(v) and len(v) >= 3) or _strings(v)]
    return by_name, tables


_NUM = r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
_ARRAY = rf"\[\s*{_NUM}(?:\s*,\s*{_NUM})*\s*,?\s*\]"
_VALUE = rf"(?:{_ARRAY}|{_NUM})(?![\w.])"
_WORDS = r'\[\s*"[^"\n]*"(?:\s*,\s*"[^"\n]*")+\s*,?\s*\]'  # an array of string literals (as lex() quotes them)
LONG = 25  # a string literal this long is a copy wherever Python holds it verbatim


def _js_value(text: str):
    return [float(x) for x in re.findall(_NUM, text)] if text.lstrip().startswith("[") else float(text)


def _equal(js, py) -> bool:
    if isinstance(js, list) and js and isinstance(js[0], str):  # a set's members in any order
        return _strings(py) and (sorted(js) == sorted(py) if isinstance(py, (set, frozenset)) else js == list(py))
    if isinstance(js, list):
        return _numbers(py) and len(py) == len(js) and all(float(p) == j for p, j in zip(py, js))
    return _number(py) and float(py) == js


@cache
def python_texts() -> dict[Path, tuple[str, tuple[str, ...]]]:
    """Each Python file of the package: its text, and its string constants (unescaped)."""
    out = {}
    for path in PY_FILES:
        text = path.read_text(encoding="utf-8")
        strings = tuple(n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str))
        out[path] = (text, strings)
    return out


def copies(name: str, code: str, holder: Path | None = None) -> list[str]:
    """Constants and long strings of Python's that one piece of JavaScript types again
    (`holder`: the Python file that holds it, where its own strings stand)."""
    literals, _, plain = lex(code)
    by_name, tables = python_constants()
    problems = []
    for m in re.finditer(rf"(?:\bvar|\blet|\bconst|,|\{{)\s*([A-Za-z_$][\w$]*)\s*[=:]\s*({_VALUE})", plain):
        js, value = m.group(1), _js_value(m.group(2))
        for where, py in by_name.get(_key(js), []):
            if _equal(value, py):
                problems.append(f"{name}: {js} = {m.group(2)} is {where} (send it as data)")
    for m in [*re.finditer(_ARRAY, plain), *re.finditer(_WORDS, plain)]:
        value = _js_value(m.group(0)) if m.re.pattern == _ARRAY else re.findall(r'"([^"\n]*)"', m.group(0))
        problems += [f"{name}: {m.group(0)} is {where} (send it as data)" for where, py in tables if _equal(value, py)]
    for lit in sorted(set(literals)):
        if len(lit) < LONG:
            continue
        for path, (text, strings) in python_texts().items():
            if path != holder and (lit in text or any(lit in s for s in strings)):
                problems.append(f"{name}: {lit!r} stands in {path.relative_to(PACKAGE.parent)} (send it as data)")
    return problems


def es2019_problems(name: str, code: str) -> list[str]:
    _, bare, _ = lex(code)
    checks = {
        r"\?\.(?!\d)": "optional chaining (?.)", r"\?\?": "nullish coalescing (??)",
        r"\b\d+n\b": "a BigInt literal", r"^\s*(?:import|export)\b": "a module statement",
        r"\bimport\s*\(": "dynamic import()", r"#[A-Za-z_]\w*\s*[=;(]": "a private field",
        r"\?\?=|\|\|=|&&=": "a logical assignment",
    }
    return [f"{name}: {what}" for pattern, what in checks.items() if re.search(pattern, bare, flags=re.M)]


def rel(path: Path) -> str:
    return path.relative_to(STATIC).as_posix()


def test_the_page_loads_every_static_file():
    # The teaching models' library is among them: the page loads it once (page_document._teach_once).
    assert LIBRARY in script_names()
    assert sorted(rel(p) for p in JS_FILES) == sorted(script_names())
    assert [f"schedules/{n.replace('-', '_')}.js" for n in NAMES] == schedule_scripts()


@pytest.mark.parametrize("path", JS_FILES, ids=rel)
def test_no_data_of_pythons_is_typed_again(path):
    code = path.read_text(encoding="utf-8")
    assert scan(rel(path), code) + copies(rel(path), code) == []


@pytest.mark.parametrize("held", HELD, ids=[f"{p.relative_to(PACKAGE.parent)}:{where}" for p, where, _ in HELD])
def test_the_javascript_held_in_python_types_no_data_again(held):
    path, where, code = held
    name = f"{path.relative_to(PACKAGE.parent)}: {where}"
    assert scan(name, code) + copies(name, code, holder=path) == []


def test_the_javascript_held_in_python_is_found():
    """The scan sees the JavaScript the Python modules hold: the teaching models'
    clock and handlers, the page's callbacks, the served app's component."""
    found = {(p.relative_to(PACKAGE.parent).as_posix(), where.split(" ")[0]) for p, where, _ in HELD}
    assert {("pipeviz/render/teach.py", "CLOCK_JS"), ("pipeviz/render/teach.py", "code="),
            ("pipeviz/page_document.py", "code="), ("pipeviz/served/glance.py", "_esm")} <= found
    assert any("PipevizExplorer.handle" in code for _, _, code in HELD)


@pytest.mark.parametrize("path", JS_FILES, ids=rel)
def test_plain_es2019(path):
    assert es2019_problems(rel(path), path.read_text(encoding="utf-8")) == []


# -- the scan itself ------------------------------------------------------------------------

# Tables of the kinds the old engine.js and explorer.js held, each of which the scan must flag.
READDED = {
    "schedule names": "var NAMES = ['gpipe', '1f1b', 'interleaved', 'zb-h1', 'zb-h2', 'zb-v'];",
    "a schedule entry": "add('gpipe', 'GPipe', 'all forwards, then all backwards: every rank holds all m activations', "
                        "'loop', false, 1, false, genGPipe, cfGPipe);",
    "a title": "var title = 'Interleaved 1F1B';",
    "field ranges": "var FIELDS = {P: {low: 1, high: 32}, m: {low: 1, high: 128}, V: {low: 1, high: 8}};",
    "field ranges as rows": "var F = [['tf', 0.01, 1000], ['comm', 0, 1000]];",
    "a range text": "notes.push(key + ' is outside ' + '1..32');",
    "presets": "var PRESETS = {gpt: {P: 8, m: 24, tf: 18.5, tb: 18.1, tw: 9.3, comm: 0.6}};",
    "a preset by name": "explorer.preset('staircase');",
    "a preset's values": "ui.set({schedule: 'interleaved', P: 8, m: 16, V: 2});",
    "a message piece by piece": "notes.push('URL: ' + key + '=' + raw + ' is outside ' + range + '; clamped to ' + to);",
    "a message template": "var T = {deadlock: 'deadlock: {parts}'};",
    "a message in Chinese": "var s = '死锁：' + parts;",
    "words in markup": "html += '<span class=\"pv-agree\">simulation and closed form agree</span>';",
    "a layout": "var row = '<div class=\"pv-table-box\"><table class=\"pv-table\"><thead><tr>{head}</tr></thead>' + x;",
    "a colour": "var F_COLOR = '#0072B2';",
    "a template literal": "var s = `${n} micro-batches (${c} chunks)`;",
    "a double-quoted label": 'labels.push("in flight (chunks)");',
    "an escaped label": "var x = 'peak in flight (\\u007b' + u + ')';",
    "a caveat": "return 'comm = ' + g(c) + ' adds latency at every cross-rank hop of the fill and drain, ' + rest;",
}


@pytest.mark.parametrize("what", READDED)
def test_the_scan_catches_a_readded_table(what):
    assert scan("explorer.js", READDED[what]) != [], what


# Copies of Python's constants and long strings, each of which the scan must flag.
COPIED = {
    "an op kind's code": "var FB = 4;",
    "op kinds in one declaration": "var X = 1, EF = 5, EB = 6;",
    "a code as an object's field": "var kinds = {F: 0, EB: 6};",
    "a constant in the other spelling": "var timelineMaxPx = 620;",
    "a constant by its own name": "var PLAY_SECONDS = 12;",
    "speeds by name": "var playSpeeds = [0.25, 0.5, 1, 2, 4];",
    "speeds under another name": "var paces = [0.25, 0.5, 1, 2, 4];",
    "an array in a call": "go([0.25, 0.5, 1, 2, 4]);",
    "a formula": "var f = '(P-1)t_f / (m(t_f+t_b+t_w) + (P-1)t_f)';",
    "markup": "var swatch = '<span class=\"pv-swatch\" style=\"background:' + c + '\"></span>';",
    "a set's members, in another order": "var LEAVE = ['V', 'm', 'P', 'schedule'];",
    "a tuple of names under another name": "var OWN = ['order', 'placement', 'custom'];",
    "a table's names": "var names = ['ops', 'fb_halves', 'stuck_ops', 'labels', 'bubbles', 'bars', 'steps', "
                       "'steps_before', 'memory_bars', 'memory_over'];",
    "a docstring's words": "throw new Error('a schedule module can be imported on its own');",
}


@pytest.mark.parametrize("what", COPIED)
def test_the_scan_catches_a_copied_constant(what):
    assert copies("explorer.js", COPIED[what]) != [], what


def test_the_scan_leaves_other_numbers_and_short_strings():
    code = ("var FB = 5, speeds = [0.25, 0.5, 1, 2], n = 620, s = 'a short string, 24 chars';"
            "var own = ['order', 'placement'], leave = ['schedule', 'P', 'm', 'V', 'x'];")
    assert copies("explorer.js", code) == []


def test_the_scan_reads_javascript_held_in_python():
    """A CustomJS's code, a *_JS constant and a component's _esm are read as JavaScript
    (a copy in each is flagged), and a string the module itself holds is not a copy
    of itself."""
    source = (
        'from bokeh.models import CustomJS\n'
        'CLOCK_JS = """var playSeconds = 12;"""\n'
        'handler = CustomJS(args={}, code=lib + "var F = 0, FB = 4;")\n'
        'class C:\n'
        '    _esm = A11Y_JS + """export function render() { return [0.25, 0.5, 1, 2, 4]; }"""\n'
    )
    held = held_js(source)
    assert [where.split(" ")[0] for where, _ in held] == ["CLOCK_JS", "code=", "_esm"]
    assert all(copies(where, code) for where, code in held), held
    teach = PACKAGE / "render" / "teach.py"
    own = [(where, code) for p, where, code in HELD if p == teach and where.startswith("CLOCK_JS")]
    assert own and copies("CLOCK_JS", own[0][1] + "\nvar s = 'the time slider shows its value as';", teach) == []


def test_the_scan_lets_a_schedule_name_itself_once_where_it_registers():
    ok = "E.register('zb-h1', { generate: generate, closedForm: closedForm });"
    assert scan("schedules/zb_h1.js", ok) == []
    assert scan("schedules/zb_v.js", ok) != []  # another schedule's name
    assert scan("schedules/zb_h1.js", ok + "\nif (name === 'zb-h1') x();") != []


def test_the_scan_reads_literals_not_comments_or_regexes():
    code = "// 'GPipe' in a comment\n/* 'zb-v' */ var re = /'gpipe'/g; var x = a / b / c; var s = 'ok';"
    literals, _, _ = lex(code)
    assert literals == ["ok"]
    assert scan("engine.js", code) == []


def test_the_syntax_check_catches_newer_javascript():
    for code in ("a?.b", "a ?? b", "var n = 10n;", "export default 1;", "a ||= b", "class A { #x = 1; }"):
        assert es2019_problems("x.js", code) != [], code
    assert es2019_problems("x.js", "var s = 'a?.b ?? 10n'; var t = a ? .5 : b;") == []


def test_the_page_minifies_what_means_nothing_and_keeps_strings():
    """page_document.lean minifies each script (rjsmin): comments, indentation and spaces go,
    strings stay whole, a // inside one included. rjsmin reads ES5's tokens: no script
    may have a template literal (every backtick is in a comment) nor a string
    continued on the next line."""
    from pipeviz.page_document import lean

    for path in JS_FILES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "`" in line:
                in_comment = line.lstrip().startswith(("*", "/*")) or 0 <= line.find("//") < line.find("`")
                assert in_comment, f"{path.name}:{n}: a backtick in code"
            assert not line.endswith("\\"), f"{path.name}:{n}: a line continued"
    code = "/* head\n * more */\nvar a = 1; // kept\n  // dropped\n    var b = '//x';\n"
    assert lean(code) == "var a=1;var b='//x';"
    assert lean("var re = /a\\/\\/b/g; // gone\nvar s = \"/* not a comment */\";") == \
        'var re=/a\\/\\/b/g;var s="/* not a comment */";'
