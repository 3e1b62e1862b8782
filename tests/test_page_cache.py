"""`page` opens a template built once per language at the flags' view (pipeviz/page.py):
the widgets' values, the line under the bar and the puzzle's block are the
configuration's, the rest of the page is the template's, and the cache is named by the
code that makes it. What a reader then sees of a page built with flags is in
tests/test_page.py (a zb-v page with comm 0.5, a Chinese interleaved one)."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeviz import Config, page, page_document
from pipeviz.config import Encoder
from pipeviz.costs import Costs
from pipeviz.registry import NAMES
from pipeviz.text import LANGS
from pipeviz.view.fields import FIELDS
from pipeviz.view.opening import PUZZLE, SUMMARY, puzzle_block, summary, widget_values


@functools.cache
def template(lang: str) -> str:
    """The language's template, as `page` finds it (in the cache, or built now)."""
    return page.template(lang)


def doc(html: str) -> dict:
    """The page's Bokeh document, as its JSON."""
    return json.loads(unescape(page.DOC_JSON.search(html).group(2)))


def by_name(docs: dict) -> dict[str, list[dict]]:
    """The document's models by name (each model is defined once in the JSON)."""
    out: dict[str, list[dict]] = {}
    for model in page._models(docs):
        name = model["attributes"].get("name")
        if name is not None:
            out.setdefault(name, []).append(model)
    return out


def cost(key: str):
    f = FIELDS[key]
    return st.floats(f.low, f.high, allow_nan=False).map(lambda x: round(x, 2)).filter(lambda x: x >= f.low)


configs = st.builds(
    lambda schedule, P, m, V, tf, tb, tw, comm, tfb, enc, balance: Config(
        schedule=schedule, P=P, m=m, V=V, costs=Costs(tf=tf, tb=tb, tw=tw, comm=comm, tfb=tfb), encoder=enc,
        balance=balance),
    st.sampled_from(NAMES), st.integers(1, 32), st.integers(1, 128), st.integers(1, 8),
    cost("tf"), cost("tb"), cost("tw"), cost("comm"), st.none() | st.floats(0.01, 1000).map(lambda x: round(x, 2)),
    st.none() | st.builds(Encoder, ef=cost("ef"), eb=cost("eb"),
                          place=st.sampled_from(("stage0", "separate", "bubbles")), frozen=st.booleans()),
    st.sampled_from((None, "bpipe")),
)


@settings(max_examples=40, deadline=None)
@given(cfg=configs, lang=st.sampled_from(LANGS))
def test_the_page_opens_at_the_configuration_and_is_the_template_elsewhere(cfg, lang):
    html = page.opened_at(template(lang), cfg, lang)
    opened, before = doc(html), doc(template(lang))
    models, kept = by_name(opened), by_name(before)
    values = widget_values(cfg, lang)
    for name, attrs in values.items():
        (model,) = models[name]  # one widget of each name
        assert {a: model["attributes"][a] for a in attrs} == json.loads(json.dumps(attrs))
        # Put the template's values back: then the whole document must be the template's.
        (was,) = kept[name]
        for a in attrs:
            if a in was["attributes"]:
                model["attributes"][a] = was["attributes"][a]
            else:
                del model["attributes"][a]
    assert opened == before, "the page differs from its template beyond the widgets' values"
    # So is every byte outside the document, but for the two marks.
    assert SUMMARY not in html and PUZZLE not in html
    assert summary(cfg, lang) in html and puzzle_block(cfg, lang) in html
    outside = page.DOC_JSON.sub("", html)
    expected = page.DOC_JSON.sub("", template(lang)).replace(SUMMARY, summary(cfg, lang)).replace(
        PUZZLE, puzzle_block(cfg, lang))
    assert outside == expected


@pytest.mark.parametrize("lang", LANGS)
def test_at_the_defaults_the_widgets_keep_the_values_bokeh_gave_them(lang):
    """The document builder gives its widgets the defaults' values (view/opening.py),
    so the page at the defaults changes no value Bokeh wrote (a property at its Bokeh
    default is left out of Bokeh's JSON: the preset menu's "" is its default)."""
    before = by_name(doc(template(lang)))
    after = by_name(doc(page.opened_at(template(lang), Config(), lang)))
    for name, attrs in widget_values(Config(), lang).items():
        (b,), (a,) = before[name], after[name]
        for key, value in attrs.items():
            assert b["attributes"].get(key, value) == a["attributes"][key], (name, key)
    assert after["lang"][0]["attributes"]["active"] == FIELDS["lang"].choices.index(lang)


def test_a_template_is_built_once_and_read_after(tmp_path, monkeypatch):
    built = []
    real = page_document.template_html
    monkeypatch.setattr(page_document, "template_html", lambda lang: built.append(lang) or real(lang))
    monkeypatch.setenv("PIPEVIZ_CACHE_DIR", str(tmp_path))
    first = page.build(Config(schedule="zb-v", P=4, m=8, V=2), "en")
    second = page.build(Config(schedule="zb-v", P=4, m=8, V=2), "en")
    assert built == ["en"]
    assert [p.name for p in tmp_path.iterdir()] == [f"page-en-{page.template_key()}.html"]
    # The same page but for Bokeh's ids of the document and its roots' elements, made anew per build.
    strip = lambda html: re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", html)  # noqa: E731
    assert strip(first) == strip(second)
    page.build(Config(), "zh")
    assert built == ["en", "zh"]


@pytest.mark.parametrize("where", ["", "file"])
def test_no_cache_or_one_that_cannot_be_written_still_builds(tmp_path, monkeypatch, where):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("PIPEVIZ_CACHE_DIR", str(blocker) if where else "")
    monkeypatch.setattr(page_document, "template_html", lambda lang: TEMPLATE_STANDIN)
    assert page.cache_dir() == (blocker if where else None)
    assert page.template("en") == TEMPLATE_STANDIN
    assert blocker.read_text() == ""


TEMPLATE_STANDIN = "<html>a template</html>"


def test_the_key_changes_with_any_source_file(tmp_path):
    root = Path(page.__file__).resolve().parent
    copy = tmp_path / "pipeviz"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    assert page.source_hash(copy) == page.source_hash(root)
    js = tmp_path / "static"
    js.mkdir()
    (js / "a.js").write_text("var a = 1;")
    before = page.source_hash(js)
    (js / "a.js").write_text("var a = 2;")
    assert page.source_hash(js) != before
    words = copy / "words" / "commands.py"
    words.write_text(words.read_text(encoding="utf-8") + "\n# a change\n", encoding="utf-8")
    assert page.source_hash(copy) != page.source_hash(root)


def test_old_templates_are_dropped_beyond_the_kept_few(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPEVIZ_CACHE_DIR", str(tmp_path))
    for i in range(page.KEPT + 3):
        old = tmp_path / f"page-en-old{i:02d}.html"
        old.write_text("old")
        os.utime(old, (1000 + i, 1000 + i))
    page._keep(tmp_path / "page-en-new.html", "new")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == page.KEPT and "page-en-new.html" in kept
    assert "page-en-old00.html" not in kept  # the oldest go first
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_template_without_its_marks_is_refused():
    with pytest.raises(ValueError, match="not a page template"):
        page.opened_at("<html></html>", Config(), "en")
