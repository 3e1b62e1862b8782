"""Writes the reference orders the tests hold pipeviz's generators to (never run by
the tests, and never imported by pipeviz: it needs torch and a checkout of sail-sg's
code, neither of which pipeviz or its tests depend on).

    python tests/data/orders/make_reference.py torch     # in a venv with torch==2.13.0
    python tests/data/orders/make_reference.py sail-sg CHECKOUT   # any Python 3.11

`torch`: PyTorch 2.13's own schedule classes (torch.distributed.pipelining), their
`pipeline_order` read with stand-in stages (the constructors read only each stage's
group size and rank, stage count and index): ScheduleLoopedBFS at V 1..4 and
ScheduleInterleaved1F1B at V 2..4, every P in 2..8 and m in 1..4P (m in P..4P for
Looped BFS), or the one-line error where the class refuses m.

`sail-sg`: V-Half and V-Min from sail-sg/zero-bubble-pipeline-parallelism
(`megatron/core/pipeline_parallel/zerobubble/scheduler/zbv_greedy.py`, the commit
named in the output), run from a checkout as Megatron runs it: `PipelineGraph(P, m,
"half" or "min", 1, 1, 1, 0).create_schedule(config)` with max_chunks = 2, for every
P in 1..8 and m in 1..4P. Its nodes become PyTorch's action notation on the V
placement (chunk 0 of rank r is stage r, chunk 1 is stage 2P-1-r; its B is the
input-gradient backward, I here).

Each output is gzipped JSON: {"source": ..., "orders": {"P m V": text or {"refused": why}}}.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import subprocess
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(name: str, source: str, orders: dict) -> None:
    path = HERE / name
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump({"source": source, "orders": orders}, f, sort_keys=True)
    print(f"{path}: {len(orders)} orders")


def torch_orders() -> None:
    import torch
    from torch.distributed.pipelining import schedules

    class Stage:  # what the schedule classes read of a stage to write their orders
        def __init__(self, P, n_stages, index, rank):
            self.group_size, self.group_rank, self.num_stages, self.stage_index = P, rank, n_stages, index
            self.is_first, self.is_last = index == 0, index == n_stages - 1
            self.submod = None

    def order(cls, P, m, V):
        stages = [Stage(P, P * V, v * P, 0) for v in range(V)]
        sched = getattr(schedules, cls)(stages, m)
        return "\n".join(" ".join(str(a) for a in sched.pipeline_order[r] if a is not None) for r in range(P))

    for cls, Vs, low in [("ScheduleLoopedBFS", range(1, 5), "P"), ("ScheduleInterleaved1F1B", range(2, 5), "1")]:
        orders = {}
        for P in range(2, 9):
            for m in range(P if low == "P" else 1, 4 * P + 1):
                for V in Vs:
                    try:
                        orders[f"{P} {m} {V}"] = order(cls, P, m, V)
                    except ValueError as e:
                        orders[f"{P} {m} {V}"] = {"refused": str(e)}
        write(f"torch-{cls.removeprefix('Schedule')}.json.gz", f"PyTorch {torch.__version__} {cls}.pipeline_order",
              orders)


def sail_sg_orders(checkout: str) -> None:
    root = Path(checkout)
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    sys.path.insert(0, str(root))
    # Only the scheduler's graph and greedy modules are needed; the package's
    # __init__ files import Megatron's runtime (torch), so they are stood in for.
    pkg = "megatron.core.pipeline_parallel.zerobubble.scheduler"
    parts = pkg.split(".")
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        module = types.ModuleType(name)
        module.__path__ = [str(root.joinpath(*name.split(".")))]
        sys.modules[name] = module
    import importlib

    greedy = importlib.import_module(f"{pkg}.zbv_greedy")
    for mem, name in [("half", "v-half"), ("min", "v-min")]:
        orders = {}
        for P in range(1, 9):
            for m in range(1, 4 * P + 1):
                graph = greedy.PipelineGraph(P, m, mem, 1, 1, 1, 0)
                with contextlib.redirect_stdout(io.StringIO()):
                    local = graph.create_schedule(types.SimpleNamespace(max_chunks=2, n_stages=P))
                lines = []
                for r, nodes in enumerate(local):
                    kinds = {"F": "F", "B": "I", "W": "W"}
                    lines.append(" ".join(f"{r if n.chunk == 0 else 2 * P - 1 - r}{kinds[str(n.type)]}{n.microbatch}"
                                          for n in nodes))
                orders[f"{P} {m} 2"] = "\n".join(lines)
        write(f"sailsg-{name}.json.gz", f"sail-sg/zero-bubble-pipeline-parallelism@{commit} zbv_greedy "
              f"PipelineGraph(P, m, {mem!r}, 1, 1, 1, 0).create_schedule", orders)


if __name__ == "__main__":
    if sys.argv[1:2] == ["torch"]:
        torch_orders()
    elif sys.argv[1:2] == ["sail-sg"] and len(sys.argv) == 3:
        sail_sg_orders(sys.argv[2])
    else:
        sys.exit(__doc__)
