"""The standalone page (python -m pipeviz page), opened from file:// in the Debian
chromium with the network blocked: self-contained, driven through its widgets like a
reader would, and showing what the served app shows. What its Bokeh models hold
after a real repaint is compared with Python's Figures().apply(figure_view(...))
for the same state."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from browser import choose_schedule, open_group, screenshot, write_page

from pipeviz import NAMES, Config, Costs, run
from pipeviz.page_document import widget_texts
from pipeviz.render.figures import SOURCES, Figures
from pipeviz.served import Explorer
from pipeviz.text import template
from pipeviz.view import readouts, tradeoff
from pipeviz.view.columns import figure_view
from pipeviz.view.fields import FIELDS, PRESETS
from pipeviz.view.state import config as state_config
from pipeviz.view.state import row_config

pytestmark = pytest.mark.browser

# One file a course page can embed (issue 42: at most 2 MB): Bokeh's core bundle is
# 1.27 MB of it, its widgets' bundle 0.13 MB packed (pipeviz/compat.packed_bundle),
# the rest the document, the data and pipeviz's scripts, minified (page_document.lean).
BUDGET_BYTES = 2_000_000
DEFAULT_HASH = ""  # a page at the view it was built for names nothing in its URL


build_page = write_page


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return build_page(tmp_path_factory.mktemp("page") / "explorer.html")


@pytest.fixture
def offline(page):
    """Block every request that is not a file://; record them all, and every console error."""
    seen = {"requests": [], "errors": []}
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.route(re.compile(r"^(?!file://).*"), lambda route: route.abort())
    return seen


def open_page(page, page_file, suffix=""):
    """Open the page and wait until its first view is drawn and its URL written."""
    url = page_file.as_uri() + suffix
    page.goto(url)
    settled(page)
    return url


def state_config_of(m: int) -> dict:
    """The explorer's state at 1F1B, P=4, m, the encoder in the bubbles."""
    return {**{k: f.default for k, f in FIELDS.items()}, "m": m, "encoder": "bubbles"}


def settled(page, timeout=20_000):
    """The last change has gone all the way: readout, table and fragment written
    (after the repaint), the labels drawn for the timeline's current width and the
    plots repainted and their elements placed (static/compat.js idle)."""
    page.wait_for_function(
        """() => { const x = window.PipevizExplorer && PipevizExplorer.get();
            if (!x || x.laterPending || !PipevizExplorer.compat.idle() || !x.result
                || !document.querySelector('#pv-table table')) return false;
            const hash = PipevizExplorer.fields.encode(x.state(), x.base);  // what differs from the page's own view
            if (x.problem === null && location.hash !== (hash ? '#' + hash : '')) return false;
            const w = Bokeh.documents[0].get_model_by_name('timeline').inner_width;
            return !w || (x.drawn.labels && x.drawn.labels[1] === w); }""",
        timeout=timeout,
    )


def readout(page):
    return page.locator("#pv-readout").inner_text()


def notice_lines(page):
    return page.evaluate("Array.from(document.querySelectorAll('#pv-notice p'), (p) => p.textContent)")


def written(page, element_id: str) -> str:
    """The HTML the page last wrote into an element (the DOM re-serialises entities)."""
    return page.evaluate("(id) => PipevizExplorer.get().written[id]", element_id)


def state(page):
    return page.evaluate("PipevizExplorer.get().state()")


def press(page, handle: int, key: str, times: int = 1):
    """Keys on a slider's handle (0 P, 1 m, 2 V), as a reader would."""
    h = page.locator(".noUi-handle").nth(handle)
    h.focus()
    for _ in range(times):
        h.press(key)


# -- the file -------------------------------------------------------------------------


def test_self_contained_within_budget(page_file):
    html = page_file.read_text(encoding="utf-8")
    assert len(html.encode("utf-8")) <= BUDGET_BYTES
    # Nothing is fetched: outside the inline scripts' code, no tag refers to a URL.
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", html, flags=re.S | re.I)
    assert not re.findall(r"<(?:script|link|img|iframe|source|embed|object)\b[^>]*\b(?:src|href|data)\s*=", markup, flags=re.I)
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", html)  # no CSS fetches either
    assert "PipevizEngine" in html and "Bokeh" in html


