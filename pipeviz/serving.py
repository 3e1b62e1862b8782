"""What a `panel serve` process needs so that one server can hold a class: every
resource from the server itself, sessions that close without server errors, and
updates that leave the server as soon as they are ready.

`install()` runs once per process (`panel serve app.py --setup serve_setup.py`, as
scripts/serve runs it); app.py calls `local_resources()` and `quiet_closed_sockets()`
as each session starts.

- `local_resources()`: Panel writes a component's stylesheets as CDN URLs and rewrites
  them to the server's own path with the document's `dist_url` template variable,
  which it sets only when it renders a session's HTML page. A session Bokeh builds for
  a websocket (the page's own session expired before its socket opened, as under a
  class's load, or a script's `bokeh.client.pull_session`) never had a page rendered.
  This sets `dist_url` on every session's document before any model exists, so every
  stylesheet comes from this server.
- `install()`'s closing guards: Bokeh's keep-alive ping may release the session of a
  connection whose socket has closed before Tornado runs that connection's `on_close`,
  or a last PATCH-DOC the page sent as it went away; Bokeh then asserts the session is
  there. The guarded handlers skip a connection whose session is gone (logged as
  information). app.py's deferred updates skip a session with no open connection
  (`has_viewer`).
- `quiet_closed_sockets()`: a browser that leaves while a write to it is in flight
  leaves a task whose WebSocketClosedError nobody retrieves. The event loop's
  exception handler logs that one case as information and passes every other
  exception on unchanged.
- `inline_small_buffers()`: Bokeh sends each numpy column as a binary buffer, which
  Panel writes as two websocket messages, and the browser pays for each message
  whatever its size. A column under INLINE_BYTES goes inside its message's JSON
  instead (Bokeh's own inline form, gzip then base64), so a keypress is a handful of
  messages.
- `prompt_patches()`: when a Bokeh message holds the socket's write lock (the OK the
  server sends for each message from the browser), Panel keeps an update's patch and
  retries 10 ms later; this waits for the lock and sends the patch as soon as it is
  free.
- `freeze_startup()`: the objects made at import (Bokeh's, Panel's and pipeviz's,
  alive as long as the process) are moved out of Python's full collections
  (`gc.freeze()`), which otherwise pause a keypress now and then; sessions' objects
  are collected as before, so a closed session is still freed.

tests/test_serving.py reproduces each case; what they measured is in
docs/performance.md ("The served app's process").
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

LOCAL_DIST = "static/extensions/panel/"  # where Panel's server serves its own dist files


def local_resources() -> None:
    """Resolve this session's Panel resources on this server (call before building models)."""
    import panel as pn

    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    rel = pn.state.rel_path
    doc._template_variables["dist_url"] = f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST


def has_viewer() -> bool:
    """False when the current session has no open connection (its browser went away)."""
    import panel as pn

    doc = pn.state.curdoc
    ctx = getattr(doc, "session_context", None)
    if ctx is None:
        return True  # no server: tests, notebooks
    session = getattr(ctx, "_session", None)
    if session is None:
        return True
    if getattr(session, "destroyed", False):
        return False
    return session.connection_count > 0


def quiet_closed_sockets() -> None:
    """Log a write to a closed websocket that nobody awaited as information (see the
    module docstring); every other unhandled exception still reaches the loop's handler."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return  # no server: tests, notebooks
    if getattr(loop.get_exception_handler(), "_pipeviz", False):
        return
    loop.set_exception_handler(closed_socket_handler(loop.get_exception_handler()))


def closed_socket_handler(previous):
    """An asyncio exception handler that drops WebSocketClosedError and hands every
    other context to `previous` (or the loop's default handler)."""
    from tornado.websocket import WebSocketClosedError

    def handler(loop, context: dict) -> None:
        if isinstance(context.get("exception"), WebSocketClosedError):
            log.info("Dropped a write to a websocket that had closed (its browser went away)")
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler._pipeviz = True
    return handler


# A column this small goes into its message's JSON as base64 (see the module
# docstring); a larger one stays a binary buffer, where a message's own cost is small
# beside its bytes.
INLINE_BYTES = 64 * 1024


def inline_small_buffers() -> None:
    """Bokeh's serializer, for every message the server sends: bytes under
    INLINE_BYTES inline as base64, larger ones deferred to binary buffers as before."""
    from bokeh.core import serialization

    cls = serialization.Serializer
    if getattr(cls._encode_bytes, "_pipeviz", False):
        return
    deferred = cls._encode_bytes

    def encode_bytes(self, obj):
        size = obj.nbytes if isinstance(obj, memoryview) else len(obj)  # a memoryview's len counts items
        if self._deferred and size < INLINE_BYTES:  # Bokeh's own inline form: gzip, then base64
            return serialization.BytesRep(type="bytes", data=serialization.Buffer("inline", obj).to_base64())
        return deferred(self, obj)

    encode_bytes._pipeviz = True
    cls._encode_bytes = encode_bytes


def prompt_patches() -> None:
    """Panel's patch writer, entered only once no Bokeh message holds a socket's
    write lock (see the module docstring); Panel's own check and retry stay as they
    are, for a lock taken again before it runs."""
    from panel.io import document

    if getattr(document._dispatch_msgs, "_pipeviz", False):
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


def freeze_startup() -> None:
    """The objects of every module a session uses, out of the collector's full walks
    (see the module docstring): imported first, their cyclic garbage collected, then
    frozen."""
    import gc

    import pipeviz.app  # noqa: F401  (what app.py imports, before any session)

    gc.collect()
    gc.freeze()


def install() -> None:
    inline_small_buffers()
    prompt_patches()
    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler, "_pipeviz_closing", False):
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

    WSHandler.on_close = guarded_on_close
    WSHandler._handle = guarded_handle
    WSHandler._pipeviz_closing = True
    freeze_startup()  # last: what install() imported is frozen too
