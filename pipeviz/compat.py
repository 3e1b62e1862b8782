"""Every place pipeviz reaches into Bokeh's or Panel's internals, in one module per
language: this one for the Python side, static/compat.js for the browser's (BokehJS's
repaint, Panel's Location view), which `browser()` tells the tested versions.

pipeviz pins bokeh and panel (requirements.txt and pyproject.toml name the same
versions, `TESTED` here). Each patch says what it changes, why, and the figure that
justifies it, and applies only when the installed version is the one it was written
and tested against; with any other version it stays out (logged once) and pipeviz
runs on the library's own behaviour: slower, or with the library's own flaw, never
broken. tests/test_compat.py pins that each internal is still where the patch
expects it in the installed version.

  patch                  library  what it answers                                  its figure
  raw_location_query     Panel    the URL parser raises on `P=²`, literal_evals    a broken page
  prompt                 Panel    a change waits 50 ms (`_debounce`)               50 of 70 ms keypress to readout
  local_resources        Panel    a late websocket's session loads CSS from a CDN  requests to a third party
  has_viewer             Bokeh    no public way to ask if a browser is still there deferred work for closed pages
  inline_small_buffers   Bokeh    each column is two websocket messages            keypress 98 -> 82 ms (defaults),
                                                                                   174 -> 129 ms (sliders' ends)
  prompt_patches         Panel    a patch waits a fixed 10 ms retry                the patch leaves ~10 ms sooner
  guard_closed_sessions  Bokeh    a released session's message asserts            tracebacks in the server log
  refuse_hosts           Bokeh    no hook to refuse a Host before routing          DNS rebinding (hostcheck.py)
  cached_defaults        Bokeh    each read of a default property recomputes it    `page` CPU 6.0 -> 3.5 s (with
                                                                                   the page's own two walks gone)
  bundle_from_models     Bokeh    file_html walks the document to pick bundles     one walk of `page`'s build
  packed_bundle          BokehJS  the page inlines 382 kB of widgets' bundle        page 2.17 -> 1.92 MB
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import version

log = logging.getLogger(__name__)

# The versions every patch below was written and measured against (requirements.txt pins them).
TESTED = {"bokeh": "3.9.2", "panel": "1.9.4"}
_refused: set[str] = set()  # patches left out, logged once each


def tested(library: str) -> bool:
    """Whether the installed `library` is the version the patches were tested with.
    (Asked once per process: importlib.metadata reads the installed files each time,
    1-4 ms, and has_viewer asks at every slice of the deferred refresh.)"""
    if library not in _versions:
        _versions[library] = version(library)
    return _versions[library] == TESTED[library]


_versions: dict[str, str] = {}


def browser(panel: bool) -> dict:
    """What static/compat.js's install() is handed: the tested versions, and the installed
    Panel's where the page runs Panel (`panel`; its bundle has no version a script can
    read, while Bokeh's is `Bokeh.version`)."""
    return {"tested": dict(TESTED), "panel": version("panel") if panel else None}


def _applies(name: str, library: str) -> bool:
    if tested(library):
        return True
    if name not in _refused:
        _refused.add(name)
        log.warning("pipeviz: %s %s is not the tested %s; %s is left out", library, version(library),
                    TESTED[library], name)
    return False


def _once(target, attr: str) -> bool:
    """Whether `target.attr` is already pipeviz's (each patch applies once per process)."""
    return getattr(getattr(target, attr, None), "_pipeviz", False)


# -- Panel ---------------------------------------------------------------------------------


def raw_location_query() -> None:
    """Panel's Location turns every query value into a Python value whenever the URL
    changes (`panel.io.location.parse_query`, meant for parameters synced with the
    URL, which pipeviz does not use): it raises on a value like '²' ('²'.isdigit(),
    yet int('²') fails), which breaks the page, and it runs ast.literal_eval on values
    that start with '[' or '{'. pipeviz reads the raw URL itself (view/fields.parse),
    so Panel's copy keeps strings."""
    from urllib.parse import parse_qsl

    import panel.io.location as location

    if not _applies("raw_location_query", "panel") or _once(location, "parse_query"):
        return

    def raw_query(query: str) -> dict[str, str]:
        """The query as strings, nothing converted or evaluated."""
        return dict(parse_qsl(query[1:], keep_blank_values=True))

    raw_query._pipeviz = True
    location.parse_query = raw_query


def prompt(widget: type) -> type:
    """`widget` whose moves reach the server at once. Panel holds a widget's change for
    50 ms (`_debounce`) to merge bursts unless the property is listed in the private
    `_priority_changes`; that wait measured 50 of a 70 ms keypress-to-readout round
    trip, and an update costs a few ms, so the explorer takes every event as it comes.
    Another Panel: the widget itself, debounced."""
    if not _applies("prompt", "panel"):
        return widget
    return type(f"Prompt{widget.__name__}", (widget,), {"_priority_changes": ["value"], "__module__": __name__})


