"""The command line's loose ends (issue 42): `-o -` is standard output, and every
command and format either answers within about a second or refuses, in one line
with its limit and exit status 2, before the engine runs. (How long each takes is
measured by benchmarks, not here: these check the behaviour.)"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeviz import NAMES, Config, ConfigError, Costs, cli, run
from pipeviz.export import FORMATS
from pipeviz.export import MAX_OPS as EXPORT_MAX_OPS
from pipeviz.textview import BUBBLE, LETTER, column_width, timeline_text


def pipeviz(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeviz", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


def test_page_to_standard_output(tmp_path):
    p = pipeviz("page", "-o", "-", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("<!DOCTYPE html>") and "PIPEVIZ_DATA" in p.stdout
    assert list(tmp_path.iterdir()) == []  # no file named "-"
    assert p.stderr.startswith("wrote standard output")


def test_export_to_standard_output(tmp_path):
    p = pipeviz("export", "-f", "csv", "-o", "-", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].startswith("rank,kind,mb")
    assert list(tmp_path.iterdir()) == []


def test_every_format_has_a_limit_that_takes_the_explorers_largest_view():
    assert set(EXPORT_MAX_OPS) == set(FORMATS)
    largest = Config("interleaved", 32, 128, 8)  # the sliders' ends
    assert all(cap >= 2 * 32 * 128 * 8 for cap in EXPORT_MAX_OPS.values())
    assert run(largest).order.n_ops == 65_536


def test_the_issues_chrome_trace_is_refused_with_the_limit():
    p = pipeviz("export", "-s", "1f1b", "-P", "32", "-m", "15625", "-f", "chrome-trace")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1
    assert "--format chrome-trace writes at most 65,536 ops" in p.stderr and "1,000,000 ops" in p.stderr
    assert "--format actions" in p.stderr  # what would write it


def test_each_format_refuses_past_its_limit_before_the_engine_runs(monkeypatch, capsys):
    """At a small limit: the limit itself is written, one op more is refused, and the
    engine never runs for a refused one."""
    from pipeviz import engine

    ran = []
    real_run = engine.run

    def counting(cfg):
        ran.append(cfg)
        return real_run(cfg)

    monkeypatch.setattr("pipeviz.engine.run", counting)
    for fmt in FORMATS:
        monkeypatch.setitem(EXPORT_MAX_OPS, fmt, 64)  # 1F1B P=4 m=8 has 64 ops
        assert cli.main(["export", "-f", fmt, "-P", "4", "-m", "8"]) == 0
        capsys.readouterr()
        before = len(ran)
        assert cli.main(["export", "-f", fmt, "-P", "4", "-m", "9"]) == 2
        err = capsys.readouterr().err
        assert f"--format {fmt} writes at most 64 ops" in err and "72 ops" in err
        assert len(ran) == before


def test_an_encoders_ops_count(monkeypatch, capsys):
    monkeypatch.setitem(EXPORT_MAX_OPS, "json", 64)
    assert cli.main(["export", "-P", "4", "-m", "8", "--encoder-f", "0.5", "--encoder-b", "1"]) == 2
    assert "80 ops" in capsys.readouterr().err  # 64 and an EF and EB per micro-batch


def test_an_order_of_ones_own_past_the_limit_is_refused_before_it_is_read(monkeypatch, capsys, tmp_path):
    path = tmp_path / "order.txt"
    path.write_text(run(Config("1f1b", 4, 8)).order.to_text() + "\n# a comment line\n")
    monkeypatch.setitem(EXPORT_MAX_OPS, "csv", 63)
    assert cli.main(["export", "-f", "csv", "--order", str(path)]) == 2
    assert "writes at most 63 ops" in capsys.readouterr().err
    monkeypatch.setitem(EXPORT_MAX_OPS, "csv", 64)
    assert cli.main(["export", "-f", "csv", "--order", str(path)]) == 0


def test_show_answers_at_the_engines_limit():
    """The issue's 6 s case, a million ops: the timeline is drawn a column at a time."""
    p = pipeviz("show", "-s", "zb-h1", "-P", "32", "-m", "10416")
    assert p.returncode == 0, p.stderr
    assert sum(line.startswith("rank ") for line in p.stdout.splitlines()) == 32


def painted_op_by_op(res, width: int) -> list[str]:
    """The text timeline as it was drawn before: each op written over the columns it
    covers, in order (a later op over an earlier one)."""
    order, tl = res.order, res.timeline
    step = column_width(res, width)
    cols = int(np.ceil(tl.makespan / step - 1e-9))
    lines = []
    for r in range(order.P):
        row = [BUBBLE] * cols
        for i in range(order.rank_ptr[r], order.rank_ptr[r + 1]):
            a = int(round(tl.start[i] / step))
            b = max(a + 1, int(round(tl.end[i] / step)))
            kind = LETTER[order.kind[i]]
            label = f"{kind}{order.mb[i]}"
            text = label + "-" * (b - a - len(label)) if b - a >= len(label) else kind * (b - a)
            row[a:b] = text[: cols - a]
        lines.append(f"rank {r:>{len(str(order.P - 1))}} |{''.join(row)}|")
    return lines


cost = st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0]) | st.floats(0.05, 8.0, allow_nan=False)


@given(st.sampled_from(NAMES), st.integers(1, 12), st.integers(1, 40), st.integers(1, 3),
       st.builds(Costs, tf=cost, tb=cost, tw=st.just(0.0) | cost, comm=st.just(0.0) | st.floats(0.001, 2.0)),
       st.sampled_from([20, 57, 120, 400]))
def test_the_text_timeline_is_the_one_painted_op_by_op(name, P, m, V, costs, width):
    try:
        res = run(Config(name, P, m, V, costs))
    except ConfigError:
        assume(False)
    assert timeline_text(res, width) == painted_op_by_op(res, width)