def test_opens_offline_with_no_requests_and_no_errors(page, page_file, offline):
    url = open_page(page, page_file)
    assert "27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%" in readout(page)
    assert page.evaluate("location.hash") == DEFAULT_HASH
    assert offline["requests"] == [url]
    assert offline["errors"] == []
    assert page.locator("#pv-notice").is_hidden()
    screenshot(page, "page-default")


# -- the draw path, against Python --------------------------------------------------------

READ_MODELS = """([props]) => {
    const doc = Bokeh.documents[0];
    const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v)
        : Array.isArray(v) ? v.map(plain)
        : v instanceof Map ? Object.fromEntries(Array.from(v, ([k, x]) => [k, plain(x)]))
        : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
    const sources = {};
    for (const name of SOURCES) sources[name] = plain(doc.get_model_by_name(name).data);
    const out = {};
    for (const [name, attrs] of Object.entries(props)) {
        const model = doc.get_model_by_name(name);
        out[name] = Object.fromEntries(attrs.map((a) => [a, plain(model[a])]));
    }
    return {sources, props: out, px: doc.get_model_by_name('timeline').inner_width};
}""".replace("SOURCES", json.dumps(list(SOURCES)))


def python_models(st: dict, px: float) -> tuple[dict, dict]:
    """What the served app's figures hold for state `st`: their sources and the
    properties a figure view sets, by model name."""
    figs = Figures()
    view = figure_view(run(state_config(st)), st["unit"], st["lang"], px)
    figs.apply(view)
    sources = {name: {k: list(v) if not isinstance(v, list) else v for k, v in src.data.items()}
               for name, src in figs.sources.items()}
    props = {name: {a: getattr(figs.models[name], a) for a in attrs} for name, attrs in view["props"].items()}
    as_json = lambda v: json.loads(json.dumps(v, default=lambda x: x.tolist()))  # noqa: E731
    return as_json(sources), as_json(props)


def assert_models_match(page, st: dict):
    settled(page)
    view = figure_view(run(state_config(st)), st["unit"], st["lang"])
    prop_names = {name: list(attrs) for name, attrs in view["props"].items()}
    got = page.evaluate(READ_MODELS, [prop_names])
    sources, props = python_models(st, float(got["px"]))
    for name in SOURCES:
        assert set(got["sources"][name]) == set(sources[name]), name
        for col, values in sources[name].items():
            assert got["sources"][name][col] == values, f"{name}.{col}"
    assert got["props"] == props


def test_the_drawn_models_equal_the_served_apps(page, page_file, offline):
    """Drive the page like a reader and compare what Bokeh holds with Python's figures."""
    open_page(page, page_file)
    assert_models_match(page, state(page))
    press(page, 0, "ArrowRight", 3)  # P: 4 -> 7
    page.get_by_text("42.86% simulated").wait_for()  # (P-1)/(m+P-1) = 6/14
    assert_models_match(page, {**state(page), "P": 7})
    choose_schedule(page, "zb-v")  # V snaps to 2
    page.wait_for_function("PipevizExplorer.get().state().V === 2")
    assert_models_match(page, state(page))
    open_group(page, "group.display")
    page.get_by_role("button", name="chunks", exact=True).click()
    page.wait_for_function("PipevizExplorer.get().state().unit === 'chunks'")
    st = state(page)
    assert (st["schedule"], st["P"], st["V"], st["unit"]) == ("zb-v", 7, 2, "chunks")
    assert_models_match(page, st)
    page.get_by_role("button", name="中文").click()
    page.get_by_text("气泡占比").wait_for()
    assert_models_match(page, state(page))
    assert offline["errors"] == []


