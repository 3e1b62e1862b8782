"""The served explorer's closing section in the Debian chromium: drag e_f and watch
the readout and the encoder ops move; open BPipe from a URL."""

import pytest
from browser import open_group, screenshot, served_app, source_length

from pipeviz import Config, run
from pipeviz.config import Encoder
from pipeviz.order import EB, EF
from pipeviz.text import template

pytestmark = pytest.mark.browser



@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture
def errors(page):
    seen = []
    page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def wait_for_text(page, text, timeout=20_000):
    page.get_by_text(text).first.wait_for(timeout=timeout)


def encoder_starts(page) -> list[float]:
    """Start times of the encoder ops the timeline draws, in source order."""
    return page.evaluate(
        """([ef, eb]) => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name("ops");
                if (m) {
                    const out = [];
                    m.data.kind.forEach((k, i) => { if (k === ef || k === eb) out.push(m.data.left[i]); });
                    return out;
                }
            }
            return null;
        }""",
        [EF, EB],
    )


def expected(ef: float):
    res = run(Config("1f1b", 4, 8, encoder=Encoder(ef, 1.0, "bubbles")))
    enc = (res.order.kind == EF) | (res.order.kind == EB)
    return res, res.timeline.start[enc].tolist()


def test_dragging_e_f_moves_the_readout_and_the_encoder_ops(page, app_url, errors):
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    assert encoder_starts(page) == []
    open_group(page, "group.closing")  # the encoder's and balancing's settings fold under More settings
    handle = page.get_by_role("slider", name=template("field.ef"))
    handle.focus()
    handle.press("ArrowRight")  # e_f 0.5 -> 0.6: the encoder goes into the bubbles
    res, starts = expected(0.6)
    wait_for_text(page, f"makespan {res.metrics.makespan:g} (33 without it)")
    wait_for_text(page, "the encoder now runs in the bubbles")
    assert source_length(page, "ops") == 64 + 16
    assert encoder_starts(page) == pytest.approx(starts)
    for _ in range(14):  # e_f -> 2.0: the encoder ops move with it
        handle.press("ArrowRight")
    res2, starts2 = expected(2.0)
    wait_for_text(page, f"makespan {res2.metrics.makespan:g} (33 without it)")
    page.wait_for_function("location.search.includes('encoder=bubbles') && location.search.includes('ef=2')")
    assert encoder_starts(page) == pytest.approx(starts2) and starts2 != starts
    # The three placements, compared at these settings.
    wait_for_text(page, "The three placements at these settings")
    table = page.locator(".pv-table").first.inner_text()
    for place in ("stage0", "separate", "bubbles"):
        e = run(Config("1f1b", 4, 8, encoder=Encoder(2.0, 1.0, place))).encoder
        assert f"{e.makespan:g}" in table
    screenshot(page, "app-encoder-dragged")
    assert errors == []


def test_balance_from_a_url(page, app_url, errors):
    page.goto(app_url + "?preset=bpipe")
    wait_for_text(page, "activation transfers per iteration")
    assert "rank 0 keeps 5 micro-batches (8 before)" in page.locator(".pv-closing").inner_text()
    page.wait_for_function(
        """() => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name("bars");
                if (m) return m.data.before.length === 8 && m.data.before[0] === 8 && m.data.peak[0] === 5;
            }
            return false;
        }""")
    page.wait_for_function(  # figure titles are drawn on the canvas: read the model
        """() => Bokeh.documents.some(d => (d.get_model_by_name("inflight_title") || {}).text
                                          === "Peak resident, balanced (BPipe)")""")
    screenshot(page, "app-bpipe")
    # The switch is a checkbox with a name; unticking it brings the staircase back.
    open_group(page, "group.closing")
    box = page.get_by_role("checkbox", name="Balance activations (pair rank r with rank P-1-r)")
    assert box.is_checked()
    box.uncheck()
    # The URL names what differs from the defaults: balancing off is the default.
    page.wait_for_function("location.search.length > 1 && !/balance=|preset=bpipe/.test(location.search)")
    assert page.locator(".pv-closing").count() == 0 or not page.locator(".pv-closing").is_visible()
    page.get_by_role("checkbox", name="frozen encoder (no backward)").check()  # turns the encoder on, frozen
    page.get_by_text("the encoder now runs in the bubbles").wait_for()
    page.wait_for_function("location.search.includes('frozen=1') && location.search.includes('encoder=bubbles')")
    assert errors == []
