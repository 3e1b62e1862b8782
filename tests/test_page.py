"""The standalone page (python -m pipeviz page), opened from file:// in chromium with
the network blocked: self-contained, interactive, and showing what the served app
shows (same columns, text and messages, checked against the Python layer)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from browser import screenshot
from pipeviz.render.data import KIND_COLORS
from pipeviz.urlstate import parse as parse_url

from pipeviz import Config, Costs, run
from pipeviz.app import Explorer
from pipeviz.render import data, readouts

pytestmark = pytest.mark.browser

BUDGET_BYTES = 2_000_000


def build_page(path, *flags):
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path), *flags],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return path


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return build_page(tmp_path_factory.mktemp("page") / "explorer.html")


@pytest.fixture
def offline(page):
    """Block every request that is not the page file itself; record them all."""
    seen = {"requests": [], "errors": []}
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.route(re.compile(r"^(?!file://).*"), lambda route: route.abort())
    return seen


def open_page(page, page_file, suffix=""):
    url = page_file.as_uri() + suffix
    page.goto(url)
    page.get_by_text("simulated").first.wait_for(timeout=20_000)
    return url


def readout(page):
    return page.locator(".pv-readout").inner_text()


def notice_lines(page):
    return page.evaluate("PipevizExplorer.get().noticeLines")


def test_self_contained_within_budget(page_file):
    html = page_file.read_text(encoding="utf-8")
    assert len(html.encode("utf-8")) <= BUDGET_BYTES
    # Nothing is fetched: outside the inline scripts' code, no tag refers to a URL.
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", html, flags=re.S | re.I)
    assert markup.count("<script") >= 4  # constants, engine, explorer, Bokeh
    assert not re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=", markup, flags=re.I)
    assert "PipevizEngine" in html and "Bokeh" in html


def test_opens_offline_with_no_requests_and_no_errors(page, page_file, offline):
    url = open_page(page, page_file)
    assert "27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%" in readout(page)
    page.wait_for_timeout(300)
    assert offline["requests"] == [url]
    assert offline["errors"] == []
    screenshot(page, "page-default")


def test_slider_changes_the_view(page, page_file, offline):
    open_page(page, page_file)
    handle = page.locator(".noUi-handle").nth(0)
    handle.focus()
    handle.press("ArrowRight")  # P: 4 -> 5
    page.get_by_text("33.33% simulated").wait_for(timeout=5_000)
    assert "(P-1)/(m+P-1) = 1/3 = 33.33%" in readout(page)
    lengths = page.evaluate("""() => { const d = Bokeh.documents[0];
        return ['ops', 'bubbles', 'bars'].map(n => d.get_model_by_name(n).data[n === 'bars' ? 'rank' : 'left'].length); }""")
    res = run(Config("1f1b", 5, 8))
    assert lengths == [res.order.n_ops, len(res.metrics.bubbles[0]), 5]
    # The fragment follows (after the repaint), so the address is a permalink.
    page.wait_for_function("location.hash === '#schedule=1f1b&P=5&m=8&V=1&tf=1&tb=1&tw=1&comm=0'")
    assert offline["errors"] == []


@pytest.mark.parametrize("suffix,expected", [
    ("#schedule=interleaved&P=8&m=16&V=2", "17.95% simulated, (P-1)/(mV+P-1) = 7/39 = 17.95%"),
    ("?schedule=zb-v&P=4&m=8&V=2", "5.88% simulated"),
    ("?schedule=1f1b#schedule=zb-h1&P=4&m=8", "11.11% simulated"),  # the fragment wins
])
def test_url_sets_the_view(page, page_file, offline, suffix, expected):
    open_page(page, page_file, suffix)
    page.get_by_text(expected).wait_for(timeout=5_000)
    assert offline["errors"] == []


def test_flags_set_the_initial_view(page, tmp_path, offline):
    path = build_page(tmp_path / "zbv.html", "--schedule", "zb-v", "-P", "6", "-m", "12", "-V", "2", "--comm", "0.5")
    open_page(page, path)
    res = run(Config("zb-v", 6, 12, 2, Costs(comm=0.5)))
    assert readouts.bubble_line(res) in readout(page)
    assert "they differ: comm = 0.5" in readout(page)


def test_invalid_flags_exit_2(tmp_path):
    for flags, fragment in [(["-P", "64"], "outside the explorer's range 1..32"),
                            (["--schedule", "1f1b", "-V", "2"], "V must be 1")]:
        p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(tmp_path / "x.html"), *flags],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and fragment in p.stderr and "Traceback" not in p.stderr


# -- the same messages as the served app -----------------------------------------

URL_CASES = [
    "?P=abc&m=1000&schedule=nope&foo=1",
    "?schedule=1f1b&V=3",
    "?schedule=interleaved&V=2&m=9",
    "?schedule=zb-v",
    "?tf=0&comm=-5&tw=1e9&tb=1_000",
    "?P=1e1&m=%20%207&V=2.0&schedule=interleaved",
]


@pytest.mark.parametrize("query", URL_CASES)
def test_url_messages_match_the_served_app(page, page_file, query):
    open_page(page, page_file, "#" + query[1:])
    app = Explorer()
    app.apply_query(query)
    assert notice_lines(page) == app.notice_lines
    state = page.evaluate("PipevizExplorer.get().state()")
    assert state == {k: getattr(app, k) for k in state}


def test_action_messages_match_the_served_app(page, page_file):
    open_page(page, page_file)
    app = Explorer()
    # 1f1b with V = 2 from the V slider: refused, the last chart stays.
    v = page.locator(".noUi-handle").nth(2)
    v.focus()
    v.press("ArrowRight")
    app.V = 2
    page.wait_for_function("PipevizExplorer.get().noticeLines.length > 0")
    assert notice_lines(page) == app.notice_lines != []
    assert "27.27% simulated" in readout(page)
    # Back to V = 1, then choosing zb-v snaps V to 2.
    v.press("ArrowLeft")
    app.V = 1
    page.wait_for_function("PipevizExplorer.get().noticeLines.length === 0")
    assert notice_lines(page) == app.notice_lines == []
    page.get_by_text("ZB-V: two chunks per rank").click()
    app.schedule = "zb-v"
    page.get_by_text("5.88% simulated").wait_for(timeout=5_000)
    assert notice_lines(page) == app.notice_lines == ["zb-v runs 2 chunks in a V per rank: V set to 2."]
    # A preset.
    page.get_by_text("Costs").click()
    page.get_by_text("Profiled GPT (ZB paper)").click()
    app.apply_preset("gpt")
    page.wait_for_function("PipevizExplorer.get().state().P === 8")
    assert readouts.readout_html(app.result) == page.evaluate("document.getElementById('pv-readout').innerHTML")


# -- the layer above the engine, against Python --------------------------------------

LAYER_CASES = [
    Config("1f1b", 4, 8), Config("gpipe", 3, 5), Config("interleaved", 4, 8, 2), Config("interleaved", 8, 16, 3),
    Config("interleaved", 4, 2, 2), Config("zb-h1", 6, 12), Config("zb-h2", 4, 10), Config("zb-v", 4, 8, 2),
    Config("zb-v", 5, 3, 2), Config("1f1b", 1, 4), Config("zb-h2", 8, 24, 1, Costs(18.5, 18.1, 9.3, 0.6)),
    Config("interleaved", 16, 64, 4, Costs(1, 2, 0.5, 0.25)), Config("zb-h1", 4, 8, 1, Costs(0.1, 0.2, 0.3)),
    Config("gpipe", 32, 128), Config("zb-v", 32, 128, 2, Costs(2, 1, 1, 0.1)),
]

JS_LAYER = """([cfgs, unitPx]) => {
    const E = PipevizEngine, X = PipevizExplorer.parts;
    const plain = (cols) => { const o = {};
        for (const k in cols) o[k] = Array.isArray(cols[k]) && ArrayBuffer.isView(cols[k][0])
            ? cols[k].map(a => Array.from(a)) : Array.from(cols[k]);
        return o; };
    return cfgs.map(c => {
        const res = E.run(c);
        return {
            ops: plain(X.opsColumns(res)), labels: plain(X.labelColumns(res, unitPx)),
            bubbles: plain(X.bubbleColumns(res)), bars_mb: plain(X.barColumns(res, 'micro-batches')),
            bars_chunks: plain(X.barColumns(res, 'chunks')), steps: plain(X.stepColumns(res)),
            palette: X.chunkPalette(PIPEVIZ_CONSTANTS.kindColors, res.chunksPerRank),
            readout: X.readoutHtml(res), key: X.barsKeyHtml(res), table: X.tableHtml(res.config, E.run),
        };
    });
}"""


def js_config(cfg: Config) -> dict:
    c = cfg.costs
    return dict(schedule=cfg.schedule, P=cfg.P, m=cfg.m, V=cfg.V, G=None, tf=c.tf, tb=c.tb, tw=c.tw, comm=c.comm)


def same_columns(py: dict, js: dict, where: str) -> None:
    assert set(py) == set(js), where
    for k, v in py.items():
        if isinstance(v, list) and v and isinstance(v[0], np.ndarray):  # multi_line paths
            assert len(v) == len(js[k]), f"{where}.{k}"
            for i, (a, b) in enumerate(zip(v, js[k])):
                assert np.array_equal(a, np.asarray(b, dtype=float)), f"{where}.{k}[{i}]"
            continue
        a = np.asarray(v)
        b = np.asarray(js[k])
        assert a.shape == b.shape, f"{where}.{k}: {a.shape} vs {b.shape}"
        if a.dtype.kind in "US" or b.dtype.kind in "US":
            assert a.tolist() == b.tolist(), f"{where}.{k}"
        else:
            assert np.allclose(a.astype(float), b.astype(float), rtol=1e-12, atol=0), f"{where}.{k}"


@pytest.mark.parametrize("px", [816.0, 333.0])
def test_page_layer_matches_python(page, page_file, px):
    open_page(page, page_file)
    got = page.evaluate(JS_LAYER, [[js_config(c) for c in LAYER_CASES], px])
    for cfg, js in zip(LAYER_CASES, got):
        res = run(cfg)
        where = f"{cfg.schedule} P={cfg.P} m={cfg.m} V={cfg.V} {cfg.costs}"
        same_columns(data.ops(res), js["ops"], where + " ops")
        same_columns(data.labels(res, px), js["labels"], where + " labels")
        same_columns(data.bubbles(res), js["bubbles"], where + " bubbles")
        same_columns(data.inflight_bars(res, "micro-batches"), js["bars_mb"], where + " bars")
        same_columns(data.inflight_bars(res, "chunks"), js["bars_chunks"], where + " bars")
        same_columns(data.inflight_steps(res), js["steps"], where + " steps")
        assert js["palette"] == data.chunk_palette(KIND_COLORS, res.order.chunks_per_rank), where
        assert js["readout"] == readouts.readout_html(res), where
        assert js["key"] == readouts.bars_key_html(res), where
        assert js["table"] == readouts.table_html(cfg, run), where


URL_PARSE_CASES = URL_CASES + [
    "", "?", "#schedule=zb-h2&P=7", "?P=&m=", "?P=+5&m=-3", "?tf=inf&tb=nan&tw=1e-400", "?P=0x10&m=1.5e1",
    "?schedule=%3Cb%3Ex%3C%2Fb%3E&comm=0.25", "?tf=1e3&tb=0.005&tw=.5&comm=5.", "?P=32&P=33",
    "?tf=%E2%80%83%201.5", "?m=1__0&V=٣",
]


def test_url_parsing_matches_python(page, page_file):
    open_page(page, page_file)
    got = page.evaluate("(qs) => qs.map(q => PipevizExplorer.parts.parseUrl(q))", URL_PARSE_CASES)
    for query, js in zip(URL_PARSE_CASES, got):
        updates, notes = parse_url(query)
        assert js["notes"] == notes, query
        assert js["updates"] == {k: (float(v) if isinstance(v, float) else v) for k, v in updates.items()}, query


# -- fits a course page ------------------------------------------------------------------

@pytest.mark.parametrize("width", [360, 640, 1024, 1600])
def test_fits_any_reasonable_width(page, page_file, width):
    page.set_viewport_size({"width": width, "height": 900})
    open_page(page, page_file)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if width in (360, 1600):
        screenshot(page, f"page-width-{width}")


def test_works_inside_an_iframe(page, page_file, offline, tmp_path):
    host = tmp_path / "course.html"
    host.write_text(
        f'<h1>Lecture 7</h1><iframe src="{page_file.as_uri()}#schedule=zb-h1&P=4&m=8" '
        'width="720" height="1100" style="border:0"></iframe>'
    )
    page.goto(host.as_uri())
    frame = page.frame_locator("iframe")
    frame.get_by_text("11.11% simulated").wait_for(timeout=20_000)
    assert offline["errors"] == []
    assert all(url.startswith("file://") for url in offline["requests"])
    screenshot(page, "page-in-iframe")
