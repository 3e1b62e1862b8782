"""The served explorer in the Debian chromium: what a person sees and does."""

import pytest
from browser import screenshot, served_app, source_length

from pipeviz import Config, run

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


def readout(page):
    return page.locator(".pv-readout").inner_text()


def wait_for_text(page, text, timeout=20_000):
    page.get_by_text(text).first.wait_for(timeout=timeout)


def test_opens_at_the_article_default(page, app_url, errors):
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    assert "(P-1)/(m+P-1) = 3/11 = 27.27%" in readout(page)
    assert source_length(page, "ops") == 64
    assert source_length(page, "bubbles") == len(run(Config("1f1b", 4, 8)).metrics.bubbles[0])
    screenshot(page, "app-default")
    assert errors == []


def test_keyboard_on_sliders_updates_readout_bars_and_bubbles(page, app_url, errors):
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    bubbles_before = source_length(page, "bubbles")
    p_handle = page.locator(".noUi-handle").nth(0)
    p_handle.focus()
    p_handle.press("ArrowRight")  # P: 4 -> 5
    wait_for_text(page, "33.33% simulated")
    assert "(P-1)/(m+P-1) = 1/3 = 33.33%" in readout(page)
    assert source_length(page, "bars", "rank") == 5
    expected = run(Config("1f1b", 5, 8))
    assert source_length(page, "bubbles") == len(expected.metrics.bubbles[0]) != bubbles_before
    m_handle = page.locator(".noUi-handle").nth(1)
    m_handle.focus()
    m_handle.press("ArrowRight")  # m: 8 -> 9
    wait_for_text(page, "30.77% simulated")  # 4/13
    assert source_length(page, "ops") == 5 * 9 * 2
    assert source_length(page, "bubbles") == len(run(Config("1f1b", 5, 9)).metrics.bubbles[0])
    page.wait_for_function("location.search.includes('P=5&m=9')")  # the URL follows: a permalink
    screenshot(page, "app-after-sliders")
    assert errors == []


def test_url_opens_that_view(page, app_url, errors):
    page.goto(app_url + "?schedule=interleaved&P=8&m=16&V=2")
    wait_for_text(page, "17.95% simulated")
    assert "(P-1)/(mV+P-1) = 7/39 = 17.95%" in readout(page)
    assert source_length(page, "ops") == 8 * 16 * 2 * 2
    assert source_length(page, "bars", "rank") == 8
    screenshot(page, "app-url-interleaved")
    assert errors == []


def test_bad_url_values_show_a_message(page, app_url):
    page.goto(app_url + "?P=abc&m=1000&schedule=nope")
    wait_for_text(page, "P='abc' is not a whole number in 1..32; ignored")
    wait_for_text(page, "clamped to 128")
    wait_for_text(page, "schedule='nope' is not one of gpipe")
    # The clamped m is applied: 1F1B at P=4, m=128.
    wait_for_text(page, f"{100 * 3 / 131:.2f}% simulated")
    screenshot(page, "app-bad-url")


def test_dragging_v_from_the_default_view_moves_to_interleaved(page, app_url, errors):
    """The article's step: "drag V to 2 or 3 and watch the bubble shrink"."""
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    v_handle = page.locator(".noUi-handle").nth(2)
    v_handle.focus()
    v_handle.press("ArrowRight")  # V: 1 -> 2 on 1F1B
    wait_for_text(page, "15.79% simulated")
    assert "(P-1)/(mV+P-1) = 3/19 = 15.79%" in readout(page)
    assert "Not valid" not in page.content()
    wait_for_text(page, "V = 2 runs interleaved 1F1B")
    page.wait_for_function("location.search.includes('schedule=interleaved') && location.search.includes('V=2')")
    screenshot(page, "app-drag-v")
    assert errors == []


def test_fragment_only_url_opens_that_view(page, app_url, errors):
    page.goto(app_url + "#schedule=interleaved&P=8&m=16&V=2")
    wait_for_text(page, "17.95% simulated")
    assert errors == []


def test_chinese(page, app_url, errors):
    page.goto(app_url + "?lang=zh")
    wait_for_text(page, "气泡占比（单次迭代）")
    screenshot(page, "app-zh")
    assert errors == []
