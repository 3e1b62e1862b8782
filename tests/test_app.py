"""The explorer on the server: parameters in, the engine's numbers out in the data
sources and readouts. No browser here (see test_browser_app.py)."""

from pathlib import Path

import numpy as np
import pytest

from pipeviz import NAMES, Config, Costs, run
from pipeviz.served import Explorer
from pipeviz.view import teach, tradeoff
from pipeviz.view.palette import MAX_CHUNKS
from pipeviz.view.state import row_config


@pytest.fixture
def app():
    return Explorer()


def sources(app):
    s = app.figures.sources
    return s["ops"].data, s["bubbles"].data, s["bars"].data, s["steps"].data


def test_opens_at_the_article_default(app):
    assert (app.session.schedule, app.session.P, app.session.m, app.session.V) == ("1f1b", 4, 8, 1)
    assert "27.27% simulated</b>, (P-1)/(m+P-1) = 3/11 = 27.27%" in app.readout.object
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
    app.session.P = 6
    app.session.m = 12
    res = run(Config("1f1b", 6, 12))
    ops, bubbles, bars, steps = sources(app)
    assert len(ops["left"]) == 6 * 12 * 2
    assert np.array_equal(ops["right"], res.timeline.end)
    assert np.array_equal(bubbles["right"], res.metrics.bubbles[2])
    assert bars["peak"].tolist() == [6, 5, 4, 3, 2, 1]
    assert "29.41% simulated</b>, (P-1)/(m+P-1) = 5/17 = 29.41%" in app.readout.object
    assert app.figures.x_range.end == pytest.approx(res.metrics.makespan * 1.01)
    assert app.figures.y_range.start == 5.5 and app.figures.y_range.end == -0.5
    assert app.figures.models["rank_ticker"].ticks == list(range(6))


@pytest.mark.parametrize("schedule,V,expected", [
    ("interleaved", 2, "15.79% simulated</b>, (P-1)/(mV+P-1) = 3/19 = 15.79%"),
    ("zb-h1", 1, "11.11% simulated"),
    ("zb-v", 2, "5.88% simulated"),
])
def test_every_schedule_reads_out_its_closed_form(app, schedule, V, expected):
    app.session.param.update(schedule=schedule, V=V)
    assert expected in app.readout.object
    assert len(app.figures.sources["ops"].data["left"]) == run(Config(schedule, 4, 8, V)).order.n_ops


def test_split_backward_bars_are_stacked(app):
    app.session.schedule = "zb-h1"
    bars = app.figures.sources["bars"].data
    assert bars["b"].tolist() == [4, 3, 2, 1]  # awaiting B
    assert bars["w_only"].tolist() == [0, 1, 2, 3]  # awaiting W only
    assert app.figures.models["w_only"].visible


def test_unit_toggle_redraws_without_running_the_engine(app, monkeypatch):
    app.session.param.update(schedule="interleaved", P=8, m=16, V=2)
    assert app.figures.sources["bars"].data["peak"][0] == 11.5
    import pipeviz.served.session as module
    monkeypatch.setattr(module, "run_cached", lambda cfg: pytest.fail("the engine ran for a unit change"))
    app.session.unit = "chunks"
    assert app.figures.sources["bars"].data["peak"].tolist() == [23, 21, 19, 17, 15, 13, 11, 9]


def test_chunks_get_their_own_shade(app):
    app.session.param.update(schedule="interleaved", V=2)
    colors = set(app.figures.sources["ops"].data["color"].tolist())
    assert colors == {0.0, 1.0, MAX_CHUNKS + 0.0, MAX_CHUNKS + 1.0}  # F and B, chunks 0 and 1
    palette = app.figures.op_colors.palette
    assert palette[0] != palette[1] and len({palette[i] for i in (0, MAX_CHUNKS, 2 * MAX_CHUNKS)}) == 3


def test_switching_to_a_fixed_v_schedule_snaps_v_and_refreshes_once(app, monkeypatch):
    app.session.param.update(schedule="interleaved", V=3)
    before = app.session.revision  # a view redraws once per revision
    app.session.schedule = "zb-v"
    assert app.session.revision == before + 1
    assert app.session.V == 2
    assert app.notice.visible and "V set to 2" in app.notice.object
    assert "5.88% simulated" in app.readout.object


