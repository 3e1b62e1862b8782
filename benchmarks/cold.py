"""The first command after an install against the same command again: fresh processes,
empty caches.

    .venv/bin/python benchmarks/cold.py [--rounds N] [--source DIR] [-- COMMAND ...]
    .venv/bin/python benchmarks/cold.py --generate [--rounds N] [--source DIR]

Each round copies the package (DIR, default the pipeviz this Python imports, with its
compiled extension and static/ as an install lays them out) into a new temporary
folder with no __pycache__, and runs the command there three times in fresh
processes: "cold", the first run after the copy (Python compiles the bytecode);
"warm", the same again (bytecode written by the cold run); and "read-only", in a
second copy whose files and folders cannot be written (a read-only site-packages in
a container image: no bytecode is written).
The default command is the README's first: `python -m pipeviz show -s interleaved
-P 4 -m 8 -V 2`. Rounds alternate the three; the figures are medians of wall and CPU
time (the child's user + system) in seconds, and cold over warm. Target: cold at most
2x warm.

--generate times instead the orders built by greedy passes (V-Half, V-Min, ZB-H2, whose
loops are pipeviz/kernels.py's `bb_*` and `zbh2_rule`) at (P, m) = (8, 32) and
(32, 128), each in a fresh process of a fresh copy, with the compiled build and with
kernels.py run as plain Python (PIPEVIZ_KERNELS=python): the first generate() call's
time in the process (nothing cached), and the whole process's wall time (import
included). Medians over the rounds.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT = ["show", "-s", "interleaved", "-P", "4", "-m", "8", "-V", "2"]
GREEDY = ("v-half", "v-min", "zb-h2")  # the schedules whose orders come from greedy passes
GREEDY_SIZES = ((8, 32), (32, 128))
# One generate() in a fresh process: prints its ms and the order's op count.
GENERATE = """
import sys, time
from pipeviz import Config, compiled
from pipeviz.registry import SCHEDULES
name, P, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = SCHEDULES[name]
cfg = Config(name, P, m, spec.fixed_V or 1)
t0 = time.perf_counter()
order = spec.generate(cfg)
print((time.perf_counter() - t0) * 1e3, order.n_ops, compiled.COMPILED)
"""


def package_dir() -> Path:
    import pipeviz

    return Path(pipeviz.__file__).resolve().parent


def lay_out(source: Path, into: Path) -> Path:
    """`source` copied as an install lays it out: pipeviz/ with static/ inside (an
    editable install maps pipeviz.static to the checkout's static/), no caches."""
    pkg = into / "pipeviz"
    shutil.copytree(source, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    static = source.parent / "static"
    if not (pkg / "static").exists() and static.is_dir():
        shutil.copytree(static, pkg / "static", ignore=shutil.ignore_patterns("__pycache__"))
    return into


def read_only(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)


def writable(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def child_env(where: Path, kernels: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIPEVIZ_KERNELS"))}
    env.update(PYTHONPATH=str(where))
    if kernels:
        env.update(PIPEVIZ_KERNELS=kernels)
    return env


def check_copy(where: Path, env: dict[str, str]) -> None:
    where_from = subprocess.run([sys.executable, "-c", "import pipeviz; print(pipeviz.__file__)"], cwd=where, env=env,
                                capture_output=True, text=True).stdout.strip()
    if not where_from.startswith(str(where)):  # the copy must be what runs, not the checkout
        sys.exit(f"benchmarks/cold.py: ran {where_from}, not the copy in {where}")


def timed(cmd: list[str], where: Path) -> tuple[float, float]:
    env = child_env(where)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeviz", *cmd], cwd=where, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"benchmarks/cold.py: the command failed: {done.stderr[-2000:]}")
    check_copy(where, env)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def generate_cold(source: Path, rounds: int) -> None:
    """--generate: each greedy schedule and size, compiled and plain, a fresh copy each."""
    builds = {"compiled": None, "plain": "python"}
    runs: dict[tuple, list[tuple[float, float]]] = {}
    ops: dict[tuple, int] = {}
    for _ in range(rounds):
        for name in GREEDY:
            for P, m in GREEDY_SIZES:
                for build, kernels in builds.items():
                    with tempfile.TemporaryDirectory(prefix="pipeviz-cold-") as tmp:
                        where = lay_out(source, Path(tmp) / "copy")
                        env = child_env(where, kernels)
                        t0 = time.perf_counter()
                        done = subprocess.run([sys.executable, "-W", "ignore", "-c", GENERATE, name, str(P), str(m)],
                                              cwd=where, env=env, capture_output=True, text=True)
                        wall = time.perf_counter() - t0
                        if done.returncode != 0:
                            sys.exit(f"benchmarks/cold.py: generate failed: {done.stderr[-2000:]}")
                        ms, n_ops, is_compiled = done.stdout.split()
                        if (is_compiled == "True") != (kernels is None):
                            sys.exit(f"benchmarks/cold.py: wanted the {build} build, ran the other (is it built?)")
                        check_copy(where, env)
                        runs.setdefault((name, P, m, build), []).append((float(ms), wall))
                        ops[(name, P, m)] = int(n_ops)
    print(f"first generate() in a fresh process (median of {rounds}); process wall includes import")
    print(f"{'schedule':<8} {'P':>3} {'m':>4} {'ops':>6} {'compiled ms':>12} {'plain ms':>10} {'plain/comp':>11} "
          f"{'proc s comp':>12} {'proc s plain':>13}")
    for name in GREEDY:
        for P, m in GREEDY_SIZES:
            c = runs[(name, P, m, "compiled")]
            p = runs[(name, P, m, "plain")]
            c_ms, p_ms = statistics.median(x for x, _ in c), statistics.median(x for x, _ in p)
            c_s, p_s = statistics.median(w for _, w in c), statistics.median(w for _, w in p)
            print(f"{name:<8} {P:>3} {m:>4} {ops[(name, P, m)]:>6} {c_ms:>12.2f} {p_ms:>10.1f} {p_ms / c_ms:>10.0f}x "
                  f"{c_s:>12.2f} {p_s:>13.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--source", type=Path, default=None, help="the pipeviz package folder to copy (default: this one)")
    ap.add_argument("--generate", action="store_true", help="time V-Half, V-Min and ZB-H2's orders, compiled and plain")
    ap.add_argument("command", nargs="*", help="pipeviz's arguments (after --)")
    args = ap.parse_args()
    source = (args.source or package_dir()).resolve()
    if args.generate:
        generate_cold(source, args.rounds)
        return
    cmd = args.command or DEFAULT
    print(f"python -m pipeviz {' '.join(cmd)}  (package: {source})")
    runs: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": [], "read-only": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="pipeviz-cold-") as tmp:
            tmp = Path(tmp)
            copy = lay_out(source, tmp / "copy")
            locked = lay_out(source, tmp / "locked")
            runs["cold"].append(timed(cmd, copy))
            runs["warm"].append(timed(cmd, copy))
            read_only(locked)
            try:
                runs["read-only"].append(timed(cmd, locked))
            finally:
                writable(locked)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    print(f"{'':<10} {'wall s':>8} {'cpu s':>8}   (median of {args.rounds}; all wall: "
          + "; ".join(f"{k} " + " ".join(f"{w:.2f}" for w, _ in v) for k, v in runs.items()) + ")")
    for k, (w, c) in med.items():
        print(f"{k:<10} {w:>8.2f} {c:>8.2f}")
    print(f"cold / warm: {med['cold'][0] / med['warm'][0]:.2f}x wall, {med['cold'][1] / med['warm'][1]:.2f}x cpu "
          "(target: at most 2x)")


if __name__ == "__main__":
    main()
