"""The engine's loops: compiled (pipeviz._kernels, which setup.py builds from
pipeviz/kernels.py with the types of kernels.pxd) and plain (kernels.py run as
Python). The engine runs the compiled build, built from the kernels.py beside it,
and both builds give the same numbers to the bit, over generated configurations,
costs, stage weights, encoders, orders of one's own (deadlocked ones too), the
views' kernels (what a gap waits for, the critical path, level of detail) and the
schedules' greedy passes (V-Half's and V-Min's building blocks, ZB-H2's rule)."""

from __future__ import annotations

import contextlib

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pipeviz import NAMES, Config, ConfigError, Costs, causes, compiled, encoder, kernels, metrics, order, run, simulate
from pipeviz.config import Encoder
from pipeviz.custom import run_text
from pipeviz.schedules import building_blocks, v_half, v_min, zb_h2
from pipeviz.view import lod

# Every module that calls the kernels (as `K`).
USERS = (order, simulate, metrics, causes, lod, encoder, building_blocks, zb_h2)


def test_the_engine_runs_the_compiled_build_of_this_source():
    from pipeviz import _kernels

    assert compiled.COMPILED and compiled.K is _kernels
    assert _kernels.SOURCE_SHA256 == compiled.source_digest()
    assert all(m.K is _kernels for m in USERS)
    assert _kernels.__file__.endswith((".so", ".pyd"))


@contextlib.contextmanager
def plain():
    """The engine with kernels.py run as Python."""
    saved = [m.K for m in USERS]
    for m in USERS:
        m.K = kernels
    try:
        yield
    finally:
        for m, k in zip(USERS, saved):
            m.K = k


def flat(x, out: list) -> list:
    """Every array and number of a result, in order (dataclasses by their fields)."""
    if isinstance(x, np.ndarray):
        out.append(("array", x.dtype.str, x.shape, x.tobytes()))
    elif isinstance(x, (bool, np.bool_, int, np.integer)):
        out.append(("int", int(x)))
    elif isinstance(x, (float, np.floating)):
        out.append(("float", np.float64(x).tobytes()))
    elif isinstance(x, (tuple, list)):
        for y in x:
            flat(y, out)
    elif hasattr(x, "__dataclass_fields__"):
        for name in x.__dataclass_fields__:
            if name not in ("config", "schedule", "costs", "settings", "theory", "model"):
                flat(getattr(x, name), out)
    elif x is not None and not isinstance(x, str):
        out.append(("other", repr(x)))
    return out


def everything(res) -> list:
    """The result's numbers and the views' kernels run on it."""
    tl, mt = res.timeline, res.metrics
    out = flat([res.order, tl, mt, res.encoder, res.balance], [])
    rank, _, end = mt.bubbles
    span = max(tl.makespan, 1.0)
    color = (res.order.kind.astype(np.int64) * 3 + res.order.stage % 3).astype(np.int64)
    views = [causes.gap_waits(tl, rank, end), causes.critical_path(tl)]
    for x0, x1, px in ((0.0, span, 816.0), (0.0, span, 90.0), (0.3 * span, 0.45 * span, 400.0)):
        views.append(lod.level(tl.start, tl.end, res.order.rank_ptr, color, 21, x0, x1, px))
        st_ = mt.inflight
        views += [lod.thin(st_.time[st_.rank == r], st_.value[st_.rank == r].astype(np.float64), x0, x1, px)
                  for r in range(res.order.P)]
    return flat(views, out)


def both(fn) -> tuple[list, list]:
    """fn's numbers (or its error) with the compiled build, then with the plain one."""
    def one():
        try:
            return everything(fn())
        except Exception as e:  # the same refusal, in the same words
            return [("error", type(e).__name__, str(e))]

    got = one()
    with plain():
        want = one()
    return got, want


cost = st.sampled_from([0.25, 0.5, 1.0, 2.0]) | st.floats(0.05, 8.0, allow_nan=False)
costs = st.builds(Costs, tf=cost, tb=cost, tw=st.just(0.0) | cost,
                  comm=st.just(0.0) | st.floats(0.001, 2.0, allow_nan=False), tfb=st.none() | cost)


@st.composite
def configs(draw):
    name = draw(st.sampled_from(NAMES))
    P, m, V = draw(st.integers(1, 6)), draw(st.integers(1, 14)), draw(st.integers(1, 3))
    cfg = Config(name, P, m, V, draw(costs))
    try:
        spec_S = run(cfg).order.S
    except ConfigError:
        assume(False)
    extra = draw(st.sampled_from(["none", "weights", "encoder", "bpipe"]))
    if extra == "weights":
        w = draw(st.lists(st.sampled_from([0.5, 0.8, 1.0, 1.25, 2.0]), min_size=spec_S, max_size=spec_S))
        cfg = cfg.replace(stage_weights=tuple(w))
    elif extra == "encoder":
        enc = Encoder(draw(cost), draw(cost), draw(st.sampled_from(["stage0", "separate", "bubbles"])), draw(st.booleans()))
        cfg = cfg.replace(encoder=enc)
    elif extra == "bpipe":
        cfg = cfg.replace(balance="bpipe")
    return cfg


@given(configs())
def test_compiled_and_plain_give_the_same_numbers(cfg):
    got, want = both(lambda: run(cfg))
    assert got == want


ORDERS = [
    "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1",
    "0F0 0F1 0B1 0B0\n1F1 1F0 1B0 1B1",  # deadlocks
    "0F0 0I0 0W0\n1F0 1I0 1W0",
    "0F0 1F0\n0B0 1B0",  # a wrong rank
    "0F0 0F1 0B0 0I1 0W1 0B1\n1F0 1B0 1F1 1B1",  # twice
    "EF0 EF1 0F0 0F1 0B0 0B1 EB0 EB1\n1F0 1B0 1F1 1B1",
    "0F0 3F1&0B0 3B1\n1F0 2F1&1B0 2B1 1F1 2F0 1B1 2B0",
]


@given(st.sampled_from(ORDERS), st.sampled_from(["loop", "v"]), costs)
def test_compiled_and_plain_agree_on_orders_of_ones_own(text, placement, c):
    got, want = both(lambda: run_text(text, placement, c))
    assert got == want


def schedule_passes(P: int, m: int) -> list:
    """V-Half's and V-Min's six steps and ZB-H2's rule, run afresh (past the caches
    that keep their results)."""
    out = []
    for pattern in (v_half.pattern(P), v_min.pattern(P)):
        flat(building_blocks._schedule.__wrapped__(P, m, pattern.astype(np.int64).tobytes()), out)
    return flat(zb_h2.greedy_steady.__wrapped__(P, m), out)


@settings(max_examples=40)  # plain Python takes a second at the larger sizes
@given(st.integers(1, 10).flatmap(lambda P: st.tuples(st.just(P), st.integers(1, 4 * P + 3))))
def test_compiled_and_plain_agree_on_the_schedules_greedy_passes(size):
    P, m = size
    got = schedule_passes(P, m)
    with plain():
        want = schedule_passes(P, m)
    assert got == want


def test_the_greedy_passes_are_bit_identical_at_a_benchmarked_size():
    """(8, 32), one of the sizes benchmarks/cold.py times the two builds at."""
    got = schedule_passes(8, 32)
    with plain():
        want = schedule_passes(8, 32)
    assert got == want
