"""Traces for the trace tests: where the real ones are, and synthetic ones written from
a pipeviz timeline in the form PyTorch's runtime writes (complete events named
PP:<action>, times in microseconds, distributedInfo.rank).

Nothing here calls pipeviz.trace: the tests read the raw events themselves.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SHARED = Path("/work/shared/traces")
OURS = ROOT / "data" / "traces"


def trace_dirs() -> list[Path]:
    """Every real trace: the shared three (where this machine has them) and ours."""
    shared = sorted(p for p in SHARED.glob("*") if p.is_dir()) if SHARED.is_dir() else []
    return shared + sorted(p for p in OURS.glob("*") if p.is_dir())


def rank_files(d: Path) -> list[Path]:
    return sorted(d.glob("rank*.json*"), key=lambda p: int(p.name[4:].split(".")[0]))


def load(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def token(op: tuple) -> str:
    """('F', mb, stage) or ('F&B', mb, stage, mb2, stage2) in the action notation."""
    if op[0] == "F&B":
        return f"{op[2]}F{op[1]}&{op[4]}B{op[3]}"
    return f"{op[2]}{op[0]}{op[1]}"


def pp_name(op: tuple) -> str:
    if op[0] == "F&B":
        return f"PP:({op[2]}F{op[1]};{op[4]}B{op[3]})OVERLAP_F_B"
    return f"PP:{op[2]}{op[0]}{op[1]}"


def filler(i: int, ts: float) -> dict:
    """An event like the bulk of a real trace (an aten op), which the reader skips."""
    return {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": ts, "dur": 1.5,
            "args": {"External id": i, "Record function id": 0, "Ev Idx": i, "Input Dims": [[64, 256], [256, 256]]}}


def synthetic(order, start, end, base_us: float = 1_000_000.0, names=None, comm=(), rank_key: bool = True,
              fillers: int = 0) -> list[dict]:
    """One trace object per rank: each op of `order` (a pipeviz Order) as a complete
    event at base_us + time * 1000 (times in ms), named by `names(op)` (default
    PyTorch's PP: names), plus `comm` actions (rank, name, start, end) and `fillers`
    aten-like events per op."""
    names = names or pp_name
    traces = []
    for r in range(order.P):
        events = [{"ph": "M", "pid": 7, "tid": 7, "name": "thread_name", "args": {"name": "python"}}]
        n = 0
        for i in range(int(order.rank_ptr[r]), int(order.rank_ptr[r + 1])):
            op = order.op(i)
            ts = base_us + start[i] * 1000.0
            events.append({"ph": "X", "cat": "user_annotation", "name": names(op), "pid": 7, "tid": 7, "ts": ts,
                           "dur": base_us + end[i] * 1000.0 - ts})
            for _ in range(fillers):
                events.append(filler(n, ts))
                n += 1
        for cr, name, s, e in comm:
            if cr == r:
                events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 7, "tid": 7,
                               "ts": base_us + s * 1000.0, "dur": (e - s) * 1000.0})
        trace = {"schemaVersion": 1, "traceEvents": events, "displayTimeUnit": "ms"}
        if rank_key:
            trace["distributedInfo"] = {"backend": "gloo", "rank": r, "world_size": order.P}
        traces.append(trace)
    return traces


def write(traces: list[dict], where: Path, gz: bool = False, **dump) -> list[Path]:
    where.mkdir(parents=True, exist_ok=True)
    paths = []
    for r, t in enumerate(traces):
        p = where / f"rank{r}.json{'.gz' if gz else ''}"
        text = json.dumps(t, **dump)
        if gz:
            p.write_bytes(gzip.compress(text.encode()))
        else:
            p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths
