"""Issue 8 in both explorers, in the Debian chromium, as a reader with the article open
beside them would use them: the article's V step from the default view, the timeline's
key, reflow from 360 to 1920 px and inside the README's 800x1150 iframe, the m slider
that never disagrees with the chart, the preset menu, the labels' ink, accessible names,
tab order and the keyboard's ops table. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from browser import ARTIFACTS, screenshot, served_app, tap
from playwright.sync_api import expect
from test_browser_hostile import wheel_zoom
from test_browser_teach import at

from pipeviz import Config, compat, run
from pipeviz.text import template
from pipeviz.view import columns
from pipeviz.view.glance import control_names

pytestmark = pytest.mark.browser

EXPLORERS = ["app", "page"]
WIDTHS = [360, 768, 1400, 1920]

# Every Bokeh document's model by name (the app has one document, the page three roots in one).
MODEL = """(name) => { for (const d of Bokeh.documents) { const m = d.get_model_by_name(name); if (m) return m; }
    return null; }"""


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    path = tmp_path_factory.mktemp("glance") / "explorer.html"
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    return path.as_uri()


@pytest.fixture(params=EXPLORERS)
def explorer(request):
    """(which, base URL) of each explorer."""
    return request.param, request.getfixturevalue(f"{request.param}_url")


@pytest.fixture(autouse=True)
def leave_politely(page):
    """Leave each test's page by navigating away, so the served app's websocket closes
    with a close frame (1001) rather than being cut when the browser context closes
    (Panel can leave a write to a cut socket unawaited, and the server logs it)."""
    yield
    try:
        page.goto("about:blank")
    except Exception:  # noqa: BLE001  (a page that is already gone)
        pass


@pytest.fixture
def errors(page):
    seen = []
    page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def column(page, source: str, col: str) -> list[float]:
    """A source's numeric column as numbers (typed arrays and ndarrays alike)."""
    return page.evaluate(f"([s, c]) => Array.from(({MODEL})(s).data[c], Number)", [source, col])


def n_ops(page) -> int:
    return page.evaluate(f"() => ({MODEL})('ops').data.left.length")


def readout(page) -> str:
    return page.locator(".pv-readout").first.inner_text()


def open_view(page, base: str, query: str = "", expect: str = "simulated"):
    page.goto(base + query)
    page.locator(".pv-readout").filter(has_text=expect).first.wait_for(timeout=30_000)
    page.locator(".pv-legend").first.wait_for(timeout=30_000)
    page.wait_for_function(f"() => {{ const t = ({MODEL})('timeline'); return t && t.inner_width > 0; }}")


def handle(page, i: int):
    return page.locator(".noUi-handle").nth(i)


def press(page, i: int, key: str):
    h = handle(page, i)
    h.focus()
    h.press(key)


def box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def widths(page) -> dict:
    return page.evaluate(f"""() => ({{scroll: document.documentElement.scrollWidth,
        timeline: ({MODEL})('timeline').inner_width, over_time: ({MODEL})('over_time').inner_width}})""")


# -- 1. the article's step from the default view -------------------------------------------


def test_right_arrow_on_v_from_the_default_view_is_interleaved_v2(page, explorer, errors):
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    press(page, 2, "ArrowRight")
    page.locator(".pv-readout").filter(has_text="15.79% simulated").first.wait_for()
    assert "3/19" in readout(page)
    page.get_by_text("V = 2 runs interleaved 1F1B").first.wait_for()
    assert "Not valid" not in page.locator("body").inner_text()
    assert handle(page, 2).get_attribute("aria-valuenow").startswith("2")
    assert errors == []


# -- 2. the key, and the labels' ink --------------------------------------------------------------


def legend_text(page) -> str:
    return page.locator(".pv-legend").first.inner_text()


def test_the_timeline_has_a_key_naming_what_it_draws(page, explorer, errors):
    which, base = explorer
    open_view(page, base)
    text = legend_text(page)
    assert "forward" in text and "backward" in text and "idle (bubble)" in text and "weight" not in text
    chips = page.locator(".pv-legend .pv-chip").all_inner_texts()
    assert chips[:2] == ["F", "B"]
    open_view(page, base, "?schedule=zb-h1&P=4&m=8", expect="11.11% simulated")
    page.locator(".pv-legend").filter(has_text="weight gradient").first.wait_for()
    assert page.locator(".pv-legend .pv-chip").all_inner_texts()[:3] == ["F", "B", "W"]
    open_view(page, base, "?schedule=interleaved&P=4&m=8&V=2", expect="15.79% simulated")
    page.locator(".pv-legend").filter(has_text="F1").first.wait_for()
    assert page.locator(".pv-legend .pv-chip").all_inner_texts()[:4] == ["F0", "F1", "B0", "B1"]
    assert errors == []


