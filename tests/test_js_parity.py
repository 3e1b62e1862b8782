"""static/engine.js against the Python engine, in headless Chromium.

The Python engine is the reference. For each configuration (a fixed-seed list of over
300, valid and not), the JS engine must give the same ConfigError message, or the same
orders, op times, metrics, closed forms and agreement flags. Integers and strings must
match exactly, floats to a relative 1e-9 (the JS engine repeats numpy's arithmetic in
the same order, so in practice they match bit for bit; the test reports how many do).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from pipeviz import NAMES, SCHEDULES, Config, ConfigError, Costs, run
from pipeviz.config import MAX_OPS

pytestmark = pytest.mark.browser

ENGINE = Path(__file__).resolve().parent.parent / "static" / "engine.js"
SEED = 20240611
BATCH = 50
REL = 1e-9

OWN_V = {name: (spec.fixed_V or 2) for name, spec in SCHEDULES.items()}

# (tf, tb, tw, comm): defaults, comm, free or cheap W, the article-style decimals,
# W dearer than B, uniform but not 1, long decimals (large exact fractions), a tie
# that Python's :g rounds to even, and the smallest double.
COSTS = [
    (1.0, 1.0, 1.0, 0.0),
    (1.0, 1.0, 1.0, 0.5),
    (1.0, 1.0, 0.0, 0.0),
    (1.0, 1.0, 0.1, 0.0),
    (18.5, 18.1, 9.3, 0.6),
    (18.5, 18.1, 9.3, 0.0),
    (1.0, 1.0, 2.0, 0.0),
    (1.0, 0.5, 0.75, 0.0),
    (0.1, 0.2, 0.3, 0.0),
    (2.0, 1.0, 1.0, 0.0),
    (1.0, 2.0, 0.5, 0.25),
    (0.3, 0.3, 0.3, 0.0),
    (3, 3, 3, 0.1),
    (1e-07, 2e-07, 1e-07, 0.0),
    (123456.5, 1.0, 0.5, 0.0),
    (1234567.0, 1234565.0, 5e-05, 0.0),
    (0.7071067811865476, 1.4142135623730951, 0.5772156649015329, 0.001),
    (1e16, 2.5e16, 1e16, 0.0),
    (5e-324, 1.0, 1.0, 0.0),
    (1.0, 1.0, 1.0, -0.0),
]


def cfg(schedule, P, m, V=None, G=None, costs=(1.0, 1.0, 1.0, 0.0)):
    tf, tb, tw, comm = costs
    V = OWN_V.get(schedule, 1) if V is None else V
    return {"schedule": schedule, "P": P, "m": m, "V": V, "G": G, "tf": tf, "tb": tb, "tw": tw, "comm": comm}


def build_configs() -> list[dict]:
    rng = random.Random(SEED)
    out = []
    # SPEC.md's reference cases, and the edges: P=1, m=1, m<P, m=P, m=2P-1, large.
    for name in NAMES:
        for P, m in [(4, 8), (1, 1), (1, 5), (2, 1), (5, 1), (8, 3), (4, 4), (4, 7), (16, 1), (16, 64), (3, 5)]:
            out.append(cfg(name, P, m))
    for V in (1, 2, 3, 4):
        for P, m in [(1, 3), (2, 2), (4, 8), (3, 2), (8, 16), (16, 64), (5, 3)]:
            out.append(cfg("interleaved", P, m, V))
    # Random configurations over the whole range, with random costs.
    for _ in range(170):
        name = rng.choice(NAMES)
        P, m = rng.randint(1, 16), rng.randint(1, 64)
        V = None
        if name == "interleaved":
            V = rng.randint(1, 4)
            if rng.random() < 0.5:  # mostly m that the default group size accepts
                m = P * rng.randint(1, max(1, 64 // P))
        costs = COSTS[0] if rng.random() < 0.3 else rng.choice(COSTS)
        out.append(cfg(name, P, m, V, costs=costs))
    # Every cost set on every schedule, at a size with a real steady state and at m < P.
    for costs in COSTS:
        for name in NAMES:
            out.append(cfg(name, 4, 8 if name != "zb-v" else 9, costs=costs))
        out.append(cfg(rng.choice(NAMES), 6, 3, costs=costs))
    # Interleaved with an explicit group size G: valid, and each of Megatron's refusals.
    for P, m, V, G in [
        (4, 8, 2, 8), (4, 12, 2, 8), (4, 10, 2, 5), (4, 9, 2, 5), (4, 16, 3, 4), (2, 7, 2, 3),
        (4, 8, 2, 2), (4, 8, 2, 9), (4, 10, 2, 8), (3, 8, 4, 7), (4, 8, 1, 100), (4, 8, 2, 0),
        (4, 8, 2, 2.5), (4, 8, 2, -1), (8, 64, 4, 24), (8, 64, 4, 20),
    ]:
        out.append(cfg("interleaved", P, m, V, G))
    # Invalid combinations and values: each must give Python's message.
    nan, inf = float("nan"), float("inf")
    bad = [
        cfg("1f1b", 4, 8, 2), cfg("gpipe", 4, 8, 3), cfg("zb-h1", 4, 8, 2), cfg("zb-h2", 4, 8, 4),
        cfg("zb-v", 4, 8, 1), cfg("zb-v", 4, 8, 3),
        cfg("interleaved", 4, 9, 2), cfg("interleaved", 8, 17, 2), cfg("interleaved", 3, 7, 3),
        cfg("interleaved", 5, 11, 2), cfg("interleaved", 16, 33, 4), cfg("interleaved", 7, 50, 2),
        cfg("1f1b", 4, 8, G=4), cfg("zb-v", 4, 8, G=4), cfg("gpipe", 4, 8, G=0),
        cfg("1f1b", 0, 8), cfg("1f1b", 4, 0), cfg("interleaved", 4, 8, 0), cfg("1f1b", -3, 8),
        cfg("1f1b", 2.5, 8), cfg("1f1b", 4, nan), cfg("1f1b", 4, 8, inf), cfg("1f1b", None, 8),
        cfg("1f1b", True, 8), cfg("1f1b", "4", 8),
        cfg("1f1b", 100, 6000), cfg("zb-v", 16, 20000), cfg("interleaved", 64, 512, 16),
        cfg("zb-h2", 10**6, 10**6), cfg("gpipe", 1, MAX_OPS // 2), cfg("gpipe", 1, MAX_OPS // 2 + 1),
        cfg("foo", 4, 8), cfg("ZB-V", 4, 8), cfg("", 4, 8), cfg(None, 4, 8), cfg(3, 4, 8), cfg("it's", 4, 8),
        cfg("1f1b", 4, 8, costs=(0, 1, 1, 0)), cfg("1f1b", 4, 8, costs=(-1.5, 123456.5, 1, 0)),
        cfg("1f1b", 4, 8, costs=(1, 1, -0.1, -0.0)), cfg("1f1b", 4, 8, costs=(1, 1, 1, -2)),
        cfg("1f1b", 4, 8, costs=(1, 1e-300, -1e300, 0)), cfg("1f1b", 4, 8, costs=(nan, 1, 1, 0)),
        cfg("1f1b", 4, 8, costs=(1, inf, 1, 0)), cfg("1f1b", 4, 8, costs=(1, 1, 1, -inf)),
        cfg("1f1b", 4, 8, costs=(None, 1, 1, 0)), cfg("1f1b", 4, 8, costs=(1, 1, True, 0)),
        # Both the costs and the config are wrong: Python builds Costs first.
        cfg("1f1b", 0, 8, costs=(0, 1, 1, 0)), cfg("nope", 4, 8, 2, costs=(1, 1, 1, -1)),
    ]
    out.extend(bad)
    return out


CONFIGS = build_configs()


def label(c: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in c.items())


def expected(c: dict) -> dict:
    """The Python engine's answer, in engine.js's layout."""
    try:
        costs = Costs(c["tf"], c["tb"], c["tw"], c["comm"])
        res = run(Config(c["schedule"], c["P"], c["m"], c["V"], costs, c["G"]))
    except ConfigError as e:
        return {"ok": False, "error": str(e)}
    order, tl, mt, th = res.order, res.timeline, res.metrics, res.theory

    def steps(s):
        return None if s is None else {"rank": s.rank.tolist(), "time": s.time.tolist(), "value": s.value.tolist()}

    def ints(a):
        return None if a is None else a.tolist()

    return {
        "ok": True,
        "config": {k: c[k] for k in ("schedule", "P", "m", "V", "G", "tf", "tb", "tw", "comm")},
        "title": res.schedule.title,
        "S": order.S,
        "chunksPerRank": order.chunks_per_rank,
        "splitBackward": order.split_backward,
        "stageToRank": order.stage_to_rank.tolist(),
        "rankPtr": order.rank_ptr.tolist(),
        "ops": {
            "kind": order.kind.tolist(), "mb": order.mb.tolist(), "stage": order.stage.tolist(),
            "rank": order.rank.tolist(), "start": tl.start.tolist(), "end": tl.end.tolist(), "dep": tl.dep.tolist(),
        },
        "metrics": {
            "makespan": mt.makespan, "busy": mt.busy.tolist(), "idle": mt.idle.tolist(), "span": mt.span.tolist(),
            "bubbleFraction": mt.bubble_fraction, "steadyBubbleFraction": mt.steady_bubble_fraction,
            "bubbles": dict(zip(("rank", "start", "end"), (a.tolist() for a in mt.bubbles))),
            "inflight": steps(mt.inflight), "awaitingB": steps(mt.awaiting_b), "awaitingW": steps(mt.awaiting_w),
            "peakChunks": mt.peak_chunks.tolist(), "peakMicrobatches": mt.peak_microbatches.tolist(),
            "peakAwaitingB": ints(mt.peak_awaiting_b), "peakAwaitingW": ints(mt.peak_awaiting_w),
            "p2pPerMicrobatch": mt.p2p_per_microbatch,
        },
        "theory": {
            "bubbleNum": str(th.bubble.numerator), "bubbleDen": str(th.bubble.denominator),
            "bubble": float(th.bubble), "bubbleFormula": th.bubble_formula, "bubbleExact": th.bubble_exact,
            "caveat": th.caveat,
            "steadyNum": str(th.steady_bubble.numerator), "steadyDen": str(th.steady_bubble.denominator),
            "steady": float(th.steady_bubble), "steadyExact": th.steady_exact,
            "peakChunks": th.peak_chunks.tolist(), "peakAwaitingB": ints(th.peak_awaiting_b),
            "peakAwaitingW": ints(th.peak_awaiting_w), "p2pPerMicrobatch": th.p2p_per_microbatch,
        },
        "agree": {"bubble": res.bubble_agrees, "steady": res.steady_agrees, "peak": res.peak_agrees},
    }


class Diff:
    """Walks expected and actual together; records where they differ."""

    def __init__(self):
        self.errors: list[str] = []
        self.floats = 0
        self.floats_inexact = 0

    def num(self, path, e, a):
        if isinstance(e, float) and math.isnan(e):
            ok = isinstance(a, float) and math.isnan(a)
        elif isinstance(e, int):  # counts, indices, ranks: exactly
            ok = isinstance(a, (int, float)) and not isinstance(a, bool) and a == e
        else:
            ok = isinstance(a, (int, float)) and not isinstance(a, bool) and math.isclose(
                e, a, rel_tol=REL, abs_tol=REL * 1e-3
            )
            self.floats += 1
            self.floats_inexact += ok and float(a) != e
        if not ok:
            self.errors.append(f"{path}: python {e!r}, js {a!r}")

    def walk(self, path, e, a):
        if len(self.errors) >= 8:
            return
        if isinstance(e, dict):
            if not isinstance(a, dict) or set(a) != set(e):
                keys = sorted(set(e) ^ set(a)) if isinstance(a, dict) else type(a).__name__
                self.errors.append(f"{path}: keys differ: {keys}")
                return
            for k in e:
                self.walk(f"{path}.{k}" if path else k, e[k], a[k])
        elif isinstance(e, list):
            if not isinstance(a, list) or len(a) != len(e):
                self.errors.append(f"{path}: python length {len(e)}, js {len(a) if isinstance(a, list) else a!r}")
                return
            for i, (x, y) in enumerate(zip(e, a)):
                self.walk(f"{path}[{i}]", x, y)
                if len(self.errors) >= 8:
                    return
        elif isinstance(e, (int, float)) and not isinstance(e, bool):
            self.num(path, e, a)
        elif e != a or type(e) is not type(a):  # strings, booleans, None: exactly
            self.errors.append(f"{path}: python {e!r}, js {a!r}")


# Runs in the page: every configuration of a batch, typed arrays made plain, one JSON string back.
RUN_BATCH = """(batch) => {
  const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v)
    : (v && typeof v === 'object') ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
  return JSON.stringify(batch.map((c) => {
    try { return plain(PipevizEngine.run(c)); } catch (e) { return {exception: String(e && e.stack || e)}; }
  }));
}"""


def load_engine(page):
    page.goto("about:blank")
    before = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    page.add_script_tag(path=str(ENGINE))
    after = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    return after - before


def test_config_list_covers_the_brief():
    assert len(CONFIGS) >= 300
    assert {c["schedule"] for c in CONFIGS} >= set(NAMES)
    results = [expected(c) for c in CONFIGS]
    valid = [c for c, r in zip(CONFIGS, results) if r["ok"]]
    assert len(valid) >= 250 and len(CONFIGS) - len(valid) >= 50
    assert {c["P"] for c in valid} >= {1, 16} and {c["m"] for c in valid} >= {1, 64}
    assert {c["V"] for c in valid if c["schedule"] == "interleaved"} == {1, 2, 3, 4}


def test_engine_matches_python(page):
    assert load_engine(page) == {"PipevizEngine"}  # exactly one global
    api = page.evaluate("({names: PipevizEngine.NAMES, schedules: PipevizEngine.SCHEDULES, max: PipevizEngine.MAX_OPS})")
    assert api["names"] == list(NAMES)
    assert api["max"] == MAX_OPS
    for name, spec in SCHEDULES.items():
        assert api["schedules"][name] == {
            "name": spec.name, "title": spec.title, "summary": spec.summary, "placement": spec.placement,
            "splitBackward": spec.split_backward, "fixedV": spec.fixed_V, "takesG": spec.takes_G,
        }

    failures, floats, inexact = [], 0, 0
    for lo in range(0, len(CONFIGS), BATCH):
        batch = CONFIGS[lo : lo + BATCH]
        got = json.loads(page.evaluate(RUN_BATCH, batch))
        for c, a in zip(batch, got):
            d = Diff()
            d.walk("", expected(c), a)
            floats, inexact = floats + d.floats, inexact + d.floats_inexact
            if d.errors:
                failures.append(f"[{label(c)}]\n    " + "\n    ".join(d.errors))
    print(f"\n{len(CONFIGS)} configurations, {floats} floats compared, {inexact} not bit-identical")
    assert not failures, f"{len(failures)} of {len(CONFIGS)} configurations differ:\n" + "\n".join(failures[:20])


def test_no_network_no_console_errors(page, tmp_path):
    """Inlined in a page opened from file://, the engine loads nothing and logs no error."""
    html = tmp_path / "engine.html"
    html.write_text(f"<!doctype html><meta charset=utf-8><script>{ENGINE.read_text()}</script>")
    url = html.as_uri()
    requests, problems = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: problems.append(f"console.{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.goto(url)
    configs = [cfg(n, P, m) for n in NAMES for P, m in [(4, 8), (8, 32), (1, 1)]]
    configs += [cfg("interleaved", 4, 9, 2), cfg("nope", 4, 8), cfg("1f1b", 2.5, 8)]
    got = json.loads(page.evaluate(RUN_BATCH, configs))
    assert all("exception" not in r for r in got)
    assert [r["ok"] for r in got[-3:]] == [False, False, False]
    assert requests == [url]  # the page itself, nothing else
    assert problems == []


def test_timing(page):
    """Prints run() times in Chromium; no timed assertion (machines differ)."""
    load_engine(page)
    sizes = [(4, 8, 1), (16, 64, 4)]
    times = page.evaluate(
        """([names, sizes, own]) => {
      const out = {};
      for (const [P, m, V] of sizes) for (const name of names) {
        const c = {schedule: name, P, m, V: name === 'interleaved' ? V : own[name]};
        const once = performance.now(); PipevizEngine.run(c); const first = performance.now() - once;
        for (let i = 0; i < 20; i++) PipevizEngine.run(c);
        const n = P * m < 100 ? 2000 : 200, t0 = performance.now();
        for (let i = 0; i < n; i++) PipevizEngine.run(c);
        out[`${name} (${P},${m},${c.V})`] = [(performance.now() - t0) / n, first];
      }
      return out;
    }""",
        [list(NAMES), sizes, OWN_V],
    )
    print("\nrun() in Chromium, ms per call (first call in brackets):")
    for k, (ms, first) in times.items():
        print(f"  {k:<26} {ms:8.4f}  ({first:.3f})")