def test_sliders_update_readout_bars_and_bubbles(page, page_file, offline):
    open_page(page, page_file)
    press(page, 0, "ArrowRight")  # P: 4 -> 5
    page.get_by_text("33.33% simulated").wait_for()
    assert "(P-1)/(m+P-1) = 1/3 = 33.33%" in readout(page)
    press(page, 1, "ArrowRight")  # m: 8 -> 9
    page.get_by_text("30.77% simulated").wait_for()  # 4/13
    settled(page)
    lengths = page.evaluate("""() => { const d = Bokeh.documents[0];
        return ['ops', 'bubbles', 'bars'].map((n) => d.get_model_by_name(n).data[n === 'bars' ? 'rank' : 'left'].length); }""")
    res = run(Config("1f1b", 5, 9))
    assert lengths == [res.order.n_ops, len(res.metrics.bubbles[0]), 5]
    assert page.evaluate("location.hash") == "#P=5&m=9"  # a permalink: what differs from the defaults
    assert page.locator("#pv-readout").get_attribute("aria-live") == "polite"
    screenshot(page, "page-after-sliders")
    assert offline["errors"] == []


SLICES_JS = """() => {  // a log of the slices: [generation, runs done before it]
    const x = PipevizExplorer.get(), slice = x.slice;
    window.__slices = [];
    x.slice = function (gen, done) { window.__slices.push([gen, done.size]); return slice.call(this, gen, done); };
}"""


def test_the_deferred_table_runs_the_engine_a_run_per_task_and_follows_a_change_made_between(page, page_file, offline):
    """At the sliders' ends one engine run takes tens of ms, and the comparison table
    needs one per schedule: the deferred refresh computes them one task after another
    (a key pressed meanwhile is handled between two), and a change made between two
    stops it for the change's own refresh. Shown as it would be in one go: the app's."""
    open_page(page, page_file, "#schedule=1f1b&P=4&m=8&V=1&encoder=bubbles")  # the placements need runs too
    page.evaluate(SLICES_JS)
    press(page, 1, "ArrowRight")  # m = 9
    settled(page)
    slices = page.evaluate("__slices")
    gen = slices[0][0]
    # Every slice but the last ran one (a run per schedule and 3 placements, less one:
    # 1f1b's row is its own placement; then the trade-off's points the table has not
    # run), each kept for the next slices.
    def extra(m: int) -> int:
        st = state_config_of(m)
        return len(tradeoff.extra_runs(st, state_config(st), {row_config(st, n) for n in NAMES}))

    assert slices == [[gen, k] for k in range(len(slices))] and len(slices) == len(NAMES) + 3 + extra(9)
    st = state(page)
    app = Explorer()
    app.session.update({k: st[k] for k in ("m", "encoder")})
    assert (st["m"], st["encoder"]) == (9, "bubbles")
    assert written(page, "pv-table") == app.table.object
    assert written(page, "pv-places") == app.places.object

    # A change after the third run: the older refresh stops; the change's runs from 0.
    page.evaluate("""() => { const x = PipevizExplorer.get(), slice = x.slice;
        window.__slices = [];
        x.slice = function (gen, done) {
            if (done.size === 3 && this.values.m === 10) this.update(new Map([['m', 11]]), []);
            return slice.call(this, gen, done);
        }; }""")
    press(page, 1, "ArrowRight")  # m = 10, then 11 while its table is under way
    settled(page)
    slices = page.evaluate("__slices")
    first, second = slices[0][0], slices[-1][0]
    assert second > first
    assert [s for s in slices if s[0] == first] == [[first, k] for k in range(4)]  # the fourth returns at once
    assert [s for s in slices if s[0] == second] == [[second, k] for k in range(len(NAMES) + 3 + extra(11))]
    app.session.update({"m": 11})
    assert state(page)["m"] == 11
    assert written(page, "pv-readout") == app.readout.object
    assert written(page, "pv-table") == app.table.object
    assert written(page, "pv-places") == app.places.object
    assert offline["errors"] == []


