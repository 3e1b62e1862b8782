"""`pipeviz compare` (docs/interfaces.md, "Comparing schedules"): every row equals `export` of its
schedule with the same flags, the Pareto marks and the order are what they say, and
bad flags exit 2 with one line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeviz import Costs
from pipeviz.cli import main
from pipeviz.compare import FIELDS, candidates, compare, pareto, render, rounded
from pipeviz.memory import preset
from pipeviz.registry import SCHEDULES


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


FLAGS = [
    ["-P", "4", "-m", "8"],
    ["-P", "3", "-m", "5", "--tf", "1.5", "--tb", "0.7", "--tw", "0.3", "--comm", "0.1"],
    ["-P", "4", "-m", "8", "--model", "gpt3-6.7b", "--hbm", "40", "--flash"],
    ["-P", "2", "-m", "6", "--model", "llama2-7b", "--seq", "4096", "--hbm", "24", "--tf", "2"],
    ["-P", "4", "-m", "8", "--model", "gpt3-6.7b", "--equal-stages", "--hbm", "30"],
]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_each_row_equals_export_with_the_same_flags(capsys, flags):
    code, out, err = cli(capsys, "compare", *flags, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"rows", "refused"}
    asked = {(r["schedule"], r["V"]) for r in data["rows"]} | {(r["schedule"], r["V"]) for r in data["refused"]}
    assert asked == set(candidates())  # every schedule at each V it accepts, ran or refused
    for row in data["rows"]:
        assert list(row) == list(FIELDS)
        code, out, err = cli(capsys, "export", "-s", row["schedule"], "-V", str(row["V"]), *flags, "--format", "json")
        assert code == 0, err
        m = json.loads(out)["metrics"]
        assert row["makespan"] == m["makespan"]
        assert row["bubble_fraction"] == m["bubble_fraction"]
        assert row["peak_inflight_microbatches"] == max(m["peak_inflight_microbatches"])
        if "--model" in flags:
            assert row["peak_memory_gib"] == max(m["peak_memory_gib"]) == m["peak_memory_gib"][m["memory_tightest_rank"]]
            assert row["fits"] == m["memory_fits"]
        else:
            assert row["peak_memory_gib"] is None and row["fits"] is None
    for x in data["refused"]:
        code, out, err = cli(capsys, "export", "-s", x["schedule"], "-V", str(x["V"]), *flags)
        assert code == 2 and err.strip() == f"python -m pipeviz: error: {x['reason']}"


def test_the_reference_case_p8_m16():
    """At the article's costs: the fastest is interleaved at V=8; the front runs from it
    to V-Min (4 micro-batches), V-Half and ZB-V on it; 1F1B is beaten by ZB-H1 (same
    memory, faster); DualPipe-V refuses nothing at m = 2P."""
    c = compare(8, 16)
    assert (c.rows[0].schedule, c.rows[0].V, c.rows[0].makespan) == ("interleaved", 8, 50.625)
    front = [(r.schedule, r.V) for r in c.rows if r.pareto]
    assert front == [("interleaved", 8), ("zb-v", 2), ("v-half", 2), ("v-min", 2)]
    assert c.refused == ()
    assert len(c.rows) == len(candidates()) == 8 + 2 * 8


points = st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 2.5]) | st.floats(0.01, 1e4),
                            st.sampled_from([1.0, 2.0, 4.0]) | st.floats(0.0, 1e3)), max_size=30)


@given(points)
def test_pareto_is_the_lower_left_staircase(pts):
    """Against a sweep: sorted by makespan (then memory), a point is on the front when
    its memory is below every faster point's, or it ties a point that is."""
    front = pareto([t for t, _ in pts], [w for _, w in pts])
    rp = [(rounded(t), rounded(w)) for t, w in pts]
    best = {}  # the lowest memory at each makespan and below
    low = float("inf")
    for t, w in sorted(set(rp)):
        low = min(low, w)
        best[t] = low
    for (t, w), on in zip(rp, front):
        faster = [w2 for t2, w2 in rp if t2 < t]
        expected = (not faster or w < min(faster)) and w == min(w2 for t2, w2 in rp if t2 == t)
        assert on == expected, (t, w)
    # Nothing on the front is dominated, everything off it is.
    for (t, w), on in zip(rp, front):
        dominated = any(t2 <= t and w2 <= w and (t2, w2) != (t, w) for t2, w2 in rp)
        assert on == (not dominated)


cost = st.sampled_from([0.5, 1.0, 2.0, 0.1, 0.3]) | st.floats(0.05, 5.0)


