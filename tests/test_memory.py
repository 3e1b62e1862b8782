"""Memory in bytes (docs/model.md "Memory in bytes"): its GPT-3 6.7B check, and invariants over
generated models and schedules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from test_properties import configs

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.memory import GIB, MIB, PRESETS, Model, layer_split, measure_memory, preset, stage_weights
from pipeviz.order import FB, B, F, I, W


def test_spec_check_gpt3_6_7b():
    """GPT-3 6.7B (L=32, h=4096, a=32, s=2048, b=1, t=1), P=8 1F1B: 912 MiB per layer
    per micro-batch without flash attention, 272 MiB with it; rank 0 holds 8
    micro-batches of 4 layers: 28.5 GiB, or 8.5 GiB with flash attention."""
    model = preset("gpt3-6.7b")
    assert (model.L, model.h, model.a, model.s, model.b, model.vocab, model.untied, model.bytes_per_param) == (
        32, 4096, 32, 2048, 1, 50257, False, 16)
    assert model.act_bytes == 912 * MIB
    assert model.replace(act="flash").act_bytes == 272 * MIB
    res = run(Config("1f1b", 8, 8))
    mem = measure_memory(res.timeline, model)
    assert mem.peak_b[0] == 28.5 * GIB and mem.peak_w[0] == 0
    assert mem.peak_b.tolist() == [k * 4 * 912 * MIB for k in range(8, 0, -1)]
    flash = measure_memory(res.timeline, model.replace(act="flash"))
    assert flash.peak_b[0] == 8.5 * GIB
    # Parameters: rank 0 holds 4 layers and the tied embedding, 16 bytes each.
    assert mem.params[0] == (4 * (12 * 4096**2 + 13 * 4096) + 50257 * 4096) * 16
    assert mem.params[7] == 4 * (12 * 4096**2 + 13 * 4096) * 16  # tied: no head of its own
    assert mem.peak[0] == mem.params[0] + 28.5 * GIB
    assert mem.tightest == 0


def test_other_modes_and_tensor_parallel():
    model = preset("gpt3-6.7b")
    sbh = 2048 * 4096
    assert model.replace(act="full").act_bytes == 2 * sbh
    assert model.w_only_bytes == 32 * sbh == 256 * MIB
    t2 = model.replace(t=2)
    assert t2.act_bytes == 456 * MIB and t2.w_only_bytes == 128 * MIB
    res = run(Config("1f1b", 8, 8))
    assert np.array_equal(measure_memory(res.timeline, t2).params * 2, measure_memory(res.timeline, model).params)
    assert model.replace(bytes_per_param=18).total_params == model.total_params == 32 * (
        12 * 4096**2 + 13 * 4096) + 50257 * 4096


models = st.builds(
    Model,
    L=st.integers(1, 96), h=st.sampled_from([64, 256, 1024, 4096, 5120]), a=st.sampled_from([1, 8, 32, 40]),
    vocab=st.integers(1, 130_000), s=st.sampled_from([128, 2048, 4096]), b=st.integers(1, 8),
    t=st.sampled_from([1, 2, 4, 8]), untied=st.booleans(), act=st.sampled_from(["none", "flash", "full"]),
    bytes_per_param=st.sampled_from([16, 18]),
)


@st.composite
def runs_and_models(draw):
    """A schedule's run and a model its stages can split (L >= S layers, uniform from S
    to 96): drawn so rather than filtered, as most generated configurations have more
    stages than a small model has layers (filtering failed hypothesis's health check)."""
    res = run(draw(configs()))
    S = res.order.S
    return res, draw(models).replace(L=draw(st.integers(S, max(96, S))))


@given(runs_and_models(), st.integers(2, 5))
def test_activation_bytes_scale_linearly_with_b(run_model, k):
    res, model = run_model
    one = measure_memory(res.timeline, model)
    more = measure_memory(res.timeline, model.replace(b=model.b * k))
    assert np.allclose(more.peak - more.params, k * (one.peak - one.params), rtol=1e-12)
    assert np.allclose(more.activations.value, k * one.activations.value, rtol=1e-12)
    assert np.array_equal(more.params, one.params)


def brute_force_peak(res, model) -> np.ndarray:
    """Each chunk's bytes held over half-open intervals [take, free), summed at every
    instant something changes: independent of the event sums in memory.py."""
    o, tl = res.order, res.timeline
    layers = layer_split(model.L, o.S)
    act, w_only = model.act_bytes, model.w_only_bytes
    held = []  # (rank, from, to, bytes)
    fwd, bwd = {}, {}
    for i in range(o.n_ops):
        k, mb, s = int(o.kind[i]), int(o.mb[i]), int(o.stage[i])
        if k in (F, FB):
            fwd[(mb, s)] = tl.start[i]
        if k == FB:
            bwd[(int(o.mb2[i]), int(o.stage2[i]))] = ("B", tl.end[i])
        elif k in (B, I):
            bwd[(mb, s)] = ("B" if k == B else "I", tl.end[i])
        elif k == W:
            bwd[(mb, s, "W")] = tl.end[i]
    for (mb, s), t0 in fwd.items():
        r = int(o.stage_to_rank[s])
        kind, t1 = bwd[(mb, s)]
        held.append((r, t0, t1, layers[s] * act))
        if kind == "I":
            held.append((r, t1, bwd[(mb, s, "W")], layers[s] * w_only))
    peak = np.zeros(o.P)
    for r in range(o.P):
        mine = [h for h in held if h[0] == r]
        for t in {h[1] for h in mine}:
            peak[r] = max(peak[r], sum(h[3] for h in mine if h[1] <= t < h[2]))
    return peak


@given(runs_and_models())
def test_peak_bytes_are_the_chunks_held_at_the_worst_instant(run_model):
    res, model = run_model
    assume(res.order.n_ops <= 2000)
    mem = measure_memory(res.timeline, model)
    assert np.allclose(mem.peak - mem.params, brute_force_peak(res, model), rtol=1e-12, atol=1e-3)
    assert np.allclose(mem.peak, mem.params + mem.peak_b + mem.peak_w, rtol=1e-12)


@given(configs(), models)
@example(Config("v-min", 5, 5, 2, Costs(0.25, 0.25, 0.0, 0.0)),
         Model(L=1, h=64, a=1, vocab=1, s=2048, b=1, t=1, untied=False, act="none", bytes_per_param=16))
def test_bytes_are_in_flight_counts_times_layers(cfg, model):
    """With every stage holding L/S layers, bytes over time are the in-flight step
    functions of pipeviz.metrics (awaiting B and awaiting W only where split) times
    the per-layer bytes."""
    res = run(cfg)
    S = res.order.S
    model = model.replace(L=S * max(1, model.L // S))
    per = model.L // S
    mem = measure_memory(res.timeline, model)
    mt = res.metrics
    if mt.awaiting_b is None:
        assert np.array_equal(mem.peak_b, mt.peak_chunks * per * model.act_bytes)
        counts = mt.inflight
        expected = counts.value * per * model.act_bytes
    else:
        # Both step functions change at the same events; sample them at every change.
        assert np.array_equal(mem.peak_b + mem.peak_w, mem.peak - mem.params)
        expected = []
        for r, t in zip(mem.activations.rank.tolist(), mem.activations.time.tolist()):
            nb = value_at(mt.awaiting_b, r, t)
            nw = value_at(mt.awaiting_w, r, t)
            expected.append(per * (nb * model.act_bytes + nw * model.w_only_bytes))
        expected = np.array(expected)
        # The byte peak's parts are the two counts at one instant, the instant where the
        # bytes are most. That need not be the instant of the most chunks (metrics'
        # peak_awaiting_b and _w): a full activation outweighs a W-only one, so fewer
        # chunks with more of them awaiting B can hold more bytes (found by the search:
        # V-Min at P=5, m=5 holds 5 awaiting B on rank 1 at one instant, 4 + 2 at its
        # peak count).
        rank = mem.activations.rank
        for r in range(res.order.P):
            at = np.flatnonzero(rank == r)
            if not at.size:
                continue
            best = at[np.argmax(expected[at])]
            t = mem.activations.time[best]
            nb, nw = value_at(mt.awaiting_b, r, t), value_at(mt.awaiting_w, r, t)
            assert mem.peak_b[r] == pytest.approx(per * nb * model.act_bytes, rel=1e-12)
            assert mem.peak_w[r] == pytest.approx(per * nw * model.w_only_bytes, rel=1e-12)
    assert np.allclose(mem.activations.value, expected, rtol=1e-12)


def value_at(steps, r, t) -> int:
    sel = (steps.rank == r) & (steps.time <= t)
    return int(steps.value[sel][-1]) if sel.any() else 0


@given(st.integers(1, 12), st.integers(0, 40), models.filter(lambda m: m.act != "full"))
def test_zb_h1_awaiting_w_share_lowers_memory_by_the_spec_ratio(P, extra_m, model):
    """ZB-H1 holds 1F1B's P - r chunks awaiting B on rank r plus r awaiting W only;
    each of those keeps 32 s b h / t of the full activation's bytes, so rank r's peak
    is (P - r + r * ratio) full activations, ratio = 32 / (34 + 5 a s / h) without
    flash attention and 32 / 34 with it."""
    m = P + extra_m
    model = model.replace(L=P * max(1, model.L // P))
    per = model.L // P
    zb = measure_memory(run(Config("zb-h1", P, m)).timeline, model)
    ofob = measure_memory(run(Config("1f1b", P, m)).timeline, model)
    ratio = 32 / 34 if model.act == "flash" else 32 * model.h / (34 * model.h + 5 * model.a * model.s)
    assert ratio == pytest.approx(model.w_only_bytes / model.act_bytes, rel=1e-12)
    r = np.arange(P)
    full = per * model.act_bytes
    assert np.allclose(zb.peak - zb.params, full * (P - r + r * ratio), rtol=1e-12)
    # Counted as full activations, ZB-H1 would hold P on every rank; the W-only
    # share saves r (1 - ratio) of them on rank r. 1F1B holds P - r.
    assert np.allclose((zb.peak - zb.params) - (ofob.peak - ofob.params), full * r * ratio, rtol=1e-12)
    assert np.array_equal(zb.params, ofob.params)


@given(runs_and_models())
def test_parameters_add_up_to_the_model(run_model):
    res, model = run_model
    mem = measure_memory(res.timeline, model)
    assert mem.params.sum() * model.t / model.bytes_per_param == pytest.approx(model.total_params, rel=1e-12)
    layers = mem.layers
    assert layers.sum() == model.L and layers.max() - layers.min() <= 1
    assert (np.diff(layers) <= 0).all()  # the first L mod S stages take the extra layer


@given(st.integers(1, 200), st.integers(1, 64), st.floats(0, 5), st.floats(0, 5))
def test_stage_weights_from_the_layer_split(L, S, embed, head):
    assume(L >= S)
    model = Model(L=L, h=64, a=1, vocab=10, embed=embed, head=head)
    w = np.array(stage_weights(model, S))
    layers = layer_split(L, S)
    extra = np.zeros(S)
    extra[0] += embed
    extra[-1] += head
    assert np.allclose(w * L / S, layers + extra, rtol=1e-12)
    if embed == head == 0 and L % S == 0:
        assert (w == 1).all()


def test_stage_weights_for_a_model_run_through_the_engine():
    """Llama-2 13B (40 layers) over 6 stages: 7, 7, 7, 7, 6, 6 layers; the embedding
    counted as 2 layers and the head as 3 make the ends heavier."""
    model = preset("llama2-13b", embed=2, head=3)
    w = stage_weights(model, 6)
    assert w == pytest.approx([9 * 6 / 40, 7 * 6 / 40, 7 * 6 / 40, 7 * 6 / 40, 6 * 6 / 40, 9 * 6 / 40])
    res = run(Config("1f1b", 6, 12, stage_weights=w))
    assert not res.bubble_agrees and "closed form assumes equal stages" in res.theory.caveat.text()


def test_v_shape_memory():
    """ZB-V, P=4: rank r holds stages r and 7-r; with 36 layers over 8 stages the
    first 4 stages take 5 layers and the last 4 take 4, so every rank holds 9."""
    model = preset("llama2-7b", L=36)
    res = run(Config("zb-v", 4, 8, 2))
    mem = measure_memory(res.timeline, model)
    assert mem.layers.tolist() == [5, 5, 5, 5, 4, 4, 4, 4]
    per_layer = (12 * 4096**2 + 13 * 4096) * 16
    vocab = 32000 * 4096 * 16
    assert mem.params[0] == 9 * per_layer + 2 * vocab  # embedding and untied head both on rank 0
    assert mem.params[1] == 9 * per_layer


def test_interleaved_memory_counts_each_chunks_layers():
    model = preset("gpt3-6.7b")
    res = run(Config("interleaved", 8, 16, 2))
    mem = measure_memory(res.timeline, model)
    # 16 stages of 2 layers; rank 0 peaks at 23 chunks (docs/model.md).
    assert mem.peak_b[0] == 23 * 2 * 912 * MIB


def test_hbm_line_and_tightest_rank():
    model = preset("gpt3-6.7b")
    mem = measure_memory(run(Config("1f1b", 8, 8)).timeline, model, hbm_gib=40)
    assert mem.tightest == 0 and not mem.fits
    assert mem.over[0] == pytest.approx(mem.peak[0] - 40 * GIB)
    assert (mem.over[1:] == 0).all() or mem.over[1] == pytest.approx(mem.peak[1] - 40 * GIB)
    assert measure_memory(run(Config("1f1b", 8, 8)).timeline, model.replace(act="flash"), hbm_gib=40).fits


@pytest.mark.parametrize("changes,key", [
    (dict(L=0), "model.whole"), (dict(h=1.5), "model.whole"), (dict(s=True), "model.whole"),
    (dict(t=65), "model.whole"), (dict(act="selective"), "model.act"), (dict(bytes_per_param=12), "model.bpp"),
    (dict(embed=-1), "model.extra"), (dict(head=float("nan")), "model.extra"),
])
def test_bad_model_fields_say_what_is_valid(changes, key):
    with pytest.raises(ConfigError) as e:
        preset("gpt3-6.7b", **changes)
    assert e.value.msg.key == key


def test_few_layers_for_the_stages():
    with pytest.raises(ConfigError, match="L = 6 layers cannot be split over S = 8 stages"):
        stage_weights(preset("gpt3-6.7b", L=6), 8)
    with pytest.raises(ConfigError, match="unknown model 'gpt5'"):
        preset("gpt5")


def test_presets_have_their_published_shapes():
    shapes = {name: (p["L"], p["h"], p["a"], p["vocab"]) for name, p in PRESETS.items()}
    assert shapes == {
        "gpt3-6.7b": (32, 4096, 32, 50257), "llama2-7b": (32, 4096, 32, 32000),
        "llama3-8b": (32, 4096, 32, 128256), "llama2-13b": (40, 5120, 40, 32000),
        "llama2-70b": (80, 8192, 64, 32000),
    }
    # 12 h^2 + 13 h per layer is GPT's layer; for Llama it is an estimate (memory.py says why).
    assert preset("llama2-7b").total_params == pytest.approx(6.71e9, rel=1e-3)
    assert preset("gpt3-6.7b").total_params == pytest.approx(6.65e9, rel=1e-3)


def test_bpipe_balancing_moves_bytes_to_the_partner():
    """docs/model.md's BPipe check in bytes: GPT-3 6.7B, P=8 1F1B m=8: resident chunks
    [8..1] become [5,5,5,5,4,4,4,4], each chunk 4 layers of 912 MiB (3.5625 GiB), so
    rank 0 holds 17.8125 GiB of activations instead of 28.5; parameters stay."""
    from pipeviz.memory import balance_memory

    res = run(Config("1f1b", 8, 8, balance="bpipe"))
    mem = measure_memory(res.timeline, preset("gpt3-6.7b"), 80)
    after = balance_memory(mem, res.timeline, res.balance.pairs)
    assert (mem.peak_b / GIB).tolist() == [3.5625 * k for k in range(8, 0, -1)]
    assert (after.peak_b / GIB).tolist() == [3.5625 * k for k in (5, 5, 5, 5, 4, 4, 4, 4)]
    assert np.array_equal(after.params, mem.params) and after.before is mem
    # At every instant the pair holds what it held before, between its two ranks.
    at = np.union1d(mem.activations.time, after.activations.time)

    def held(m, r):
        lo, hi = np.searchsorted(m.activations.rank, [r, r + 1])
        t, v = m.activations.time[lo:hi], m.activations.value[lo:hi]
        k = np.searchsorted(t, at, side="right") - 1
        return np.where(k >= 0, v[np.maximum(k, 0)], 0.0)

    for f, p, _ in res.balance.pairs:
        assert np.allclose(held(mem, f) + held(mem, p), held(after, f) + held(after, p))
    no_pairs = run(Config("zb-v", 4, 8, 2, balance="bpipe"))  # balanced already: left alone
    m2 = measure_memory(no_pairs.timeline, preset("gpt3-6.7b"), 80)
    assert balance_memory(m2, no_pairs.timeline, no_pairs.balance.pairs) is m2