def test_the_articles_step_drag_v_to_two(page, page_file, offline):
    """From the default view, V -> 2 on 1F1B is interleaved 1F1B: 3/19, not an error."""
    open_page(page, page_file)
    press(page, 2, "ArrowRight")
    page.get_by_text("15.79% simulated").wait_for()
    text = readout(page)
    assert "15.79%" in text and "3/19" in text
    settled(page)
    assert not any("Not valid" in line for line in notice_lines(page))
    app = Explorer()
    app.session.V = 2
    assert notice_lines(page) == app.notice_lines
    assert written(page, "pv-readout") == app.readout.object
    assert written(page, "pv-table") == app.table.object
    assert written(page, "pv-bars-key") == app.bars_key.object
    screenshot(page, "page-drag-v")
    assert offline["errors"] == []


# -- URLs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix,expected", [
    ("#schedule=interleaved&P=8&m=16&V=2", "17.95% simulated, (P-1)/(mV+P-1) = 7/39 = 17.95%"),
    ("?schedule=zb-v&P=4&m=8&V=2", "5.88% simulated"),
    ("?schedule=1f1b&P=5#schedule=zb-h1&P=4&m=8", "11.11% simulated"),  # the fragment wins
    ("?preset=staircase", "17.95% simulated"),
])
def test_url_sets_the_view(page, page_file, offline, suffix, expected):
    open_page(page, page_file, suffix)
    assert expected in readout(page)
    assert offline["errors"] == []


def test_the_fragment_follows_and_a_retargeted_fragment_is_followed(page, page_file, offline):
    open_page(page, page_file)
    page.evaluate("location.hash = '#schedule=zb-h1&P=6&m=12'")  # what a course page's link does
    page.get_by_text("ZB-H1").first.wait_for()
    page.wait_for_function("PipevizExplorer.get().state().P === 6")
    settled(page)
    assert page.evaluate("location.hash") == "#schedule=zb-h1&P=6&m=12"
    res = run(Config("zb-h1", 6, 12))
    assert f"{100 * res.metrics.bubble_fraction:.2f}% simulated" in readout(page)
    # A slice's timer may write the URL after a new fragment arrives and before its
    # `hashchange` runs (an iframe retargeted while the table still fills): the new one wins.
    page.evaluate("location.hash = '#schedule=gpipe&P=3&m=5'; PipevizExplorer.get().writeUrl()")
    page.wait_for_function("PipevizExplorer.get().state().schedule === 'gpipe'")
    settled(page)
    assert (state(page)["P"], state(page)["m"]) == (3, 5)
    assert page.evaluate("location.hash") == "#schedule=gpipe&P=3&m=5"
    page.evaluate("location.hash = '#P=abc'")
    page.wait_for_function("document.querySelectorAll('#pv-notice p').length === 1")
    assert notice_lines(page) == ["URL: P='abc' is not a whole number in 1..32; ignored"]
    assert offline["errors"] == []


URL_CASES = [
    ("?P=abc&m=1000&schedule=nope&foo=1", ""),
    ("?schedule=1f1b&V=3", ""),
    ("?schedule=dualpipe-v&m=3", ""),
    ("?schedule=zb-v", ""),
    ("?tf=0&comm=-5&tw=1e9&tb=1_000", ""),
    ("?P=1e1&m=%20%207&V=2.0&schedule=dualpipe-v", ""),
    ("?__proto__=1&constructor=2&toString=3&P=²&m=①&tb=٣", "#schedule=<b>x</b>&m=" + "9" * 4301),
    ("?preset=gpt&P=3", "#preset=nope&lang=zh"),
    ("", "#schedule=interleaved&V=1&P=3&m=%F0%9F%98%80"),
]