def test_v_above_one_on_1f1b_moves_to_interleaved(app):
    """The article's step: drag V to 2 from the default view."""
    app.session.V = 2
    assert (app.session.schedule, app.session.V) == ("interleaved", 2)
    assert "15.79% simulated</b>, (P-1)/(mV+P-1) = 3/19 = 15.79%" in app.readout.object
    assert "Not valid" not in app.notice.object
    assert "V = 2 runs interleaved 1F1B" in app.notice.object
    app.session.V = 1  # back: interleaved at V = 1 is 1F1B, and says so
    assert app.session.schedule == "interleaved"
    assert "27.27% simulated" in app.readout.object
    assert "these are 1F1B&#x27;s order and numbers" in app.notice.object


def test_gpipe_keeps_v_one(app):
    app.session.schedule = "gpipe"
    app.session.V = 3
    assert app.session.V == 1 and "V stays 1" in app.notice.object


def test_interleaved_below_p_shows_pytorchs_order_and_says_so(app):
    app.session.param.update(schedule="interleaved", V=2)
    app.session.m = 3  # below P = 4: Megatron-core refuses, PyTorch runs one round
    assert app.session.m == 3
    assert "PyTorch&#x27;s order (ScheduleInterleaved1F1B: one round of all m = 3 micro-batches)" in app.readout.object
    res = run(Config("interleaved", 4, 3, 2))
    assert np.array_equal(app.figures.sources["ops"].data["right"], res.timeline.end)
    app.session.m = 4
    assert "PyTorch" not in app.readout.object


def test_notes_go_at_the_next_change(app):
    app.session.V = 2
    assert app.notice.visible
    app.session.m = 12
    assert not app.notice.visible


def test_profiled_gpt_preset_explains_difference(app):
    app.session.apply_preset("gpt")
    s = app.session
    assert (s.P, s.m, s.tf, s.tb, s.tw, s.comm) == (8, 24, 18.5, 18.1, 9.3, 0.6)
    res = run(Config("1f1b", 8, 24, 1, Costs(18.5, 18.1, 9.3, 0.6)))
    assert np.array_equal(app.figures.sources["ops"].data["right"], res.timeline.end)
    assert "differ" in app.readout.object and "comm = 0.6" in app.readout.object
    app.session.apply_preset("article")
    assert "3/11" in app.readout.object


def test_comparison_table_has_every_schedule_and_marks_the_current(app):
    html = app.table.object
    for title in ("GPipe", "1F1B", "Interleaved 1F1B", "ZB-H1", "ZB-H2", "ZB-V (V=2)"):
        assert title in html
    assert '<tr class="pv-current" aria-current="true" data-schedule="1f1b">' in html
    app.session.schedule = "zb-h2"
    assert '<tr class="pv-current" aria-current="true" data-schedule="zb-h2">' in app.table.object


def test_table_rows_use_the_current_v():
    app = Explorer(schedule="interleaved", V=1)
    # At V = 1 interleaved 1F1B is 1F1B: its row is interleaved at its least V, what a reader means by it.
    assert "Interleaved 1F1B (V=2)" in app.table.object
    app.session.V = 3
    assert "Interleaved 1F1B (V=3)" in app.table.object


def test_choosing_interleaved_at_v1_moves_v_to_2():
    app = Explorer()
    app.session.schedule = "interleaved"
    assert app.session.V == 2 and "V set to 2" in app.notice.object
    assert "15.79% simulated" in app.readout.object


def test_sessions_are_independent():
    a, b = Explorer(), Explorer()
    a.session.P = 7
    assert b.session.P == 4 and len(b.figures.sources["ops"].data["left"]) == 64
    assert a.figures.sources["ops"] is not b.figures.sources["ops"]


def test_steady_state_bubble_is_labelled_where_it_differs(app):
    app.session.schedule = "zb-h2"
    assert "steady-state bubble" in app.readout.object
    app.session.schedule = "1f1b"
    assert "steady-state bubble" not in app.readout.object


def test_url_values_are_notes_in_plain_text(app):
    app.session.apply_query("?schedule=http://3232235777/login&P=~~struck~~&m=<b>9</b>")
    html = app.notice.object
    assert "<b>9</b>" not in html and "&lt;b&gt;9&lt;/b&gt;" in html
    assert "<a" not in html and "<del" not in html and "<s>" not in html
    assert "~~struck~~" in html