def local_resources() -> None:
    """Resolve this session's Panel resources on this server (call before building models).

    Panel writes a component's stylesheets as CDN URLs and rewrites them to the
    server's own path using the document's `dist_url` template variable, which it sets
    only when it renders a session's HTML page. Under load a browser may open its
    websocket after Bokeh discarded that unused session; Bokeh builds a new one for
    the websocket, whose document never had a page rendered, so its stylesheets kept
    their CDN URLs (tests/test_serving.py reproduces it with a script's session). This
    sets `dist_url` as Panel's page render would."""
    import panel as pn

    doc = pn.state.curdoc
    if doc is None or doc.session_context is None or not _applies("local_resources", "panel"):
        return
    rel = pn.state.rel_path
    doc._template_variables["dist_url"] = f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST


LOCAL_DIST = "static/extensions/panel/"  # where Panel's server serves its own dist files


def prompt_patches() -> None:
    """Panel's patch writer, entered only once no Bokeh message holds the socket's
    write lock. The server acknowledges each message the browser sends with an OK of
    three frames and holds the lock until they are out; a keypress's update that ends
    meanwhile finds the lock held, and Panel keeps the patch and tries again in 10 ms
    (`asyncio.sleep(0.01)` in `panel.io.document._dispatch_msgs`), though the OK is out
    a millisecond later. Waiting for the lock sent the patch about 10 ms sooner in most
    keypresses. Panel's own check and retry stay, for a lock taken again meanwhile."""
    from panel.io import document

    if not _applies("prompt_patches", "panel") or _once(document, "_dispatch_msgs"):
        return
    dispatch = document._dispatch_msgs

    async def dispatch_msgs(doc):
        for conn in list(document._WRITE_MSGS.get(doc, {})):
            lock = getattr(conn._socket, "write_lock", None)
            if lock is not None and lock._block._value == 0:  # Panel's own test for a held lock
                async with lock:  # freed: the OK's frames are out
                    pass
        await dispatch(doc)

    dispatch_msgs._pipeviz = True
    document._dispatch_msgs = dispatch_msgs  # Panel looks it up by name at each call


# -- Bokeh ---------------------------------------------------------------------------------


def has_viewer(doc) -> bool:
    """False when `doc`'s session has no open connection (its browser went away), so
    deferred work for it is skipped. Bokeh has no public way to ask; with another
    Bokeh every session counts as viewed. The document is passed, not taken from
    `pn.state.curdoc`: in a timer's callback that can be another session's."""
    ctx = getattr(doc, "session_context", None)
    if ctx is None or not tested("bokeh"):
        return True  # no server (tests, notebooks), or an untested Bokeh
    session = getattr(ctx, "_session", None)
    if session is None:
        return True
    if getattr(session, "destroyed", False):
        return False
    return session.connection_count > 0


# A column this small goes into its message's JSON as base64; a larger one stays a
# binary buffer, where a message's own cost is small beside its bytes.
INLINE_BYTES = 64 * 1024


def inline_small_buffers() -> None:
    """Bokeh's serializer, for every message the server sends: bytes under INLINE_BYTES
    inline as base64 (Bokeh's own encoding when it does not defer buffers; its clients
    read both), larger ones deferred to binary buffers as before. Bokeh sends each numpy
    column of a PATCH-DOC as a binary buffer and Panel writes each buffer as two
    websocket messages; the browser spent about 0.2 ms a message however small. A
    keypress at the defaults was 117 messages: keypress to repaint 98 -> 82 ms at the
    defaults, 174 -> 129 ms at the sliders' ends."""
    from bokeh.core import serialization

    cls = serialization.Serializer
    if not _applies("inline_small_buffers", "bokeh") or _once(cls, "_encode_bytes"):
        return
    deferred = cls._encode_bytes

    def encode_bytes(self, obj):
        size = obj.nbytes if isinstance(obj, memoryview) else len(obj)  # a memoryview's len counts items
        if self._deferred and size < INLINE_BYTES:  # Bokeh's own inline form: gzip, then base64
            return serialization.BytesRep(type="bytes", data=serialization.Buffer("inline", obj).to_base64())
        return deferred(self, obj)

    encode_bytes._pipeviz = True
    cls._encode_bytes = encode_bytes


def guard_closed_sessions() -> None:
    """Bokeh's keep-alive ping detaches the session of a connection whose socket has
    closed; when Tornado then runs that connection's `on_close`, or a last PATCH-DOC the
    browser sent as its page went away, Bokeh reads `connection.session`, which asserts
    it is there: an AssertionError traceback in the server log for a browser that left.
    Both paths skip a connection whose session is already gone."""
    from bokeh.server.views.ws import WSHandler

    if not _applies("guard_closed_sessions", "bokeh") or _once(WSHandler, "on_close"):
        return
    on_close, handle = WSHandler.on_close, WSHandler._handle

    def guarded_on_close(self) -> None:
        conn = self.connection
        if conn is not None and conn._session is None:  # the keep-alive ping let the session go first
            log.info("WebSocket connection closed after its session was released: code=%s", self.close_code)
            return
        on_close(self)

    async def guarded_handle(self, message):
        conn = self.connection
        if conn is not None and conn._session is None:  # a message from a page that has gone away
            log.info("Dropped %s from a connection whose session was released", message.msgtype)
            return None
        return await handle(self, message)

    guarded_on_close._pipeviz = guarded_handle._pipeviz = True
    WSHandler.on_close = guarded_on_close
    WSHandler._handle = guarded_handle


