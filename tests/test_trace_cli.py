"""`python -m pipeviz export --trace` and `show --trace`: docs/interfaces.md's keys, the formats,
the order read back with --order, the flags, and every kind of bad input: one line on
stderr, exit 2, no traceback, no file written."""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tracegen import OURS, load, rank_files, synthetic, write

from pipeviz import Config, run
from pipeviz.cli import main
from pipeviz.trace import read_traces

ZBV = OURS / "torch-ZBVZeroBubble-P3-m6"
DPV = OURS / "torch-DualPipeV-P2-m4"
IL = OURS / "torch-Interleaved1F1B-P2-m6-V3"


def subprocess_cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeviz", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def cli(capsys):
    """The command line in this process (its start-up costs a second a call): returns
    what a process would (returncode, stdout, stderr)."""
    def call(*args):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return call


def files(d: Path) -> list[str]:
    return [str(p) for p in rank_files(d)]


def test_export_json_has_specs_keys(cli):
    p = cli("export", "--trace", *files(ZBV), "--format", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert (d["source"], d["time_unit"], d["P"], d["m"], d["V"], d["placement"]) == ("trace", "ms", 3, 6, 2, "v")
    assert set(d["measured_costs"]) == {"F", "I", "W"}
    assert set(d["simulated"]) >= {"makespan", "bubble_fraction"}
    assert set(d["metrics"]) >= {"makespan", "bubble_fraction", "busy", "idle", "peak_inflight_chunks",
                                 "peak_inflight_microbatches"}
    r = read_traces(files(ZBV))
    assert d["metrics"]["makespan"] == r.metrics.makespan
    assert len(d["ops"]) == r.order.n_ops and d["ops"][0]["start"] == 0.0
    assert d["same_order_as"] == ["zb-v"]
    assert d["gap"] == d["metrics"]["makespan"] - d["simulated"]["makespan"]
    assert all(g["text"].startswith(f"rank {g['rank']} waits ") for g in d["gaps"])
    assert {row["schedule"] for row in d["what_if"]["rows"]} >= {"1f1b", "interleaved", "zb-h1", "zb-v", "dualpipe-v"}


def test_export_json_of_overlapped_pairs(cli):
    d = json.loads(cli("export", "--trace", *files(DPV)).stdout)
    pairs = [op for op in d["ops"] if op["kind"] == "F&B"]
    assert pairs and all(op["parts"][0]["kind"] == "F" and op["parts"][1]["kind"] == "B" for op in pairs)
    assert "F&B" in d["measured_costs"]
    assert pairs[0]["name"].endswith(")OVERLAP_F_B")


def test_export_csv_rows_are_ops_then_actions(cli):
    p = cli("export", "--trace", *files(IL), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    r = read_traces(files(IL))
    assert len(rows) == r.order.n_ops + r.comm.n
    assert [row["name"] for row in rows[: r.order.n_ops]] == list(r.names)
    assert {row["kind"] for row in rows[r.order.n_ops:]} <= {"SEND_F", "RECV_F", "SEND_B", "RECV_B", "UNSHARD",
                                                              "RESHARD", "REDUCE_GRAD"}


def test_export_chrome_trace_holds_the_step_and_its_model(cli):
    d = json.loads(cli("export", "--trace", *files(IL), "--format", "chrome-trace").stdout)
    r = read_traces(files(IL))
    x = [e for e in d["traceEvents"] if e["ph"] == "X" and e.get("cat") != "bubble"]
    assert len([e for e in x if e["pid"] == 0 and e["cat"] != "comm"]) == r.order.n_ops
    assert len([e for e in x if e["pid"] == 1]) == r.order.n_ops
    assert len([e for e in x if e["cat"] == "comm"]) == r.comm.n


@pytest.mark.parametrize("d", [ZBV, DPV, IL], ids=lambda d: d.name)
def test_actions_read_back_with_order_to_the_order_that_ran(d, tmp_path, cli):
    out = tmp_path / "ran.txt"
    p = cli("export", "--trace", *files(d), "--format", "actions", "-o", out)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert "SEND_F" in text or "RECV_F" in text  # the actions around the ops, where they ran
    r = read_traces(files(d))
    back = json.loads(cli("export", "--order", out, "--placement", r.placement).stdout)
    ops = [(o["rank"], o["kind"], o.get("mb"), o.get("stage"), str(o.get("parts"))) for o in back["ops"]]
    mine = json.loads(cli("export", "--trace", *files(d)).stdout)["ops"]
    assert ops == [(o["rank"], o["kind"], o.get("mb"), o.get("stage"), str(o.get("parts"))) for o in mine]


def test_show_prints_the_numbers_and_both_timelines(cli):
    p = cli("show", "--trace", *files(IL), "--width", "80")
    assert p.returncode == 0, p.stderr
    assert "gap" in p.stdout and "what if" in p.stdout and "same order as       interleaved (V=3)" in p.stdout
    assert p.stdout.count("rank 0 |") == 2  # the measured step and the model


def test_files_in_any_order_and_ranks_given_by_hand(cli):
    fs = files(ZBV)
    a = json.loads(cli("export", "--trace", *fs).stdout)
    b = json.loads(cli("export", "--trace", *reversed(fs)).stdout)
    c = json.loads(cli("export", "--trace", *reversed(fs), "--ranks", "2,1,0").stdout)
    assert a["ops"] == b["ops"] == c["ops"]


def test_a_progress_bar_when_asked(tmp_path, cli):
    p = cli("export", "--trace", *files(IL), "--progress", "-o", tmp_path / "x.json")
    assert p.returncode == 0
    assert "reading traces [" in p.stderr and "100%" in p.stderr


# -- bad input -------------------------------------------------------------------------

def bad_files(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (the files given, a word the one line must hold)."""
    good = rank_files(IL)
    t0, t1 = load(good[0]), load(good[1])
    text0 = json.dumps(t0)
    (tmp / "png.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp / "text.json").write_text("this is not a trace\n")
    (tmp / "plain.json").write_text('{"schemaVersion": 1, "events": []}')
    (tmp / "empty.json").write_text("  \n")
    (tmp / "cut.json").write_text(text0[: len(text0) // 2])
    gz = gzip.compress(text0.encode())
    (tmp / "cut.json.gz").write_bytes(gz[: len(gz) // 2])
    (tmp / "trailer.json.gz").write_bytes(gz[:-4])  # the JSON whole, gzip's check cut off
    broken = bytearray(gz)
    broken[len(gz) // 2: len(gz) // 2 + 16] = b"\x00" * 16
    (tmp / "broken.json.gz").write_bytes(bytes(broken))
    no_pp = dict(t0, traceEvents=[e for e in t0["traceEvents"] if not e.get("name", "").startswith("PP:")])
    (tmp / "noops.json").write_text(json.dumps(no_pp))
    missing = dict(t1, traceEvents=[e for e in t1["traceEvents"] if e.get("name") != "PP:1F3"])
    (tmp / "missing.json").write_text(json.dumps(missing))
    other = dict(t1, distributedInfo=dict(t1["distributedInfo"], rank=0))
    (tmp / "also0.json").write_text(json.dumps(other))
    g0 = str(good[0])
    return {
        "not a trace (binary)": ([str(tmp / "png.json")], "not UTF-8"),
        "not a trace (text)": ([str(tmp / "text.json")], "not valid JSON"),
        "JSON, not a trace": ([str(tmp / "plain.json")], "no traceEvents"),
        "empty": ([str(tmp / "empty.json")], "empty"),
        "no pipeline ops": ([str(tmp / "noops.json"), str(good[1])], "no pipeline ops"),
        "truncated": ([str(tmp / "cut.json"), str(good[1])], "cut short"),
        "truncated gzip": ([str(tmp / "cut.json.gz"), str(good[1])], "does not decompress"),
        "gzip without its trailer": ([str(tmp / "trailer.json.gz"), str(good[1])], "does not decompress"),
        "broken gzip": ([str(tmp / "broken.json.gz"), str(good[1])], "does not decompress"),
        "a micro-batch missing on one rank": ([g0, str(tmp / "missing.json")], "1F3 is missing"),
        "two files claiming one rank": ([g0, str(tmp / "also0.json")], "both say they are rank 0"),
        "the same file twice": ([g0, g0], "both say they are rank 0"),
        "a missing file": ([str(tmp / "nope.json")], "cannot read"),
        "a directory": ([str(tmp)], "cannot read"),
    }




@pytest.mark.parametrize("name", [
    "not a trace (binary)", "not a trace (text)", "JSON, not a trace", "empty", "no pipeline ops", "truncated",
    "truncated gzip", "gzip without its trailer", "broken gzip", "a micro-batch missing on one rank",
    "two files claiming one rank", "the same file twice", "a missing file", "a directory"])
@pytest.mark.parametrize("command", ["export", "show"])
def test_bad_input_is_one_line_exit_2_and_nothing_written(name, command, tmp_path, cli):
    given, word = bad_files(tmp_path)[name]
    out = tmp_path / "out.json"
    args = [command, "--trace", *given] + (["-o", out] if command == "export" else [])
    p = cli(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("python -m pipeviz: error: "), p.stderr
    assert word in p.stderr and "Traceback" not in p.stderr
    assert not out.exists() and p.stdout == ""


@pytest.mark.parametrize("args, word", [
    (["--ranks", "0,0"], "must name each rank 0..1 once"),
    (["--ranks", "1"], "gives 1 ranks for 2 files"),
    (["--ranks", "a,b"], "--ranks takes numbers"),
    (["--offsets", "0"], "gives 1 clock offsets for 2 ranks"),
    (["--offsets", "0,nan"], "--offsets takes numbers"),
    (["--offsets", "0,1e12"], "clock offset"),
    (["--pattern", "{kind}"], "needs the slots {kind}, {mb}"),
    (["--pattern", "{kind}{mb}{rank}"], "{rank} is not a slot"),
    (["--pattern", "{kind}_{mb}", "--pattern-kinds", "fwd"], "fwd is not word=KIND"),
    (["--pattern-kinds", "fwd=F"], "--pattern-kinds applies to --pattern"),
    (["-P", "2"], "leave out -P"),
    (["--schedule", "1f1b", "--tf", "1"], "leave out --schedule, --tf"),
    (["--order", "x.txt"], "leave out --order"),
    (["--model", "gpt3-6.7b"], "leave out --model"),
])
def test_bad_flags_with_trace(args, word, cli):
    p = cli("export", "--trace", *files(IL), *args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and word in p.stderr, p.stderr


def test_trace_flags_without_trace(cli):
    p = cli("export", "-s", "1f1b", "--ranks", "0,1")
    assert p.returncode == 2 and "--ranks applies to --trace" in p.stderr


def test_a_pattern_reads_other_frameworks_names(tmp_path, cli):
    """A Megatron-like label per op, read with a pattern: the same step as PP: names."""
    res = run(Config("interleaved", 2, 4, 2))
    o, tl = res.order, res.timeline
    words = {"F": "forward", "B": "backward"}
    pp = write(synthetic(o, tl.start, tl.end), tmp_path / "pp")
    own = write(synthetic(o, tl.start, tl.end, names=lambda op: f"step/{words[op[0]]}-chunk{op[2]}-microbatch{op[1]}"),
                tmp_path / "own")
    a = json.loads(cli("export", "--trace", *pp).stdout)
    b = json.loads(cli("export", "--trace", *own, "--pattern", "*/{kind}-chunk{stage}-microbatch{mb}").stdout)
    assert [(x["kind"], x["mb"], x["stage"], x["start"]) for x in a["ops"]] == \
           [(x["kind"], x["mb"], x["stage"], x["start"]) for x in b["ops"]]
    p = cli("export", "--trace", *own)
    assert p.returncode == 2 and "named like 'step/forward-chunk0-microbatch0'" in p.stderr


@pytest.mark.parametrize("name", ["truncated gzip", "a micro-batch missing on one rank"])
def test_a_real_process_prints_one_line_and_no_traceback(name, tmp_path):
    given, word = bad_files(tmp_path)[name]
    p = subprocess_cli("export", "--trace", *given, "-o", tmp_path / "out.json")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and word in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out.json").exists()


HOSTILE = st.text(st.sampled_from(list("{}*,=.0123456789-+eE_ aFBIWkindmbstage\u0663\u00a0\n\t'\"\\()[]$^|?")),
                  max_size=40)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flag=st.sampled_from(["--ranks", "--offsets", "--pattern", "--pattern-kinds"]), value=HOSTILE)
def test_hostile_flag_values_give_output_or_one_line(flag, value, cli):
    """Any text for a trace flag: the step, or exit 2 with one line; never an exception."""
    extra = ["--pattern", "{kind}{mb}"] if flag == "--pattern-kinds" else []
    p = cli("export", "--trace", *files(IL), *extra, f"{flag}={value}")
    assert p.returncode in (0, 2)
    if p.returncode == 2:
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("python -m pipeviz: error: ")
    else:
        assert json.loads(p.stdout)["source"] == "trace"
