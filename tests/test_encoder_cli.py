"""`python -m pipeviz export` with an encoder and with activation balancing."""

import csv
import io
import json
import subprocess
import sys

import pytest


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeviz", *args], capture_output=True, text=True, timeout=60)


def export(*args):
    p = cli("export", "-s", "1f1b", "-P", "4", "-m", "8", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("place,makespan,exposed,hidden,filled", [
    ("stage0", 40.5, 7.5, 0, 0), ("separate", 36, 3, 0, 0), ("bubbles", 34.5, 1.5, 0.5, 1 / 6),
])
def test_export_json_encoder(place, makespan, exposed, hidden, filled):
    d = export("--encoder-f", "0.5", "--encoder-b", "1", "--encoder-place", place)
    m = d["metrics"]
    assert m["makespan"] == makespan and m["makespan_pipeline"] == 33
    assert m["encoder_exposed"] == exposed
    assert m["encoder_hidden_share"] == pytest.approx(hidden) and m["bubble_filled_share"] == pytest.approx(filled)
    assert d["encoder"] == {"ef": 0.5, "eb": 1, "place": place, "frozen": False}
    enc = [op for op in d["ops"] if op["kind"] in ("EF", "EB")]
    assert sorted((op["kind"], op["mb"]) for op in enc) == sorted([(k, i) for k in ("EF", "EB") for i in range(8)])
    assert all(set(op) == {"rank", "kind", "mb", "start", "end", "segment"} for op in enc)
    assert all(op["end"] - op["start"] == (0.5 if op["kind"] == "EF" else 1) for op in enc)
    ranks = [op["rank"] for op in d["ops"]]
    assert ranks == sorted(ranks)  # still each rank's ops in its order
    if place == "separate":
        assert {op["segment"] for op in enc if op["kind"] == "EF"} == {"prologue"}
        assert {op["segment"] for op in enc if op["kind"] == "EB"} == {"epilogue"}


def test_export_frozen_encoder_has_no_backward():
    d = export("--encoder-f", "0.5", "--encoder-frozen")
    assert {op["kind"] for op in d["ops"]} == {"F", "B", "EF"}
    assert d["encoder"] == {"ef": 0.5, "place": "bubbles", "frozen": True}
    assert d["metrics"]["makespan"] == 33.5


def test_export_without_flags_has_no_encoder_keys():
    d = export()
    assert "encoder" not in d and "encoder_exposed" not in d["metrics"] and "balance_transfers" not in d["metrics"]


def test_export_balance_bpipe():
    p = cli("export", "-s", "1f1b", "-P", "8", "-m", "8", "--balance", "bpipe")
    d = json.loads(p.stdout)
    assert d["metrics"]["peak_resident_microbatches"] == [5, 5, 5, 5, 4, 4, 4, 4]
    assert d["metrics"]["balance_transfers"] == 18
    assert d["metrics"]["peak_inflight_microbatches"] == [8, 7, 6, 5, 4, 3, 2, 1]  # before, unchanged
    plain = json.loads(cli("export", "-s", "1f1b", "-P", "8", "-m", "8").stdout)
    assert d["ops"] == plain["ops"]  # the timeline does not change


def test_csv_and_trace_carry_encoder_ops():
    p = cli("export", "-P", "2", "-m", "4", "--encoder-f", "0.5", "--encoder-b", "1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    enc = [r for r in rows if r["kind"] in ("EF", "EB")]
    assert len(enc) == 8 and all(r["stage"] == "" for r in enc)
    p = cli("export", "-P", "2", "-m", "4", "--encoder-f", "0.5", "--encoder-b", "1", "--format", "chrome-trace")
    names = {e["name"] for e in json.loads(p.stdout)["traceEvents"] if e.get("ph") == "X"}
    assert {"EF0", "EB3"} <= names


def test_show_reports_encoder_and_balance():
    p = cli("show", "-P", "8", "-m", "8", "--balance", "bpipe", "--encoder-f", "0.5", "--encoder-b", "1")
    assert p.returncode == 0, p.stderr
    assert "pipeline alone 45" in p.stdout
    assert "r0: 5 (was 8)" in p.stdout and "18 transfers per iteration" in p.stdout


@pytest.mark.parametrize("args,says", [
    (["--encoder-b", "1"], "--encoder-b needs --encoder-f"),
    (["--encoder-f", "1"], "--encoder-f needs --encoder-b"),
    (["--encoder-f", "0", "--encoder-b", "1"], "encoder-f must be a number between 1e-06 and 1e+06"),
    (["--encoder-f", "1", "--encoder-b", "1", "--encoder-place", "middle"], "invalid choice: 'middle'"),
    (["--balance", "zero"], "invalid choice: 'zero'"),
])
def test_bad_flags_one_line_exit_2(args, says):
    p = cli("export", *args)
    assert p.returncode == 2 and p.stdout == ""
    assert says in p.stderr and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
