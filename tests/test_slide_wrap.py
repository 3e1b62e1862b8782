"""A figure's readout lines wrap to the plot's width instead of running off its edge:
view/teach.py's slide_lines (the CLI's figure, with estimated widths) and its twin in
static/teach_models.js (the download button of both explorers, measured in the browser),
held to each other on every schedule's readout in both languages, and the figure's
height grown by the lines it gained."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeviz import NAMES, SCHEDULES, Config, run
from pipeviz.figure import layout, text_px
from pipeviz.render import teach as render_teach
from pipeviz.render.figures import BORDER_LEFT
from pipeviz.view import teach

ALL_BREAKS = [b for level in teach.SLIDE_BREAKS for b in level]
# Texts made of the readout's own words and every break, as a readout is.
WORDS = st.sampled_from(["1F1B", "P=4", "27.27%", "(P-1)/(m+P-1)", "makespan", "气泡占比", "模拟", "x" * 30])
TEXTS = st.lists(st.one_of(WORDS, st.sampled_from(ALL_BREAKS)), max_size=30).map("".join)


def squeezed(text: str) -> str:
    """The text without what a wrap may drop: the separator's dot and spaces."""
    return text.replace("·", "").replace(" ", "")


def readouts() -> list[str]:
    """Every schedule's figure readout, head and summary, in both languages."""
    out = []
    for name in NAMES:
        V = SCHEDULES[name].fixed_V or 2
        res = run(Config(name, 4, 8, V))
        for lang in ("en", "zh"):
            out += teach.slide_texts(res, lang)
    return out


@given(TEXTS, st.integers(1, 80))
def test_lines_keep_every_word_and_each_fits_unless_it_cannot_break(text, width):
    fits = lambda t: len(t) <= width  # noqa: E731
    lines = teach.slide_lines(text, fits)
    if fits(text):
        assert lines == [text]
        return
    assert squeezed("".join(lines)) == squeezed(text)
    for line in lines:
        assert line == line.rstrip(" ") and not line.endswith(teach.LAYOUT_SEP)
        # A line too wide holds no break left to cut at (one word wider than the plot,
        # with its comma or colon).
        assert fits(line) or not any(b in line[:-1] for b in ALL_BREAKS)


def test_a_line_breaks_between_the_summarys_parts_before_it_breaks_inside_one():
    summary = "simulation and closed form agree · makespan 25.5 · steady-state bubble 0.00%"
    fits = lambda t: len(t) <= 50  # noqa: E731
    assert teach.slide_lines(summary, fits) == ["simulation and closed form agree · makespan 25.5",
                                                "steady-state bubble 0.00%"]
    head = "ZB-V, P=4, m=8, V=2: Bubble (one iteration): 5.88% simulated"
    assert teach.slide_lines(head, lambda t: len(t) <= 45) == ["ZB-V, P=4, m=8, V=2: Bubble (one iteration):",
                                                               "5.88% simulated"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [400, 700, 1200])
def test_the_cli_figure_wraps_its_readout_to_the_plot_and_grows_by_the_lines(width, lang):
    res = run(Config("zb-v", 4, 8, 2))
    tl = layout(res, lang, width=width)
    room = width - BORDER_LEFT - teach.SLIDE_MARGIN_PX
    head = tl.select_one({"name": "slide_readout"}).text.split("\n")
    summary = tl.select_one({"name": "slide_summary"}).text.split("\n")
    assert all(text_px(line, teach.FONTS["title"][0], bold=True) <= room for line in head)
    assert all(text_px(line, teach.FONTS["tick"][0]) <= room for line in summary)
    full_head, full_summary = teach.slide_texts(res, lang)
    assert squeezed("".join(head)) == squeezed(full_head) and squeezed("".join(summary)) == squeezed(full_summary)
    assert tl.height == teach.timeline_height(4, False) + teach.slide_extra(False, len(head), len(summary))
    if width == 400:
        assert len(head) >= 2 and len(summary) >= 2
    if width == 1200:
        assert (head, summary) == ([full_head], [full_summary])


@pytest.mark.browser
def test_the_browsers_wrap_is_the_pythons_on_every_readout(page):
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=render_teach.library())
    texts = readouts()
    widths = [8, 20, 45, 70, 110, 400]
    got = json.loads(page.evaluate(
        """([texts, widths, breaks]) => JSON.stringify(texts.map((t) => widths.map((w) =>
               PipevizTeach.slideLines(t, (s) => s.length <= w, breaks))))""",
        [texts, widths, [list(b) for b in teach.SLIDE_BREAKS]]))
    want = [[teach.slide_lines(t, lambda s, w=w: len(s) <= w) for w in widths] for t in texts]
    assert got == want
