"""The standalone page with a model, from file:// in the Debian chromium with the
network blocked: a reader picks a preset and a budget and sees the tight rank
flagged, and what the page's Bokeh models hold equals the served app's figures."""

from __future__ import annotations

import json

import pytest
from browser import screenshot
from test_page import READ_MODELS, notice_lines, offline, open_page, page_file, settled, state  # noqa: F401 (fixtures)

from pipeviz import run
from pipeviz.memory import Memory
from pipeviz.render.figures import SOURCES, Figures
from pipeviz.view import memory_view
from pipeviz.view.columns import figure_view
from pipeviz.view.state import config as state_config

pytestmark = pytest.mark.browser


def python_models(st: dict, px: float) -> tuple[dict, dict]:
    """What the served app's figures hold for state `st`, its memory included."""
    res = run(state_config(st))
    mem = memory_view.memory_of(res, st)
    view = figure_view(res, st["unit"], st["lang"], px, mem if isinstance(mem, Memory) else None, st["over_time_unit"])
    figs = Figures()
    figs.apply(view)
    sources = {name: {k: list(v) if not isinstance(v, list) else v for k, v in src.data.items()}
               for name, src in figs.sources.items()}
    props = {name: {a: getattr(figs.models[name], a) for a in attrs} for name, attrs in view["props"].items()}
    as_json = lambda v: json.loads(json.dumps(v, default=lambda x: x.tolist()))  # noqa: E731
    return as_json(sources), as_json(props), view


def assert_models_match(page, st: dict):
    settled(page)
    _, _, view = python_models(st, 816.0)
    prop_names = {name: list(attrs) for name, attrs in view["props"].items()}
    got = page.evaluate(READ_MODELS, [prop_names])
    sources, props, _ = python_models(st, float(got["px"]))
    for name in SOURCES:
        assert set(got["sources"][name]) == set(sources[name]), name
        for col, values in sources[name].items():
            assert got["sources"][name][col] == values, f"{name}.{col}"
    assert got["props"] == props


def source(page, name: str, column: str):
    return page.evaluate("([n, c]) => Array.from(Bokeh.documents[0].get_model_by_name(n).data[c])", [name, column])


def test_pick_a_preset_and_a_budget_and_see_the_tight_rank(page, page_file, offline):  # noqa: F811
    open_page(page, page_file)
    assert page.locator("#pv-memory-readout").is_hidden()
    page.get_by_role("button", name="Model and memory").click()
    page.get_by_label("Model", exact=True).select_option(label="GPT-3 6.7B")
    # P=4: 8 layers a rank, the embedding on rank 0; 1F1B holds 4 micro-batches there.
    page.locator("#pv-memory-readout").get_by_text("tightest rank 0: 55.57 GiB of 80 GiB").wait_for()
    hbm = page.get_by_label("HBM per GPU (GiB)")
    hbm.fill("40")
    hbm.press("Enter")
    flagged = page.locator("#pv-memory-readout .pv-over")
    flagged.wait_for()
    assert flagged.inner_text() == "Does not fit: 2 rank(s) over 40 GiB: rank 0 by 15.57 GiB, rank 1 by 5.38 GiB"
    settled(page)
    assert source(page, "memory_over", "text") == ["+15.57 GiB over", "+5.38 GiB over"]
    assert page.evaluate("Bokeh.documents[0].get_model_by_name('hbm_line').location") == 40
    assert page.evaluate("Bokeh.documents[0].get_model_by_name('memory').visible")
    assert "does not fit" in page.locator("#pv-table tr.pv-nofit").first.inner_text()
    st = state(page)
    assert (st["model"], st["hbm"]) == ("gpt3-6.7b", 40)
    assert "model=gpt3-6.7b" in page.evaluate("location.hash") and "hbm=40" in page.evaluate("location.hash")
    assert_models_match(page, st)
    page.locator("#pv-memory-readout").scroll_into_view_if_needed()
    screenshot(page, "page-memory-over-budget")
    assert offline["errors"] == []


@pytest.mark.parametrize("fragment", [
    "#P=8&model=llama2-7b&act=flash&hbm=20&over_time_unit=GiB",
    "#schedule=zb-v&P=4&m=8&V=2&model=llama2-13b&act=flash&hbm=64&lang=zh&unit=chunks",
    "#P=3&m=6&model=gpt3-6.7b&embed=2&head=3&comm=0.5",
    "#schedule=zb-h1&model=custom&L=10&h=1024&a=16&vocab=1000&stages=list&weights=1.3,1,1,1.2&over_time_unit=GiB",
])
def test_drawn_memory_models_equal_the_served_apps(page, page_file, offline, fragment):  # noqa: F811
    open_page(page, page_file, fragment)
    st = state(page)
    assert st["model"] != "none"
    assert_models_match(page, st)
    assert offline["errors"] == []


def test_a_typed_weights_error_warns_and_keeps_the_view(page, page_file, offline):  # noqa: F811
    open_page(page, page_file, "#stages=list&weights=1.3,1,1,1.2")
    assert "where the bubble comes from" in page.locator("#pv-readout").inner_text()
    page.get_by_role("button", name="Model and memory").click()
    box = page.get_by_label("stage weights, one per stage (e.g. 1.3, 1, 1, 1.2)")
    box.fill("1.3, <b>x</b>")
    box.press("Enter")
    page.locator("#pv-notice").get_by_text("'<b>x</b>' is not a number").wait_for()
    assert page.evaluate("PipevizExplorer.get().result.config.stageWeights") == [1.3, 1, 1, 1.2]
    assert "weights=1.3,1,1,1.2" in page.evaluate("location.hash")  # an invalid state stays out of the URL
    assert page.locator("#pv-notice b").count() == 0  # shown as text, never markup


def test_an_emptied_hbm_warns_and_stays_out_of_the_url(page, page_file, offline):  # noqa: F811
    """An emptied HBM field (Bokeh sets null) is a warning, as an emptied cost is: the
    memory view and the URL keep the last valid state."""
    open_page(page, page_file, "#model=gpt3-6.7b&hbm=40")
    before = page.evaluate("location.hash")
    page.evaluate("Bokeh.documents[0].get_model_by_name('hbm').value = null")
    page.wait_for_function("document.querySelectorAll('#pv-notice p').length === 1")
    assert notice_lines(page) == ["Not valid: HBM per GPU must be a number of GiB in 1..4096, got None. "
                                  "The chart still shows 1f1b with P=4, m=8, V=1."]
    settled(page)
    assert page.evaluate("location.hash") == before
    assert page.locator("#pv-memory-readout .pv-over").inner_text().startswith("Does not fit: 2 rank(s) over 40 GiB")
    page.evaluate("Bokeh.documents[0].get_model_by_name('hbm').value = 64")
    page.wait_for_function("document.querySelectorAll('#pv-notice p').length === 0")
    settled(page)
    assert "hbm=64" in page.evaluate("location.hash")
    assert offline["errors"] == []
