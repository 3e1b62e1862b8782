"""The standalone page's closing section, offline in the Debian chromium: drag e_f and
watch the readout and the encoder ops move, flatten the staircase, and open the page
at an encoder and balancing from the command line. What the page draws and writes is
compared with the served app's Python for the same state."""

from __future__ import annotations

import pytest
from browser import open_group, screenshot
from test_page import assert_models_match, build_page, open_page, settled, state, written

from pipeviz import Config, run
from pipeviz.config import Encoder
from pipeviz.order import EB, EF
from pipeviz.served import Explorer
from pipeviz.text import template

pytestmark = pytest.mark.browser


ENCODER_STARTS = """() => { const m = Bokeh.documents[0].get_model_by_name('ops');
    const out = []; m.data.kind.forEach((k, i) => { if (k === KF || k === KB) out.push(m.data.left[i]); });
    return out; }""".replace("KF", str(EF)).replace("KB", str(EB))


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    return build_page(tmp_path_factory.mktemp("page") / "explorer.html")


@pytest.fixture
def errors(page):
    seen = []
    page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def served(st: dict) -> Explorer:
    """The served app at the same state."""
    app = Explorer()
    app.session.update({k: v for k, v in st.items() if getattr(app.session, k) != v})
    app.refresh_later(app.deferred.run)
    return app


def test_dragging_e_f_moves_the_readout_and_the_encoder_ops(page, page_file, errors):
    open_page(page, page_file)
    assert page.evaluate(ENCODER_STARTS) == []
    open_group(page, "group.closing")  # the encoder's and balancing's settings fold under More settings
    handle = page.get_by_role("slider", name=template("field.ef"))
    handle.focus()
    handle.press("ArrowRight")  # e_f 0.5 -> 0.6: the encoder goes into the bubbles
    res = run(Config("1f1b", 4, 8, encoder=Encoder(0.6, 1.0, "bubbles")))
    page.get_by_text(f"makespan {res.metrics.makespan:g} (33 without it)").wait_for()
    page.get_by_text("the encoder now runs in the bubbles").wait_for()
    settled(page)
    st = state(page)
    assert st["encoder"] == "bubbles" and st["ef"] == pytest.approx(0.6)
    enc = (res.order.kind == EF) | (res.order.kind == EB)
    first = page.evaluate(ENCODER_STARTS)
    assert first == pytest.approx(res.timeline.start[enc].tolist())
    assert_models_match(page, st)
    for _ in range(14):  # e_f -> 2.0: the encoder ops move with it
        handle.press("ArrowRight")
    page.wait_for_function("Math.abs(PipevizExplorer.get().state().ef - 2.0) < 1e-9")
    settled(page)
    st = state(page)
    res2 = run(Config("1f1b", 4, 8, encoder=Encoder(st["ef"], 1.0, "bubbles")))
    enc2 = (res2.order.kind == EF) | (res2.order.kind == EB)
    assert page.evaluate(ENCODER_STARTS) == pytest.approx(res2.timeline.start[enc2].tolist())
    assert page.evaluate(ENCODER_STARTS) != first
    assert_models_match(page, st)
    page.wait_for_function("document.querySelector('#pv-places table') !== null")
    app = served(st)
    assert written(page, "pv-closing") == app.closing.object
    assert written(page, "pv-places") == app.places.object
    assert "encoder=bubbles" in page.evaluate("location.hash")
    screenshot(page, "page-encoder-dragged")
    assert errors == []


def test_flatten_the_staircase(page, page_file, errors):
    open_page(page, page_file, "#preset=bpipe")
    page.get_by_text("activation transfers per iteration").wait_for()
    settled(page)
    st = state(page)
    assert (st["P"], st["balance"]) == (8, True)
    assert "rank 0 keeps 5 micro-batches (8 before)" in page.locator("#pv-closing").inner_text()
    assert_models_match(page, st)
    app = served(st)
    assert written(page, "pv-closing") == app.closing.object
    assert written(page, "pv-bars-key") == app.bars_key.object
    open_group(page, "group.closing")
    page.get_by_role("checkbox", name="Balance activations (pair rank r with rank P-1-r)").uncheck()
    page.wait_for_function("PipevizExplorer.get().state().balance === false")
    settled(page)
    assert_models_match(page, state(page))
    assert page.locator("#pv-closing").inner_text().strip() == ""
    screenshot(page, "page-bpipe-off")
    assert errors == []


def test_page_opens_at_an_encoder_and_balancing_from_the_command_line(page, tmp_path, errors):
    path = build_page(tmp_path / "closing.html", "--encoder-f", "0.5", "--encoder-b", "1", "--encoder-place",
                      "separate", "--balance", "bpipe", "-P", "8")
    open_page(page, path)
    settled(page)
    st = state(page)
    assert (st["encoder"], st["ef"], st["eb"], st["balance"], st["P"]) == ("separate", 0.5, 1.0, True, 8)
    res = run(Config("1f1b", 8, 8, encoder=Encoder(0.5, 1.0, "separate"), balance="bpipe"))
    assert f"makespan {res.metrics.makespan:g} ({res.encoder.pipeline_makespan:g} without it)" in \
        page.locator("#pv-closing").inner_text()
    assert_models_match(page, st)
    screenshot(page, "page-cli-encoder")
    assert errors == []