def test_labels_are_dark_on_light_boxes_and_light_on_dark(page, explorer, errors):
    which, base = explorer
    open_view(page, base)  # 1F1B: forwards are dark blue, backwards vermillion
    page.wait_for_function(f"() => ({MODEL})('labels').data.dark.length > 0")
    assert set(column(page, "labels", "dark")) == {0, 1}
    assert errors == []


def test_labels_follow_the_visible_range_after_zooming_in(page, explorer, errors):
    """At full view 1F1B's boxes at m=64 are too narrow for their numbers; zoomed in,
    every box in view that has room is numbered, as columns.labels says for that window."""
    which, base = explorer
    page.set_viewport_size({"width": 1400, "height": 1000})  # boxes wide enough for their numbers
    open_view(page, base, "?schedule=1f1b&P=4&m=64", expect="4.48% simulated")
    assert len(column(page, "labels", "x")) == 0
    wheel_zoom(page, 2)
    page.wait_for_function(f"() => ({MODEL})('labels').data.x.length > 10", timeout=30_000)
    start, end, px = page.evaluate(f"() => [({MODEL})('x_range').start, ({MODEL})('x_range').end, "
                                   f"({MODEL})('timeline').inner_width]")
    x = column(page, "labels", "x")
    assert all(start - 2 <= v <= end + 2 for v in x)
    expected = columns.labels(run(Config("1f1b", 4, 64)), float(px), (start, end))
    assert len(x) == len(expected["x"])
    screenshot(page, f"glance-{which}-zoomed-labels")
    assert errors == []


# -- 3. reflow -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_reflows_from_phone_to_wide_screen(page, explorer, errors, width):
    which, base = explorer
    page.set_viewport_size({"width": width, "height": 1000})
    open_view(page, base)
    page.wait_for_function(f"(w) => document.documentElement.scrollWidth <= w && ({MODEL})('timeline').inner_width "
                           f"=== ({MODEL})('over_time').inner_width", arg=width)
    got = widths(page)
    assert got["scroll"] <= width  # no sideways scroll
    assert got["timeline"] >= 300
    assert got["timeline"] == got["over_time"]  # the two time axes keep one scale
    controls = box(page, ".noUi-handle")  # the P slider
    timeline = page.evaluate(f"""() => {{ const v = [...Bokeh.index.all_views()].find((v) => v.model === ({MODEL})('timeline'));
        const r = v.el.getBoundingClientRect(); return {{x: r.x, y: r.y}}; }}""")
    # The article's bar (schedule, P, m, V) above the chart at every width, the chart on the first screen.
    assert controls["y"] < timeline["y"] < 1000 - 150
    screenshot(page, f"glance-{which}-{width}")
    if width in (360, 1400):
        open_view(page, base, "?lang=zh", expect="气泡占比")
        assert widths(page)["scroll"] <= width
        screenshot(page, f"glance-{which}-{width}-zh")
    assert errors == []


def test_fits_the_readmes_iframe(page, explorer, errors, tmp_path):
    which, base = explorer
    host = tmp_path / "course.html"
    host.write_text(f'<iframe src="{base}" width="800" height="1150" style="border:0" '
                    'title="pipeline bubbles explorer"></iframe>')
    page.set_viewport_size({"width": 820, "height": 1170})
    page.goto(host.as_uri())
    frame = page.frame_locator("iframe")
    frame.locator(".pv-readout").filter(has_text="27.27% simulated").first.wait_for(timeout=30_000)
    frame.locator("table.pv-table").first.wait_for()
    inner = page.frames[1]
    inner.wait_for_function("() => document.documentElement.scrollWidth <= 800")
    top = frame.locator("table.pv-table thead").first.bounding_box()["y"]
    assert top < 1150  # the comparison table starts above the fold
    assert inner.evaluate(f"() => ({MODEL})('timeline').inner_width") >= 300
    page.screenshot(path=str(ARTIFACTS / f"glance-{which}-iframe-800x1150.png"))
    assert errors == []


# -- 4. m on DualPipe-V: the slider shows the m the chart uses --------------------------------------


