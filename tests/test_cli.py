"""`python -m pipeviz`: the export interface of docs/interfaces.md, text output, and bad input."""

import csv
import io
import json
import subprocess
import sys

import pytest


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeviz", *args], capture_output=True, text=True, timeout=60)


def test_export_json_matches_spec_example():
    p = cli("export", "--schedule", "1f1b", "-P", "4", "-m", "8", "--format", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert {k: d[k] for k in ("schedule", "P", "m", "V", "costs", "stage_to_rank")} == {
        "schedule": "1f1b", "P": 4, "m": 8, "V": 1,
        "costs": {"tf": 1, "tb": 1, "tw": 1, "comm": 0},
        "stage_to_rank": [0, 1, 2, 3],
    }
    assert d["ops"][0] == {"rank": 0, "kind": "F", "mb": 0, "stage": 0, "start": 0.0, "end": 1.0}
    assert d["ops"][3 + 1] == {"rank": 0, "kind": "B", "mb": 0, "stage": 0, "start": 10.0, "end": 12.0,
                               "backward": "full"}
    assert len(d["ops"]) == 4 * 8 * 2
    ranks = [op["rank"] for op in d["ops"]]
    assert ranks == sorted(ranks)  # each rank's ops in its execution order, rank 0 first
    m = d["metrics"]
    assert m["makespan"] == 33.0
    assert m["bubble_fraction"] == pytest.approx(3 / 11)
    assert m["bubble_fraction_theory"] == pytest.approx(3 / 11)
    assert m["steady_bubble_fraction"] == pytest.approx(3 / 11)
    assert m["peak_inflight_chunks"] == [4, 3, 2, 1]
    assert m["peak_inflight_microbatches"] == [4, 3, 2, 1]
    assert m["p2p_per_microbatch"] == 6


def test_export_json_to_file_with_costs(tmp_path):
    out = tmp_path / "zbv.json"
    p = cli("export", "--schedule", "zb-v", "-P", "4", "-m", "8", "-V", "2", "--tf", "1", "--tb", "1",
            "--tw", "1", "--comm", "0", "--format", "json", "-o", str(out))
    assert p.returncode == 0 and p.stdout == ""
    d = json.loads(out.read_text())
    assert d["metrics"]["makespan"] == 25.5
    assert d["stage_to_rank"] == [0, 1, 2, 3, 3, 2, 1, 0]
    assert {op["kind"] for op in d["ops"]} == {"F", "B", "W"}


def test_export_csv_one_row_per_op():
    p = cli("export", "-s", "interleaved", "-P", "4", "-m", "8", "-V", "2", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert len(rows) == 4 * 8 * 2 * 2
    assert rows[0] == {"rank": "0", "kind": "F", "mb": "0", "stage": "0", "chunk": "0", "start": "0.0", "end": "0.5",
                       "mb2": "", "stage2": ""}
    assert max(float(r["end"]) for r in rows) == 28.5


def test_export_chrome_trace():
    p = cli("export", "-s", "1f1b", "--format", "chrome-trace")
    d = json.loads(p.stdout)
    ev = d["traceEvents"]
    names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    assert names == {"rank 0", "rank 1", "rank 2", "rank 3"}
    ops = [e for e in ev if e.get("ph") == "X" and e["cat"] in "FBW"]
    bubbles = [e for e in ev if e.get("cat") == "bubble"]
    assert len(ops) == 64
    # 1F1B P=4 m=8: 9 units idle on every rank; 1 unit is shown as 1 ms (1000 us).
    assert sum(e["dur"] for e in bubbles) == pytest.approx(4 * 9 * 1000)
    assert any(e.get("ph") == "C" for e in ev)


def test_show_prints_timeline_and_metrics():
    p = cli("show")
    assert p.returncode == 0
    assert "27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%" in p.stdout
    assert "rank 3 |//////F0B0--F1B1--" in p.stdout


def test_show_explains_disagreement():
    p = cli("show", "-s", "1f1b", "--comm", "0.5")
    assert "differs: comm = 0.5" in p.stdout


def test_interleaved_below_p_shows_pytorchs_order_and_says_whose():
    p = cli("show", "-s", "interleaved", "-P", "4", "-m", "2", "-V", "2")
    assert p.returncode == 0, p.stderr
    assert "order               PyTorch's order (ScheduleInterleaved1F1B: one round of all m = 2" in p.stdout
    d = json.loads(cli("export", "-s", "interleaved", "-P", "4", "-m", "2", "-V", "2", "--format", "json").stdout)
    assert d["metrics"]["order_source"].startswith("PyTorch's order") and d["metrics"]["bubble_agrees"]
    assert json.loads(cli("export", "-s", "interleaved", "-V", "2", "--format", "json").stdout)["metrics"][
        "order_source"] == ""


def test_help_explains_every_flag():
    p = cli("export", "--help")
    for flag in ("--schedule", "-P", "-m", "-V", "--group-size", "--tf", "--tb", "--tw", "--comm", "--format", "--output"):
        assert flag in p.stdout
    assert "gpipe, 1f1b, interleaved, looped-bfs, zb-h1, zb-h2, zb-v, v-half, v-min, dualpipe-v" in " ".join(p.stdout.split())


@pytest.mark.parametrize("args,fragment", [
    (["export", "-s", "gpipe", "-V", "2"], "V must be 1"),
    (["export", "-s", "interleaved", "-P", "4", "-m", "3", "-V", "2", "-G", "3"], "P <= G <= m"),
    (["export", "-s", "interleaved", "-P", "4", "-m", "9", "-V", "2", "-G", "4"], "last group of 1"),
    (["export", "-s", "zb-v", "-V", "3"], "V must be 2"),
    (["export", "-s", "dualpipe-v", "-V", "3"], "V must be 2"),
    (["export", "-s", "dualpipe-v", "-P", "4", "-m", "7"], "DualPipe-V needs m >= 2P micro-batches"),
    (["show", "-s", "dualpipe-v", "--tfb", "0"], "tfb must be a number between"),
    (["export", "-P", "abc"], "P must be a whole number >= 1, got 'abc'"),
    (["export", "-m", "0"], "m must be a whole number >= 1, got 0"),
    (["export", "--tf", "nan"], "tf must be a number between 1e-06 and 1e+06"),
    (["export", "--comm", "-1"], "comm must be 0 or a number between"),
    (["show", "--tf", "1e308", "--tb", "1e308"], "tf must be a number between"),
    (["show", "--tf", "5e-324", "--tb", "5e-324", "--tw", "0"], "tf must be a number between"),
    (["show", "-P", "1000000000000000000000000000000"], "use a smaller P or V"),
    (["export", "-o", "/dev/full"], "cannot write /dev/full"),
    (["export", "--format", "xml"], "invalid choice: 'xml'"),
    (["export", "-s", "nope"], "choose one of gpipe, 1f1b"),
    (["export", "-P", "64", "-m", "100000"], "times quickly"),
    (["export", "-o", "/nonexistent-dir/x.json"], "cannot write"),
    ([], "required"),
])
def test_invalid_input_exits_2_with_one_line(args, fragment):
    p = cli(*args)
    assert p.returncode == 2
    assert fragment in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert "Traceback" not in p.stderr


def test_v_above_one_on_1f1b_runs_interleaved_as_the_explorers_do():
    """The explorers' rule (view/schedule_view.py): V > 1 on 1F1B is interleaved 1F1B,
    said in one line; interleaved without -V runs its least V, 2."""
    p = cli("export", "-s", "1f1b", "-V", "2", "-P", "4", "-m", "8")
    assert p.returncode == 0
    d = json.loads(p.stdout)
    assert (d["schedule"], d["V"], d["metrics"]["makespan"]) == ("interleaved", 2, 28.5)
    assert p.stderr.strip() == "pipeviz: V = 2 runs interleaved 1F1B (1F1B is interleaved 1F1B with V = 1)"
    d = json.loads(cli("export", "-s", "interleaved").stdout)
    assert (d["V"], d["metrics"]["bubble_fraction"]) == (2, pytest.approx(3 / 19))


def test_export_json_names_what_each_gap_waits_for_and_a_critical_path():
    d = json.loads(cli("export", "-s", "1f1b", "-P", "4", "-m", "8").stdout)
    first = d["bubbles"][0]
    assert first == {"rank": 0, "start": 4.0, "end": 10.0,
                     "waits_for": {"rank": 1, "kind": "B", "mb": 0, "stage": 1, "backward": "full"}}
    path = [d["ops"][i] for i in d["critical_path"]]
    assert path[0]["start"] == 0 and path[-1]["end"] == d["metrics"]["makespan"]
    assert all(a["end"] <= b["start"] for a, b in zip(path, path[1:]))


def test_export_dualpipe_v_writes_overlapped_ops_as_spec_says():
    p = cli("export", "-s", "dualpipe-v", "-P", "4", "-m", "8", "--tfb", "2.5")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["V"] == 2 and d["costs"]["tfb"] == 2.5
    pairs = [op for op in d["ops"] if op["kind"] == "F&B"]
    assert pairs[0] == {"rank": 0, "kind": "F&B", "parts": [{"kind": "F", "mb": 7, "stage": 0},
                        {"kind": "B", "mb": 3, "stage": 7, "backward": "full"}],
                        "start": pairs[0]["start"], "end": pairs[0]["start"] + 1.25}
    assert len(pairs) == sum(2 * 8 - 3 * 4 + r + 1 - (r == 3) for r in range(4))
    assert d["metrics"]["peak_inflight_chunks"] == [9, 9, 9, 9]
    a = d["metrics"]["authors_bubble"]
    assert a["label"] == "DeepSeek's bubble" and a["idle"] == 3 * (2.5 + 1 - 2) / 2 and a["exact"]


def test_show_dualpipe_v_puts_deepseeks_bubble_beside_each_ranks_idle():
    p = cli("show", "-s", "dualpipe-v", "-P", "4", "-m", "10", "--tfb", "2")
    assert p.returncode == 0, p.stderr
    assert ("DeepSeek's bubble  D = (PP/2-1)(F&B+B-3W) = (P-1)(t_fb+t_b-2t_w)/2 = 1.5; "
            "simulated idle per rank 0.5 1 1.5 1.5: the longest, on rank 2, 3") in p.stdout
