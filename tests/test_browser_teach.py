"""The teaching tools in both explorers (the served app and the standalone page), in
the Debian chromium, driven as a reader would and checked against the engine: why a
rank idles (hover and tap), following a micro-batch, the critical path, playing and
scrubbing the iteration, the sweep, the projector and the figure download."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from browser import ARTIFACTS, open_group, screenshot, served_app, tap

from pipeviz import Config, Costs, run
from pipeviz.causes import critical_path
from pipeviz.errors import ConfigError
from pipeviz.order import FB
from pipeviz.text import fill, template
from pipeviz.view import teach
from pipeviz.view.sweep import M_POINTS, V_MAX

pytestmark = pytest.mark.browser

DEFAULT = run(Config("1f1b", 4, 8))


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "explorer.html"
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    return path


@pytest.fixture(params=["app", "page"])
def explorer(request, page, app_url, page_file):
    """Open the explorer at `suffix` (a query) and wait until its teaching models hold data."""
    errors = []
    page.on("pageerror", lambda e: errors.append(f"{e} {e.stack}"))
    page.on("console", lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None)

    def open_(suffix: str = "", ready: str = "27.27% simulated"):
        base = app_url if request.param == "app" else page_file.as_uri()
        if request.param == "page" and suffix.startswith("?"):
            suffix = "#" + suffix[1:]
        page.goto(base + suffix)
        page.get_by_text(ready).first.wait_for(timeout=60_000)
        page.wait_for_function("""() => { const d = window.Bokeh && Bokeh.documents[0];
            const w = d && d.get_model_by_name('waits'), s = d && d.get_model_by_name('sweep_sim_0');
            return w && w.data.rank.length > 0 && s && s.data.x.length > 0; }""", timeout=60_000)
        return request.param

    yield open_
    assert errors == [], errors


def model(page, name: str, attr: str):
    return page.evaluate("([n, a]) => { const v = Bokeh.documents[0].get_model_by_name(n)[a]; "
                         "return ArrayBuffer.isView(v) ? Array.from(v) : v; }", [name, attr])


def column(page, source: str, col: str) -> list:
    return page.evaluate("([n, c]) => Array.from(Bokeh.documents[0].get_model_by_name(n).data[c])", [source, col])


def clock(page) -> str:
    """The time slider's header as a reader sees it: the clock."""
    return page.evaluate("() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('play_time')).title_el"
                         ".textContent")


def at(page, x: float, y: float) -> tuple[float, float]:
    """Page coordinates of data point (x, y) on the timeline."""
    return tuple(page.evaluate("""([x, y]) => { const tl = Bokeh.documents[0].get_model_by_name('timeline');
        const v = Bokeh.index.find_one(tl), r = v.canvas_view.el.getBoundingClientRect();
        return [r.left + v.frame.x_scale.compute(x), r.top + v.frame.y_scale.compute(y)]; }""", [x, y]))


def number(x: float) -> str:
    """A time as static/teach_models.js writes it (at most three decimals)."""
    return f"{round(x * 1000) / 1000:g}"


def op_text(res, i: int, lang: str = "en") -> str:
    order = res.order
    kind = teach.KIND_LETTERS[int(order.kind[i])]
    return fill("op.desc", lang, kind=kind, mb=int(order.mb[i]), stage=int(order.stage[i]))


def expected_why(res, g: int, lang: str = "en") -> str:
    """The sentence for bubble g, from the engine (causes.py and the order)."""
    w = teach.waits(res)
    rank = int(w["rank"][g])
    dep = int(np.flatnonzero((res.order.kind == w["dep_kind"][g]) & (res.order.mb == w["dep_mb"][g])
                             & (res.order.stage == w["dep_stage"][g]))[0]) if w["form"][g] != teach.WAITS_END else -1
    nxt = teach.next_ops(res, w["rank"], w["right"])[g]
    if w["form"][g] == teach.WAITS_OTHER:
        return fill("why.other", lang, rank=rank, next=op_text(res, int(nxt), lang), dep=op_text(res, dep, lang),
                    dep_rank=int(res.order.rank[dep]), end=number(res.timeline.end[dep]))
    if w["form"][g] == teach.WAITS_END:
        return fill("why.end", lang, rank=rank, end=number(w["right"][g]))
    return fill("why.own", lang, rank=rank, next=op_text(res, int(nxt), lang), end=number(w["right"][g]))


# -- why is this rank idle? --------------------------------------------------------------