def test_chinese_readout(app):
    app.session.lang = "zh"
    assert "气泡占比（单次迭代）" in app.readout.object
    assert "模拟 27.27%" in app.readout.object


def test_live_slider_skips_panels_debounce():
    """The sliders rely on Panel's private `_priority_changes` (pipeviz/compat.py
    `prompt`): a change listed there is scheduled at once, any other waits `_debounce`
    ms. Pin that Panel still does so."""
    import inspect

    from panel.reactive import Syncable

    from pipeviz.served.controls import IntSlider

    source = inspect.getsource(Syncable._server_change)
    assert "self._priority_changes" in source and "self._debounce" in source
    assert IntSlider._priority_changes == ["value"]


def test_panel_reads_the_query_without_converting_it():
    """Panel's Location parses the query through `parse_query` in its own module;
    pipeviz replaces it there with a reader that keeps strings (no int('²'), no
    literal_eval of user text)."""
    from panel.io.location import Location

    from pipeviz import compat

    compat.raw_location_query()  # what the explorer's URL sync installs (served/location.py)
    loc = Location(search="?P=%C2%B2&m=%E2%91%A0&x=[1,2]&y={'a':1}")
    assert loc.query_params == {"P": "²", "m": "①", "x": "[1,2]", "y": "{'a':1}"}


def test_an_invalid_state_keeps_its_warning_and_stays_out_of_the_url(app, monkeypatch):
    """Widgets cannot reach an invalid state today (their ranges keep it valid), but
    the rule holds whatever the engine refuses: the warning stays until a change the
    engine accepts, a unit or language change redraws the last valid chart under it,
    and the URL never takes the invalid state."""
    import pipeviz.served.session as module
    from pipeviz.errors import ConfigError

    real = module.run_cached

    def refuse_p5(cfg):
        if cfg.P == 5:
            raise ConfigError("config.low", name="P", low=6, value=5)
        return real(cfg)

    monkeypatch.setattr(module, "run_cached", refuse_p5)
    written = []
    monkeypatch.setattr(app.url, "ready", True)

    class Location:
        search, hash = "", ""

        class param:
            @staticmethod
            def update(**kw):
                written.append(kw)

    monkeypatch.setattr(app.url, "location", Location)  # the session's own, as UrlSync keeps it
    app.session.P = 5
    assert app.notice_lines[0].startswith("Not valid: P must be at least 6, got 5.")
    assert app.notice_lines[0].endswith("The chart still shows 1f1b with P=4, m=8, V=1.")
    assert written == []
    app.session.unit = "chunks"  # not the engine's: the warning stays, the bars redraw in chunks
    assert app.session.problem is not None and app.notice_lines[0].startswith("Not valid: P must be at least 6")
    assert app.figures.models["bars_xaxis"].axis_label == "peak in flight (chunks)"
    assert written == []
    app.session.P = 6
    assert app.session.problem is None and not app.notice.visible
    assert written and written[-1]["search"] == "?P=6&unit=chunks"  # what differs from the defaults


def test_dualpipe_v_reads_out_deepseeks_bubble_beside_each_ranks_idle(app):
    app.session.apply_preset("deepseek")
    assert (app.session.schedule, app.session.P, app.session.m, app.session.V) == ("dualpipe-v", 4, 10, 2)
    html = app.readout.object
    assert "DeepSeek&#x27;s bubble D = (PP/2-1)(F&amp;B+B-3W)" in html
    assert "simulated idle per rank: 3, 3, 3, 3 · the longest, on rank 0, 1, 2, 3" in html
    halves = app.figures.sources["fb_halves"].data
    res = run(Config("dualpipe-v", 4, 10, 2))
    assert len(halves["left"]) == (res.order.kind == 4).sum() > 0
    app.session.tfb = 4.0  # slower than F and B apart: DeepSeek's D is the bottom ranks' idle, not the longest
    assert "rank 2, 3 idles that long, but rank 0 idles" in app.readout.object
    assert app.figures.x_range.end == pytest.approx(run(Config("dualpipe-v", 4, 10, 2, Costs(tfb=4.0))).metrics.makespan
                                                    * 1.01)


