"""Reading at a glance (pipeviz/view/glance.py and its uses in view/columns.py): the
timeline's key, the labels' ink, the in-flight lines, one rank's ops as a table, the
preset the view is, and the controls' names."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_palette import VISION, delta

from pipeviz import NAMES, SCHEDULES, Config, ConfigError, Costs, run
from pipeviz.order import FB
from pipeviz.text import LANGS, template
from pipeviz.view import columns, glance
from pipeviz.view.fields import PRESETS, defaults
from pipeviz.view.palette import RANK_PALETTE, chunk_palette, contrast, label_color, line_style
from pipeviz.view.state import m_start

OWN_V = {name: spec.fixed_V or 2 for name, spec in SCHEDULES.items()}


def result(name, P=4, m=8, V=None, **costs):
    return run(Config(name, P, m, OWN_V[name] if V is None else V, Costs(**costs)))


# -- the timeline's key -----------------------------------------------------------------


def names(res):
    return [item["name"] for item in glance.legend_values(res)["items"]]


def test_the_key_names_what_each_schedule_draws():
    assert names(result("1f1b")) == ["legend.F", "legend.B"]
    assert names(result("gpipe")) == ["legend.F", "legend.B"]
    for split in ("zb-h1", "zb-h2", "zb-v"):
        assert names(result(split)) == ["legend.F", "legend.B_split", "legend.W"]
    html = glance.legend_html(glance.legend_values(result("zb-h1")))
    assert ">forward<" not in html  # words sit after their chips, escaped
    text = re.sub(r"<[^>]+>", " ", html)
    for word in ("forward", "backward: input gradient", "weight gradient", "idle (bubble)", "numbers: micro-batch"):
        assert word in text


def test_one_chip_per_chunk_in_the_boxes_colours():
    res = result("interleaved", P=4, m=8, V=3)
    v = glance.legend_values(res)
    pal = chunk_palette(3)
    assert [c["text"] for c in v["items"][0]["chips"]] == ["F0", "F1", "F2"]
    assert [c["color"] for c in v["items"][1]["chips"]] == pal[8:11]
    assert "0..2: the rank&#x27;s model chunk" in glance.legend_html(v)
    assert [c["text"] for c in glance.legend_values(result("zb-v"))["items"][2]["chips"]] == ["W0", "W1"]


@pytest.mark.parametrize("name", NAMES)
def test_every_chip_reads_at_4_5_to_1(name):
    for V in ({OWN_V[name]} if SCHEDULES[name].fixed_V else {1, 2, 4, 8}):
        for item in glance.legend_values(result(name, V=V, P=4, m=8))["items"]:
            for chip in item["chips"]:
                assert contrast(chip["color"], chip["ink"]) >= 4.5, chip


@pytest.mark.parametrize("lang", LANGS)
def test_the_key_is_in_both_languages(lang):
    html = glance.legend_html(glance.legend_values(result("zb-h1")), lang)
    assert template("legend.W", lang) in html and template("legend.idle", lang) in html


# -- labels in boxes ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_labels_are_black_or_white_as_their_box_needs(name):
    """Each label is inked for the box, or the half of an F&B box, it sits in."""
    res = result(name, P=3, m=6)  # m >= 2P: DualPipe-V's least
    lab = columns.labels(res, 4000.0)
    ops = columns.ops(res)
    halves = columns.fb_halves(res, ops)
    pal = chunk_palette(res.order.chunks_per_rank)
    assert len(lab["text"]) > 0
    for x, y, dark in zip(lab["x"], lab["y"], lab["dark"]):
        boxes = halves if y > np.round(y) else ops  # the lower half of an F&B is its backward's
        i = np.flatnonzero((boxes["left"] < x) & (x < boxes["right"]) & (boxes["top"] < y) & (y < boxes["bottom"]))
        assert len(i) == 1
        box = pal[int(boxes["color"][i[0]])]
        ink = "#000000" if dark == 1.0 else "#ffffff"
        assert ink == label_color(box) and contrast(box, ink) >= 4.5


def test_an_overlapped_box_names_both_its_micro_batches():
    """An F&B box's upper half names its forward's micro-batch, its lower half its backward's."""
    res = result("dualpipe-v", P=3, m=6)
    lab = columns.labels(res, 4000.0)
    fb = np.flatnonzero(res.order.kind == FB)
    assert len(fb) > 0
    for i in fb:
        cx = (res.timeline.start[i] + res.timeline.end[i]) / 2
        here = sorted((round(y - res.order.rank[i], 9), t) for x, y, t in zip(lab["x"], lab["y"], lab["text"])
                      if x == cx and abs(y - res.order.rank[i]) < columns.ROW)
        assert here == [(-columns.ROW / 2, str(res.order.mb[i])), (columns.ROW / 2, str(res.order.mb2[i]))]