def test_hovering_and_tapping_a_bubble_says_what_its_rank_waits_for(page, explorer):
    kind = explorer()
    rank, start, end = DEFAULT.metrics.bubbles
    w = teach.waits(DEFAULT)
    # The article's case: rank 0 after its warm-up waits for B(mb 0) from rank 1, which ends at 10.
    first_wait = int(np.flatnonzero((rank == 0) & (w["form"] == teach.WAITS_OTHER))[0])
    assert expected_why(DEFAULT, first_wait) == ("rank 0 waits to run B(mb 0, stage 0): it needs B(mb 0, stage 1) "
                                                 "from rank 1, which ends at 10")
    trailing = int(np.flatnonzero(w["form"] == teach.WAITS_END)[0])
    middle = int(np.flatnonzero((rank == 2) & (w["form"] == teach.WAITS_OTHER))[-1])
    for g in (first_wait, middle, trailing):
        x, y = at(page, (start[g] + end[g]) / 2, float(rank[g]))
        text = expected_why(DEFAULT, g)
        page.mouse.move(x, y)
        page.get_by_text(text, exact=False).first.wait_for(timeout=10_000)  # the tooltip
        tap(page, x, y)
        page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('why').text === t", arg=text)
    screenshot(page, f"teach-why-{kind}")


# -- follow one micro-batch --------------------------------------------------------------


SELECTED_BOXES = """() => { const s = Bokeh.documents[0].get_model_by_name('ops'), d = s.data;
    return Array.from(s.selected.indices).map((j) => [d.rank[j], d.left[j]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]); }"""
TIMELINE_HAS = """([x, y]) => { const tl = Bokeh.documents[0].get_model_by_name('timeline');
    const v = Bokeh.index.find_one(tl), r = v.canvas_view.el.getBoundingClientRect(), f = v.frame.bbox;
    return x >= r.left + f.left && x <= r.left + f.right && y >= r.top + f.top && y <= r.top + f.bottom; }"""
BOXES_OF = """(ops) => { const d = Bokeh.documents[0].get_model_by_name('ops').data, want = new Set(ops.map(String)), out = [];
    for (let j = 0; j < d.rank.length; j++) if (want.has(String([d.rank[j], d.left[j]]))) out.push([d.rank[j], d.left[j]]);
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]); }"""


def test_tapping_an_op_follows_its_micro_batch_through_zoom_and_resize_and_tapping_again_clears(page, explorer):
    kind = explorer()
    order, tl = DEFAULT.order, DEFAULT.timeline
    expected = np.flatnonzero((order.mb == 0) | ((order.kind == FB) & (order.mb2 == 0))).tolist()
    assert len(expected) == 2 * order.S  # a forward and a backward on every stage
    boxes = sorted([int(order.rank[i]), float(tl.start[i])] for i in expected)
    first = int(np.flatnonzero(order.mb == 0)[0])  # F(mb 0) on rank 0
    x, y = at(page, (tl.start[first] + tl.end[first]) / 2, float(order.rank[first]))
    tap(page, x, y)
    page.wait_for_function("(n) => Bokeh.documents[0].get_model_by_name('ops').selected.indices.length === n",
                           arg=len(expected))
    assert page.evaluate(SELECTED_BOXES) == boxes
    note = fill("follow.on", "en", mb=0, n=len(expected))
    assert model(page, "why", "text") == note
    screenshot(page, f"teach-follow-{kind}")  # a full-page shot resizes the page: still followed
    assert page.evaluate(SELECTED_BOXES) == boxes and model(page, "why", "text") == note
    # Zoomed in, the timeline holds other boxes (those far off-screen are left out):
    # micro-batch 0 stays followed, its boxes in view selected, and the note still
    # counts all its ops.
    before = page.evaluate("Bokeh.documents[0].get_model_by_name('ops').data.rank.length")
    page.locator(f"[title='{template('tool.zoom')}']").first.click()
    page.mouse.move(*at(page, 2.0, 1.5))
    page.mouse.wheel(0, -400)  # to about [1.2, 12.4]: ops past 18 are left out
    page.wait_for_function("(n) => Bokeh.documents[0].get_model_by_name('ops').data.rank.length < n", arg=before)
    page.wait_for_function(f"() => JSON.stringify(({SELECTED_BOXES})()) === JSON.stringify(({BOXES_OF})({boxes}))")
    assert 0 < len(page.evaluate(SELECTED_BOXES)) and model(page, "why", "text") == note
    again = expected[2]  # one of its ops in view (F on rank 1, at 1 to 2), again: clears
    assert (order.rank[again], tl.start[again]) == (1, 1.0)
    x, y = at(page, (tl.start[again] + tl.end[again]) / 2, 1.0)
    assert page.evaluate(TIMELINE_HAS, [x, y])
    tap(page, x, y)
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('ops').selected.indices.length === 0")
    assert model(page, "why", "text") == template("why.hint", "en")


