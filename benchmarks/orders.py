"""Time to read an order of one's own (text and JSON), check it, time it and measure it.

    .venv/bin/python benchmarks/orders.py [--repeat N]

Each row reads back an order pipeviz wrote (`export --format actions` and the JSON
export's ops) for a schedule and size, and prints median times (ms).
"""

from __future__ import annotations

import argparse
import json

from timing import median_ms  # benchmarks/timing.py

from pipeviz import Config, run
from pipeviz.custom import read, run_order
from pipeviz.export import to_actions, to_dict

CASES = [("1f1b", 4, 8, 1), ("dualpipe-v", 8, 32, 2), ("interleaved", 16, 64, 4), ("zb-v", 32, 256, 2),
         ("interleaved", 64, 512, 4)]



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=0, help="runs per cell (default: adaptive)")
    args = ap.parse_args()
    print(f"{'schedule':<12} {'P':>3} {'m':>4} {'V':>2} {'ops':>8} {'read text':>10} {'read JSON':>10} "
          f"{'time+measure':>13}  ms")
    for name, P, m, V in CASES:
        res = run(Config(name, P, m, V))
        text = to_actions(res)
        data = json.dumps(to_dict(res)["ops"])
        placement = res.schedule.placement
        repeat = args.repeat or max(3, min(30, int(100_000 / res.order.n_ops)))
        order = read(text, placement)
        t_text = median_ms(lambda text=text, p=placement: read(text, p), repeat)
        t_json = median_ms(lambda data=data, p=placement: read(data, p), repeat)
        t_run = median_ms(lambda o=order, c=res.config.costs, p=placement: run_order(o, c, p), repeat)
        print(f"{name:<12} {P:>3} {m:>4} {V:>2} {res.order.n_ops:>8} {t_text:>10.1f} {t_json:>10.1f} {t_run:>13.1f}")


if __name__ == "__main__":
    main()