def agreed(page, P: int, m: int):
    """Wait until the chart shows DualPipe-V at (P, m) (its ops) and the m slider's handle says m."""
    n = run(Config("dualpipe-v", P, m, 2)).order.n_ops
    page.wait_for_function(f"([n]) => ({MODEL})('ops').data.left.length === n", arg=[n])
    expect(handle(page, 1)).to_have_attribute("aria-valuenow", re.compile(rf"^{m}(\.0+)?$"))
    assert n_ops(page) == n


def test_the_m_slider_offers_what_the_order_accepts_and_never_disagrees_with_the_chart(page, explorer, errors):
    """DeepSeek's DualPipe-V needs m >= 2P: the slider starts at 2P (it offers no
    value the order refuses), and where P moves past m/2, m follows with one note.
    (Interleaved 1F1B used to be the case here; below m = P it now shows PyTorch's order.)"""
    which, base = explorer
    open_view(page, base, "?schedule=dualpipe-v&P=2&m=6&V=2")
    expect(handle(page, 1)).to_have_attribute("aria-valuemin", re.compile(r"^4(\.0+)?$"))
    for m in (5, 4, 4, 4):  # one press at a time: 5, 4, then nothing below 4
        press(page, 1, "ArrowLeft")
        agreed(page, 2, m)
    assert "Not valid" not in page.locator("body").inner_text()
    press(page, 0, "ArrowRight")  # P: 2 -> 3 moves m to 6, the smallest m the order accepts
    notice = page.locator(".pv-notice").filter(has_text="m set to 6")
    notice.first.wait_for()
    text = notice.first.inner_text()
    assert text.count("m set to 6") == 1 and "DualPipe-V needs m >= 2P" in text and "Not valid" not in text
    agreed(page, 3, 6)
    expect(handle(page, 1)).to_have_attribute("aria-valuemin", re.compile(r"^6(\.0+)?$"))
    # A mouse drag to the slider's left end.
    b = handle(page, 1).bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    page.mouse.down()
    for dx in range(0, 120, 10):
        page.mouse.move(b["x"] + b["width"] / 2 - dx, b["y"] + b["height"] / 2)
    page.mouse.up()
    agreed(page, 3, 6)
    h = handle(page, 1)
    h.focus()
    for _ in range(4):  # a burst, as a held key sends: the slider comes to rest where the chart is
        page.keyboard.press("ArrowLeft")
    agreed(page, 3, 6)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    agreed(page, 3, 9)
    page.wait_for_function("() => location.href.includes('schedule=dualpipe-v&P=3&m=9&V=2')")
    assert errors == []


# -- 10. costs ---------------------------------------------------------------------------------------------


def test_costs_say_backward_2_is_tb_plus_tw_and_their_labels_stand_apart(page, explorer, errors):
    which, base = explorer
    open_view(page, base)
    page.get_by_role("button", name=template("costs.title"), exact=True).click()
    page.get_by_text("backward 2 = t_b + t_w").first.wait_for()
    boxes = [page.get_by_text(template(f"field.{k}"), exact=True).first.bounding_box() for k in ("tf", "tb", "tw", "comm")]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] or \
                a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
            assert apart, (a, b)
    assert errors == []


# -- 8. accessibility --------------------------------------------------------------------------------------


def test_every_control_has_a_name_and_the_readout_is_announced(page, explorer, errors):
    which, base = explorer
    open_view(page, base)
    names = control_names("en")
    for key in ("P", "m", "V", "play_time"):
        page.get_by_role("slider", name=names[key]).wait_for()
    page.get_by_role("group", name=names["play_speed"]).wait_for()
    page.get_by_role("combobox", name=names["schedule"]).wait_for()  # a menu of names in the article's bar
    page.get_by_role("group", name=names["lang"]).wait_for()
    page.get_by_role("button", name=template("group.display"), exact=True).first.click()
    page.get_by_role("group", name=names["unit"]).wait_for()
    assert page.get_by_role("button", name="English").get_attribute("aria-pressed") == "true"
    page.get_by_role("combobox", name=template("field.preset")).wait_for()
    # The closing section's e_f and e_b: with them, every slider of the explorer is named.
    page.get_by_role("button", name=template("group.closing"), exact=True).first.click()
    for key in ("ef", "eb"):
        page.get_by_role("slider", name=names[key]).wait_for()
    handles = page.locator(".noUi-handle")  # what Bokeh draws for every slider, named or not
    assert handles.count() == 6
    labels = [h.get_attribute("aria-label") or h.get_attribute("aria-labelledby") for h in handles.all()]
    assert all(labels), labels
    live = page.locator("[aria-live=polite]").filter(has_text="27.27% simulated")
    assert live.count() >= 1
    # After the language changes, the rebuilt controls are named in Chinese.
    page.get_by_role("button", name="中文").click()
    page.get_by_role("slider", name=control_names("zh")["P"]).wait_for()
    page.get_by_role("combobox", name=control_names("zh")["schedule"]).wait_for()
    assert errors == []


