"""What a `panel serve` process needs so that a class can use one server: every
resource from the server itself, and sessions that close without server errors.

Two findings under load (50 browsers on one process, 2 cores), each reproduced in
tests/test_serving.py:

1. Panel's CSS from its public CDN. Panel writes a component's stylesheets as CDN
   URLs and rewrites them to the server's own path using the document's `dist_url`
   template variable, which it sets only when it renders the HTML page of a session
   (`server_html_page_for_session`). Under load a browser opens its websocket more
   than 15 s after the page was served (Bokeh's `unused_session_lifetime`), Bokeh has
   discarded that unused session, and it builds a new one for the websocket: that
   document never had a page rendered, so every stylesheet kept its CDN URL and
   each browser fetched default, native, button, listpanel, loading, select (and
   markdown, alerts...) from the CDN. A script's session (`bokeh.client.pull_session`)
   takes the same path every time. `local_resources()`, called by app.py before any
   model exists, sets `dist_url` on the session's document as Panel's page render
   would, so every session resolves to the server whichever way it was created.

2. AssertionError tracebacks as sessions close. Bokeh's keep-alive ping
   (`BokehTornado._keep_alive`) detaches the session of a connection whose socket
   has closed; when Tornado then runs that connection's `on_close`, or a last
   PATCH-DOC the browser sent while its page went away (its plot sizes going to 0),
   Bokeh reads `connection.session` and asserts it is there. pipeviz does not cause
   the detach (it happens whenever the event loop learns of a closed socket from the
   ping before it runs on_close, which a busy loop makes likely); `install()` makes
   both paths skip a connection whose session is already gone. pipeviz's own
   deferred updates (app.py's `_later`, a timeout) skip a session with no open
   connection (`has_viewer`).

3. "Task exception was never retrieved: WebSocketClosedError" when a browser goes
   away without a closing handshake while a write to it is in flight: Tornado's
   `write_message` wraps each write in a task of its own, and when the coroutine
   that awaits it is dropped with the session, nothing retrieves the task's
   exception, so asyncio logs it as an error with a traceback. The browser is gone
   and the session is closing; `quiet_closed_sockets()`, called by app.py as each
   session starts, gives the server's event loop an exception handler that logs this
   one case as information and passes every other exception on unchanged.

4. Time spent per websocket message, not per byte. Bokeh sends each numpy column of a
   PATCH-DOC as a binary buffer, and Panel writes every buffer as two websocket
   messages (its header, then its bytes). A keypress at the defaults changes 57
   columns: 117 messages, which the browser took about 25 ms to receive however
   small they were; at P=32, m=128, V=8, 245 messages. `inline_small_buffers()`
   writes a column under INLINE_BYTES into the message's JSON, gzipped and base64
   (Bokeh's own encoding when it does not defer buffers; its clients read both), so a keypress is
   a handful of messages: keypress to repaint 98 -> 82 ms at the defaults and 174 ->
   129 ms at the sliders' ends (benchmarks/app.py's probe, 60 ms between keys).

5. A 10 ms wait in every keypress. The server acknowledges each message the browser
   sends (a slider's key sends two: its value and its throttled value) with an OK of
   three frames, and holds the socket's write lock until all three are out; the
   keypress's own update runs in between, so when it ends the lock is still held.
   Panel then keeps the update's patch and tries again in 10 ms (`asyncio.sleep(0.01)`
   in `panel.io.document._dispatch_msgs`), though the OK is out a millisecond later.
   `prompt_patches()` waits for the lock itself and sends the patch as it is freed:
   the patch left the server 10 ms sooner in most keypresses.

6. Pauses of 140-190 ms. Python's collector now and then walks every object the
   process holds: two such walks in a run of 15 keypresses at the defaults (one
   session), each a pause for whatever keypress comes in. 160,000 of those objects
   are Bokeh's, Panel's and pipeviz's own, made at import and alive for as long as
   the process: a full collection took 92 ms for them alone, and 146 ms with one
   session open. `freeze_startup()`, once the modules are imported, moves them out of
   the collector's walks (`gc.freeze()`); sessions' objects are collected as before,
   so a closed session is still freed.

`install()` runs once per process: `panel serve app.py --setup serve_setup.py`.
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
    """Log a write to a closed websocket that nobody awaited as information (finding 3);
    every other unhandled exception still reaches the loop's handler."""
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


# A column this small goes into its message's JSON as base64 (finding 4); a larger one
# stays a binary buffer, where a message's own cost is small beside its bytes.
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
    write lock (finding 5); Panel's own check and retry stay as they are, for a lock
    taken again before it runs."""
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
    (finding 6): imported first, their cyclic garbage collected, then frozen."""
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
