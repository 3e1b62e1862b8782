"""static/run_view.js against pipeviz/view/run_view.py, in the Debian chromium: for the
shared traces (and every trace of tests/data/traces), the page reads the files with
static/trace.js and builds the run's figure view (every source's columns, bit for bit,
and the properties), its readout and its what-if table (the HTML, in both languages)
exactly as Python does."""

from __future__ import annotations

import base64
import json
from contextlib import chdir
from pathlib import Path

import pytest
import twin
from tracegen import SHARED, rank_files, trace_dirs

from pipeviz.trace import read_traces, report, what_if
from pipeviz.view import run_view

pytestmark = pytest.mark.browser
LANGS = ("en", "zh")
PX = 700.0


JS_CASE = """
window.__runCase = async (files, px) => {
  const X = PipevizExplorer, E = PipevizEngine, W = __twin;
  const list = files.map((f) => new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
  const run = await E.trace.readFiles(list, {});
  const rep = E.trace.report(run), what = E.trace.whatIf(rep), res = X.runView.resultOf(rep);
  const out = {views: {}, readout: {}, whatif: {}};
  for (const lang of ['en', 'zh']) {
    const view = X.runView.figureView(rep, res, 'micro-batches', lang, px);
    out.views[lang] = {sources: view.sources, props: view.props};
    out.readout[lang] = X.runView.readoutHtml(X.runView.readoutValues(rep), lang);
    out.whatif[lang] = X.runView.whatifHtml(X.runView.whatifValues(rep, what), lang);
  }
  out.prompt = X.runView.whatifHtml(null, 'en');
  return JSON.stringify(W.summary(out));
};
"""


def expected(paths: list[Path]) -> dict:
    with chdir(paths[0].parent):
        rep = report(read_traces([p.name for p in paths]))
    what, res = what_if(rep), run_view.result_of(rep)
    out: dict = {"views": {}, "readout": {}, "whatif": {}}
    for lang in LANGS:
        view = run_view.figure_view(rep, res, "micro-batches", lang, PX)
        out["views"][lang] = {"sources": view["sources"], "props": view["props"]}
        out["readout"][lang] = run_view.readout_html(run_view.readout_values(rep), lang)
        out["whatif"][lang] = run_view.whatif_html(run_view.whatif_values(rep, what), lang)
    out["prompt"] = run_view.whatif_html(None, "en")
    return json.loads(json.dumps(twin.summary(out)))  # tuples as lists, as the page's JSON has them


@pytest.fixture(scope="module")
def page(browser):
    pg = browser.new_page()
    twin.load(pg)
    pg.add_script_tag(content=JS_CASE)
    yield pg
    pg.close()


@pytest.mark.parametrize("where", trace_dirs(), ids=lambda d: d.name)
def test_the_page_draws_and_reads_out_a_run_as_python_does(page, where):
    paths = rank_files(where)
    files = [{"name": p.name, "b64": base64.b64encode(p.read_bytes()).decode()} for p in paths]
    got = json.loads(page.evaluate("([f, px]) => __runCase(f, px)", [files, PX]))
    exp = expected(paths)
    d = twin.Diff()
    d.walk("", exp, got)
    assert not d.errors, "\n".join(d.errors)
    # Not vacuous: the run's own sources hold every op and every communication action.
    left = exp["views"]["en"]["sources"]["run_model"]["left"]
    assert (left["n"] if isinstance(left, dict) else len(left)) > 0
    assert "pv-measured" in exp["readout"]["en"]


def test_a_run_shown_in_both_languages_names_its_measured_bubble():
    d = SHARED / "torch-ZBVZeroBubble-P2-m4"
    if not d.is_dir():
        pytest.skip("the shared traces are not on this machine")
    rep = report(read_traces([str(p) for p in rank_files(d)]))
    v = run_view.readout_values(rep)
    assert v["measured"] == f"{100 * rep.run.metrics.bubble_fraction:.2f}%"
    assert f'<b class="pv-measured">{v["measured"]} measured</b>' in run_view.readout_html(v, "en")
    assert f'<b class="pv-measured">实测 {v["measured"]}</b>' in run_view.readout_html(v, "zh")
