"""The served explorer in the Debian chromium: what a person sees and does."""

import pytest
from browser import ops_drawn, screenshot, served_app, source_length

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


DEADLOCK = "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1"


def open_order_card(page):
    page.get_by_text("Your own order").first.click()
    page.locator("textarea").first.wait_for()


def test_a_pasted_order_that_deadlocks_shows_its_stuck_ops(page, app_url, errors):
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    open_order_card(page)
    box = page.locator("textarea").first
    box.fill(DEADLOCK)
    box.press("Tab")  # the box sends its text when it loses focus
    page.get_by_role("button", name="Show my order").click()
    wait_for_text(page, "deadlock: rank 0 is stuck at B(mb 0, stage 0), which waits for B(mb 0, stage 1) on rank 1")
    page.wait_for_function("""() => {
        for (const doc of Bokeh.documents) {
            const m = doc.get_model_by_name('stuck_ops');
            if (m && m.data.label && m.data.label.length === 3) return true;
        }
        return false;
    }""")
    assert source_length(page, "ops") == 4  # the ops that ran
    assert "Deadlock" in readout(page)
    screenshot(page, "app-order-deadlock")
    assert errors == []


def test_edit_this_schedule_then_change_it(page, app_url, errors):
    page.goto(app_url + "?schedule=dualpipe-v&P=4&m=10&V=2")
    wait_for_text(page, "DeepSeek's bubble D = (PP/2-1)(F&B+B-3W)")
    open_order_card(page)
    page.get_by_role("button", name="Edit this schedule").click()
    wait_for_text(page, "Your order: P = 4 (its lines), m = 10 (read from it)")
    box = page.locator("textarea").first
    text = box.input_value()
    assert text.splitlines()[0].startswith("0F0 0F1 0F2 0F3 0F4 0F5 0F6 7F0 7I0 7W0")
    box.fill(text.replace("0F1 ", "", 1))  # drop an op: one clear message
    box.press("Tab")
    wait_for_text(page, "0F1 is missing")
    screenshot(page, "app-order-edited")
    assert errors == []


def test_a_long_pasted_order_is_read_whole(page, app_url, errors):
    text = run(Config("interleaved", 8, 32, 4)).order.to_text()
    assert len(text) > 5000  # longer than a text box takes by default
    page.goto(app_url)
    wait_for_text(page, "27.27% simulated")
    open_order_card(page)
    box = page.locator("textarea").first
    box.fill(text)
    box.press("Tab")
    page.get_by_role("button", name="Show my order").click()
    wait_for_text(page, "Your order: P = 8 (its lines), m = 32 (read from it), V = 4 chunks per rank")
    assert ops_drawn(page) == 8 * 32 * 4 * 2  # narrow boxes merge into runs: count them
    assert errors == []
