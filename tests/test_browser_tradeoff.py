"""The trade-off view in both explorers, in the Debian chromium, as an engineer uses it:
a model and an HBM budget, every schedule and V a point (those that refuse the model's
32 layers absent and counted in the note, with the caveat), the HBM line, the shown
schedule ringed; a tap on a point shows that schedule at that V; a step of the m slider
moves every point. Screenshots at 390 and 1400 px in both languages
(test-artifacts/tradeoff-{app,page}-{390,1400}-{en,zh}.png)."""

from __future__ import annotations

import re

import pytest
from browser import ARTIFACTS, served_app, write_page
from playwright.sync_api import expect

from pipeviz.text import template

pytestmark = pytest.mark.browser

QUERY = "model=gpt3-6.7b&hbm=40&P=8&m=32"

# The figure's models and its view, in whichever Bokeh document holds them.
STATE = """() => {
  for (const doc of Bokeh.documents) {
    const pts = doc.get_model_by_name('tradeoff_points');
    if (!pts) continue;
    const note = (() => {
      const find = (root) => {
        const hit = root.querySelector('#pv-tradeoff-note, .pv-tradeoff-note');
        if (hit) return hit;
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const h = find(e.shadowRoot); if (h) return h; }
        return null;
      };
      const el = find(document);
      return el ? el.textContent : '';
    })();
    const now = doc.get_model_by_name('tradeoff_now'), hbm = doc.get_model_by_name('tradeoff_hbm');
    return {schedule: Array.from(pts.data.schedule), V: Array.from(pts.data.V), x: Array.from(pts.data.x),
            y: Array.from(pts.data.y), now: [Array.from(now.data.x), Array.from(now.data.y)],
            hbm: hbm.visible ? hbm.location : null, note};
  }
  return null;
}"""

# Page coordinates of point i, the figure scrolled into view first.
WHERE = """(i) => {
  for (const doc of Bokeh.documents) {
    const fig = doc.get_model_by_name('tradeoff');
    if (!fig) continue;
    const view = Bokeh.index.find_one(fig), pts = doc.get_model_by_name('tradeoff_points');
    view.el.scrollIntoView({block: 'center'});
    const box = view.canvas_view.el.getBoundingClientRect();
    return [box.left + view.frame.x_scale.compute(pts.data.x[i]), box.top + view.frame.y_scale.compute(pts.data.y[i])];
  }
  return null;
}"""

SCROLL = """() => {
  for (const doc of Bokeh.documents) {
    const fig = doc.get_model_by_name('tradeoff');
    if (fig) { Bokeh.index.find_one(fig).el.scrollIntoView({block: 'start'}); window.scrollBy(0, -170); return true; }
  }
  return false;
}"""


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return write_page(tmp_path_factory.mktemp("page") / "explorer.html")


@pytest.fixture(params=["app", "page"])
def explorer(request, page, app_url, page_file):
    """Open a URL's query in one of the explorers: (open, which). No console error."""
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_(query: str) -> None:
        page.goto(f"{app_url}?{query}" if request.param == "app" else f"{page_file.as_uri()}#{query}")

    yield open_, request.param
    assert errors == []


def settled(page, n: int, text: str, below: float = float("inf")) -> dict:
    """Wait until the view holds n points, its note says `text`, nothing is computing,
    and the slowest point is faster than `below`."""
    page.wait_for_function(
        "([js, n, text, below]) => { const s = eval(js)(); return s && s.x.length === n && s.note.includes(text)"
        " && !s.note.includes('Computing') && !s.note.includes('计算中') && Math.max(...s.y) < below; }",
        arg=[STATE, n, text, below], timeout=120_000, polling=100)
    return page.evaluate(STATE)


def shoot(page, name: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.evaluate(SCROLL)
    page.wait_for_function("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_every_schedule_a_point_tap_one_to_show_it(page, explorer):
    open_, which = explorer
    page.set_viewport_size({"width": 1400, "height": 900})
    open_(QUERY)
    # GPT-3 6.7B has 32 layers: at P=8 interleaved and Looped BFS refuse V = 5..8 (40+ stages).
    s = settled(page, 16, "8 configurations refused")
    assert "Interleaved 1F1B V=5, 6, 7, 8: L = 32 layers cannot be split over S = 40 stages" in s["note"]
    assert "Equal devices, not equal stages" in s["note"]
    assert s["hbm"] == 40
    assert sorted(set(s["schedule"])) == sorted(["gpipe", "1f1b", "interleaved", "looped-bfs", "zb-h1", "zb-h2", "zb-v",
                                                 "v-half", "v-min", "dualpipe-v"])
    one = s["schedule"].index("1f1b")
    assert s["now"] == [[s["x"][one]], [s["y"][one]]]  # the schedule shown is ringed
    shoot(page, f"tradeoff-{which}-1400-en", 1400)

    # m follows its slider: a step down, and every point is faster.
    m = page.locator(".noUi-handle").nth(1)  # P, m, V
    m.focus()
    page.keyboard.press("ArrowLeft")
    expect(m).to_have_attribute("aria-valuenow", re.compile(r"^31(\.0)?$"), timeout=30_000)
    s = settled(page, 16, "8 configurations refused", below=max(s["y"]))
    shoot(page, f"tradeoff-{which}-390-en", 390)

    # Tap interleaved V=3: the explorer shows it, and the ring moves to its point.
    target = next(i for i, (n, V) in enumerate(zip(s["schedule"], s["V"])) if n == "interleaved" and V == 3)
    x, y = page.evaluate(WHERE, target)
    page.mouse.click(x, y)
    page.wait_for_function("([js, x, y]) => { const s = eval(js)(); return s.now[0][0] === x && s.now[1][0] === y; }",
                           arg=[STATE, s["x"][target], s["y"][target]], timeout=30_000, polling=100)
    page.get_by_text(template("sched.interleaved.summary", "en")).first.wait_for(timeout=10_000)  # the line under the bar

    open_(QUERY + "&lang=zh")
    zh = settled(page, 16, "8 个配置被拒绝")
    assert "设备数相同，而非段数相同" in zh["note"]
    shoot(page, f"tradeoff-{which}-390-zh", 390)
    shoot(page, f"tradeoff-{which}-1400-zh", 1400)
