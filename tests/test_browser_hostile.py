"""The served app in the Debian chromium under hostile URLs: every page renders with a
note, nothing a URL says becomes an element or runs, and the server logs no
exception (served_app checks its log). A fragment-only URL is applied on every load."""

import pytest
from browser import served_app

from pipeviz.text import template
from pipeviz.view import teach  # noqa: F401  (registers the toolbar's words)

pytestmark = pytest.mark.browser

PWN = "window.__pwned=1"
NASTY = [
    # (URL tail, a note that must be shown, as text)
    ("?P=%C2%B2&m=%E2%91%A0", "P='²' is not a whole number in 1..32; ignored"),
    ("?P=" + "9" * 4301, "is longer than 40 characters; ignored"),
    ("?schedule=http://3232235777/login&P=~~struck~~", "schedule='http://3232235777/login' is not one of"),
    (f"?P=<img src=x onerror={PWN}>&m=8", f"P='<img src=x onerror={PWN}>' is not a whole number"),
    (f"?m=<script>{PWN}</script>", f"m='<script>{PWN}</script>' is not a whole number"),
    ("?schedule=%22%3E%3Csvg%20onload%3Dwindow.__pwned%3D1%3E&tf=1e309", "schedule='\"><svg onload=window.__pwned=1>'"),
    ("?__proto__=1&constructor=1&toString=1", "ignored unknown parameter '__proto__'"),
    ("?x=[1,2]&y={'a':1}&P=4&P=%00", "ignored unknown parameter 'x'"),
    ("#P=<b>9</b>&tb=5e-324", "P='<b>9</b>' is not a whole number"),
    ("?lang=zh&P=①", "P='①' 不是 1..32 之间的整数；已忽略"),
]

# Every element in the page, shadow roots included, that carries an inline handler or
# is an image, script, frame or SVG built from what the URL said.
INJECTED = """() => {
    const found = [];
    const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
            for (const a of el.getAttributeNames()) if (a.toLowerCase().startsWith('on')) found.push(el.tagName + ' ' + a);
            if (/^(IMG|SCRIPT|IFRAME|OBJECT|EMBED|SVG|svg|A)$/.test(el.tagName) && /pwned|3232235777/.test(el.outerHTML))
                found.push(el.outerHTML.slice(0, 120));
            if (el.shadowRoot) walk(el.shadowRoot);
        }
    };
    walk(document);
    return found;
}"""


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.mark.parametrize("tail,note", NASTY, ids=[t[:30] for t, _ in NASTY])
def test_a_hostile_url_renders_with_a_note_and_injects_nothing(page, app_url, tail, note):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(app_url + tail)
    page.get_by_text(note).first.wait_for(timeout=60_000)  # the note, as plain text
    page.locator(".pv-readout").first.wait_for(timeout=60_000)  # the chart's readout: the page rendered
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate(INJECTED) == []
    assert errors == []


def test_a_fragment_only_url_is_applied_on_every_load(page, app_url):
    """The issue measured 5 loads of 10; every load must open the fragment's view."""
    for _ in range(10):
        page.goto("about:blank")  # a new fragment alone would not load the page again
        page.goto(app_url + "#schedule=interleaved&P=8&m=16&V=2")
        page.get_by_text("17.95% simulated").first.wait_for(timeout=60_000)
        page.wait_for_function("location.search.includes('schedule=interleaved') && location.search.includes('P=8')",
                               timeout=60_000)


# -- the standalone page under the same URLs ---------------------------------------------


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    import subprocess
    import sys

    path = tmp_path_factory.mktemp("page") / "explorer.html"
    subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], check=True, capture_output=True)
    return path.as_uri()


def generated_urls(n: int, seed: int = 13) -> list[tuple[str, str]]:
    """Queries and fragments built from test_hostile's hostile values and keys,
    percent-encoded as a browser hands them over."""
    import random
    from urllib.parse import quote

    from test_hostile import KEYS, NASTY

    rng = random.Random(seed)
    values = NASTY + ["4", "8", "2", "zb-h1", "interleaved", "article", "drag-v"]

    def part() -> str:
        return "&".join(f"{quote(rng.choice(KEYS), safe='')}={quote(rng.choice(values), safe='')}"
                        for _ in range(rng.randint(0, 6)))

    return [("?" + part(), "#" + part()) for _ in range(n)]


def test_the_page_notes_equal_the_apps_and_nothing_is_injected(page, page_url):
    """120 generated URLs applied in turn, as a retargeted fragment would be: the
    page's notes and state equal the served app's, and no value becomes markup."""
    from pipeviz.served import Explorer

    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_url)
    page.wait_for_function("window.PipevizExplorer && PipevizExplorer.get() && PipevizExplorer.get().result")
    cases = generated_urls(120) + [(f"?P=<img src=x onerror={PWN}>", f"#m=<script>{PWN}</script>"),
                                   ("?schedule=%22%3E%3Csvg%20onload%3Dwindow.__pwned%3D1%3E", "#__proto__=1")]
    got = page.evaluate("""(cases) => cases.map(([q, f]) => { const x = PipevizExplorer.get(); x.applyQuery(q, f);
        return {notes: x.noticeLines.slice(), state: x.state()}; })""", cases)
    app = Explorer()
    for (q, f), g in zip(cases, got):
        app.session.apply_query(q, f)
        assert g["notes"] == app.notice_lines, (q, f)
        assert g["state"] == app.session.state(), (q, f)
    page.wait_for_function("!PipevizExplorer.get().laterPending")
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate(INJECTED) == []
    assert errors == []