def refuse_hosts(served: Callable, refused: type) -> None:
    """Route every request whose Host `served(app, request)` refuses to the handler
    `refused`, before Bokeh's own routing (pipeviz/hostcheck.py says why). Tornado's
    `Application.find_handler` is the one place every request (page, websocket, static
    file) passes; Bokeh offers no hook there. Unlike the others this patch applies
    whatever the version: it is a defence, and `find_handler` is Tornado's public API."""
    from bokeh.server.tornado import BokehTornado

    if _once(BokehTornado, "find_handler"):
        return
    find_handler = BokehTornado.find_handler

    def checked(self, request, **kwargs):
        if not served(self, request):
            return self.get_handler_delegate(request, refused)
        return find_handler(self, request, **kwargs)

    checked._pipeviz = True
    BokehTornado.find_handler = checked


# The types of a default value that may be shared: nothing can change them in place.
_SHARED_DEFAULTS = (str, int, float, bool, type(None))


def cached_defaults() -> None:
    """Bokeh's property getter, keeping each class's stable default once computed. A
    property never set reads its default, which Bokeh recomputes at every read (the
    class's overridden defaults merged along its MRO, the value copied and validated)
    unless it is a container or a model ("unstable", kept per instance). Every walk of
    a document's models (`references()`, validation, `file_html`'s serialization and
    its bundle check, each several times in `page`) reads every property that may hold
    a model, most of them never set: about 90% of `python -m pipeviz page`'s build went
    there. A stable default of an unthemed instance depends on its class and name
    alone; a number, string, bool or None is kept by (class, name) and shared."""
    from bokeh.core.property.descriptors import PropertyDescriptor

    if not _applies("cached_defaults", "bokeh") or _once(PropertyDescriptor, "_get_default"):
        return
    get_default = PropertyDescriptor._get_default
    kept: dict[tuple[type, str], object] = {}
    missing = object()

    def cached(self, obj):
        # Bokeh's themed_values() is a getattr that fails through HasProps.__getattr__, which
        # formats an error message each time; an unthemed instance has no such attribute.
        if "__themed_values__" in obj.__dict__:  # a theme's values are the instance's own
            return get_default(self, obj)
        name = self.name
        value = obj._unstable_default_values.get(name, missing)  # a container or model, kept per instance
        if value is missing:
            key = (type(obj), name)
            value = kept.get(key, missing)
            if value is missing:
                value = get_default(self, obj)
                if type(value) in _SHARED_DEFAULTS and not self.has_unstable_default(obj):
                    kept[key] = value
        return value

    cached._pipeviz = True
    PropertyDescriptor._get_default = cached


def bundle_from_models() -> None:
    """Bokeh's choice of bundles for a whole Document from the models it already keeps
    (`Document.models`, up to date whenever the document is not frozen) instead of
    walking every root's references again: file_html's last walk of the document."""
    from bokeh.document import Document
    from bokeh.embed import bundle

    if not _applies("bundle_from_models", "bokeh") or _once(bundle, "_all_objs"):
        return
    all_objs = bundle._all_objs

    def from_models(objs):
        if all(isinstance(obj, Document) and obj.models._freeze_count == 0 for obj in objs):
            return {model for doc in objs for model in doc.models}
        return all_objs(objs)

    from_models._pipeviz = True
    bundle._all_objs = from_models


# The bundle packed into the standalone page, and the script that stands in for it: it
# unpacks the bundle with BokehJS's own gunzip (core/util/buffer's base64_to_buffer,
# which reads Bokeh's base64 columns; bokeh.min.js has loaded by then) and runs it at
# once, where the bundle stood, before the document's own script.
PACKED = "bokeh-widgets.min.js"
UNPACK_JS = ("(function () {{ var code = new TextDecoder().decode(Bokeh.require('core/util/buffer').base64_to_buffer("
             "'{data}')); var s = document.createElement('script'); s.text = code; "
             "document.currentScript.after(s); }})();")


def packed_bundle(html: str) -> str:
    """The page with Bokeh's widgets bundle inline as gzip in base64 (382 -> 135 kB) and
    a line that unpacks and runs it: the page is about 2.2 MB otherwise, most of it
    BokehJS, which a course page embeds whole. Unpacking it takes a few ms in the
    browser. With another Bokeh the bundle stays as it is."""
    import base64
    import gzip
    import re

    if not _applies("packed_bundle", "bokeh"):
        return html
    found = re.search(r"<script>\s*(/\* BEGIN " + re.escape(PACKED) + r" \*/.*?/\* END " + re.escape(PACKED)
                      + r" \*/\s*)</script>", html, flags=re.S)
    if found is None:
        return html
    data = base64.b64encode(gzip.compress(found.group(1).encode("utf-8"), compresslevel=9, mtime=1)).decode("ascii")
    return html[:found.start(1)] + UNPACK_JS.format(data=data) + html[found.end(1):]
