"""What every benchmark here times with (run as scripts: `python benchmarks/<name>.py`
puts this folder first on sys.path)."""

import statistics
import time


def median_ms(fn, repeat: int) -> float:
    """The median wall time of `repeat` calls of fn(), in ms."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)