def test_dualpipe_v_m_below_2P_snaps_to_2P(app):
    app.session.param.update(schedule="dualpipe-v", V=2, m=10)
    app.session.m = 5
    assert app.session.m == 8
    assert "DualPipe-V needs m &gt;= 2P" in app.notice.object and "m set to 8" in app.notice.object


ORDERS = Path(__file__).resolve().parent / "data" / "orders"


def test_edit_this_schedule_starts_from_its_order_as_text(app):
    app.session.param.update(schedule="zb-v", V=2)
    before = app.figures.sources["ops"].data["right"].copy()
    app.session.edit_schedule()
    assert app.session.custom and app.session.placement == "v"
    assert app.session.order == run(Config("zb-v", 4, 8, 2)).order.to_text()
    assert np.array_equal(app.figures.sources["ops"].data["right"], before)  # the same timeline, now yours
    assert "Your order: P = 4 (its lines), m = 8 (read from it), V = 2 chunks per rank, placement v" in app.readout.object
    assert 'data-schedule="custom"' in app.table.object and "Your order (V=2)" in app.table.object
    peak = app.figures.sources["bars"].data["peak"][0]
    first, rest = app.session.order.split("\n", 1)
    app.session.order = first.replace(" 0W0", "") + " 0W0\n" + rest  # change it: keep mb 0's W to the end
    assert not app.notice.visible
    assert app.figures.sources["bars"].data["peak"][0] > peak  # its activation is held longer


def test_pasted_order_sets_p_m_v_and_moving_p_goes_back(app):
    app.session.update({"order": (ORDERS / "torch-DualPipeV-P4-m8-V2.txt").read_text(), "placement": "v", "custom": True})
    assert (app.session.P, app.session.m, app.session.V) == (4, 8, 2)
    assert "27" in app.readout.object and len(app.figures.sources["fb_halves"].data["left"]) > 0
    app.session.P = 5
    assert not app.session.custom and app.session.schedule == "1f1b" and "back to the schedules" in app.notice.object
    assert app.session.V == 1  # 1F1B's own V again


def test_a_bad_order_is_one_message_and_the_last_chart_stays(app):
    app.session.update({"order": "0F0 0B0\n1F0 1Q0", "placement": "loop", "custom": True})
    assert "Not valid: line 2: &#x27;1Q0&#x27; is not an op" in app.notice.object
    assert app.figures.sources["ops"].data["right"][-1] == run(Config("1f1b", 4, 8)).timeline.end[-1]
    app.session.lang = "zh"
    assert "第 2 行" in app.notice.object


def test_a_deadlock_is_drawn_with_its_stuck_ops(app):
    app.session.update({"order": "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1", "placement": "loop", "custom": True})
    assert "deadlock: rank 0 is stuck at B(mb 0, stage 0)" in app.notice.object
    assert "Deadlock" in app.readout.object
    ops = app.figures.sources["ops"].data
    assert ops["right"].tolist() == [1, 2, 2, 3]  # the ops that ran
    stuck = app.figures.sources["stuck_ops"].data
    assert stuck["label"] == ["0B0 waits for 1B0 on rank 1", "1B0 waits for 2B0 on rank 2",
                              "2F1 waits for 1F1 on rank 1"]
    assert stuck["left"].tolist() == [2, 2, 3]
    assert app.figures.x_range.end > 4  # room for the stuck ops and their labels
    assert "deadlock: see the chart" in app.table.object
    app.session.order = "0F0 0B0\n1F0 1B0"  # fixed: the stuck ops go
    assert len(app.figures.sources["stuck_ops"].data["left"]) == 0 and "deadlock" not in app.notice.object


def test_the_play_cursors_steps_follow_the_chart_and_are_never_stale():
    """The cursor's step functions go out with the deferred refresh (a megabyte at the
    sliders' ends): until it runs the source is empty, never the result before."""
    app = Explorer()
    deferred = []
    app.deferred.changed = lambda: deferred.append(lambda: app.refresh_later(app.deferred.run))  # as a session schedules it
    steps = app.figures.sources["cursor_steps"]

    def expected(m):
        return teach.cursor_steps(run(Config("1f1b", 4, m)), "micro-batches")

    for m in (9, 10):
        app.session.m = m
        assert set(steps.data) == set(expected(m)) and all(len(c) == 0 for c in steps.data.values())
        assert len(app.figures.sources["ops"].data["left"]) == 4 * m * 2  # the chart went at once
        while deferred:
            deferred.pop()()
        assert all(np.array_equal(steps.data[k], v) for k, v in expected(m).items())
    app.session.lang = "zh"  # the same steps: kept, not emptied and sent again
    assert all(np.array_equal(steps.data[k], v) for k, v in expected(10).items())


