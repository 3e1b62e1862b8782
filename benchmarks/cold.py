"""The first command after an install against the same command again: fresh processes,
empty caches.

    .venv/bin/python benchmarks/cold.py [--rounds N] [--source DIR] [-- COMMAND ...]

Each round copies the package (DIR, default the pipeviz this Python imports, with its
compiled extension and static/ as an install lays them out) into a new temporary
folder with no __pycache__, and runs the command there three times in fresh
processes: "cold", the first run after the copy (Python compiles the bytecode, and
any JIT cache starts empty: NUMBA_CACHE_DIR is a new empty folder, for versions that
used numba); "warm", the same again (bytecode and caches written by the cold run);
and "read-only", in a second copy whose files and folders cannot be written (a
read-only site-packages in a container image: no bytecode is written, and a JIT's
cache folder is new and empty in each container).
The default command is the README's first: `python -m pipeviz show -s interleaved
-P 4 -m 8 -V 2`. Rounds alternate the three; the figures are medians of wall and CPU
time (the child's user + system) in seconds, and cold over warm. Target: cold at most
2x warm.
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


def package_dir() -> Path:
    import pipeviz

    return Path(pipeviz.__file__).resolve().parent


def lay_out(source: Path, into: Path) -> Path:
    """`source` copied as an install lays it out: pipeviz/ with static/ inside (an
    editable install maps pipeviz.static to the checkout's static/), no caches."""
    pkg = into / "pipeviz"
    shutil.copytree(source, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
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


def timed(cmd: list[str], where: Path, cache: Path) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NUMBA"))}
    env.update(PYTHONPATH=str(where), NUMBA_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeviz", *cmd], cwd=where, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"benchmarks/cold.py: the command failed: {done.stderr[-2000:]}")
    where_from = subprocess.run([sys.executable, "-c", "import pipeviz; print(pipeviz.__file__)"], cwd=where, env=env,
                                capture_output=True, text=True).stdout.strip()
    if not where_from.startswith(str(where)):  # the copy must be what runs, not the checkout
        sys.exit(f"benchmarks/cold.py: ran {where_from}, not the copy in {where}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--source", type=Path, default=None, help="the pipeviz package folder to copy (default: this one)")
    ap.add_argument("command", nargs="*", help="pipeviz's arguments (after --)")
    args = ap.parse_args()
    source = (args.source or package_dir()).resolve()
    cmd = args.command or DEFAULT
    print(f"python -m pipeviz {' '.join(cmd)}  (package: {source})")
    runs: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": [], "read-only": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="pipeviz-cold-") as tmp:
            tmp = Path(tmp)
            copy = lay_out(source, tmp / "copy")
            locked = lay_out(source, tmp / "locked")
            cache = tmp / "cache"
            cache.mkdir()
            runs["cold"].append(timed(cmd, copy, cache))
            runs["warm"].append(timed(cmd, copy, cache))
            locked_cache = tmp / "locked-cache"  # a JIT's cache starts empty in each new container
            locked_cache.mkdir()
            read_only(locked)
            try:
                runs["read-only"].append(timed(cmd, locked, locked_cache))
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
