"""pipeviz/compat.py: every reach into Bokeh's and Panel's internals applies to the
pinned versions only, and each internal is still where its patch expects it there."""

from __future__ import annotations

import inspect
import logging
import re
import tomllib
from pathlib import Path

import pytest

from pipeviz import compat

ROOT = Path(__file__).resolve().parent.parent


def test_the_tested_versions_are_the_pinned_ones():
    pins = dict(re.findall(r"^(bokeh|panel)==(\S+)", (ROOT / "requirements.txt").read_text(), flags=re.M))
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert pins == compat.TESTED
    assert {f"{k}=={v}" for k, v in compat.TESTED.items()} <= set(deps)  # pip install . gets exactly these
    assert compat.tested("bokeh") and compat.tested("panel")  # this environment is the tested one


def test_each_internal_is_where_its_patch_expects_it():
    from bokeh.core import serialization
    from bokeh.document import Document
    from bokeh.server.contexts import BokehSessionContext
    from bokeh.server.tornado import BokehTornado
    from bokeh.server.views.ws import WSHandler
    from panel.io import document, location
    from panel.reactive import Syncable

    assert callable(location.parse_query)  # raw_location_query
    source = inspect.getsource(Syncable._server_change)  # prompt
    assert "self._priority_changes" in source and "self._debounce" in source
    assert isinstance(Document()._template_variables, dict)  # local_resources
    assert "_session" in inspect.getsource(BokehSessionContext.__init__)  # has_viewer
    assert callable(serialization.Serializer._encode_bytes) and hasattr(serialization.Buffer, "to_base64")
    assert "asyncio.sleep(0.01)" in inspect.getsource(document._dispatch_msgs)  # prompt_patches
    assert hasattr(document._WRITE_MSGS, "get")  # a (weak) mapping of documents to their pending messages
    assert callable(WSHandler.on_close) and inspect.iscoroutinefunction(WSHandler._handle)  # guard_closed_sessions
    assert callable(BokehTornado.find_handler) and callable(BokehTornado.get_handler_delegate)  # refuse_hosts
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.models import Div

    # cached_defaults: the getter Bokeh calls for a property never set, and what it keeps per instance
    assert "_unstable_default_values" in inspect.getsource(PropertyDescriptor._get_default)
    assert isinstance(Div()._unstable_default_values, dict)
    from bokeh.embed import bundle

    assert "root.references()" in inspect.getsource(bundle._all_objs)  # bundle_from_models
    assert hasattr(Document().models, "_freeze_count")


def test_an_untested_version_leaves_the_patches_out(monkeypatch, caplog):
    import panel as pn

    monkeypatch.setattr(compat, "version", lambda lib: "0.0.1")
    monkeypatch.setattr(compat, "_versions", {})  # asked again under the stand-in version
    monkeypatch.setattr(compat, "_refused", set())
    with caplog.at_level(logging.WARNING, logger="pipeviz.compat"):
        assert compat.prompt(pn.widgets.IntSlider) is pn.widgets.IntSlider
        compat.prompt(pn.widgets.FloatSlider)
    assert [r.getMessage() for r in caplog.records] == [
        "pipeviz: panel 0.0.1 is not the tested 1.9.4; prompt is left out"]  # once per patch
    assert compat.has_viewer(None)  # no session here; with an untested Bokeh every session counts as viewed


def test_cached_defaults_reads_what_bokeh_reads():
    """Every property of models the explorers use, never set, set, and themed, reads the
    same with the patch as Bokeh computes it."""
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.models import ColumnDataSource, Div, GlyphRenderer, LinearAxis, Quad, Slider
    from bokeh.plotting import figure

    compat.cached_defaults()
    patched = PropertyDescriptor._get_default
    assert patched._pipeviz
    models = [figure(), Div(text="x"), Slider(start=0, end=1, value=0), Quad(), LinearAxis(), GlyphRenderer(),
              ColumnDataSource()]
    themed = Div()
    themed.apply_theme({"text": "themed", "width": 99})
    models.append(themed)
    for model in models:
        for name in model.properties():
            if name in model._property_values:
                continue
            descriptor = model.lookup(name)
            first, again = descriptor._get(model), descriptor._get(model)  # the second read is the kept one
            fresh = descriptor.property.themed_default(type(model), name, model.themed_values())
            assert first == again == fresh or (first is again), (type(model).__name__, name)
    assert themed.text == "themed" and themed.width == 99 and Div().text == ""


