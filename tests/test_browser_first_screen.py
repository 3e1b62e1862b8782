"""The first screen, in both explorers: a phone (390x844, mobile emulation), the README's
iframe (800x1150, and at a phone's width), a desktop (1400), in both languages. The
readout, the timeline and P, m, V are on the first screen together; nothing overlaps
at any width from 320 to 2560 px; touch targets are 44 px; a notice takes the line under
the bar without moving the chart; an order of one's own shows its edit at one press;
a permalink names only what differs. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from browser import ARTIFACTS
from test_browser_glance import MODEL, app_url, open_view, page_url  # noqa: F401  (fixtures)

from pipeviz.text import template

pytestmark = pytest.mark.browser

EXPLORERS = ["app", "page"]


@pytest.fixture(params=EXPLORERS)
def explorer(request):
    return request.param, request.getfixturevalue(f"{request.param}_url")


def with_lang(base: str, which: str, lang: str) -> str:
    return base + ("?" if which == "app" else "#") + f"lang={lang}"


# Every visible control's box, in the document and in every shadow root.
CONTROLS = """() => {
  const out = [];
  const walk = (root) => {
    root.querySelectorAll('button, select, input, textarea, .noUi-target').forEach((el) => {
      const r = el.getBoundingClientRect(), s = getComputedStyle(el);
      // checkVisibility: a closed <details> keeps its content's boxes (content-visibility: hidden)
      if (r.width > 0 && r.height > 0 && el.checkVisibility() && s.visibility !== 'hidden' &&
          !(el.type === 'radio' || el.type === 'checkbox') &&
          !el.classList.contains('bk-spin-btn'))  // a spinner's arrows are parts of its input
        out.push({what: el.tagName + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' ' +
                  (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30),
                  x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height, tag: el.tagName,
                  cls: String(el.className)});
    });
    root.querySelectorAll('*').forEach((el) => { if (el.shadowRoot) walk(el.shadowRoot); });
  };
  walk(document);
  return out;
}"""


def overlaps(controls: list[dict]) -> list[str]:
    """Pairs of controls whose boxes overlap by more than a pixel each way."""
    out = []
    for i, a in enumerate(controls):
        for b in controls[i + 1:]:
            dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if dx > 1 and dy > 1:
                out.append(f"{a['what']!r} and {b['what']!r}")
    return out


def rect(page, model: str) -> dict:
    """A Bokeh model's view's box on the page."""
    return page.evaluate(f"""() => {{ const v = Bokeh.index.find_one(({MODEL})('{model}'));
        const r = v.el.getBoundingClientRect(); return {{x: r.x, y: r.y + scrollY, w: r.width, h: r.height}}; }}""")


def first_screen(page, height: int) -> dict:
    """Where the readout, the timeline and the P, m, V sliders are, and whether each is
    wholly on the first screen (`height` px tall)."""
    readout = page.locator(".pv-readout").first.bounding_box()
    handles = [page.locator(".noUi-handle").nth(i).bounding_box() for i in range(3)]
    timeline = rect(page, "timeline")
    boxes = {"readout": readout, "timeline": timeline, "P": handles[0], "m": handles[1], "V": handles[2]}
    return {k: b["y"] >= 0 and b["y"] + (b.get("h") or b.get("height")) <= height for k, b in boxes.items()}


SCREENS = [("phone", 390, 844), ("frame", 800, 1150), ("desktop", 1400, 1000)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("screen,width,height", SCREENS, ids=[s[0] for s in SCREENS])
def test_the_readout_timeline_and_sliders_are_on_the_first_screen(device_page, explorer, screen, width, height, lang):
    which, base = explorer
    phone = screen == "phone"
    device = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}
    page = device_page({"width": width, "height": height}, **device)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_view(page, with_lang(base, which, lang), expect="27.27%")
    page.wait_for_function("(w) => document.documentElement.clientWidth === w", arg=width)  # a viewport meta tag
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # no sideways scroll
    assert first_screen(page, height) == dict.fromkeys(("readout", "timeline", "P", "m", "V"), True)
    assert overlaps(page.evaluate(CONTROLS)) == []
    if phone:  # touch targets: the bar's menu and buttons 44 px tall, the slider handles' touch areas 44 px
        for control in page.evaluate(CONTROLS):
            if control["tag"] in ("BUTTON", "SELECT") and control["y"] < 844:
                assert control["h"] >= 44, control
        areas = page.evaluate("""() => { const out = [];
            const walk = (r) => { r.querySelectorAll('.noUi-touch-area').forEach((el) => {
              const b = el.getBoundingClientRect(); if (b.width) out.push([b.width, b.height]); });
              r.querySelectorAll('*').forEach((el) => el.shadowRoot && walk(el.shadowRoot)); };
            walk(document); return out; }""")
        assert len(areas) >= 3 and all(w >= 44 and h >= 44 for w, h in areas), areas
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"first-{which}-{screen}-{lang}.png"))
    assert errors == []


@pytest.mark.parametrize("width", [320, 2560])
def test_nothing_overlaps_at_the_extremes(page, explorer, width):
    which, base = explorer
    page.set_viewport_size({"width": width, "height": 1000})
    open_view(page, base, expect="27.27%")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # The folded groups open too: their widgets must not overlap each other or the charts' controls.
    for title in ("costs.title", "model.title", "own.title", "group.closing", "group.display"):
        page.get_by_role("button", name=template(title), exact=True).first.click()
    page.locator("textarea").first.wait_for()
    page.evaluate("() => window.scrollTo(0, 0)")  # the sticky bar covers what scrolls under it, by design
    page.wait_for_function("() => scrollY === 0")
    assert overlaps(page.evaluate(CONTROLS)) == []


def test_the_readmes_iframe_on_a_phone_shows_the_timeline_first(device_page, explorer, tmp_path):
    which, base = explorer
    host = tmp_path / "course.html"
    host.write_text('<meta name="viewport" content="width=device-width, initial-scale=1">'
                    f'<iframe src="{base}" width="100%" height="1150" style="border:0" '
                    'title="pipeline bubbles explorer"></iframe>')
    page = device_page({"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(host.as_uri())
    frame = page.frames[1] if len(page.frames) > 1 else page.wait_for_event("frameattached")
    frame.locator(".pv-readout").filter(has_text="27.27%").first.wait_for(timeout=30_000)
    frame.wait_for_function(f"() => {{ const t = ({MODEL})('timeline'); return t && t.inner_width > 0; }}")
    top = page.locator("iframe").bounding_box()["y"]
    timeline, bars = rect(frame, "timeline"), rect(frame, "inflight")
    assert top + timeline["y"] + timeline["h"] <= 844  # the timeline inside the first viewport
    assert bars["y"] + bars["h"] <= 1150  # the in-flight bars inside the frame
    sliders = [frame.locator(".noUi-handle").nth(i).bounding_box() for i in range(3)]
    assert all(s["y"] + s["height"] <= 844 for s in sliders)
    page.screenshot(path=str(ARTIFACTS / f"first-{which}-iframe-390.png"))


def test_a_notice_takes_the_line_under_the_bar_without_moving_the_chart(page, explorer):
    which, base = explorer
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_view(page, base, expect="27.27%")
    before = rect(page, "timeline")["y"]
    page.locator(".noUi-handle").nth(2).focus()
    page.locator(".noUi-handle").nth(2).press("ArrowRight")  # V = 2: interleaved, with a note
    page.locator(".pv-notice").filter(has_text="V = 2 runs interleaved 1F1B").first.wait_for()
    page.locator(".pv-readout").filter(has_text="15.79%").first.wait_for()
    assert rect(page, "timeline")["y"] == pytest.approx(before, abs=1)


def test_a_permalink_names_only_what_differs(page, explorer):
    which, base = explorer
    open_view(page, base, expect="27.27%")
    page.locator(".noUi-handle").nth(0).focus()
    page.locator(".noUi-handle").nth(0).press("ArrowRight")  # P = 5
    page.locator(".pv-readout").filter(has_text="33.33%").first.wait_for()
    part = "search" if which == "app" else "hash"
    page.wait_for_function(f"() => location.{part}.endsWith('P=5')")
    assert page.evaluate(f"() => location.{part}") == ("?P=5" if which == "app" else "#P=5")
    # An old link that names every field still opens its view.
    old = "schedule=zb-h1&P=6&m=8&V=1&tf=1&tb=1&tw=1&comm=0&unit=micro-batches&lang=en"
    page.goto(base + ("?" if which == "app" else "#") + old)
    page.locator(".pv-readout").filter(has_text="simulated").first.wait_for(timeout=30_000)
    page.wait_for_function(f"() => location.{part}.includes('schedule=zb-h1')")
    page.wait_for_function(f"() => /^[?#]schedule=zb-h1&P=6$/.test(location.{part})")  # written back as it differs


ORDER = "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1"
EDITED = "0F0 0B0 0F1 0B1\n1F1 1F0 1B0 1B1"


def test_show_my_order_shows_an_edit_at_one_press_and_goes_to_the_top(page, explorer):
    which, base = explorer
    page.set_viewport_size({"width": 1400, "height": 700})
    open_view(page, base, expect="27.27%")
    page.get_by_role("button", name=template("own.title"), exact=True).first.click()
    box = page.locator("textarea").first
    box.fill(ORDER)
    show = page.get_by_role("button", name=template("field.custom"))
    show.click()
    page.locator(".pv-readout").filter(has_text="Your order: P = 2").first.wait_for()
    box.fill(EDITED)  # a new order: a deadlock (rank 1 runs 1F1 before 1F0)
    show.click()  # once
    page.locator(".pv-notice").filter(has_text="deadlock").first.wait_for()
    assert "Your order" in page.locator(".pv-readout").first.inner_text()
    page.wait_for_function("() => scrollY === 0")  # back at the top, where the readout and the notice are
    assert page.locator(".pv-notice").first.bounding_box()["y"] < 700
    page.get_by_role("button", name=template("own.back"), exact=True).click()
    page.locator(".pv-readout").filter(has_text="(P-1)/(m+P-1)").first.wait_for()  # 1F1B again, at the order's P and m
