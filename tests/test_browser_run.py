"""A real run in both explorers, in the Debian chromium: an engineer chooses the shared
traces of a profiled step, sees it drawn beside its model with the measured bubble the
Python reading gives, re-times every schedule at its costs, and goes back; bad files
give the CLI's line in the notice and leave the explorer as it was."""

from __future__ import annotations

import base64
import gzip
import json
from contextlib import chdir
from pathlib import Path

import pytest
from browser import screenshot, served_app, source_length
from tracegen import SHARED, rank_files

from pipeviz.errors import PipevizError
from pipeviz.page import build
from pipeviz.text import template
from pipeviz.trace import read_traces, report
from pipeviz.view.run_view import readout_values

pytestmark = pytest.mark.browser
SHOWN = "27.27% simulated"  # the explorers' first view, 1F1B at P=4, m=8
TRACE = SHARED / "torch-Interleaved1F1B-P2-m4-V2"


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    from pipeviz import Config

    path = tmp_path_factory.mktemp("page") / "explorer.html"
    path.write_text(build(Config()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tab(browser):
    """One tab for the module: each explorer is opened in it once."""
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    yield pg
    pg.close()


@pytest.fixture(scope="module", params=["app", "page"])
def explorer(request, tab, app_url, page_file):
    """The explorer, opened at its first view, with its "A real run" controls at hand."""
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.set_viewport_size({"width": 1400, "height": 1000})
    tab.goto(app_url if request.param == "app" else page_file.as_uri())
    tab.get_by_text(SHOWN).first.wait_for(timeout=60_000)
    return request.param, errors


def controls(tab, which: str, label: str = "Trace files, one per rank"):
    """The run's file input, its card opened in the app (made anew, folded, at a language switch)."""
    files = tab.get_by_label(label)
    if which == "app" and files.count() == 0:
        tab.get_by_text("A real run" if label.startswith("Trace") else "真实运行", exact=True).first.click()
    files.wait_for(state="attached", timeout=60_000)
    return files


def readout(tab) -> str:
    return tab.locator(".pv-readout").first.inner_text()


def test_a_shared_run_beside_its_model_what_if_and_back(explorer, tab):
    which, errors = explorer
    files = controls(tab, which)
    paths = rank_files(TRACE)
    rep = report(read_traces([str(p) for p in paths]))
    expected = readout_values(rep)["measured"]  # docs/reading.md: sum of idle / (P x makespan)
    assert expected == f"{100 * rep.run.metrics.bubble_fraction:.2f}%" == "28.94%"
    files.set_input_files([str(p) for p in paths])
    measured = tab.locator(".pv-measured").first
    measured.wait_for(timeout=60_000)
    assert measured.inner_text() == f"{expected} measured"
    text = readout(tab)
    assert "38.72 ms measured, 30.96 ms in the model: 7.77 ms the model does not have" in text
    assert "rank 1 waits 4.58 ms for RECV_F from rank 0 that the model does not have (before 3F1)" in text
    # Drawn: every real op, the model's every op, every communication action.
    tab.wait_for_function("() => Bokeh.documents.some((d) => { const m = d.get_model_by_name('run_model');"
                          " return m && m.data.left.length === 32; })", timeout=60_000)
    assert source_length(tab, "ops", "count") > 0
    assert source_length(tab, "run_comm") == rep.run.comm.n
    # What if: every schedule at the run's costs, the order that ran marked.
    tab.get_by_role("button", name="What if: every schedule at these costs").click()
    ran = tab.locator(".pv-run-table tr.pv-current")
    ran.wait_for(timeout=60_000)
    assert ran.inner_text().startswith("Interleaved 1F1B (V=2) (the order that ran)")
    tab.locator(".pv-readout").first.scroll_into_view_if_needed()
    screenshot(tab, f"run-{which}-1400-en")
    # In Chinese at a phone's width.
    tab.get_by_text("中文", exact=True).first.click()
    tab.locator(".pv-measured").filter(has_text=f"实测 {expected}").first.wait_for(timeout=60_000)
    tab.get_by_text("调度", exact=True).first.wait_for(timeout=60_000)  # the bar relabelled too
    tab.set_viewport_size({"width": 390, "height": 900})
    tab.evaluate("window.scrollTo(0, 0)")
    tab.locator(".pv-measured").first.wait_for()
    screenshot(tab, f"run-{which}-390-zh")
    tab.set_viewport_size({"width": 1400, "height": 1000})
    tab.get_by_text("English", exact=True).first.click()
    tab.locator(".pv-measured").filter(has_text=f"{expected} measured").first.wait_for(timeout=60_000)
    # Back to the schedules.
    controls(tab, which)
    tab.get_by_role("button", name=template("run.back")).last.click()
    tab.get_by_text(SHOWN).first.wait_for(timeout=60_000)
    assert tab.locator(".pv-measured").count() == 0
    tab.wait_for_function("() => Bokeh.documents.some((d) => { const m = d.get_model_by_name('run_model');"
                          " return m && m.data.left.length === 0; })", timeout=60_000)
    assert errors == []


def bad_files(tmp: Path) -> list[tuple[str, list[Path]]]:
    """Each kind of bad input the issue names, as files a person could choose."""
    rank0 = rank_files(TRACE)[0]
    cases = {
        "not a trace": {"notes.json": b"hello, world"},
        "no pipeline ops": {"other.json": json.dumps({"traceEvents": [
            {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "ts": 1, "dur": 2},
            {"ph": "X", "name": "step <b>x</b>", "cat": "user_annotation", "ts": 0, "dur": 9}]}).encode()},
        "truncated": {"cut<b>short.json": rank0.read_bytes()[:5000]},
        "broken gzip": {"rank0.json.gz": gzip.compress(rank0.read_bytes())[:3000]},
        "two claim one rank": {"a.json": rank0.read_bytes(), "b.json": rank0.read_bytes()},
        "too large to time": {"big.json": json.dumps({"traceEvents": [
            {"ph": "X", "name": "PP:0F999999", "ts": 0, "dur": 1}]}).encode()},
    }
    out = []
    for i, (label, named) in enumerate(cases.items()):
        where = tmp / str(i)
        where.mkdir()
        paths = []
        for name, data in named.items():
            (where / name).write_bytes(data)
            paths.append(where / name)
        out.append((label, paths))
    return out


def cli_line(paths: list[Path], lang: str = "en") -> str:
    """What `pipeviz show --trace` says of these files, named as chosen (no folder)."""
    with chdir(paths[0].parent):
        try:
            read_traces([p.name for p in paths])
        except PipevizError as e:
            return e.text(lang)
    raise AssertionError(f"{paths} read without error")


# The served app's file input as the browser holds it: empty once the app's clear arrived.
CLEARED_JS = """() => { const inputs = Bokeh.documents.flatMap((doc) => Array.from(doc.all_models))
    .filter((m) => m.type === 'FileInput');
    return inputs.length > 0 && inputs.every((m) => m.value == null || m.value.length === 0); }"""


def test_bad_files_give_the_clis_line_and_the_explorer_keeps_working(explorer, tab, tmp_path):
    which, errors = explorer
    files = controls(tab, which)
    for label, paths in bad_files(tmp_path):
        line = cli_line(paths)
        files.set_input_files([str(p) for p in paths])
        notice = tab.locator(".pv-notice p").filter(has_text=line)
        notice.first.wait_for(timeout=60_000)
        assert notice.first.inner_text() == line, label
        assert tab.locator(".pv-notice b, .pv-notice i").count() == 0  # a file's text is never markup
        assert SHOWN in readout(tab), label  # nothing drawn half: the schedule as it was
        if which == "app":  # the app clears its input after reading (to read the same files again):
            tab.wait_for_function(CLEARED_JS)  # a person's next choice comes after that has arrived
    # Too large for the explorer: refused before it is read, with the limit said.
    if which == "app":  # 13 MB chosen: the browser does not send it (static/compat.js "uploads")
        big = tmp_path / "big.json"
        big.write_bytes(b" " * (13 << 20))
        files.set_input_files([str(big)])
        said = "13.0 MB of traces: the served app reads at most 12.0 MB at a time"
    else:  # 2 GiB: the page reads up to 1 GiB (its check comes before any reading)
        tab.evaluate("PipevizExplorer.get().loadFiles([{name: 'huge.json', size: 2 ** 31}])")
        said = "2048.0 MB of traces: the page reads at most 1024.0 MB at a time"
    tab.locator(".pv-notice p").filter(has_text=said).first.wait_for(timeout=60_000)
    tab.get_by_text(SHOWN).first.wait_for()  # still the schedule
    if which == "page":  # the page also reads files dropped anywhere on it
        paths = rank_files(TRACE)
        tab.evaluate("""(files) => {
            const dt = new DataTransfer();
            for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
            document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""", [{"name": p.name, "b64": base64.b64encode(p.read_bytes()).decode()} for p in paths])
        tab.locator(".pv-measured").filter(has_text="28.94% measured").first.wait_for(timeout=60_000)
        tab.get_by_role("button", name=template("run.back")).last.click()
        tab.get_by_text(SHOWN).first.wait_for(timeout=60_000)
    assert errors == []
