"""The explorer on the server: parameters in, the engine's numbers out in the data
sources and readouts. No browser here (see test_browser_app.py)."""

import numpy as np
import pytest

from pipeviz import Config, Costs, run
from pipeviz.app import Explorer
from pipeviz.render import data


@pytest.fixture
def app():
    return Explorer()


def sources(app):
    f = app.figures
    return f.ops.data, f.bubbles.data, f.bars.data, f.steps.data


def test_opens_at_the_article_default(app):
    assert (app.schedule, app.P, app.m, app.V) == ("1f1b", 4, 8, 1)
    assert "27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%" in app.readout.object
    assert "agree" in app.readout.object
    ops, bubbles, bars, _ = sources(app)
    res = run(Config("1f1b", 4, 8))
    assert np.array_equal(ops["left"], res.timeline.start) and np.array_equal(ops["right"], res.timeline.end)
    assert len(bubbles["left"]) == len(res.metrics.bubbles[0])
    assert bars["peak"].tolist() == [4, 3, 2, 1]
    assert bars["theory"].tolist() == [4, 3, 2, 1]
    assert app.figures.x_range.end == pytest.approx(33 * 1.01)
    assert not app.notice.visible


def test_changing_parameters_updates_sources_and_readouts(app):
    app.P = 6
    app.m = 12
    res = run(Config("1f1b", 6, 12))
    ops, bubbles, bars, steps = sources(app)
    assert len(ops["left"]) == 6 * 12 * 2
    assert np.array_equal(ops["right"], res.timeline.end)
    assert np.array_equal(bubbles["right"], res.metrics.bubbles[2])
    assert bars["peak"].tolist() == [6, 5, 4, 3, 2, 1]
    assert "29.41% simulated, (P-1)/(m+P-1) = 5/17 = 29.41%" in app.readout.object
    assert app.figures.x_range.end == pytest.approx(res.metrics.makespan * 1.01)
    assert app.figures.y_range.start == 5.5 and app.figures.y_range.end == -0.5
    assert app.figures.timeline.yaxis.ticker.ticks == list(range(6))


@pytest.mark.parametrize("schedule,V,expected", [
    ("interleaved", 2, "15.79% simulated, (P-1)/(mV+P-1) = 3/19 = 15.79%"),
    ("zb-h1", 1, "11.11% simulated"),
    ("zb-v", 2, "5.88% simulated"),
])
def test_every_schedule_reads_out_its_closed_form(app, schedule, V, expected):
    app.param.update(schedule=schedule, V=V)
    assert expected in app.readout.object
    assert len(app.figures.ops.data["left"]) == run(Config(schedule, 4, 8, V)).order.n_ops


def test_split_backward_bars_are_stacked(app):
    app.schedule = "zb-h1"
    bars = app.figures.bars.data
    assert bars["b"].tolist() == [4, 3, 2, 1]  # awaiting B
    assert bars["w_only"].tolist() == [0, 1, 2, 3]  # awaiting W only
    assert app.figures.w_only_renderer.visible


def test_unit_toggle(app):
    app.param.update(schedule="interleaved", P=8, m=16, V=2)
    assert app.figures.bars.data["peak"][0] == 11.5
    app.unit = "chunks"
    assert app.figures.bars.data["peak"].tolist() == [23, 21, 19, 17, 15, 13, 11, 9]


def test_chunks_get_their_own_shade(app):
    app.param.update(schedule="interleaved", V=2)
    ops = app.figures.ops.data
    colors = set(ops["color"].tolist())
    assert colors == {0.0, 1.0, data.MAX_CHUNKS + 0.0, data.MAX_CHUNKS + 1.0}  # F and B, chunks 0 and 1
    palette = app.figures.op_colors.palette
    assert palette[0] != palette[1] and len(set(palette[i] for i in (0, data.MAX_CHUNKS, 2 * data.MAX_CHUNKS))) == 3


def test_switching_to_a_fixed_v_schedule_snaps_v(app):
    app.param.update(schedule="interleaved", V=3)
    app.schedule = "zb-v"
    assert app.V == 2
    assert app.notice.visible and "V set to 2" in app.notice.object
    assert "5.88% simulated" in app.readout.object


@pytest.mark.parametrize("change,fragment", [
    (dict(V=2), "V must be 1"),  # 1f1b with V > 1
    (dict(schedule="interleaved", V=2, m=9), "8 or 10"),  # an m interleaved cannot take
])
def test_invalid_combination_keeps_last_chart_and_says_what_is_valid(app, change, fragment):
    before = app.figures.ops.data["right"].copy()
    readout = app.readout.object
    app.param.update(**change)
    assert app.notice.visible
    assert fragment in app.notice.object.replace("\\", "")
    if "schedule" not in change:
        assert np.array_equal(app.figures.ops.data["right"], before)
        assert app.readout.object == readout
    # ... and the app keeps working once the input is valid again.
    app.param.update(V=1 if "schedule" not in change else 2, m=8)
    assert not app.notice.visible


def test_zb_v_with_other_v_is_refused(app):
    app.schedule = "zb-v"
    app.V = 3
    assert "V must be 2" in app.notice.object


def test_profiled_gpt_preset_explains_difference(app):
    app.apply_preset("gpt")
    assert (app.P, app.m, app.tf, app.tb, app.tw, app.comm) == (8, 24, 18.5, 18.1, 9.3, 0.6)
    res = run(Config("1f1b", 8, 24, 1, Costs(18.5, 18.1, 9.3, 0.6)))
    assert np.array_equal(app.figures.ops.data["right"], res.timeline.end)
    assert "differ" in app.readout.object and "comm = 0.6" in app.readout.object
    app.apply_preset("article")
    assert "3/11" in app.readout.object


def test_comparison_table_has_every_schedule_and_marks_the_current(app):
    html = app.table.object
    for title in ("GPipe", "1F1B", "Interleaved 1F1B (V=2)", "ZB-H1", "ZB-H2", "ZB-V (V=2)"):
        assert title in html
    assert '<tr class="pv-current" data-schedule="1f1b">' in html
    app.schedule = "zb-h2"
    assert '<tr class="pv-current" data-schedule="zb-h2">' in app.table.object


def test_sessions_are_independent():
    a, b = Explorer(), Explorer()
    a.P = 7
    assert b.P == 4 and len(b.figures.ops.data["left"]) == 64
    assert a.figures.ops is not b.figures.ops


def test_steady_state_bubble_is_labelled_where_it_differs(app):
    app.schedule = "zb-h2"
    assert "steady-state bubble" in app.readout.object
    app.schedule = "1f1b"
    assert "steady-state bubble" not in app.readout.object
