"""The served explorer with a model: memory bars in GiB, the HBM line, the tightest
rank, stage weights and the bubble's parts. No browser here."""

import numpy as np
import panel as pn
import pytest

from pipeviz import Config, Costs, run
from pipeviz.memory import GIB, measure_memory, preset
from pipeviz.served import Explorer
from pipeviz.view.fields import parse
from pipeviz.view.state import row_config


@pytest.fixture
def app():
    return Explorer()


def data(app, name):
    return app.figures.sources[name].data


def test_no_model_no_memory_view(app):
    assert app.session.model == "none"
    assert not app.figures.models["memory"].visible
    assert len(data(app, "memory_bars")["rank"]) == 0
    assert app.memory_readout.object == "" and not app.memory_readout.visible
    assert "peak memory" not in app.table.object


def test_memory_figure_and_model_widgets_join_when_needed(app):
    """The memory figure joins the page with the first model, and the model card's
    widgets are made when it first opens; both stay once there."""
    assert app.memory_row.objects == []
    card = app.controls.groups("en")[1]
    assert card.collapsed and card.objects == []
    card.collapsed = False
    names = [w.name for w in card.select(pn.widgets.Widget)]
    assert "Model" in names and "HBM per GPU (GiB)" in names and len(names) >= 14
    widgets = list(card.objects)
    card.collapsed = True
    card.collapsed = False
    assert list(card.objects) == widgets  # made once
    app.session.model = "gpt3-6.7b"
    assert app.memory_row.objects[0][0].object is app.figures.memory
    app.session.model = "none"
    assert app.memory_row.objects[0][0].object is app.figures.memory and not app.figures.models["memory"].visible


def test_preset_and_budget_flag_the_tight_rank(app):
    """GPT-3 6.7B, 1F1B, P=8, m=8 with 40 GiB: rank 0 holds 15.07 GiB of parameters
    and 28.5 GiB of activations, 3.57 GiB over; every other rank fits."""
    app.session.param.update(P=8, hbm=40.0)
    app.session.model = "gpt3-6.7b"
    assert (app.session.L, app.session.h, app.session.a, app.session.vocab, app.session.untied) == (32, 4096, 32, 50257, False)
    assert app.figures.models["memory"].visible
    bars = data(app, "memory_bars")
    mem = measure_memory(run(Config("1f1b", 8, 8)).timeline, preset("gpt3-6.7b"), 40)
    assert np.allclose(bars["total"], mem.peak / GIB)
    assert np.allclose(bars["act_b"] - bars["params"], [28.5 * k / 8 for k in range(8, 0, -1)])
    over = data(app, "memory_over")
    assert over["rank"].tolist() == [0] and over["left"].tolist() == [40.0]
    assert over["text"] == ["+3.57 GiB over"]
    assert app.figures.models["hbm_line"].location == 40.0
    html = app.memory_readout.object
    assert "tightest rank <b>0</b>: <b>43.57 GiB</b>, over the 40 GiB of HBM" in html
    assert "Does not fit: 1 rank(s) over 40 GiB: rank 0 by 3.57 GiB" in html
    app.session.act = "flash"  # 8.5 GiB of activations: fits
    assert len(data(app, "memory_over")["rank"]) == 0
    assert "tightest rank <b>0</b>: <b>23.57 GiB</b> of 40 GiB" in app.memory_readout.object
    assert "Does not fit" not in app.memory_readout.object


def test_memory_change_does_not_run_the_engine(app):
    """Bytes-only fields reuse the cached results (the chart's and the table's)."""
    from pipeviz.served.session import run_cached

    app.session.model = "llama2-7b"
    misses = run_cached.cache_info().misses
    app.session.hbm = 20.0
    app.session.s = 4096
    app.session.act = "full"
    assert run_cached.cache_info().misses == misses
    assert "of 20 GiB" in app.memory_readout.object or "over the 20 GiB" in app.memory_readout.object


def test_changing_the_shape_makes_the_model_custom(app):
    app.session.model = "llama2-13b"
    assert (app.session.L, app.session.h, app.session.a) == (40, 5120, 40)
    app.session.L = 48
    assert app.session.model == "custom"
    assert "the shape no longer matches llama2-13b: the model is now custom" in app.notice.object
    app.session.s = 1024  # training-side fields keep the name
    app.session.model = "llama2-7b"
    app.session.s = 4096
    assert app.session.model == "llama2-7b"


