"""Chinese means Chinese: with lang=zh, no English word on screen outside a short
list, in the strings table and in both explorers as a reader sees them (the page's
text, every tooltip and accessible name, and the words Bokeh draws on its canvases:
titles, axes, legends, toolbar tooltips, hover templates, the browser code's words).

What may stay in Latin letters, and why:
  NAMES     schedule names and titles, and the papers and libraries they come from:
            names, not words (the same names in the app, URLs and exports)
  ARTICLE   English the article itself keeps in its Chinese text (seed/...zh.txt)
  SYMBOLS   docs/model.md's symbols and formulas: any single letter (P, m, V, F, B, W, r,
            ...), t_f and its kin, min, comm, and the op kinds EF, EB
  FORMATS   file formats and units that Chinese text writes in Latin letters too
  SELF      "English", the language switch's own name for English
  CODE      the Python API's argument names, in the messages about them
  CODE_IN   in the messages that name them only (not on the explorers' labels):
            what a reader types, which is code in any language: the encoder's
            Python argument names and values, the JSON export's keys, CLI commands
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from html import unescape

import pytest
from browser import screenshot, served_app

import pipeviz.figure  # noqa: F401  (its messages join the strings table only once it is imported)
from pipeviz.page_document import page_data
from pipeviz.registry import NAMES
from pipeviz.text import table, template

NAMES_OK = {"Llama", "Korthikanti", "FlashAttention",
            "Zero", "Bubble", "Megatron", "core", "DeepSeek", "DualPipe", "PyTorch", "GPT", "pipeviz", "Interleaved",
            "interleaved", "BPipe"}
ARTICLE = {"rank", "warmup"}
SYMBOLS = {"min", "max", "comm", "EF", "EB", "mV", "e_f", "e_b", "mod"}
FORMATS = {"PNG", "SVG", "URL", "JSON", "GiB", "MiB", "HBM", "GPU", "bf16", "fp32",
           "Chrome", "gzip", "UTF", "ms"}  # a Chrome trace, gzip, UTF-8, milliseconds
SELF = {"English"}
CODE = {"rank_ptr", "stage_to_rank", "segment"}
CODE_IN = {
    "config.encoder": {"Encoder", "None", "ef", "eb", "encoder", "place", "frozen"},
    "encoder.frozen": {"frozen", "true", "false"},
    "order.json_ops": {"ops"},
    "order.json_op": {"kind", "mb", "stage"},
    "order.json_kind": {"kind"},
    "order.json_pair": {"mb", "stage", "parts"},
    "page.G": {"show", "export"},
    "interleaved.pytorch": {"ScheduleInterleaved1F1B"},  # PyTorch's class, by its name
    "cli.model_needed": {"model", "custom"},  # --model custom
    "cli.custom_needs": {"model", "custom", "layers", "hidden", "heads", "vocab"},
    # A profiled step's messages: the trace format's keys, the profiler's API, the runtime's
    # labels (PP:2F0, Forward 3) and the flags that read them.
    "trace.empty": {"traceEvents"},
    # A real run too large for an explorer: the command that reads it.
    "run.too_large": {"python", "show", "trace"},
    "trace.not_json": {"traceEvents", "torch", "profiler", "export_chrome_trace"},
    "trace.no_events": {"traceEvents"},
    "trace.no_ops": {"PP", "Forward", "Backward", "pattern"},
    "trace.no_ops_named": {"PP", "Forward", "Backward", "pattern"},
    "trace.ranks_count": {"ranks"},
    "trace.ranks_perm": {"ranks"},
    "trace.offsets_count": {"offsets"},
    "trace.rank_unknown": {"distributedInfo", "ranks"},
    "trace.same_rank": {"ranks"},
    "trace.overlap_ops": {"pattern"},
    "trace.placement": {"ranks"},
    "trace.placement_v": {"ranks"},
    "trace.pattern_length": {"pattern"},
    "trace.pattern_slot": {"pattern"},
    "trace.pattern_needs": {"pattern"},
    "trace.pattern_stars": {"pattern"},
    "trace.pattern_kinds": {"pattern", "kinds"},
    # `pipeviz figure`'s messages: its flag, and the commands and variables that install or find its browser.
    "figure.width": {"width"},
    "figure.no_selenium": {"selenium", "pip", "install", "requirements", "txt"},
    "figure.no_browser": {"Debian", "PIPEVIZ_CHROMEDRIVER", "PIPEVIZ_CHROMIUM", "apt", "chromium", "driver", "get",
                          "install"},
}

TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def allowed() -> set[str]:
    out = NAMES_OK | ARTICLE | SYMBOLS | FORMATS | SELF | CODE
    for name in NAMES:
        out |= set(TOKEN.findall(name)) | set(TOKEN.findall(template(f"sched.{name}.title", "en")))
    return out


ALLOWED = allowed()


def english_words(text: str) -> set[str]:
    """The tokens of `text` in Latin letters that are not allowed (t_f is one token)."""
    return {w for w in TOKEN.findall(text)
            if len(w) > 1 and w not in ALLOWED and not re.fullmatch(r"t_[a-z]+|[A-Z]{1,2}[0-9]+", w)}  # t_f, 2F0, EB3


def from_markup(text: str) -> str:
    """A template's words as a reader sees them: its slots out, its tags out, the
    values of its title attributes kept, character references decoded."""
    text = SLOT.sub(" ", text)
    titles = " ".join(re.findall(r'title="([^"]*)"', text))
    return unescape(re.sub(r"<[^>]*>", " ", text) + " " + titles)


def test_every_chinese_string_is_chinese():
    bad = {}
    for key, (_, zh) in table().items():
        words = english_words(from_markup(zh)) - CODE_IN.get(key, set())
        if words:
            bad[key] = sorted(words)
    assert bad == {}, bad


def test_the_check_catches_english():
    assert english_words("rank 0 在等待 the op") == {"the", "op"}
    assert english_words(from_markup('<b title="peak">峰值</b> {value}')) == {"peak"}
    assert english_words("P=4，m=8，t_f（前向），ZB-H1，1F1B，(P-1)/(mV+P-1)，rank，warmup") == set()


# -- in the browser ------------------------------------------------------------------------

# Every string a reader can see or be told: text nodes, tooltips and accessible names
# (shadow roots included), and the words on Bokeh's models, which it draws on canvases.
COLLECT = """(onlyShown) => {
  const out = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*')) {
      for (const a of ['title', 'aria-label', 'placeholder', 'alt']) {
        const v = el.getAttribute(a);
        if (v) out.push(['attr ' + a, v]);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
    }
    const tw = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let t = tw.nextNode(); t; t = tw.nextNode()) {
      const p = t.parentElement;
      if (!t.nodeValue.trim() || !p || ['SCRIPT', 'STYLE'].includes(p.tagName)) continue;
      out.push(['text', t.nodeValue]);
    }
  };
  walk(document);
  const strings = (v) => typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings)
    : v && typeof v === 'object' && typeof v.value === 'string' ? [v.value] : [];
  // The models in the document's tree; with onlyShown, only these: a served app that
  // replaced its controls (a language switch) leaves the old ones in all_models, unseen.
  const inTree = (doc) => {
    const seen = new Set(), stack = [...doc.roots()];
    while (stack.length) {
      const m = stack.pop();
      if (!seen.has(m)) { seen.add(m); stack.push(...m.references()); }
    }
    return seen;
  };
  for (const doc of Bokeh.documents) {
    const shown = onlyShown ? inTree(doc) : null;
    for (const m of doc.all_models) {
      if (shown && !shown.has(m)) continue;
      for (const a of ['text', 'label', 'title', 'axis_label', 'description', 'labels', 'tooltips']) {
        if (a in m && m[a] !== null) for (const s of strings(m[a])) out.push([m.type + '.' + a, s]);
      }
      if (m.type.endsWith('Select')) for (const o of m.options) out.push(['Select.options', Array.isArray(o) ? o[1] : o]);
      if (m.data && m.type === 'ColumnDataSource') {
        for (const [k, col] of Object.entries(m.data)) {
          if (k === 'key') continue; // a lookup key, never shown
          if (Array.isArray(col) && typeof col[0] === 'string') for (const s of col) out.push([m.name + '.' + k, s]);
        }
      }
    }
  }
  return out;
}"""


def english_on_screen(page, only_shown: bool = False) -> dict:
    found = {}
    for where, text in page.evaluate(COLLECT, only_shown):
        if where.startswith("panel.models.markup."):
            text = unescape(text)  # Panel sends its HTML panes' markup escaped, and unescapes it in the browser
        if where.rsplit(".", 1)[-1] in ("color", "line_color", "fill_color", "marker"):
            continue  # a glyph's colour or marker column (the trade-off's points), never shown as text
        if where != "text" and not where.startswith("attr"):
            text = from_markup(text)  # a Div's HTML: the words, not the markup
        text = re.sub(r"@\{?[A-Za-z_]+\}?(\{[^}]*\})?|\$[a-z_]+", " ", text)  # hover fields and their formats
        text = SLOT.sub(" ", text)  # a template's slots (the browser code's words)
        for w in english_words(text):
            found.setdefault(w, set()).add(f"{where}: {text[:80]}")
    return found


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


def english_once_settled(page, only_shown: bool = False, timeout: float = 30.0) -> dict:
    """The English on screen once there is none, or after `timeout` seconds: after a
    language switch the words arrive in steps (figures, then the table and sweep)."""
    deadline = time.monotonic() + timeout
    found = english_on_screen(page, only_shown)
    while found and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        found = english_on_screen(page, only_shown)
    return found


@pytest.mark.browser
def test_the_served_app_in_chinese(page, app_url):
    # The session opens in the URL's language: no English page first, no English model left behind.
    page.goto(app_url + "?lang=zh")
    page.get_by_text("气泡占比（单次迭代）").first.wait_for(timeout=60_000)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sweep_sim_0').data.x.length > 0",
                           timeout=60_000)
    screenshot(page, "lang-app-zh")
    assert english_on_screen(page) == {}
    assert page.title() == template("page.title", "zh")


@pytest.mark.browser
def test_the_served_app_switches_to_chinese(page, app_url):
    page.goto(app_url)
    page.get_by_text("simulated").first.wait_for(timeout=60_000)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sweep_sim_0').data.x.length > 0",
                           timeout=60_000)
    assert {"simulated", "makespan", "forward"} <= set(english_on_screen(page))
    page.get_by_role("button", name="中文").click()
    page.get_by_text("气泡占比（单次迭代）").first.wait_for(timeout=60_000)
    # The controls the switch replaced stay in Bokeh's list of models, off screen: count what is shown.
    assert english_once_settled(page, only_shown=True) == {}


@pytest.mark.browser
def test_the_page_in_chinese(page, tmp_path):
    path = tmp_path / "zh.html"
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    page.goto(path.as_uri() + "?lang=zh")
    page.get_by_text("气泡占比（单次迭代）").first.wait_for(timeout=60_000)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sweep_sim_0').data.x.length > 0",
                           timeout=60_000)
    screenshot(page, "lang-page-zh")
    assert english_on_screen(page) == {}
    # The check sees what it should: the English page is full of English.
    page.get_by_role("button", name="English").click()
    page.get_by_text("simulated").first.wait_for()
    assert {"simulated", "makespan", "forward"} <= set(english_on_screen(page))
    assert page.title() == template("page.title", "en")
    # And back: the page relabels everything it shows.
    page.get_by_role("button", name="中文").click()
    page.get_by_text("气泡占比（单次迭代）").first.wait_for()
    assert english_once_settled(page) == {}
    assert page.title() == template("page.title", "zh")


def test_page_data_has_both_languages():
    data = page_data()
    assert set(data["figureTexts"]) == set(data["widgetTexts"]) == set(data["features"]["teach"]["texts"]) == {"en", "zh"}


@pytest.mark.browser
def test_the_page_written_in_chinese(page, tmp_path):
    """`pipeviz page --lang zh` (issue 42): the page opens in Chinese from the flag alone,
    with no English on it before or after its first drawing."""
    path = tmp_path / "zh.html"
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "--lang", "zh", "-P", "8", "-m", "16", "-s",
                        "interleaved", "-o", str(path)], capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    page.goto(path.as_uri())
    page.get_by_text("气泡占比（单次迭代）").first.wait_for(timeout=60_000)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sweep_sim_0').data.x.length > 0",
                           timeout=60_000)
    assert english_on_screen(page) == {}
    assert page.title() == template("page.title", "zh")
    # What a reader sees, every group of settings and the ops table opened: each visible
    # text, in the light DOM and in every widget's shadow root, and what the boxes show.
    for key in ("costs.title", "model.title", "own.title", "group.closing", "group.display"):
        page.get_by_role("button", name=template(key, "zh"), exact=True).click()
    page.locator("#pv-ops-summary").click()
    page.get_by_role("slider", name=template("field.ef", "zh")).wait_for()  # the last group is open and named
    texts = page.evaluate(VISIBLE_TEXT)
    assert len(texts) > 100
    found = {w: t for t in texts for w in english_words(t)}
    assert found == {}


# Every text a reader can see: text nodes of rendered elements (the light DOM and each
# shadow root, where Bokeh draws its widgets), and the placeholders and values of the
# visible text boxes.
VISIBLE_TEXT = """() => { const out = [];
  const shown = (el) => !el.checkVisibility || el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const walk = (root) => {
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      const el = n.parentElement;
      if (n.data.trim() && el && !['SCRIPT', 'STYLE'].includes(el.tagName) && shown(el)) out.push(n.data);
    }
    for (const el of root.querySelectorAll('input, textarea')) {
      if (!shown(el)) continue;
      if (el.placeholder) out.push(el.placeholder);
      if (el.type !== 'number' && el.value) out.push(el.value);
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document); return out; }"""