def test_tapping_a_box_of_merged_ops_asks_to_zoom_in(page, explorer):
    """At full view, 1F1B at P=8, m=128 draws runs of narrow ops as one box each: a tap
    on one follows nothing and says how many ops it stands for."""
    explorer("?schedule=1f1b&P=8&m=128", ready="5.19% simulated")
    d = page.evaluate("""() => { const d = Bokeh.documents[0].get_model_by_name('ops').data;
        const j = Array.from(d.count).findIndex((c) => c > 1);
        return j < 0 ? null : {count: d.count[j], rank: d.rank[j], left: d.left[j], right: d.right[j]}; }""")
    assert d is not None and d["count"] > 1
    tap(page, *at(page, (d["left"] + d["right"]) / 2, float(d["rank"])))
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('why').text === t",
                           arg=fill("follow.merged", "en", count=d["count"]))
    assert page.evaluate("Bokeh.documents[0].get_model_by_name('ops').selected.indices.length") == 0


# -- the critical path --------------------------------------------------------------------


def test_the_critical_path_is_as_long_as_the_makespan(page, explorer):
    kind = explorer("?schedule=zb-h1&P=5&m=9&comm=0.25", ready="simulated")
    res = run(Config("zb-h1", 5, 9, costs=Costs(comm=0.25)))
    open_group(page, "group.display")  # the teaching toggles fold with the display's settings
    page.get_by_role("button", name=template("field.critical", "en")).click()
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('critical_path').data.op.length > 0")
    ops = column(page, "critical_path", "op")
    assert ops == critical_path(res.timeline).tolist()
    left, right = column(page, "critical_path", "left"), column(page, "critical_path", "right")
    x0, x1 = column(page, "critical_links", "x0"), column(page, "critical_links", "x1")
    length = sum(b - a for a, b in zip(left, right)) + sum(b - a for a, b in zip(x0, x1))
    assert left[0] == 0 and abs(length - res.metrics.makespan) < 1e-9 * res.metrics.makespan
    assert any(b > a for a, b in zip(x0, x1))  # the comm latency is a wait on the path
    assert model(page, "why", "text") == fill("critical.note", "en", n=len(ops), makespan=number(res.metrics.makespan))
    if kind == "page":
        page.wait_for_function("location.hash.includes('critical=1')")
    else:
        page.wait_for_function("location.search.includes('critical=1')")
    screenshot(page, f"teach-critical-{kind}")


# -- play the iteration --------------------------------------------------------------------


def counts_at(res, t: float, unit_scale: float) -> list[float]:
    s = res.metrics.inflight
    out = []
    for r in range(res.config.P):
        sel = (s.rank == r) & (s.time <= t)
        out.append(float(s.value[sel][-1]) * unit_scale if sel.any() else 0.0)
    return out


