"""Load time and peak memory of reading a large profiled step (pipeviz.trace).

    .venv/bin/python benchmarks/trace.py [--mb 100] [--keep DIR]

A real step's traces (tests/data/traces/torch-Interleaved1F1B-P4-m8-V1, four ranks of
PyTorch 2.13's own runtime) scaled to about --mb MB in all: each rank's events that are
not pipeline actions (aten ops, gloo calls, flows: what makes a real trace large) are
repeated, each copy shifted a little in time, so the step, its ops and its numbers stay
those of the real run. Written plain and gzipped. Each measure runs in a fresh process:
  read_traces     pipeviz's reader (json's decoder a value at a time, never the whole text)
  json.load       the whole file parsed at once (what reading it naively costs), for scale
and prints wall and CPU seconds, the process's peak resident memory above its start
(after imports, and for pipeviz after reading the small trace once, so that the
engine's compiled code is loaded), and the Python heap's peak (tracemalloc, a separate
run: it slows the reader down about twice).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "data" / "traces" / "torch-Interleaved1F1B-P4-m8-V1"

MEASURE = r"""
import json, gzip, resource, sys, time, tracemalloc
kind, trace_malloc, warm, paths = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4:]
from pipeviz.trace import read_traces
import glob
if kind == "pipeviz":  # load the engine's compiled code first: what is measured is the reading
    read_traces(sorted(glob.glob(warm + "/rank*.json.gz")))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if trace_malloc:
    tracemalloc.start()
t0, c0 = time.perf_counter(), time.process_time()
if kind == "pipeviz":
    run = read_traces(paths)
    n = run.order.n_ops
else:
    n = 0
    for p in paths:
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8") as f:
            n += len(json.load(f)["traceEvents"])
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
heap = tracemalloc.get_traced_memory()[1] if trace_malloc else 0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
print(json.dumps({"wall": wall, "cpu": cpu, "rss_mb": rss / 1024, "heap_mb": heap / 1e6, "n": n}))
"""


def scale(src: Path, out: Path, target_mb: float) -> list[Path]:
    """Each rank's trace with its other events repeated until the files hold target_mb."""
    sources = sorted(src.glob("rank*.json.gz"), key=lambda p: int(p.name[4:].split(".")[0]))
    traces = [json.loads(gzip.decompress(p.read_bytes())) for p in sources]
    size = sum(len(json.dumps(t)) for t in traces)
    copies = max(1, round(target_mb * 1e6 / size))
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for r, t in enumerate(traces):
        events = t["traceEvents"]
        filler = [e for e in events if not str(e.get("name", "")).startswith("PP:")]
        more = []
        for k in range(1, copies):
            for e in filler:
                c = dict(e)
                if isinstance(c.get("ts"), (int, float)):
                    c["ts"] = c["ts"] + k * 1e-3  # a nanosecond apart: the same step
                more.append(c)
        t = dict(t, traceEvents=events + more)
        p = out / f"rank{r}.json"
        with open(p, "w", encoding="utf-8") as f:
            json.dump(t, f)
        paths.append(p)
    return paths


def measure(kind: str, paths: list[Path], trace_malloc: bool) -> dict:
    p = subprocess.run([sys.executable, "-c", MEASURE, kind, "1" if trace_malloc else "0", str(SOURCE), *map(str, paths)],
                       capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0, help="size of the scaled traces in all, MB (default 100)")
    ap.add_argument("--keep", metavar="DIR", help="write the scaled traces to DIR and keep them")
    args = ap.parse_args()
    where = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pipeviz-trace-"))
    try:
        plain = scale(SOURCE, where / "plain", args.mb)
        gz = []
        for p in plain:
            q = where / "gz" / (p.name + ".gz")
            q.parent.mkdir(exist_ok=True)
            with open(p, "rb") as f, gzip.open(q, "wb", compresslevel=6) as g:
                shutil.copyfileobj(f, g)
            gz.append(q)
        size = sum(p.stat().st_size for p in plain) / 1e6
        gz_size = sum(p.stat().st_size for p in gz) / 1e6
        print(f"{len(plain)} ranks, {size:.1f} MB of JSON ({gz_size:.1f} MB gzipped), scaled from {SOURCE.name}")
        print(f"{'reader':<10} {'files':<6} {'wall s':>7} {'cpu s':>7} {'peak RSS MB':>12} {'heap peak MB':>13}")
        for kind in ("pipeviz", "json.load"):
            for label, paths in (("json", plain), ("gzip", gz)):
                a = measure(kind, paths, False)
                b = measure(kind, paths, True)
                print(f"{kind:<10} {label:<6} {a['wall']:>7.2f} {a['cpu']:>7.2f} {a['rss_mb']:>12.1f} {b['heap_mb']:>13.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