class _Ticks:
    """A session's document, as far as the deferred refresh uses it: callbacks queued."""

    def __init__(self):
        self.queue = []

    def add_next_tick_callback(self, callback):
        self.queue.append(callback)


def test_the_deferred_table_runs_the_engine_a_run_per_tick_and_stops_for_a_newer_change():
    """Each slice of the deferred refresh does one engine run, the next slice in the
    next tick, so a key that comes meanwhile is handled between two; the table is the
    one computed in one go. A change between two slices stops the older chain. (The
    page: test_page.py.)"""
    app = Explorer(encoder="bubbles")  # the placements run the engine too
    app.deferred.changed = lambda: None  # the test starts the refresh itself
    app.session.m = 9
    whole = Explorer(encoder="bubbles", m=9)  # no session: the refresh ran at once
    doc = app.deferred.doc = _Ticks()
    app.deferred.slice(None, None)  # the timer fires
    slices = 1
    while doc.queue:
        doc.queue.pop()()
        slices += 1
    # A run per schedule and 3 placements, less one (1f1b's row is its own placement), then
    # the trade-off's points the table has not run (every V of interleaved and Looped BFS
    # but the table's), one per slice, and a last slice that finds them all.
    st = app.session.state()
    points = tradeoff.extra_runs(st, app.session.result.config, {row_config(st, n) for n in NAMES})
    assert len(points) == 14  # interleaved and Looped BFS at V = 1, 3..8
    assert slices == len(NAMES) + 3 + len(points)
    assert app.table.object == whole.table.object and app.places.object == whole.places.object
    assert app.tradeoff_note.object == whole.tradeoff_note.object
    assert app.figures.sources["tradeoff_points"].data == whole.figures.sources["tradeoff_points"].data

    app.deferred.generation += 1  # a change: what _later counts
    app.session.m = 10
    app.deferred.slice(None, None)
    doc.queue.pop()()  # two slices of m = 10's refresh
    app.deferred.generation += 1
    app.session.m = 11  # another change before it ends
    doc.queue.pop()()  # the older chain's next slice returns at once
    assert doc.queue == [] and app.table.object == whole.table.object  # nothing of m = 10 written
    app.deferred.slice(None, None)
    while doc.queue:
        doc.queue.pop()()
    assert app.table.object == Explorer(encoder="bubbles", m=11).table.object


def test_the_trade_off_says_what_is_computing_and_a_tap_shows_that_point():
    """Between the deferred refresh's slices the trade-off view shows the points run so
    far and says how many are to come; at the end every point, the shown schedule
    ringed. A tap on a point shows its schedule at its V, through the session."""
    app = Explorer(m=9)
    app.deferred.changed = lambda: None
    app.session.m = 10
    doc, notes = _Ticks(), []
    app.deferred.doc = doc
    app.deferred.slice(None, None)
    while doc.queue:
        notes.append(app.tradeoff_note.object)
        doc.queue.pop()()
    computing = [n for n in notes if "Computing:" in n]
    assert computing and "of 24 points shown so far" in computing[0]
    assert "Computing" not in app.tradeoff_note.object and "P = 4, m = 10" in app.tradeoff_note.object
    points = app.figures.sources["tradeoff_points"].data
    assert len(points["x"]) == 24
    one = points["schedule"].index("1f1b")
    assert app.figures.sources["tradeoff_now"].data == {"x": [points["x"][one]], "y": [points["y"][one]]}
    target = next(i for i, (n, V) in enumerate(zip(points["schedule"], points["V"])) if n == "looped-bfs" and V == 4)
    app._on_tap("indices", [], [target])
    assert (app.session.schedule, app.session.V, app.session.m) == ("looped-bfs", 4, 10)
    assert app.figures.sources["tradeoff_points"].selected.indices == []