@pytest.mark.parametrize("search,fragment", URL_CASES)
def test_url_notes_match_the_served_app(page, page_file, offline, search, fragment):
    url = open_page(page, page_file, search + fragment)
    # The query and fragment as the browser hands them over (percent-encoded), as the
    # served app would receive them; the page has since rewritten its fragment.
    loc = page.evaluate("(u) => { const x = new URL(u); return {search: x.search, hash: x.hash}; }", url)
    app = Explorer()
    app.session.apply_query(loc["search"], loc["hash"])
    assert notice_lines(page) == app.notice_lines
    assert state(page) == app.session.state()
    assert written(page, "pv-readout") == app.readout.object
    markup = page.evaluate("document.getElementById('pv-notice').innerHTML")
    assert "<b>" not in markup and "<p>" in markup  # notes are plain text
    assert offline["errors"] == []


# -- flags, language, presets ---------------------------------------------------------------


def test_flags_set_the_opening_view(page, tmp_path, offline):
    path = build_page(tmp_path / "zbv.html", "--schedule", "zb-v", "-P", "6", "-m", "12", "-V", "2", "--comm", "0.5")
    open_page(page, path)
    res = run(Config("zb-v", 6, 12, 2, Costs(comm=0.5)))
    values = readouts.readout_values(res)
    assert written(page, "pv-readout") == readouts.readout_html(values)
    assert "they differ: comm = 0.5" in readout(page)
    assert state(page)["schedule"] == "zb-v" and state(page)["P"] == 6
    assert page.evaluate("location.hash") == ""  # the page names what differs from the view it was built for
    assert page.evaluate("PipevizExplorer.get().base.comm") == 0.5
    assert offline["errors"] == []


def widget_labels(page):
    """Every word on the page's widgets and Divs, by model name, as widget_texts lays them out."""
    return page.evaluate("""(attrs) => { const doc = Bokeh.documents[0], out = {};
        for (const [name, keys] of Object.entries(attrs)) {
            const m = doc.get_model_by_name(name);
            out[name] = Object.fromEntries(keys.map((a) => [a, JSON.parse(JSON.stringify(m[a]))]));
        }
        return out; }""", {k: list(v) for k, v in widget_texts("en").items()})


def test_chinese_from_the_flag_and_from_the_buttons(page, tmp_path, offline):
    path = build_page(tmp_path / "zh.html", "--lang", "zh", "-P", "8", "-m", "16", "--schedule", "interleaved")
    open_page(page, path)
    assert "模拟 17.95%" in readout(page)
    assert page.evaluate("document.querySelector('.pv-page').lang") == "zh"
    assert widget_labels(page) == json.loads(json.dumps(widget_texts("zh")))
    assert page.locator("#pv-table-title").inner_text() == template("table.title", "zh")
    screenshot(page, "page-zh")
    page.get_by_role("button", name="English").click()
    page.get_by_text("17.95% simulated").wait_for()
    settled(page)
    assert widget_labels(page) == json.loads(json.dumps(widget_texts("en")))
    assert page.evaluate("[document.querySelector('.pv-page').lang, document.documentElement.lang]") == ["en", "en"]
    assert page.locator("#pv-table-title").inner_text() == template("table.title", "en")
    app = Explorer(schedule="interleaved", P=8, m=16, V=2)
    assert written(page, "pv-table") == app.table.object
    assert "lang=en" in page.evaluate("location.hash")
    assert offline["errors"] == []


def test_presets(page, page_file, offline):
    open_page(page, page_file)
    page.get_by_role("combobox", name=template("field.preset", "en")).select_option(label=template("preset.gpt", "en"))
    page.wait_for_function("PipevizExplorer.get().state().P === 8")
    settled(page)
    app = Explorer()
    app.session.apply_preset("gpt")
    assert state(page) == app.session.state()
    assert written(page, "pv-readout") == app.readout.object
    assert "comm = 0.6" in readout(page)
    page.get_by_role("combobox", name=template("field.preset", "en")).select_option(label=template("preset.staircase", "en"))
    page.wait_for_function("PipevizExplorer.get().state().unit === 'chunks'")
    settled(page)
    assert {k: state(page)[k] for k in PRESETS["staircase"].values} == PRESETS["staircase"].values
    assert_models_match(page, state(page))
    assert offline["errors"] == []