def test_uneven_layers_time_the_stages(app):
    """GPT-3 6.7B over P=3: 11, 11, 10 layers; stages weighted by their layers, and the
    readout splits the bubble."""
    app.session.param.update(P=3, m=6)
    assert "agree" in app.readout.object
    app.session.model = "gpt3-6.7b"
    res = app.session.result
    assert res.config.stage_weights == pytest.approx((33 / 32, 33 / 32, 30 / 32))
    assert "they differ: the stages cost different amounts" in app.readout.object
    assert "where the bubble comes from: ideal <b>" in app.readout.object
    app.session.stages = "equal"
    assert app.session.result.config.stage_weights is None and "agree" in app.readout.object
    assert "where the bubble comes from" not in app.readout.object


def test_typed_weights(app):
    app.session.param.update(stages="list", weights="1.3, 1, 1, 1.2")
    assert app.session.result.config.stage_weights == (1.3, 1.0, 1.0, 1.2)
    assert app.session.result.metrics.makespan == pytest.approx(38.7)
    assert "imbalance <b>" in app.readout.object
    # The table's rows with 4 stages take the weights; ZB-V has 8 and says so.
    assert "4 stage weights were given, but zb-v here has 8 stages" in app.table.object
    app.session.weights = "1.3, x"
    assert app.notice.visible and "&#x27;x&#x27; is not a number" in app.notice.object
    assert app.session.result.config.stage_weights == (1.3, 1.0, 1.0, 1.2)  # the last valid view stays
    app.session.weights = "<b>2</b>,1,1,1"
    assert "<b>2</b>" not in app.notice.object and "&lt;b&gt;2&lt;/b&gt;" in app.notice.object


def test_over_time_in_gib(app):
    app.session.param.update(model="gpt3-6.7b", P=8, hbm=40.0)
    counts = data(app, "steps")["ys"]
    assert max(float(y.max()) for y in counts) == 8
    app.session.over_time_unit = "GiB"
    ys = data(app, "steps")["ys"]
    mem = measure_memory(run(Config("1f1b", 8, 8)).timeline, preset("gpt3-6.7b"), 40)
    assert [float(y.max()) for y in ys] == pytest.approx((mem.peak / GIB).tolist())
    assert float(ys[0][0]) == pytest.approx(mem.params[0] / GIB)  # parameters held from the start
    assert app.figures.models["over_time_hbm"].visible and app.figures.models["over_time_hbm"].location == 40
    assert app.figures.models["over_time_yaxis"].axis_label == "GiB held"


def test_table_greys_what_does_not_fit_and_marks_the_fastest_that_does(app):
    """P=4, m=8, Llama-2 13B with flash attention, 64 GiB: each rank holds 10 layers
    (47 GiB of parameters and optimizer state). GPipe and Looped BFS (8 micro-batches in
    flight), interleaved (its row at V = 2: at V = 1 it is 1F1B), ZB-H2 (up to 2P-1), ZB-V and
    DualPipe-V (2P+1 chunks) do not fit; 1F1B and ZB-H1 do (62.61 GiB),
    V-Half (61.73) and V-Min with less, and V-Half is the fastest that fits (26.5 against ZB-H1's 27),
    though ZB-V is faster still."""
    app.session.param.update(model="llama2-13b", act="flash", hbm=64.0)
    html = app.table.object
    assert "<th>peak memory (tightest rank)</th>" in html
    rows = {r["name"]: r for r in app.session.table_rows()}
    assert {n for n, r in rows.items() if not r["mem"]["fits"]} == {"gpipe", "interleaved", "looped-bfs", "zb-h2",
                                                                     "zb-v", "dualpipe-v"}
    assert [n for n, r in rows.items() if r["best"]] == ["v-half"]
    assert rows["zb-v"]["makespan"] < rows["v-half"]["makespan"] < rows["zb-h1"]["makespan"]
    for name in ("gpipe", "interleaved", "looped-bfs", "zb-h2", "zb-v", "dualpipe-v"):
        assert f'class="pv-nofit" data-schedule="{name}"' in html
    assert '<tr class="pv-best" data-schedule="v-half">' in html
    assert "61.73 GiB · fastest that fits" in html and "75.89 GiB · does not fit" in html
    assert '<tr class="pv-current" aria-current="true" data-schedule="1f1b">' in html