def test_playing_moves_the_cursor_and_the_bars_count_at_its_time(page, explorer):
    kind = explorer()
    makespan = DEFAULT.metrics.makespan
    assert model(page, "play_time", "value") == makespan  # at rest, the whole iteration is drawn
    assert clock(page) == "time: 33 of 33"
    assert model(page, "timeline_cursor", "visible") is False
    page.get_by_role("button", name=template("play.play", "en")).click()
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('play_time').value > 1")
    t1 = model(page, "play_time", "value")
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('play_time').value > t + 0.5", arg=t1)
    page.get_by_role("button", name=template("play.pause", "en")).click()
    page.get_by_role("button", name=template("play.play", "en")).wait_for()
    t = model(page, "play_time", "value")
    assert 0 < t < makespan
    assert model(page, "timeline_cursor", "location") == t and model(page, "timeline_cursor", "visible") is True
    assert model(page, "timeline_curtain", "left") == t
    assert column(page, "cursor_bars", "total") == counts_at(DEFAULT, t, 1.0)  # micro-batches = chunks at V = 1
    assert clock(page) == template("play.clock") + ": " + fill("play.time", "en", t=number(t), makespan=number(makespan))
    screenshot(page, f"teach-play-{kind}")
    # Scrub: the slider's handle, by keyboard; the cursor and bars follow.
    handle = page.evaluate_handle("""() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('play_time'))
        .shadow_el.querySelector('.noUi-handle')""").as_element()  # the time slider's, wherever it sits
    handle.focus()
    handle.press("PageDown")
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('play_time').value !== t", arg=t)
    t2 = model(page, "play_time", "value")
    assert model(page, "timeline_cursor", "location") == t2
    assert column(page, "cursor_bars", "total") == counts_at(DEFAULT, t2, 1.0)
    assert clock(page) == "time: " + fill("play.time", "en", t=number(t2), makespan=number(makespan))
    # A new result (m = 9: makespan 36) draws its whole iteration, and the clock says so.
    m_handle = page.locator(".noUi-handle").nth(1)
    m_handle.focus()
    m_handle.press("ArrowRight")
    longer = run(Config("1f1b", 4, 9)).metrics.makespan
    page.wait_for_function("(e) => Bokeh.documents[0].get_model_by_name('play_time').end === e", arg=longer)
    assert model(page, "play_time", "value") == longer
    page.wait_for_function("() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('play_time'))"
                           ".title_el.textContent === 'time: 36 of 36'")
    # Played at once, the bars count the new result (the served app sends the cursor's
    # columns after the chart: until they come there is no cursor, never a stale one).
    page.get_by_role("button", name=template("play.play", "en")).click()
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('play_time').value > 1")
    page.get_by_role("button", name=template("play.pause", "en")).click()
    page.get_by_role("button", name=template("play.play", "en")).wait_for()
    t3 = model(page, "play_time", "value")
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('cursor_bars').data.total.length === 4")
    assert column(page, "cursor_bars", "total") == counts_at(run(Config("1f1b", 4, 9)), t3, 1.0)


def test_play_runs_to_the_end_and_a_split_schedule_shows_both_parts(page, explorer):
    explorer("?schedule=zb-h1&P=4&m=8&unit=chunks", ready="11.11% simulated")
    res = run(Config("zb-h1", 4, 8))
    page.locator(".bk-btn-group .bk-btn").get_by_text("4×").click()
    page.get_by_role("button", name=template("play.play", "en")).click()
    page.wait_for_function("(m) => Bokeh.documents[0].get_model_by_name('play_time').value > m / 3",
                           arg=res.metrics.makespan)
    page.get_by_role("button", name=template("play.pause", "en")).click()
    t = model(page, "play_time", "value")
    held = res.metrics.awaiting_b
    want_held = [float(held.value[(held.rank == r) & (held.time <= t)][-1]) if ((held.rank == r) & (held.time <= t)).any()
                 else 0.0 for r in range(4)]
    assert column(page, "cursor_bars", "held") == want_held
    assert column(page, "cursor_bars", "total") == counts_at(res, t, 1.0)
    page.get_by_role("button", name=template("play.play", "en")).click()
    page.get_by_role("button", name=template("play.play", "en")).wait_for(timeout=30_000)  # it stops at the end
    assert model(page, "play_time", "value") == res.metrics.makespan
    assert column(page, "cursor_bars", "total") == [] and model(page, "bars_dim", "visible") is False


# -- the sweep --------------------------------------------------------------------------------


def test_the_sweep_points_are_the_engines_bubbles(page, explorer):
    kind = explorer("?schedule=interleaved&P=4&m=12&V=2", ready="simulated")
    from pipeviz.registry import NAMES, SCHEDULES

    def accepted(name: str, m: int, V: int) -> bool:
        try:
            run(Config(name, 4, m, V))
        except ConfigError:  # e.g. Megatron's interleaved order needs m >= P, DualPipe-V m >= 2P
            return False
        return True

    for i, name in enumerate(NAMES):
        V = SCHEDULES[name].fixed_V or 2
        xs, ys = column(page, f"sweep_sim_{i}", "x"), column(page, f"sweep_sim_{i}", "y")
        assert xs == [m for m in M_POINTS if accepted(name, m, V)], name
        assert ys == [run(Config(name, 4, m, V)).metrics.bubble_fraction for m in xs], name
    assert model(page, "sweep_m_now", "location") == 12
    vs, ys = column(page, "sweep_v_sim", "x"), column(page, "sweep_v_sim", "y")
    assert vs == list(range(1, V_MAX + 1))
    assert ys == [run(Config("interleaved", 4, 12, V)).metrics.bubble_fraction for V in vs]
    assert model(page, "sweep_v_now", "location") == 2
    page.locator("#pv-table, .pv-table").first.scroll_into_view_if_needed()
    screenshot(page, f"teach-sweep-{kind}")