def test_an_emptied_cost_warns_and_stays_out_of_the_url(page, page_file, offline):
    """A spinner can be emptied (Bokeh sets null): the state cannot be shown, the chart
    keeps the last valid view, and the URL keeps the last valid state."""
    open_page(page, page_file)
    page.evaluate("Bokeh.documents[0].get_model_by_name('tf').value = null")
    page.wait_for_function("document.querySelectorAll('#pv-notice p').length === 1")
    before = page.evaluate("location.hash")
    assert notice_lines(page) == [
        "Not valid: tf must be a number between 1e-06 and 1e+06, got None. The chart still shows 1f1b with P=4, m=8, V=1."]
    open_group(page, "group.display")
    page.get_by_role("button", name="chunks", exact=True).click()  # not the engine's: the warning stays
    page.wait_for_function("PipevizExplorer.get().state().unit === 'chunks'")
    settled(page)
    assert len(notice_lines(page)) == 1 and page.evaluate("location.hash") == before == DEFAULT_HASH
    page.evaluate("Bokeh.documents[0].get_model_by_name('tf').value = 2")
    page.wait_for_function("document.querySelectorAll('#pv-notice p').length === 0")
    settled(page)
    assert "tf=2" in page.evaluate("location.hash")
    assert offline["errors"] == []


def test_invalid_flags_exit_2(tmp_path):
    for flags, fragment in [(["-P", "64"], "outside the explorer's range 1..32"),
                            (["--schedule", "gpipe", "-V", "2"], "V must be 1"),
                            (["-s", "interleaved", "-V", "2", "-G", "8"], "cannot be honoured; leave out -G")]:
        p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(tmp_path / "x.html"), *flags],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and fragment in p.stderr and "Traceback" not in p.stderr


# -- a course page ----------------------------------------------------------------------------


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
        f'<h1>Lecture 7</h1><iframe id="x" src="{page_file.as_uri()}#schedule=zb-h1&P=4&m=8" '
        'width="720" height="1100" style="border:0" title="pipeline bubbles explorer"></iframe>'
    )
    page.goto(host.as_uri())
    frame = page.frame_locator("iframe")
    frame.get_by_text("11.11% simulated").wait_for(timeout=20_000)
    # The course page retargets its iframe: the fragment changes, the page follows.
    page.evaluate(f"document.getElementById('x').src = {json.dumps(page_file.as_uri() + '#schedule=interleaved&P=8&m=16&V=2')}")
    frame.get_by_text("17.95% simulated").wait_for(timeout=20_000)
    assert offline["errors"] == []
    assert all(url.startswith("file://") for url in offline["requests"])
    screenshot(page, "page-in-iframe")


# -- DualPipe-V and your own order ----------------------------------------------------------


def test_dualpipe_v_and_its_t_fb(page, page_file, offline):
    open_page(page, page_file, "#schedule=dualpipe-v&P=4&m=10&V=2&tfb=2")
    text = readout(page)
    assert "DeepSeek's bubble D = (PP/2-1)(F&B+B-3W) = (P-1)(t_fb+t_b-2t_w)/2 = 1.5 idle" in text
    assert "simulated idle per rank: 0.5, 1, 1.5, 1.5 · the longest, on rank 2, 3" in text
    st = state(page)
    assert (st["schedule"], st["tfb"]) == ("dualpipe-v", 2)
    assert_models_match(page, st)  # the F&B boxes' backward halves included
    # The m slider starts at DeepSeek's 2P (view/state.m_start): three steps left from 10 stop at 8.
    assert page.evaluate("Bokeh.documents[0].get_model_by_name('m').start") == 8
    press(page, 1, "ArrowLeft", 3)
    page.wait_for_function("PipevizExplorer.get().state().m === 8")
    assert_models_match(page, state(page))  # the chart follows the slider
    screenshot(page, "page-dualpipe-v")
    assert offline["errors"] == []


def open_own_order(page):
    page.get_by_role("button", name="Your own order").click()
    page.locator("textarea").first.wait_for()