def focused(page) -> dict:
    return page.evaluate("""() => { let a = document.activeElement;
        while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
        return {cls: String(a && a.className || ''), label: a && a.getAttribute('aria-label'), tag: a && a.tagName}; }""")


def test_controls_come_first_in_tab_order(page, explorer, errors):
    which, base = explorer
    open_view(page, base)
    page.locator("body").click(position={"x": 1, "y": 1})
    seen = []
    for _ in range(30):
        page.keyboard.press("Tab")
        seen.append(focused(page))
    names = control_names("en")
    sliders = [i for i, f in enumerate(seen) if f["label"] in (names["P"], names["m"], names["V"])]
    charts = [i for i, f in enumerate(seen) if "bk-OnOffButton" in f["cls"] or "bk-ClickButton" in f["cls"]
              or "bk-events" in f["cls"]]
    assert len(sliders) >= 3, seen  # (30 tabs may go round the page again)
    assert charts and min(charts) > sliders[2], seen
    assert errors == []


def test_op_details_without_a_mouse(page, explorer, errors):
    which, base = explorer
    open_view(page, base)
    title = template("ops.title")
    opener = page.get_by_role("button", name=title) if which == "app" else page.locator("#pv-ops-summary")
    opener.focus()
    page.keyboard.press("Enter")
    region = page.get_by_role("region", name="Rank 0: 16 ops in execution order")
    region.wait_for()
    assert region.get_attribute("tabindex") == "0"
    rows = region.locator("tbody tr")
    assert rows.count() == 16
    assert rows.first.inner_text().split("\t")[:3] == ["1", "0F0", "forward"]
    page.get_by_role("combobox", name=template("field.ops_rank"), exact=True).select_option("3")
    page.get_by_role("region", name="Rank 3: 16 ops in execution order").wait_for()
    region = page.get_by_role("region", name="Rank 3: 16 ops in execution order")
    region.focus()
    assert focused(page)["tag"] == "DIV"
    screenshot(page, f"glance-{which}-ops-table")
    assert errors == []


# -- 9. the in-flight lines at large P ----------------------------------------------------------------------


def test_in_flight_lines_emphasise_rank_0_and_the_last_at_large_p(page, explorer, errors):
    which, base = explorer
    open_view(page, base, "?schedule=1f1b&P=16&m=32", expect="31.91% simulated")
    page.wait_for_function(f"() => ({MODEL})('steps').data.rank.length === 16")
    width = column(page, "steps", "width")
    thick = [r for r, w in enumerate(width) if w == max(width)]
    assert thick == [0, 15]
    page.locator(".pv-lines-key").filter(has_text="rank 15").first.wait_for()
    screenshot(page, f"glance-{which}-lines-P16")
    assert errors == []


# -- 9. Bokeh's repaint, trimmed (static/compat.js) ---------------------------------------------

# The share of a data box's canvas pixels that are not white: the hatch's lines, drawn
# over the white of a box where a rank idles.
INKED = """([x0, x1, y]) => { const tl = (""" + MODEL + """)('timeline'); const v = Bokeh.index.find_one(tl);
    const canvas = v.canvas_view.primary.canvas, ctx = canvas.getContext('2d'), k = canvas.width / v.canvas_view.bbox.width;
    const sx0 = v.frame.x_scale.compute(x0), sx1 = v.frame.x_scale.compute(x1), sy = v.frame.y_scale.compute(y);
    const px = ctx.getImageData(Math.round(sx0 * k) + 2, Math.round((sy - 6) * k), Math.round((sx1 - sx0) * k) - 4,
                                Math.round(12 * k)).data;
    let inked = 0; for (let i = 0; i < px.length; i += 4) if (px[i] < 235 || px[i + 1] < 235 || px[i + 2] < 235) inked++;
    return inked / (px.length / 4); }"""


