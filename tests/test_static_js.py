"""The page's JavaScript repeats no data of Python's: no schedule names, titles or
summaries, no field ranges, no presets, no message texts, no markup layouts or
colours. All of that reaches the page as data (page.page_data()); a copy typed into a
.js file would drift from Python unnoticed. Also: plain ES2019 syntax, no modules.

The scan reads every string literal of every file under static/ (comments
and regular expressions skipped) and the code between them. test_the_scan_catches_*
feed it tables of the kinds that used to live in the old engine.js and explorer.js,
so a scan that stopped catching them would fail too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pipeviz
from pipeviz.page import page_data, schedule_scripts, script_names
from pipeviz.registry import NAMES
from pipeviz.render.teach import LIBRARY
from pipeviz.view.fields import FIELDS, PRESETS

STATIC = Path(pipeviz.__file__).parent.parent / "static"
JS_FILES = sorted(STATIC.rglob("*.js"))
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
    assert sorted(rel(p) for p in JS_FILES) == sorted([*script_names(), LIBRARY])
    assert [f"schedules/{n.replace('-', '_')}.js" for n in NAMES] == schedule_scripts()


@pytest.mark.parametrize("path", JS_FILES, ids=rel)
def test_no_data_of_pythons_is_typed_again(path):
    assert scan(rel(path), path.read_text(encoding="utf-8")) == []


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


def test_the_page_drops_only_comments_that_stand_alone():
    """page.lean drops each script's leading /* */ block, every line that is only a
    // comment, and indentation. That is safe while no script has a template literal
    (a // line inside one would be text; so would its indentation): every backtick is
    in a comment; nor a string continued on the next line."""
    from pipeviz.page import lean

    for path in JS_FILES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "`" in line:
                in_comment = line.lstrip().startswith(("*", "/*")) or 0 <= line.find("//") < line.find("`")
                assert in_comment, f"{path.name}:{n}: a backtick in code"
            assert not line.endswith("\\"), f"{path.name}:{n}: a line continued"
    code = "/* head\n * more */\nvar a = 1; // kept\n  // dropped\n    var b = '//x';\n"
    assert lean(code) == "var a = 1; // kept\nvar b = '//x';\n"