def stuck_labels(page):
    return page.evaluate("Array.from(Bokeh.documents[0].get_model_by_name('stuck_ops').data.label || [])")


def test_a_pasted_order_that_deadlocks_is_drawn_with_its_stuck_ops(page, page_file, offline):
    open_page(page, page_file)
    open_own_order(page)
    box = page.locator("textarea").first
    box.fill("0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1")
    box.press("Tab")  # the box sends its text when it loses focus
    page.get_by_role("button", name="Show my order").click()
    page.get_by_text("deadlock: rank 0 is stuck at B(mb 0, stage 0), which waits for B(mb 0, stage 1) on rank 1").wait_for()
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('stuck_ops').data.label.length === 3")
    assert stuck_labels(page) == ["0B0 waits for 1B0 on rank 1", "1B0 waits for 2B0 on rank 2", "2F1 waits for 1F1 on rank 1"]
    assert page.evaluate("Array.from(Bokeh.documents[0].get_model_by_name('ops').data.right)") == [1, 2, 2, 3]
    assert "Deadlock" in readout(page)
    page.wait_for_function("document.querySelector('#pv-table').textContent.includes('deadlock: see the chart')")
    # The served app says the same.
    app = Explorer()
    app.session.update({"order": "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1", "placement": "loop", "custom": True})
    page.wait_for_function("!PipevizExplorer.get().laterPending")
    assert notice_lines(page) == app.notice_lines
    assert written(page, "pv-readout") == app.readout.object
    assert written(page, "pv-table") == app.table.object
    screenshot(page, "page-order-deadlock")
    assert offline["errors"] == []


def test_edit_this_schedule_then_a_bad_token_then_back(page, page_file, offline):
    url = open_page(page, page_file, "#schedule=zb-v&P=4&m=8&V=2")
    hash_before = page.evaluate("location.hash")
    open_own_order(page)
    page.get_by_role("button", name="Edit this schedule").click()
    page.get_by_text("Your order: P = 4 (its lines), m = 8 (read from it), V = 2 chunks per rank, placement v").wait_for()
    box = page.locator("textarea").first
    assert box.input_value() == run(Config("zb-v", 4, 8, 2)).order.to_text()
    assert "25.5" in readout(page)  # the same timeline, now yours
    box.fill(box.input_value().replace("0F1 ", "0X1 ", 1))
    box.press("Tab")
    page.get_by_text("line 1: '0X1' is not an op").wait_for()
    assert page.evaluate("location.hash") == hash_before  # an order does not go into the URL
    press(page, 0, "ArrowRight")  # P: back to the schedules
    page.get_by_text("back to the schedules: your order stays in its box").wait_for()
    settled(page)
    st = state(page)
    assert (st["schedule"], st["P"], st["custom"]) == ("zb-v", 5, False)
    assert page.evaluate("location.hash").startswith("#schedule=zb-v&P=5")
    assert offline["errors"] == [] and offline["requests"] == [url.split("#")[0]]


def test_pytorchs_orders_paste_as_json_and_text(page, page_file, offline):
    from pipeviz.export import to_json

    open_page(page, page_file)
    open_own_order(page)
    box = page.locator("textarea").first
    box.fill((__import__("pathlib").Path(__file__).resolve().parent / "data" / "orders" /
              "torch-DualPipeV-P4-m8-V2.txt").read_text())
    box.press("Tab")
    page.get_by_role("button", name="v: rank r holds r and 2P-1-r").click()
    page.get_by_role("button", name="Show my order").click()
    page.get_by_text("placement v; no closed form").wait_for()
    assert "makespan 27" in readout(page)
    box.fill(to_json(run(Config("interleaved", 4, 8, 2))))
    box.press("Tab")
    page.get_by_role("button", name="loop: stage s on rank s mod P").click()
    page.get_by_text("placement loop; no closed form").wait_for()
    page.wait_for_function("document.querySelector('#pv-readout').textContent.includes('makespan 28.5')")
    assert offline["errors"] == []
