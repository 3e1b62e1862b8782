"""Hostile input, generated: command lines and URLs with unicode digits, huge and tiny
numbers, markup, prototype names and repeated keys. The CLI answers with output or
one line and exit 2, never a traceback; a URL gives a valid view and plain-text
notes, never an exception. (The served app and its DOM under the same URLs:
test_browser_hostile.py.)"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re

from hypothesis import example, given
from hypothesis import strategies as st

from pipeviz import cli
from pipeviz.text import Msg, fill, table
from pipeviz.view import puzzle
from pipeviz.view.fields import FIELDS, MAX_RAW, PRESETS, defaults, parse, url_keys
from pipeviz.view.state import normalize

# Text a hostile or careless user types: digits from other scripts, numbers that
# overflow or underflow, markup of several kinds, shell and template syntax.
NASTY = [
    "²", "①", "٣", "੩", "１２", "Ⅻ", "1²", "½", "0x10", "1_000", "1e308", "-1e308", "1e309", "5e-324", "-5e-324",
    "1e-7", "9" * 400, "0." + "0" * 300 + "1", "nan", "NaN", "inf", "-inf", "Infinity", "-0", "+4", " 4", "4 ", "\t4\n",
    "", " ", "4.0", "4.5", "1e1", "32", "33", "0", "-1", "128", "129", "1000000000000000000000000000000",
    "<b>9</b>", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "\"><svg onload=alert(1)>",
    "**bold**", "~~struck~~", "[x](http://3232235777/login)", "http://3232235777/login", "`code`", "$(rm -rf /)",
    "{{7*7}}", "${7*7}", "%s%n", "\\x00", "\u202e4", "\x00", "gpipe", "1f1b", "interleaved", "zb-v", "zh", "en",
    "__proto__", "constructor", "toString",
]
text = st.one_of(st.sampled_from(NASTY), st.text(max_size=12), st.text(alphabet="0123456789.eE+-²①٣", max_size=8))

# -- the command line ----------------------------------------------------------------

FLAGS = ["-s", "--schedule", "-P", "-m", "-V", "-G", "--group-size", "--tf", "--tb", "--tw", "--comm", "--tfb"]
SMALL = st.sampled_from(["1", "2", "3", "4", "8", "16", "0", "-3", "1.5", "1e308", "5e-324"])


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as e:  # argparse
            code = e.code
    return code, out.getvalue(), err.getvalue()


@st.composite
def command_lines(draw) -> list[str]:
    command = draw(st.sampled_from(["show", "export"]))
    argv = [command]
    for _ in range(draw(st.integers(0, 6))):  # flags may repeat
        flag = draw(st.sampled_from(FLAGS + (["--format", "-f"] if command == "export" else ["--width"])))
        argv += [flag, draw(st.one_of(text, SMALL))]
    return argv


@given(command_lines())
@example(["show", "--width", "9" * 400])  # found by this test: makespan / width overflowed a float
def test_any_command_line_gives_output_or_one_line(argv):
    code, out, err = run_cli(argv)
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "error:" in lines[0], (argv, err)
        assert out == ""
        return
    # Success says nothing on stderr but the rules' notes (e.g. V > 1 on 1F1B runs interleaved 1F1B).
    assert all(line.startswith("pipeviz: ") for line in err.splitlines()), err
    if argv[0] == "export" and not ({"--format", "-f"} & set(argv)) or "json" in _last(argv, ("--format", "-f")):
        data = json.loads(out)  # strict JSON: NaN and Infinity would fail to parse as finite numbers below
        numbers = [v for v in _leaves(data) if isinstance(v, float)]
        assert all(math.isfinite(v) for v in numbers)
    assert not re.search(r"\b(nan|inf)\b", out, re.IGNORECASE), out[:300]


def _last(argv, flags) -> str:
    value = ""
    for a, b in zip(argv, argv[1:]):
        if a in flags:
            value = b
    return value


def _leaves(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v)
    else:
        yield x


# -- URLs ------------------------------------------------------------------------

KEYS = url_keys() + ["preset", "__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "P ", "p", "", "ü"]


@st.composite
def url_parts(draw) -> str:
    pairs = []
    for _ in range(draw(st.integers(0, 8))):  # keys may repeat
        key = draw(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)))
        value = draw(st.one_of(text, st.sampled_from(list(PRESETS)), st.sampled_from(["4", "8", "2", "zb-h1"])))
        pairs.append((key, value))
    encode = draw(st.booleans())
    from urllib.parse import quote

    def enc(s: str) -> str:
        return quote(s, safe="") if encode else s.replace("&", "%26").replace("=", "%3D").replace("#", "%23")

    return "&".join(f"{enc(k)}={enc(v)}" for k, v in pairs)


KNOWN_KEYS = set(table())


@given(url_parts(), url_parts())
def test_any_url_gives_known_notes_and_values_in_range(query, fragment):
    updates, notes = parse("?" + query, "#" + fragment)
    assert all(isinstance(n, Msg) and n.key in KNOWN_KEYS for n in notes)
    for k, v in updates.items():
        f = FIELDS[k]
        if f.kind in ("int", "float"):
            assert isinstance(v, int if f.kind == "int" else float) and not isinstance(v, bool)
            assert f.low <= v <= f.high and math.isfinite(v)
        elif f.kind == "choice":
            assert v in f.choices
    for n in notes:  # a note quotes at most MAX_RAW characters of what the URL said (and an ellipsis)
        for name in ("key", "value"):
            if name in n.args:
                assert len(str(n.args[name])) <= MAX_RAW + 1, n


EXPLORER = []


def explorer():
    if not EXPLORER:
        from pipeviz.served import Explorer

        EXPLORER.append(Explorer())
    return EXPLORER[0]


# What a URL may ask that no rule can adjust without changing what was asked: more
# stages than the model has layers. The app says so in one warning and keeps the last view.
REFUSED = {"model.few_layers"}


@given(url_parts(), url_parts())
@example("puzzle=encoder&moves=0x10", "puzzle=")  # found by the search: a puzzle's board is what is shown
def test_the_served_app_applies_any_url_to_a_valid_view_with_plain_text_notes(query, fragment):
    app = explorer()
    if app.session.custom or app.session.result.config.schedule == "custom":
        # An order of one's own left by the last example: a URL opens a fresh page, so a
        # fresh explorer (updating this one to the defaults left its result stale once; see the stop's note).
        EXPLORER.clear()
        app = explorer()
    app.session.update(defaults())  # a URL opens a fresh page: never the last example's state
    assert app.session.problem is None
    app.session.apply_query("?" + query, "#" + fragment)
    state = app.session.state()
    assert normalize(state, set())[0] == state  # the rules hold: nothing left to adjust
    assert app.session.result is not None
    if app.session.problem is None and puzzle.shown(state):
        # A URL that opens a puzzle shows its board (the ops placed so far), not the schedule.
        assert app.session.result.order.to_text() == puzzle.run(state).order.to_text()
    elif app.session.problem is None:
        assert app.session.result.config == app.session.config()
    else:
        from pipeviz.served.view import describe

        assert app.session.problem.key in REFUSED, app.session.problem
        assert app.notice_lines[0] == fill("notice.invalid", app.session.lang, why=app.session.problem,
                                           shown=describe(app.session.result.config, app.session.lang))
        assert 'class="pv-notice pv-warning"' in app.notice.object
    html = app.notice.object
    assert html.startswith('<div class="pv-notice pv-') and html.endswith("</div>")
    inner = html[html.index(">") + 1 : -len("</div>")]
    # Only our own paragraphs are markup; everything the URL said is escaped text.
    assert re.sub(r"</?p>", "", inner).count("<") == 0, inner
    _, notes = parse("?" + query, "#" + fragment)
    for n in notes:
        assert n.text(app.session.lang) in app.notice_lines