# -- projector and download ---------------------------------------------------------------------


def test_the_projector_enlarges_text_and_rows(page, explorer):
    explorer()
    before = model(page, "timeline", "height")
    open_group(page, "group.display")
    page.get_by_role("button", name=template("field.projector", "en")).click()
    page.wait_for_function("Bokeh.documents[0].get_model_by_name('timeline_title').text_font_size === '22px'")
    assert model(page, "timeline", "height") == teach.timeline_height(4, True) > before
    assert model(page, "rank_axis", "major_label_text_font_size") == "18px"
    bubble = page.locator(".pv-bubble").first  # the readout's first line (in the app, inside a shadow root)
    page.wait_for_function("(e) => parseFloat(getComputedStyle(e).fontSize) >= 28", arg=bubble.element_handle())


def slide_lines_shown(page) -> tuple[float, list[list[tuple[str, float]]]]:
    """The room right of the timeline's rank axis, and the figure's two titles as
    lines, each with its width measured in the title's font."""
    return page.evaluate("""() => {
        const d = Bokeh.documents[0], view = Bokeh.index.find_one(d.get_model_by_name('timeline'));
        const ctx = document.createElement('canvas').getContext('2d');
        const lines = ['slide_readout', 'slide_summary'].map((n) => {
            const t = d.get_model_by_name(n);
            ctx.font = [t.text_font_style, t.text_font_size, t.text_font].join(' ');
            return t.text.split('\\n').map((line) => [line, ctx.measureText(line).width]);
        });
        return [view.bbox.width - view.frame.bbox.left, lines];
    }""")


def test_the_download_button_saves_the_figure_as_png(page, explorer):
    kind = explorer()
    with page.expect_download() as info:
        page.get_by_role("button", name=template("teach.download", "en")).click()
    path = info.value.path()
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    # The legend and the readout lines are added below a timeline of its usual height
    # (IHDR: width and height, big-endian), which the page then has again.
    height = teach.timeline_height(4, False)
    _, (head, summary) = slide_lines_shown(page)  # the readout's lines, wrapped to the plot
    assert int.from_bytes(data[20:24], "big") == height + teach.slide_extra(False, len(head), len(summary))
    assert model(page, "timeline", "height") == model(page, "inflight", "height") == height
    # The slide's legend and readout are shown only in the figure.
    assert model(page, "slide_readout", "visible") is False
    assert model(page, "slide_readout", "text").startswith("1F1B, P=4, m=8, V=1: Bubble (one iteration): 27.27%")
    import shutil

    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(path, ARTIFACTS / f"teach-download-{kind}.png")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_figure_downloaded_on_a_phone_wraps_its_readout_to_the_plot(page, explorer, lang):
    page.set_viewport_size({"width": 360, "height": 800})
    explorer(f"?lang={lang}", ready="27.27%")
    with page.expect_download() as info:
        page.get_by_role("button", name=template("teach.download", lang)).click()
    data = open(info.value.path(), "rb").read()
    # Each line of the two titles, measured in its own font, fits right of the rank axis.
    room, lines = slide_lines_shown(page)
    head, summary = lines
    assert len(head) >= 2 and len(summary) >= 2
    assert all(width <= room for _, width in head + summary), (room, lines)
    full = teach.slide_texts(DEFAULT, lang)
    assert "".join(t for t, _ in head).replace(" ", "") == full[0].replace(" ", "")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"teach-download-phone-{lang}.png").write_bytes(data)
    # The figure is as tall as the timeline, the legend and every line (IHDR's height).
    height = teach.timeline_height(4, False) + teach.slide_extra(False, len(head), len(summary))
    assert int.from_bytes(data[20:24], "big") == height


def test_chinese_tooltip_and_follow_note(page, explorer):
    explorer("?lang=zh", ready="模拟 27.27%")
    rank, start, end = DEFAULT.metrics.bubbles
    w = teach.waits(DEFAULT)
    g = int(np.flatnonzero((rank == 0) & (w["form"] == teach.WAITS_OTHER))[0])
    x, y = at(page, (start[g] + end[g]) / 2, 0.0)
    tap(page, x, y)
    text = expected_why(DEFAULT, g, "zh")
    assert "微批次" in text
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('why').text === t", arg=text)
    assert json.dumps(model(page, "play_toggle", "label"), ensure_ascii=False) == json.dumps(template("play.play", "zh"),
                                                                                              ensure_ascii=False)
    assert clock(page) == "时间: 33 / 33"