def test_bundle_from_models_finds_what_bokehs_walk_finds():
    from bokeh.document import Document
    from bokeh.embed import bundle
    from bokeh.layouts import column
    from bokeh.models import Div, Slider
    from bokeh.plotting import figure

    walk = bundle._all_objs
    compat.bundle_from_models()
    doc = Document()
    doc.add_root(column(figure(), Slider(start=0, end=1, value=0)))
    doc.add_root(Div())
    expected = {m for root in doc.roots for m in root.references()}
    assert bundle._all_objs([doc]) == expected and len(expected) > 20
    if not getattr(walk, "_pipeviz", False):  # Bokeh's own, when this test runs first in its process
        assert walk([doc]) == expected


@pytest.mark.parametrize("name", ["raw_location_query", "inline_small_buffers", "prompt_patches", "guard_closed_sessions",
                                  "cached_defaults", "bundle_from_models"])
def test_each_patch_applies_once(name):
    getattr(compat, name)()
    getattr(compat, name)()  # a second call finds its own patch and leaves it
    from bokeh.core import serialization
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.embed import bundle
    from bokeh.server.views.ws import WSHandler
    from panel.io import document, location

    patched = {"raw_location_query": location.parse_query, "inline_small_buffers": serialization.Serializer._encode_bytes,
               "prompt_patches": document._dispatch_msgs, "guard_closed_sessions": WSHandler.on_close,
               "cached_defaults": PropertyDescriptor._get_default, "bundle_from_models": bundle._all_objs}[name]
    assert patched._pipeviz
    if name == "raw_location_query":
        assert patched("?P=%C2%B2&x=[1,2]") == {"P": "²", "x": "[1,2]"}  # strings, nothing evaluated


def test_the_browser_is_told_the_tested_versions_and_the_served_panel(monkeypatch):
    """static/compat.js compares Bokeh.version with the tested one itself; Panel's bundle
    has no version a script can read, so the served app says which Panel it serves and
    the page, which runs no Panel, says none."""
    assert compat.browser(panel=False) == {"tested": compat.TESTED, "panel": None}
    monkeypatch.setattr(compat, "version", lambda lib: {"panel": "0.0.1"}[lib])
    monkeypatch.setattr(compat, "_versions", {})  # asked again under the stand-in version
    assert compat.browser(panel=True) == {"tested": compat.TESTED, "panel": "0.0.1"}


def test_packed_bundle_carries_the_widgets_bundle_whole(monkeypatch):
    """The page's widgets bundle packed as gzip in base64 unpacks to the very bundle
    (the browser tests run the page with it); with another Bokeh it stays inline."""
    import base64
    import gzip
    import re

    from bokeh.resources import Resources

    bundle = Resources(mode="inline", components=["bokeh-widgets"]).js_raw[0]
    html = f"<script>{bundle}</script>\n<script>Bokeh.set_log_level('info');</script>"
    packed = compat.packed_bundle(html)
    data = re.search(r"base64_to_buffer\('([A-Za-z0-9+/=]+)'\)", packed).group(1)
    assert gzip.decompress(base64.b64decode(data)).decode("utf-8").strip() == bundle.strip()
    assert len(packed) < len(html) / 2 and "Bokeh.set_log_level" in packed
    monkeypatch.setattr(compat, "_versions", {"bokeh": "0.0.1"})
    assert compat.packed_bundle(html) == html