def test_bokehs_repaint_is_trimmed_and_the_bubbles_stay_hatched(page, explorer, errors):
    """Every patch of static/compat.js applies to the pinned Bokeh and Panel (one that did
    not would leave the library's own behaviour), the page (no Panel) takes Bokeh's, and
    after new data the idle gaps are still hatched and the busy boxes still filled: rank
    3 waits from 0 to 3 at the defaults, and runs from 3 to 4."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    names, library = page.evaluate("() => [PipevizExplorer.compat.PATCHES, PipevizExplorer.compat.LIBRARY]")
    applied = page.evaluate("(v) => PipevizExplorer.compat.install(v)", compat.browser(panel=which == "app"))
    assert applied == [n for n in names if which == "app" or library[n] == "bokeh"]
    assert "urls" in names and library["urls"] == "panel"
    for key, readout in (("ArrowRight", "25.00% simulated"), ("ArrowLeft", "27.27% simulated"),
                         ("ArrowRight", "25.00% simulated"), ("ArrowLeft", "27.27% simulated")):
        press(page, 1, key)
        page.locator(".pv-readout").filter(has_text=readout).first.wait_for()
    page.wait_for_function("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))")
    hatched = page.evaluate(INKED, [0.2, 2.8, 3.0])
    assert 0.08 < hatched < 0.7, hatched  # diagonal lines over white, neither blank nor filled
    assert page.evaluate(INKED, [3.1, 3.9, 3.0]) > 0.95  # a forward's box, filled with its colour
    assert errors == []


def test_with_another_bokeh_or_panel_no_patch_applies(page, explorer):
    """static/compat.js applies a patch only to the library version it was measured
    against (pipeviz/compat.py's TESTED): told of any other, it applies none of that
    library's, and says so once on the console."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    versions = compat.browser(panel=True)
    other_bokeh = {**versions, "tested": {**versions["tested"], "bokeh": "0.0.1"}}
    other_panel = {**versions, "panel": "0.0.1"}
    panels = ["urls"] if which == "app" else []  # the page runs no Panel
    assert page.evaluate("(v) => PipevizExplorer.compat.install(v)", other_bokeh) == panels
    assert page.evaluate("(v) => PipevizExplorer.compat.install(v)", other_bokeh) == panels
    bokeh = page.evaluate("() => PipevizExplorer.compat.PATCHES.filter((n) => PipevizExplorer.compat.LIBRARY[n] === 'bokeh')")
    assert page.evaluate("(v) => PipevizExplorer.compat.install(v)", other_panel) == bokeh
    page.wait_for_function("() => new Promise((ok) => setTimeout(() => ok(true), 0))")
    tested = versions["tested"]
    assert warnings == [f"pipeviz: bokeh {tested['bokeh']} is not the tested 0.0.1; its patches are left out",
                        f"pipeviz: panel 0.0.1 is not the tested {tested['panel']}; its patches are left out"], warnings


# The m sweep's view: how often it painted its primary layer since COUNT_PAINTS, and how
# many of its overlay layer's pixels down the column of m = `at` are inked.
COUNT_PAINTS = """() => { const v = Bokeh.index.find_one((""" + MODEL + """)('sweep_m')); window.__primary = 0;
    const paint = v._paint_primary; v._paint_primary = function () { window.__primary++; return paint.apply(this, arguments); };
    window.__asked = []; const ask = v.request_paint; // what asked for a repaint, for the message
    v.request_paint = function (...a) {
        window.__asked.push(a.map((x) => x.model ? x.model.type + ':' + x.model.name : String(x)).join() || 'all');
        return ask.apply(this, a); }; }"""
MARKED = """(at) => { const v = Bokeh.index.find_one((""" + MODEL + """)('sweep_m')), layer = v.canvas_view.overlays;
    const k = layer.canvas.width / v.canvas_view.bbox.width, f = v.frame.bbox, x = Math.round(v.frame.x_scale.compute(at) * k);
    const px = layer.ctx.getImageData(x - 1, Math.round(f.top * k), 3, Math.round(f.height * k)).data;
    let inked = 0; for (let i = 3; i < px.length; i += 12) if (px[i] > 128 || px[i + 4] > 128 || px[i + 8] > 128) inked++;
    return [window.__primary, inked / (px.length / 12)]; }"""


def test_moving_m_repaints_only_the_sweeps_marker(page, explorer, errors):
    """The current m's dashed mark on the m sweep is on the overlay layer: a keypress for
    m moves it there and leaves the lines and points (the primary layer) as they were,
    which saves the sweep's whole repaint at each step of a drag."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    page.wait_for_function("() => (" + MODEL + ")('sweep_line_0').data.x.length > 0")
    # The lines' data is in; their own (throttled) repaint must have run before counting.
    page.wait_for_function("() => PipevizExplorer.compat.idle()")
    page.evaluate(COUNT_PAINTS)
    press(page, 1, "ArrowRight")
    page.locator(".pv-readout").filter(has_text="25.00% simulated").first.wait_for()
    page.wait_for_function("() => (" + MODEL + ")('sweep_m_now').location === 9")
    page.wait_for_function("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))")
    primary, at_9 = page.evaluate(MARKED, 9)
    assert primary == 0, page.evaluate("window.__asked")
    assert 0.3 < at_9 < 0.9, at_9  # a dashed line down the frame
    assert page.evaluate(MARKED, 8)[1] == 0  # and no longer at 8
    assert errors == []


# A plot view's canvas as PNG data once it has repainted: Bokeh paints asynchronously,
# so it is asked to repaint every renderer and read until two frames show the same pixels
# (every layer, as a figure is saved); null if they never settle.
SETTLED_PNG = """async (v) => {
    v.request_paint(); let last = null;
    for (let frame = 0; frame < 120; frame++) {
        await new Promise((ok) => requestAnimationFrame(ok));
        const now = v.export('png').canvas.toDataURL('image/png');
        if (frame > 1 && now === last) return now;
        last = now;
    }
    return null; }"""
# A plot's canvas as PNG data, drawn with static/compat.js's fast path or with Bokeh's
# own: the boxes' (quads, bars).
FAST_PATHS = [["models/glyphs/lrtb", "LRTBView"]]
PIXELS = """async ([name, own]) => { const v = Bokeh.index.find_one((""" + MODEL + """)(name));
    const paths = """ + json.dumps(FAST_PATHS) + """.map(([m, c]) => Bokeh.require(m)[c].prototype);
    const fast = paths.map((proto) => proto._paint.pvFast ? proto._paint : null);
    if (own) paths.forEach((proto, i) => { if (fast[i]) proto._paint = fast[i].pvOriginal; });
    try {
        return await (""" + SETTLED_PNG + """)(v);
    } finally { paths.forEach((proto, i) => { if (fast[i]) proto._paint = fast[i]; }); } }"""

# Two PNGs' sizes and their largest difference in any channel of any pixel.
LARGEST_DIFFERENCE = """async ([a, b]) => {
    const load = (url) => new Promise((ok) => { const im = new Image(); im.onload = () => ok(im); im.src = url; });
    const pixels = (im) => { const c = document.createElement('canvas'); c.width = im.width; c.height = im.height;
        const g = c.getContext('2d'); g.drawImage(im, 0, 0); return g.getImageData(0, 0, im.width, im.height).data; };
    const [x, y] = [await load(a), await load(b)], p = pixels(x), q = pixels(y);
    let worst = 0;
    for (let i = 0; i < p.length; i++) worst = Math.max(worst, Math.abs(p[i] - q[i]));
    return [[x.width, x.height], [y.width, y.height], worst]; }"""
# A row's bubbles hatched as one path: the rasteriser rounds the edges' coverage of a
# path of several boxes by up to 4 levels of 255 from that of one box (a box half a
# pixel off differs by about half the contrast, a missing one by all of it).
ROUNDING = 4


@pytest.mark.parametrize("query", ["", "?schedule=gpipe&projector=1", "?schedule=interleaved&m=4&V=2&lang=zh",
                                   "?schedule=interleaved&P=32&m=128&V=8&model=gpt3-6.7b",
                                   "?schedule=zb-v&P=32&m=128&V=2&model=llama2-70b&t=8"])
def test_what_the_fast_paths_draw_are_the_pixels_bokeh_draws(page, explorer, errors, query):
    """static/compat.js's boxes patch sets each box's styles only when they change and
    hatches a row's bubbles as one path (1599 of them with llama2-70b's uneven stages);
    the plots it paints are the ones Bokeh's own path paints: the timeline in both
    fonts' sizes, both languages and merged into runs at the sliders' ends, and the
    in-flight and memory bars, pixel for pixel but for the edges of the hatching
    (within ROUNDING)."""
    which, base = explorer
    if which == "page":
        query = "#" + query[1:] if query else ""
    page.set_viewport_size({"width": 1400, "height": 1000})  # boxes wide enough for their numbers
    open_view(page, base, query, expect="%")
    assert page.evaluate("(ps) => ps.every(([m, c]) => Bokeh.require(m)[c].prototype._paint.pvFast)", FAST_PATHS)
    for plot in ("timeline", "inflight"):
        fast, own = page.evaluate(PIXELS, [plot, False]), page.evaluate(PIXELS, [plot, True])
        assert fast is not None and own is not None, plot
        size, own_size, worst = page.evaluate(LARGEST_DIFFERENCE, [fast, own])
        assert size == own_size and worst <= (ROUNDING if plot == "timeline" else 0), (plot, worst)
    assert errors == []


# A plot's canvas as PNG data and how often its axes' tickers ran while it repainted
# once, with static/compat.js's kept ticks and extents or with Bokeh's own getters.
AXES = """async ([name, own]) => { const v = Bokeh.index.find_one((""" + MODEL + """)(name));
    const proto = Bokeh.require('models/axes/axis').AxisView.prototype, names = ['tick_coords', 'extents'];
    const kept = names.map((n) => Object.getOwnPropertyDescriptor(proto, n).get);
    const use = (gets) => names.forEach((n, i) => Object.defineProperty(proto, n, { configurable: true, get: gets[i] }));
    if (own) use(kept.map((g) => g.pvOriginal));
    const tickers = [...new Set([...v.model.below, ...v.model.left].map((a) => a.ticker).filter((t) => t))], calls = [0];
    const counted = tickers.map((t) => { const get = t.get_ticks;
        t.get_ticks = function () { calls[0]++; return get.apply(this, arguments); }; return get; });
    try {
        v.repaint(); const ran = calls[0];
        return [ran, await (""" + SETTLED_PNG + """)(v)];
    } finally { tickers.forEach((t, i) => { t.get_ticks = counted[i]; }); use(kept); } }"""


def test_an_axis_keeps_its_ticks_through_a_repaint_and_draws_what_bokeh_draws(page, explorer, errors):
    """static/compat.js's axes patch keeps an axis's ticks and label extents while its plot
    repaints: after m changes the x range, the timeline's and the in-flight lines' axes
    run their tickers fewer times than with Bokeh's getters (which ran them four or five
    times an axis) and draw the same pixels: the new ticks, not the last repaint's."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    press(page, 1, "ArrowRight")
    page.locator(".pv-readout").filter(has_text="25.00% simulated").first.wait_for()
    for plot in ("timeline", "over_time"):
        (ran, kept), (ran_own, own) = page.evaluate(AXES, [plot, False]), page.evaluate(AXES, [plot, True])
        assert kept is not None and own is not None, plot
        assert ran < ran_own, (plot, ran, ran_own)
        assert page.evaluate(LARGEST_DIFFERENCE, [kept, own])[2] == 0, plot
    assert errors == []