# -- the in-flight lines ---------------------------------------------------------------------


def test_lines_emphasise_the_first_and_last_rank_at_large_P():
    small = line_style(4)
    assert set(small["width"]) == {glance.LINE_WIDTH["all"]}
    big = line_style(16)
    thick = np.flatnonzero(big["width"] == big["width"].max())
    assert thick.tolist() == [0, 15]
    assert (big["alpha"][1:15] < 1).all() and (big["alpha"][[0, 15]] == 1).all()
    steps = columns.inflight_steps(result("1f1b", P=16, m=32))
    assert steps["width"].tolist() == big["width"].tolist()
    assert "rank 15" in glance.lines_key_html(16) and "rank 0" in glance.lines_key_html(4)


@given(name=st.sampled_from(NAMES), P=st.integers(1, 12), m=st.integers(1, 24), V=st.integers(1, 3),
       tw=st.sampled_from([0.0, 0.5, 1.0]))
def test_in_flight_lines_have_no_zero_width_dips(name, P, m, V, tw):
    """Simultaneous events are one step: a line never drops and climbs back at one instant."""
    try:
        res = run(Config(name, P, m, SCHEDULES[name].fixed_V or V, Costs(tw=tw)))
    except ConfigError:
        return
    steps = columns.inflight_steps(res)
    for xs in steps["xs"]:
        t = xs[1::2]  # each event's time, once: [0, t1, t1, t2, t2, ...]
        assert (np.diff(t) > 0).all()
        assert (xs[1::2] == xs[2::2][: len(t)]).all() if len(xs) > 2 else True


def test_the_rank_lines_stay_visible_and_apart():
    for color in RANK_PALETTE:
        assert contrast(color, "#ffffff") >= 3, color
    for vision in VISION:
        assert delta(RANK_PALETTE[0], RANK_PALETTE[-1], vision) >= 30, vision


# -- one rank's ops, for the keyboard ------------------------------------------------------------


def test_ops_table_lists_a_ranks_ops_in_order():
    res = result("1f1b")
    v = glance.ops_table_values(res, 3)
    assert v["total"] == 16 and len(v["rows"]) == 16
    first = v["rows"][0]
    assert (first["token"], first["kind"], first["mb"], first["stage"], first["start"], first["idle"]) == (
        "3F0", "F", "0", "3", "3", "3")
    busy = sum(float(r["end"]) - float(r["start"]) for r in v["rows"])
    idle = sum(float(r["idle"]) for r in v["rows"])
    assert busy + idle == pytest.approx(float(v["rows"][-1]["end"]))
    html = glance.ops_table_html(v)
    assert 'tabindex="0"' in html and "Rank 3: 16 ops in execution order" in html and "<caption>" in html
    assert html.count("<tr>") == 17


def test_ops_table_names_chunks_and_caps_its_rows():
    v = glance.ops_table_values(result("zb-v"), 0)
    assert {r["chunk"] for r in v["rows"]} == {"0", "1"} and {r["kind"] for r in v["rows"]} == {"F", "I", "W"}
    big = glance.ops_table_values(result("interleaved", P=2, m=128, V=8), 0, limit=50)
    assert big["total"] == 2048 and len(big["rows"]) == 50
    assert "The first 50 of 2048 ops are listed." in glance.ops_table_html(big)
    assert glance.ops_table_values(result("1f1b"), 99)["rank"] == 3  # clamped to the ranks there are


# -- presets ---------------------------------------------------------------------------------------


def test_the_menu_names_the_preset_the_view_is():
    assert glance.matching_preset(defaults()) == "article"
    for name, p in PRESETS.items():
        assert glance.matching_preset({**defaults(), **p.values}) == name
    assert glance.matching_preset({**defaults(), "P": 5}) is None
    assert glance.matching_preset({**defaults(), "lang": "zh"}) == "article"  # language is not part of a view


# -- the m slider --------------------------------------------------------------------------------


def test_the_m_slider_starts_at_the_smallest_m_the_order_accepts():
    base = defaults()
    assert m_start(base) == 1
    assert m_start({**base, "schedule": "interleaved", "V": 2, "P": 8}) == 1  # below P: PyTorch's order
    assert m_start({**base, "schedule": "dualpipe-v", "V": 2}) == 8  # DeepSeek's m >= 2P
    assert m_start({**base, "schedule": "dualpipe-v", "V": 2, "P": 8}) == 16
    assert m_start({**base, "tf": -1.0}) == 1  # invalid for another reason: the field's low


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_named_control_has_a_name(lang):
    got = glance.control_names(lang)
    assert set(got) == set(glance.NAMED) | {"readout"}
    assert all(v.strip() for v in got.values())
