"""The served explorer's closing section (no browser): the encoder in the bubbles and
activation balancing, from the fields to the sources and readouts."""

import numpy as np
import panel as pn
import pytest

from pipeviz import Config, run
from pipeviz.config import Encoder
from pipeviz.order import EB, EF
from pipeviz.served import Explorer
from pipeviz.view.fields import parse
from pipeviz.view.palette import DISPLAY_KIND, MAX_CHUNKS


@pytest.fixture
def app():
    return Explorer()


def test_opens_without_encoder_or_balancing(app):
    assert app.session.encoder == "none" and not app.session.balance
    assert not app.closing.visible and not app.places.visible
    bars = app.figures.sources["bars"].data
    assert np.array_equal(bars["before"], bars["peak"]) and not app.figures.models["before_bars"].visible
    assert app.figures.sources["steps_before"].data["xs"] == []


def test_encoder_preset_draws_encoder_ops_and_reads_out_the_three_placements(app):
    app.session.apply_preset("encoder")
    res = run(Config("1f1b", 4, 8, encoder=Encoder(0.5, 1.0, "bubbles")))
    ops = app.figures.sources["ops"].data
    assert len(ops["left"]) == 64 + 16
    assert np.array_equal(ops["left"], res.timeline.start)
    enc = np.isin(ops["kind"], (EF, EB))
    assert enc.sum() == 16 and (ops["color"][enc] == DISPLAY_KIND[EF] * MAX_CHUNKS).all()
    # The bubbles they fill shrink: fewer idle units on the chart.
    idle = app.figures.sources["bubbles"].data
    assert (idle["right"] - idle["left"]).sum() == pytest.approx(4 * 34.5 - 4 * 24 - 8 * 1.5)
    text = app.closing.object
    assert app.closing.visible and "makespan <b>34.5</b> (33 without it)" in text
    assert "exposed encoder time <b>1.5</b>" in text and "encoder work hidden <b>50.00%</b>" in text
    assert "bubble filled <b>16.67%</b>" in text and "4 of 4 forwards and 4 of 4 backwards" in text
    table = app.places.object
    for place, makespan in (("stage0", "40.5"), ("separate", "36"), ("bubbles", "34.5")):
        assert f'data-place="{place}"><td>' in table.replace(' class="pv-current" aria-current="true"', "")
        assert f"<td>{makespan}</td>" in table
    assert 'aria-current="true" data-place="bubbles"' in table


def test_dragging_e_f_turns_the_encoder_on_and_moves_its_ops(app):
    app.session.ef = 0.5
    assert app.session.encoder == "none"  # the default value: nothing moved
    app.session.ef = 1.0
    assert app.session.encoder == "bubbles" and "the encoder now runs in the bubbles" in app.notice_lines[0]
    first = app.figures.sources["ops"].data["right"].copy()
    app.session.ef = 2.0
    after = app.figures.sources["ops"].data
    res = run(Config("1f1b", 4, 8, encoder=Encoder(2.0, 1.0, "bubbles")))
    assert np.array_equal(after["right"], res.timeline.end) and not np.array_equal(after["right"], first)
    assert f"makespan <b>{res.metrics.makespan:g}</b>" in app.closing.object


def test_placement_and_frozen(app):
    app.session.param.update(encoder="separate", ef=0.5, eb=1.0)
    assert "makespan <b>36</b>" in app.closing.object
    app.session.frozen = True
    assert "makespan <b>34</b>" in app.closing.object
    assert (app.figures.sources["ops"].data["kind"] == EB).sum() == 0
    app.session.encoder = "none"
    assert not app.closing.visible and not app.places.visible