# -- zooming brings every op back (view/lod.py), in both explorers ----------------------

ZOOM_JS = """() => { const named = (n) => Bokeh.documents.flatMap((doc) => [doc.get_model_by_name(n)]).filter(Boolean)[0];
    const d = named('ops').data, steps = named('steps').data, r = named('timeline').x_range;
    let max = 0; for (const c of d.count) max = Math.max(max, c);
    let lines = 0; for (const o of d.outline) lines += o;
    // The over-time lines' vertices, and how many of them and of the full view's lie in the view now.
    // Kept at the first look that finds the lines drawn (the served app sends them after the chart).
    if (window.__pvFullSteps === undefined && steps.xs.length > 0) window.__pvFullSteps = steps.xs.map((x) => Array.from(x));
    const count = (lines) => { let n = 0, inside = 0; for (const xs of lines) for (const x of xs) {
        n++; if (x >= r.start && x <= r.end) inside++; } return [n, inside]; };
    const [vertices, inside] = count(steps.xs), [, fullInside] = count(window.__pvFullSteps || []);
    return {boxes: d.left.length, maxCount: max, outlined: lines, vertices: vertices, inside: inside,
            fullInside: fullInside}; }"""
# The in-flight lines at (32,128,8) at every vertex (lod.thin leaves most out at the full view).
LINE_VERTICES = 81_972


CANVASES = """() => { const out = []; const walk = (root) => { for (const el of root.querySelectorAll('*')) {
    if (el.tagName === 'CANVAS') { const b = el.getBoundingClientRect(); out.push([b.x, b.y, b.width, b.height]); }
    if (el.shadowRoot) walk(el.shadowRoot); } }; walk(document); return out; }"""


TIMELINE_BOX = """() => { const tl = Bokeh.documents[0].get_model_by_name('timeline');
    const r = Bokeh.index.find_one(tl).canvas_view.el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"""


def wheel_zoom(page, steps: int) -> None:
    """A reader's zoom: pick the wheel-zoom tool, then scroll over the timeline (found
    through Bokeh: the sweep's chart can be the largest canvas on the page)."""
    page.locator(f"[title='{template('tool.zoom')}']").first.click()  # its name from the strings table (view/teach.py)
    x, y, w, h = page.evaluate(TIMELINE_BOX)
    page.mouse.move(x + w / 2, y + h / 2)
    for _ in range(steps):
        page.mouse.wheel(0, -400)
        page.wait_for_timeout(50)


def test_zooming_the_pages_timeline_levels_it_again(page, page_url):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(page_url + "#schedule=interleaved&P=32&m=128&V=8")
    page.wait_for_function("PipevizExplorer.get() && PipevizExplorer.get().result"
                           " && PipevizExplorer.get().result.config.V === 8")
    full = page.evaluate(ZOOM_JS)
    assert full["maxCount"] > 1 and full["outlined"] == 0 and full["boxes"] < 32 * 1400 / 2
    assert full["vertices"] < LINE_VERTICES / 2
    wheel_zoom(page, 4)
    page.wait_for_function("PipevizExplorer.get().window !== null", timeout=30_000)
    page.wait_for_function(f"({ZOOM_JS})().maxCount === 1", timeout=30_000)
    zoomed = page.evaluate(ZOOM_JS)
    assert zoomed["outlined"] > 0  # single ops wide enough for outlines again
    assert zoomed["inside"] > 1.5 * zoomed["fullInside"] > 0, zoomed  # the lines' detail back too


def test_zooming_the_apps_timeline_levels_it_again(page, app_url):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(app_url + "?schedule=interleaved&P=32&m=128&V=8")
    page.get_by_text("simulated").first.wait_for(timeout=60_000)
    page.wait_for_function(f"({ZOOM_JS})().boxes > 0 && ({ZOOM_JS})().maxCount > 1 && ({ZOOM_JS})().vertices > 0",
                           timeout=60_000)
    assert page.evaluate(ZOOM_JS)["vertices"] < LINE_VERTICES / 2
    wheel_zoom(page, 4)
    page.wait_for_function(f"({ZOOM_JS})().maxCount === 1", timeout=60_000)
    zoomed = page.evaluate(ZOOM_JS)
    assert zoomed["outlined"] > 0
    assert zoomed["inside"] > 1.5 * zoomed["fullInside"] > 0, zoomed  # the lines' detail back too
