"""Bring your own order: read (text or JSON), checked with one message naming the
first problem, timed like any schedule, a deadlock drawn; every schedule round-trips
through its text form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeviz import NAMES, Config, Costs, OrderError, run
from pipeviz.custom import read, run_text
from pipeviz.export import to_actions, to_json
from pipeviz.registry import SCHEDULES

ORDERS = Path(__file__).resolve().parent / "data" / "orders"  # written by PyTorch 2.13 (docs/model.md, "Reference numbers")
TORCH = {  # file: (placement, makespan at the default costs, peak chunks per rank)
    "torch-Interleaved1F1B-P4-m8-V2.txt": ("loop", 28.5, [11, 9, 7, 5]),
    "torch-InterleavedZeroBubble-P4-m8-V2.txt": ("loop", 25.5, [8, 8, 8, 8]),
    "torch-ZBVZeroBubble-P4-m8-V2.txt": ("v", 25.5, [8, 8, 8, 8]),
    "torch-DualPipeV-P4-m8-V2.txt": ("v", 27, [9, 9, 9, 9]),
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_pytorchs_own_orders_load_validate_and_time(name):
    placement, makespan, peak = TORCH[name]
    res = run_text((ORDERS / name).read_text(), placement, Costs())
    assert res.deadlock is None
    assert (res.config.P, res.config.m, res.config.V) == (4, 8, 2)  # P from its lines, m read from it
    assert res.metrics.makespan == makespan
    assert res.metrics.peak_chunks.tolist() == peak
    assert res.theory is None


@pytest.mark.parametrize("name,schedule", [
    ("torch-Interleaved1F1B-P4-m8-V2.txt", "interleaved"),
    ("torch-ZBVZeroBubble-P4-m8-V2.txt", "zb-v"),
    ("torch-DualPipeV-P4-m8-V2.txt", "dualpipe-v"),
])
def test_pytorchs_orders_time_as_pipevizs_own(name, schedule):
    costs = Costs(1.0, 1.5, 0.5, 0.1, 2.0)
    own = run_text((ORDERS / name).read_text(), TORCH[name][0], costs)
    ref = run(Config(schedule, 4, 8, 2, costs))
    assert np.array_equal(own.timeline.start, ref.timeline.start)
    assert np.array_equal(own.timeline.end, ref.timeline.end)


def configs():
    """Every schedule at a few sizes it accepts."""
    for name in NAMES:
        spec = SCHEDULES[name]
        for P, m, V in [(1, 2, 1), (2, 4, 1), (4, 8, 2), (3, 9, 3), (5, 12, 2)]:
            cfg = Config(name, P, m, spec.fixed_V or V)
            try:
                yield run(cfg)
            except Exception:  # noqa: BLE001 (a size this schedule refuses)
                continue


@pytest.mark.parametrize("res", list(configs()), ids=lambda r: f"{r.config.schedule}-{r.config.P}-{r.config.m}")
def test_every_schedule_round_trips_through_its_text(res):
    """export --format actions, read back: the same order and the same timeline."""
    back = run_text(to_actions(res), res.schedule.placement, res.config.costs)
    assert back.order.to_text() == res.order.to_text()
    assert back.order.stage_to_rank.tolist() == res.order.stage_to_rank.tolist()
    assert np.array_equal(back.timeline.start, res.timeline.start)
    assert np.array_equal(back.timeline.end, res.timeline.end)


@pytest.mark.parametrize("name", NAMES)
def test_the_json_exports_ops_load_back(name):
    spec = SCHEDULES[name]
    res = run(Config(name, 4, 8, spec.fixed_V or 2, Costs(tfb=2.0)))
    for text in (to_json(res), json.dumps(json.loads(to_json(res))["ops"])):  # the object or its list
        back = run_text(text, spec.placement, res.config.costs)
        assert back.order.to_text() == res.order.to_text()
        assert np.array_equal(back.timeline.end, res.timeline.end)


@pytest.mark.parametrize("text,placement,fragment", [
    ("0F0 0B0\n1F0 1X0", "loop", "line 2: '1X0' is not an op"),
    ("0F0 0B0 0F1\n1F0 1B0 1F1 1B1", "loop", "the backward of mb 1 on stage 0 is missing: write 0B1"),
    ("0F0 0F0 0B0\n1F0 1B0", "loop", "0F0 appears 2 times"),
    ("0F0 1F0 0B0\n1B0", "loop", "1F0 is on rank 0, but stage 1 lives on rank 1"),
    ("0F0 0B0\n1F0 1B0\n2F0 2B0\n3F0 3B0", "v", "4F0 is missing"),
    ("0F0 7F0 7B0 0B0\n1F0 6F0 6B0 1B0\n2F0 5F0 5B0 2B0\n3F0 4F0 4B0 3B0", "loop",
     "with placement loop stage 7 lives on rank 3; every op of this order fits placement v: choose it"),
    ("0F0 0B0 0W0", "loop", "0W0 has no 0I0 before it"),
    ("0F0 0I0", "loop", "0W0 is missing: 0I0 splits the backward"),
    ("0F0 0F999999999 0B0", "loop", "more than the 1,000,000 pipeviz times quickly"),
    ("0F0 0F9999999999 0B0", "loop", "'0F9999999999' is not an op"),
    ("# only a comment\n\n", "loop", "the order has no ops"),
    ("0F0 0B0", "diagonal", "unknown placement 'diagonal'; choose one of loop, v"),
    ('{"ops": [{"rank": 0, "kind": "F", "mb": 0, "stage": 0}, {"rank": 0, "kind": "X", "mb": 0, "stage": 0}]}',
     "loop", "op 1 of the JSON: its kind must be one of F, B, W, F&B, EF, EB"),
    ('[{"rank": 0, "kind": "F", "mb": -1, "stage": 0}]', "loop",
     "op 0 of the JSON: mb must be a whole number from 0 to 999999999"),
    ('[{"rank": 0, "kind": "F", "mb": true, "stage": 0}]', "loop", "mb must be a whole number"),
    ('[{"rank": 0, "kind": "F", "mb": 1.0, "stage": 0}]', "loop", "mb must be a whole number"),
    ('[{"rank": 0, "kind": "F", "mb": 0, "stage": NaN}]', "loop", "does not read as JSON"),
    ('[{"rank": 0, "kind": ["F"], "mb": 0, "stage": 0}]', "loop", "its kind must be one of"),
    ('[{"rank": 1, "kind": "F", "mb": 0, "stage": 1}]', "loop", "rank 0 has no ops in the JSON"),
    ('{"ops": [1, 2]', "loop", "does not read as JSON"),
    ("[" * 100_000, "loop", "the JSON nests deeper than 32 levels"),
    ("[" * 20 + "]" * 19, "loop", "does not read as JSON"),
    ('{"P": 4}', "loop", "the JSON holds no ops"),
    ('[{"rank": 0, "kind": "F&B", "parts": [{"kind": "B", "mb": 0, "stage": 0}]}]', "loop",
     "op 0 of the JSON is an F&B: its parts must be its F then its B"),
])
def test_a_bad_order_gets_one_message_naming_the_first_problem(text, placement, fragment):
    with pytest.raises(OrderError, match=None) as e:
        run_text(text, placement, Costs())
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)
    assert e.value.text("zh") != str(e.value)  # said in Chinese too


def test_a_bad_token_names_its_line_after_comments():
    with pytest.raises(OrderError, match="line 3: '0Q1'"):
        read("# comment\n0F0 0B0\n0Q1")


def test_pytorchs_comm_actions_are_read_and_left_out():
    order = read("0F0 0SEND_F0 0RECV_B0 0B0\n1RECV_F0 1F0 1B0 1SEND_B0")
    assert order.to_text() == "0F0 0B0\n1F0 1B0"


def test_p_must_match_the_lines_when_given():
    with pytest.raises(OrderError, match="the order has 2 lines but P = 3"):
        read("0F0 0B0\n1F0 1B0", "loop", P=3)


def test_a_deadlock_keeps_what_ran_and_names_each_stuck_op():
    # Rank 1 runs B(0) before F(1); rank 2 needs F(1) from rank 1 before its B(0).
    res = run_text("0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1", "loop", Costs())
    assert "deadlock" in str(res.deadlock)
    assert res.order.to_text() == "0F0 0F1\n1F0\n2F0"  # the ops that ran
    assert res.timeline.end.tolist() == [1, 2, 2, 3]
    s = res.stuck
    assert s.rank.tolist() == [0, 1, 2]
    assert s.token == ["0B0", "1B0", "2F1"] and s.waits_token == ["1B0", "2B0", "1F1"]
    assert s.waits_rank.tolist() == [1, 2, 1]
    assert s.left.tolist() == [2, 2, 3]  # after each rank's last op that ran
    assert s.right.tolist() == [4, 4, 4]
    # In flight is counted per rank, though no rank ended at zero.
    assert res.metrics.peak_chunks.tolist() == [2, 1, 1]


def test_a_deadlock_where_nothing_ran():
    res = run_text("0B0 0F0", "loop", Costs())
    assert res.order.n_ops == 0 and res.metrics.makespan == 0
    assert res.stuck.token == ["0B0"] and res.stuck.waits_token == ["0F0"]


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeviz", *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd)


def test_cli_export_order_file(tmp_path):
    p = cli("export", "--order", str(ORDERS / "torch-DualPipeV-P4-m8-V2.txt"), "-P", "4", "--placement", "v")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert (d["schedule"], d["P"], d["m"], d["V"], d["placement"]) == ("custom", 4, 8, 2, "v")
    assert d["metrics"]["makespan"] == 27 and d["metrics"]["bubble_fraction_theory"] is None
    # The actions export reads back as the same timeline.
    out = tmp_path / "zbv.txt"
    assert cli("export", "-s", "zb-v", "-V", "2", "--format", "actions", "-o", str(out)).returncode == 0
    p = cli("export", "--order", str(out), "--placement", "v", "--format", "csv")
    ref = cli("export", "-s", "zb-v", "-V", "2", "--format", "csv")
    assert p.stdout == ref.stdout


@pytest.mark.parametrize("args,fragment", [
    (["--order", "ORDER", "-P", "3", "--placement", "v"], "the order has 4 lines but P = 3"),
    (["--order", "ORDER"], "every op of this order fits placement v: choose it"),
    (["--order", "ORDER", "-m", "8"], "--order reads the order from FILE (m and V come from it): leave out -m"),
    (["--order", "ORDER", "-s", "zb-v"], "leave out --schedule"),
    (["--placement", "v"], "--placement applies to --order FILE"),
    (["--order", "/nonexistent/order.txt"], "cannot read /nonexistent/order.txt"),
    (["--order", "DEADLOCK"], "deadlock: rank 0 is stuck at B(mb 0, stage 0)"),
    (["--order", "ORDER", "--placement", "diagonal"], "invalid choice: 'diagonal'"),
])
def test_cli_order_errors_exit_2_with_one_line(tmp_path, args, fragment):
    dead = tmp_path / "dead.txt"
    dead.write_text("0F0 0B0 0F1 0B1\n1F0 1F1 1B0 1B1\n")
    args = [str(ORDERS / "torch-DualPipeV-P4-m8-V2.txt") if a == "ORDER" else str(dead) if a == "DEADLOCK" else a
            for a in args]
    p = cli("export", *args)
    assert p.returncode == 2
    assert fragment in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_cli_show_order():
    p = cli("show", "--order", str(ORDERS / "torch-Interleaved1F1B-P4-m8-V2.txt"))
    assert p.returncode == 0, p.stderr
    assert "Your order (custom)  P=4 m=8 V=2 placement loop" in p.stdout
    assert "makespan            28.5" in p.stdout
    assert "no closed form" in p.stdout