def test_balance_shows_resident_with_the_before_marked(app):
    app.session.apply_preset("bpipe")
    bars = app.figures.sources["bars"].data
    assert bars["peak"].tolist() == [5, 5, 5, 5, 4, 4, 4, 4]
    assert bars["before"].tolist() == [8, 7, 6, 5, 4, 3, 2, 1]
    assert bars["theory"].tolist() == [8, 7, 6, 5, 4, 3, 2, 1]
    res = run(Config("1f1b", 8, 8, balance="bpipe"))
    steps = app.figures.sources["steps"].data
    assert max(y.max() for y in steps["ys"]) == 5  # resident, no rank above its target
    before = app.figures.sources["steps_before"].data
    assert len(before["xs"]) == 8 and max(y.max() for y in before["ys"]) == 8
    assert np.array_equal(app.figures.sources["ops"].data["left"], res.timeline.start)  # timeline unchanged
    assert "18</b> activation transfers per iteration" in app.closing.object
    assert "rank 0 keeps <b>5</b> micro-batches (8 before)" in app.closing.object
    assert app.figures.models["inflight_title"].text == "Peak resident, balanced (BPipe)"
    assert "resident after balancing" in app.bars_key.object
    assert app.figures.models["before_bars"].visible
    app.session.balance = False
    assert not app.figures.models["before_bars"].visible
    assert app.figures.models["inflight_title"].text == "Peak in-flight activations"


def test_zero_bubble_v_has_nothing_to_move(app):
    app.session.param.update(schedule="zb-v", V=2, balance=True)
    assert "nothing to move" in app.closing.object


def test_url_carries_the_closing_fields(app):
    updates, notes = parse("?encoder=separate&ef=0.5&eb=1&frozen=1&balance=1")
    assert notes == [] and updates == {"encoder": "separate", "ef": 0.5, "eb": 1.0, "frozen": True, "balance": True}
    app.session.apply_query("?encoder=stage0&ef=0.5&eb=1")
    assert "makespan <b>40.5</b>" in app.closing.object
    updates, notes = parse("?encoder=middle&ef=999")
    assert updates == {"ef": 50.0}
    assert [n.text() for n in notes] == ["URL: encoder='middle' is not one of none, stage0, separate, bubbles; ignored",
                                         "URL: ef=999 is outside 0.1..50; clamped to 50"]


def test_chinese(app):
    app.session.param.update(encoder="bubbles", balance=True, lang="zh")
    assert "编码器（塞进气泡）" in app.closing.object and "均衡后（BPipe）" in app.closing.object
    assert "三种放置方式" in app.places.object


def test_switches_follow_their_fields_both_ways(app):
    """Boolean fields are one-box CheckBoxGroups (a Checkbox's text names nothing)."""
    controls = app.controls.column(app.session.lang)
    boxes = [w for w in controls.select(pn.widgets.CheckBoxGroup)]
    by_label = {w.options[0]: w for w in boxes}
    balance = by_label["Balance activations (pair rank r with rank P-1-r)"]
    frozen = by_label["frozen encoder (no backward)"]
    app.session.balance = True
    assert balance.value == [balance.options[0]]
    frozen.value = [frozen.options[0]]
    assert app.session.frozen and app.session.encoder == "bubbles"  # the rule turned the encoder on
    balance.value = []
    assert not app.session.balance
    app.session.lang = "zh"  # the controls are rebuilt; the old boxes no longer follow
    app.controls.column(app.session.lang)
    app.session.frozen = False
    assert frozen.value == [frozen.options[0]]


@pytest.mark.parametrize("place", ["stage0", "separate", "bubbles"])
def test_the_tables_current_row_is_the_chart_with_its_encoder(place):
    """The comparison table runs every schedule with the current encoder, so the
    highlighted row's bubble is the readout's, not the pipeline's alone."""
    from pipeviz.view.readouts import pct, table_values

    cfg = Config("zb-h1", 4, 8, encoder=Encoder(0.5, 1.0, place))
    rows = table_values(cfg, run)
    current = next(r for r in rows if r["current"])
    assert current["sim"] == pct(run(cfg).metrics.bubble_fraction) != pct(run(cfg.replace(encoder=None)).metrics.bubble_fraction)