@given(st.integers(1, 5), st.integers(1, 12), cost, cost, st.just(0.0) | cost, st.just(0.0) | st.floats(0.001, 1.0),
       st.sampled_from([None, 10.0, 20.0, 40.0]))
def test_rows_are_sorted_and_marked_over_random_costs(P, m, tf, tb, tw, comm, hbm):
    model = preset("gpt3-6.7b") if hbm is not None else None
    c = compare(P, m, Costs(tf, tb, tw, comm), model, hbm or 80.0, max_V=3)
    rows = c.rows
    assert rows
    # Those that fit first, then by makespan (to 12 digits), then the schedules' order and V.
    keys = [(r.fits is False, rounded(r.makespan), SCHEDULES[r.schedule].position, r.V) for r in rows]
    assert keys == sorted(keys)
    if model is None:
        assert all(r.fits is None and r.peak_memory_gib is None for r in rows)
    # The front: no row is at most as slow and as heavy and strictly better on one.
    for r in rows:
        beaten = any(rounded(o.makespan) <= rounded(r.makespan) and rounded(o.memory) <= rounded(r.memory)
                     and (rounded(o.makespan) < rounded(r.makespan) or rounded(o.memory) < rounded(r.memory))
                     for o in rows)
        assert r.pareto == (not beaten)
    assert any(r.pareto for r in rows)
    fastest = min(rounded(r.makespan) for r in rows)
    lightest = min(rounded(r.memory) for r in rows)
    assert any(r.pareto and rounded(r.makespan) == fastest for r in rows)
    assert any(r.pareto and rounded(r.memory) == lightest for r in rows)


def test_fits_first_then_makespan():
    c = compare(8, 16, model=preset("gpt3-6.7b"), hbm_gib=40)
    fits = [r.fits for r in c.rows]
    assert fits == sorted(fits, key=lambda f: not f) and True in fits and False in fits
    assert [r.schedule for r in c.rows if r.fits] == ["v-half", "v-min"]  # the memory-light ones fit 40 GiB
    text = render(c, "text")
    assert text.splitlines()[0].split() == ["schedule", "V", "makespan", "bubble", "peak", "mb", "peak", "GiB", "fits",
                                            "pareto"]
    assert text.splitlines()[1].startswith("v-half")


def test_csv_and_text_hold_the_same_rows(capsys):
    code, out, _ = cli(capsys, "compare", "-P", "4", "-m", "7", "--format", "csv")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0] == ",".join([*FIELDS, "refused"])
    c = compare(4, 7)
    assert len(lines) == 1 + len(c.rows) + len(c.refused)
    assert lines[1].startswith(f"{c.rows[0].schedule},{c.rows[0].V},{c.rows[0].makespan!r},")
    assert lines[-1].startswith("dualpipe-v,2,") and "needs m >= 2P" in lines[-1]
    code, out, _ = cli(capsys, "compare", "-P", "4", "-m", "7", "--format", "text")
    assert "refused: dualpipe-v V=2: DualPipe-V needs m >= 2P micro-batches" in out


@pytest.mark.parametrize("args,fragment", [
    (["-P", "0"], "P must be a whole number >= 1, got 0"),
    (["-m", "x"], "m must be a whole number >= 1, got 'x'"),
    (["--tf", "-1"], "tf must be a number between"),
    (["--model", "gpt5"], "invalid choice: 'gpt5'"),
    (["--model", "gpt3-6.7b", "--hbm", "0"], "--hbm"),
    (["--layers", "32"], "describe a model: give --model"),
    (["-s", "1f1b"], "unrecognized arguments: -s 1f1b"),
    (["-V", "2"], "unrecognized arguments: -V 2"),
    (["--format", "xml"], "invalid choice: 'xml'"),
    (["-P", "4000", "-m", "2000"], "no schedule runs at P=4000, m=2000: gpipe with P=4000"),
    (["-P", "32", "-m", "1500"], "more than the 2,000,000 pipeviz compares quickly; use a smaller P or m"),
    (["--stage-weights", "1,2,x"], "'x'"),
])
def test_bad_flags_exit_2_with_one_line(capsys, args, fragment):
    try:
        code = main(["compare", *args])
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert fragment in out.err and out.err.count("\n") == 1 and "Traceback" not in out.err


def test_stage_weights_of_one_length_run_the_schedules_with_that_many_stages(capsys):
    code, out, _ = cli(capsys, "compare", "-P", "4", "-m", "8", "--stage-weights", "1.3,1,1,1.2")
    data = json.loads(out)
    assert code == 0 and {r["V"] for r in data["rows"]} == {1}
    assert all("4 weights for" in x["reason"] or "weights" in x["reason"] for x in data["refused"])
