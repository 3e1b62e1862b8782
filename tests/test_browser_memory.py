"""The served explorer in the Debian chromium: a person picks a model preset and an
HBM budget, and sees the tight rank flagged."""

import pytest
from browser import open_group, screenshot, served_app, source_length

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


def source_column(page, name: str, column: str):
    return page.evaluate(
        """([name, column]) => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name(name);
                if (m) return Array.from(m.data[column]);
            }
            return null;
        }""",
        [name, column],
    )


def model_prop(page, name: str, prop: str):
    return page.evaluate(
        """([name, prop]) => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name(name);
                if (m) return m[prop];
            }
            return null;
        }""",
        [name, prop],
    )


def test_pick_a_preset_and_a_budget_and_see_the_tight_rank(page, app_url):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(app_url)
    page.get_by_text("27.27% simulated").first.wait_for(timeout=30_000)
    assert not model_prop(page, "memory", "visible")
    open_group(page, "model.title")  # the model's settings fold under More settings
    page.get_by_label("Model", exact=True).select_option(label="GPT-3 6.7B")
    # P=4: each rank holds 8 layers; rank 0 also the embedding. 1F1B holds 4 micro-batches
    # of 8 layers at 912 MiB on rank 0: 28.5 GiB of activations, 55.57 GiB in all.
    page.get_by_text("tightest rank 0: 55.57 GiB of 80 GiB").wait_for(timeout=20_000)
    assert model_prop(page, "memory", "visible")
    assert source_length(page, "memory_bars", "rank") == 4
    assert source_length(page, "memory_over", "rank") == 0
    hbm = page.get_by_label("HBM per GPU (GiB)")
    hbm.fill("40")
    hbm.press("Enter")
    flagged = page.locator(".pv-over")
    flagged.get_by_text("rank 0 by 15.57 GiB").wait_for(timeout=20_000)
    assert "Does not fit: 2 rank(s) over 40 GiB: rank 0 by 15.57 GiB, rank 1 by 5.38 GiB" in flagged.inner_text()
    assert "tightest rank 0: 55.57 GiB, over the 40 GiB of HBM" in page.locator(".pv-memory-readout").inner_text()
    # On the chart: the excess of ranks 0 and 1 hatched and labelled, the HBM line at 40.
    page.wait_for_function("""() => {
        for (const doc of Bokeh.documents) {
            const m = doc.get_model_by_name('memory_over');
            if (m) return m.data.rank.length === 2;
        }
        return false;
    }""", timeout=20_000)
    assert source_column(page, "memory_over", "text") == ["+15.57 GiB over", "+5.38 GiB over"]
    assert model_prop(page, "hbm_line", "location") == 40
    # The table greys out what does not fit, in words as well.
    assert "does not fit" in page.locator(".pv-table tr.pv-nofit").first.inner_text()
    page.wait_for_function("location.search.includes('model=gpt3-6.7b') && location.search.includes('hbm=40')")
    page.locator(".pv-memory-readout").scroll_into_view_if_needed()
    screenshot(page, "app-memory-over-budget")
    assert errors == []


def test_url_opens_a_model_view(page, app_url):
    page.goto(app_url + "?P=8&model=llama2-7b&act=flash&hbm=20&over_time_unit=GiB")
    page.get_by_text("rank 0 by 2.46 GiB").wait_for(timeout=30_000)
    assert model_prop(page, "over_time_hbm", "visible")
    assert model_prop(page, "over_time_yaxis", "axis_label") == "GiB held"