# Each glyph renderer's element on the timeline against its bounding box, both in the
# frame's pixels: how many were compared, the largest gap between where an element is
# and where its box says, and the boxes.
PLACED = """() => { const tl = (""" + MODEL + """)('timeline'), v = Bokeh.index.find_one(tl);
    const at = v.frame.el.getBoundingClientRect(); let worst = 0; const boxes = [];
    for (const r of v.renderer_views.values()) {
        const b = r.bbox; if (r.model.type !== 'GlyphRenderer' || !r.model.visible || b == null || !b.is_valid) continue;
        const e = r.el.getBoundingClientRect(); boxes.push([b.left, b.top, b.width, b.height].map((x) => x.toFixed(2)).join());
        worst = Math.max(worst, Math.abs(e.left - at.left - b.left), Math.abs(e.top - at.top - b.top),
                         Math.abs(e.width - b.width), Math.abs(e.height - b.height)); }
    return [boxes.length, worst, boxes]; }"""


def test_renderer_elements_follow_their_boxes_once_the_repaint_is_over(page, explorer, errors):
    """static/compat.js places the renderers' (empty) elements a task after the repaint,
    not during it: still where their boxes are once it is over. m changes the labels'
    extent, so some boxes move with each press."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    seen = []
    for key, readout in (("ArrowRight", "25.00% simulated"), ("ArrowLeft", "27.27% simulated"),
                         ("ArrowRight", "25.00% simulated")):
        press(page, 1, key)
        page.locator(".pv-readout").filter(has_text=readout).first.wait_for()
        page.wait_for_function("() => new Promise((ok) => requestAnimationFrame(() => setTimeout(() => ok(true), 0)))")
        n, worst, boxes = page.evaluate(PLACED)
        assert n >= 3 and worst < 0.5, (which, key, n, worst)
        seen.append(boxes)
    assert seen[0] != seen[1] and seen[0] == seen[2], seen  # they moved, and came back with the value
    assert errors == []


# How coloured a box on the timeline is: the mean of (largest - smallest channel) over
# its pixels, about 150 for a forward's blue at full alpha and a fifth of it dimmed.
COLOURED = """([x0, x1, y]) => { const tl = (""" + MODEL + """)('timeline'); const v = Bokeh.index.find_one(tl);
    const canvas = v.canvas_view.primary.canvas, ctx = canvas.getContext('2d'), k = canvas.width / v.canvas_view.bbox.width;
    const sx0 = v.frame.x_scale.compute(x0), sx1 = v.frame.x_scale.compute(x1), sy = v.frame.y_scale.compute(y);
    const px = ctx.getImageData(Math.round(sx0 * k) + 3, Math.round((sy - 4) * k), Math.round((sx1 - sx0) * k) - 6,
                                Math.round(8 * k)).data;
    let sum = 0; for (let i = 0; i < px.length; i += 4) sum += Math.max(px[i], px[i + 1], px[i + 2]) -
        Math.min(px[i], px[i + 1], px[i + 2]);
    return sum / (px.length / 4); }"""

# Whatever a visual's CSS override or a plot's font size (static/compat.js keeps the first
# answer): no stylesheet of the page sets one.
CSS_OVERRIDES = r"""() => { const found = [], sheets = [], walk = (root) => {
    sheets.push(...(root.styleSheets || []), ...(root.adoptedStyleSheets || []));
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
    walk(document);
    for (const sheet of sheets) { let rules; try { rules = sheet.cssRules; } catch (e) { continue; }
      for (const rule of rules) { const text = rule.cssText;
        const m = text.match(
          /--bk-[a-z-]*(color|alpha|width|font|align|baseline|join|cap|dash|pattern|scale|weight)[a-z-]*\s*:/g);
        if (m) found.push(...m); } }
    const plot = Bokeh.index.find_one((""" + MODEL + """)('timeline'));
    return {found: found, fontSize: getComputedStyle(plot.el).fontSize, kept: plot.base_font_size}; }"""


def test_a_followed_micro_batch_stays_bright_and_the_rest_dimmed_after_new_data(page, explorer, errors):
    """static/compat.js brings a renderer's selected and dimmed copies up to date only
    when a repaint draws them: following micro-batch 0 at the defaults, then zooming
    (new boxes while it is followed), its forward on rank 1 is drawn at full colour and
    micro-batch 1's above it, on rank 0, dimmed; none of the CSS the patches read once is set."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    css = page.evaluate(CSS_OVERRIDES)
    assert css["found"] == [] and css["fontSize"] == f"{css['kept']}px", css
    bright = page.evaluate(COLOURED, [1.0, 2.0, 0.0])  # F(mb 1) on rank 0, nothing followed yet
    assert bright > 100
    tap(page, *at(page, 0.5, 0.0))  # F(mb 0) on rank 0
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('ops').selected.indices.length === 8")
    before = page.evaluate("() => Bokeh.documents[0].get_model_by_name('ops').data.left.length")
    page.locator(f"[title='{template('tool.zoom')}']").first.click()
    page.mouse.move(*at(page, 1.0, 0.5))  # zoom in about t=1: both boxes stay in view
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"() => {{ const s = ({MODEL})('ops'); return s.data.left.length !== {before}"
                           " && s.selected.indices.length > 0; }")
    page.wait_for_function("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))")
    # F(mb 0) on rank 1 and F(mb 1) on rank 0 both run from 1 to 2.
    followed, other = page.evaluate(COLOURED, [1.0, 2.0, 1.0]), page.evaluate(COLOURED, [1.0, 2.0, 0.0])
    assert followed > 100 and other < bright / 3, (which, followed, other, bright)
    assert errors == []


def test_a_change_of_view_replaces_the_url_and_adds_no_back_step(page, explorer, errors):
    """Both explorers keep the URL on the view shown (a permalink) by replacing it:
    slider steps add no entry to the browser's history, so Back leaves the explorer
    (in a course page's iframe, Back stays the course page's own)."""
    which, base = explorer
    open_view(page, base, expect="27.27% simulated")
    before = page.evaluate("history.length")
    url = "location.search" if which == "app" else "location.hash"
    for key, readout, m in (("ArrowRight", "25.00% simulated", 9), ("ArrowRight", "23.08% simulated", 10),
                            ("ArrowLeft", "25.00% simulated", 9)):
        press(page, 1, key)
        page.locator(".pv-readout").filter(has_text=readout).first.wait_for()
        page.wait_for_function(f"/(^[?#]|&)m={m}(&|$)/.test({url})")
    assert page.evaluate("history.length") == before, which
    assert errors == []