def test_url_carries_the_model():
    updates, notes = parse("?model=llama2-70b&hbm=80&t=8&act=flash&stages=list&weights=1.3,1,1,1.2&over_time_unit=GiB")
    assert notes == []
    app = Explorer()
    app.session.update(updates)
    s = app.session
    assert (s.model, s.L, s.h, s.t, s.act) == ("llama2-70b", 80, 8192, 8, "flash")
    assert app.session.result.config.stage_weights == (1.3, 1.0, 1.0, 1.2)
    from pipeviz.view.fields import encode

    assert "model=llama2-70b" in encode(app.session.state()) and "weights=1.3,1,1,1.2" in encode(app.session.state())
    _, notes = parse("?weights=" + "1," * 300)
    assert "longer than 400 characters" in notes[0].text()


def test_memory_in_chinese(app):
    app.session.param.update(model="gpt3-6.7b", P=8, hbm=40.0, lang="zh")
    assert "最紧的 rank <b>0</b>" in app.memory_readout.object
    assert "放不下" in app.memory_readout.object
    assert data(app, "memory_over")["text"] == ["超出 3.57 GiB"]


def test_too_few_layers_for_the_stages(app):
    app.session.param.update(model="custom", L=6, P=8, stages="equal")
    assert "Memory cannot be computed: L = 6 layers cannot be split over S = 8 stages" in app.memory_readout.object
    app.session.stages = "model"
    assert "L = 6 layers cannot be split over S = 8 stages" in app.notice.object


def test_memory_colours_stay_apart_for_colour_blind_readers():
    """Parameters, activations awaiting B and awaiting W only: ΔE >= 15 in every
    simulated vision (tests/test_palette.py's check); over budget is never colour
    alone (hatch, outline and label), and its label reads at 4.5:1 on white."""
    import itertools

    from test_palette import VISION, delta

    from pipeviz.view.palette import KIND_COLORS, OVER_TEXT, PARAMS_COLOR, W_ONLY_COLOR, contrast

    fills = (PARAMS_COLOR, KIND_COLORS[0], W_ONLY_COLOR)
    for vision in VISION:
        for a, b in itertools.combinations(fills, 2):
            assert delta(a, b, vision) >= 15, (vision, a, b)
    assert contrast(OVER_TEXT, "#ffffff") >= 4.5


def test_memory_with_bpipe_balancing(app):
    """Balancing on: the bars show the bytes where BPipe holds them (rank 0 keeps 5 of
    its 8 chunks of GPT-3 6.7B at P=8), and GiB over time draws the bytes before it
    dashed, as the counts are."""
    app.session.param.update(model="gpt3-6.7b", P=8, hbm=40.0, balance=True)
    bars = data(app, "memory_bars")
    assert np.allclose(bars["act_b"] - bars["params"], [3.5625 * k for k in (5, 5, 5, 5, 4, 4, 4, 4)])
    assert len(data(app, "memory_over")["rank"]) == 0  # 15.07 + 17.81 GiB fits 40 GiB now
    assert "Does not fit" not in app.memory_readout.object
    app.session.over_time_unit = "GiB"
    after, before = data(app, "steps")["ys"], data(app, "steps_before")["ys"]
    assert float(after[0].max()) == pytest.approx(float(bars["total"][0]))
    assert float(before[0].max()) == pytest.approx(15.07 + 28.5, abs=0.01)


def test_an_order_of_ones_own_gets_the_gib_its_schedule_gets_in_the_table():
    """Pasting a schedule's own order gives a first row with the same peak GiB and fit as
    that schedule's row (the bytes come from the same timeline), and with comm the own
    readout splits its bubble into the same parts."""
    from pipeviz.custom import run_text
    from pipeviz.memory import PRESETS
    from pipeviz.view import memory_view, readouts
    from pipeviz.view.fields import FIELDS

    for name, V, placement in (("1f1b", 1, "loop"), ("zb-v", 2, "v")):
        costs = Costs(1.0, 1.0, 1.0 if name == "zb-v" else 0.0, 0.25)
        state = dict({k: f.default for k, f in FIELDS.items()}, model="gpt3-6.7b", **PRESETS["gpt3-6.7b"], hbm=24.0,
                     tf=costs.tf, tb=costs.tb, tw=costs.tw, comm=costs.comm)
        schedule = run(Config(name, 4, 8, V, costs))
        own = run_text(schedule.order.to_text(), placement, costs)
        rows = readouts.table_values(own.config, run, lambda n, s=state: row_config(s, n),
                                     lambda r, s=state: memory_view.memory_of(r, s), own)
        theirs = next(r for r in rows[1:] if r["name"] == name)
        assert rows[0]["mem"] == theirs["mem"] and rows[0]["mem"]["peak"] != ""
        assert readouts.readout_values(own)["parts"] == readouts.readout_values(schedule)["parts"] is not None
