"""A class on one server (pipeviz/serving.py): every resource comes from the pipeviz
server however a session was created, and sessions close without server errors."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from urllib.parse import urlsplit

import panel.models  # noqa: F401  (registers Panel's model types for the client)
import pytest
from bokeh.client import pull_session
from bokeh.models import ImportedStyleSheet
from browser import served_app

import pipeviz.served  # noqa: F401  (and pipeviz's own component's, as the server names it)
from pipeviz import compat, serving

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def in_thread(fn, *args):
    """fn(*args) in a thread of its own: Bokeh's client and asyncio.run need a thread
    with no running event loop (Playwright's sync API keeps one in the main thread)."""
    out: list = []

    def target():
        try:
            out.append((True, fn(*args)))
        except BaseException as e:  # noqa: BLE001 (re-raised below)
            out.append((False, e))

    t = threading.Thread(target=target)
    t.start()
    t.join(300)
    ok, value = out[0]
    if not ok:
        raise value
    return value


def pulled_stylesheets(url: str, P: int) -> list[str]:
    with pull_session(url=url, arguments={"P": str(P)}) as session:
        return stylesheets(session.document)


def stylesheets(doc) -> list[str]:
    return sorted({m.url for m in doc.models if isinstance(m, ImportedStyleSheet)})


def off_server(urls) -> list[str]:
    """URLs that leave the server: absolute ones to another host, or protocol-relative."""
    bad = []
    for u in urls:
        if u.startswith("//"):
            bad.append(u)
        elif "://" in u and urlsplit(u).hostname not in LOOPBACK:
            bad.append(u)
    return bad


def test_a_session_built_for_its_websocket_loads_panel_css_from_the_server():
    """A session that Bokeh builds for a websocket (no page rendered for it: a scripted
    client always, a browser whose page's session expired under load) used to keep
    Panel's CDN stylesheets."""
    with served_app() as url:
        for P in (3, 9):
            sheets = in_thread(pulled_stylesheets, url, P)
            assert sheets, "Panel's stylesheets are models of the document"
            assert off_server(sheets) == []
            assert all(u.startswith(compat.LOCAL_DIST) for u in sheets), sheets


def test_closing_paths_skip_a_released_session():
    """Bokeh's keep-alive ping may release a closed socket's session before Tornado runs
    the connection's on_close or a message the page sent as it went away; both read
    connection.session, which asserts. With serving.install() they skip it."""
    import asyncio

    from bokeh.server.views.ws import WSHandler

    serving.install()
    released = SimpleNamespace(_session=None)
    handler = SimpleNamespace(connection=released, close_code=1001)
    WSHandler.on_close(handler)  # no AssertionError
    message = SimpleNamespace(msgtype="PATCH-DOC")
    assert in_thread(asyncio.run, WSHandler._handle(handler, message)) is None

    calls = []
    live = SimpleNamespace(
        connection=SimpleNamespace(_session=object(), session=SimpleNamespace(notify_connection_lost=lambda: calls.append(1))),
        application=SimpleNamespace(client_lost=lambda c: calls.append(2)), close_code=1000, close_reason=None,
    )
    WSHandler.on_close(live)  # a live session still gets Bokeh's own clean-up
    assert calls == [1, 2]


def test_a_write_to_a_closed_socket_is_not_logged_as_an_error(caplog):
    """quiet_closed_sockets(): a write to a websocket whose browser left is information; any other
    unhandled exception still reaches the previous handler."""
    import asyncio
    import logging

    from tornado.websocket import WebSocketClosedError

    seen = []
    handler = serving.closed_socket_handler(lambda loop, ctx: seen.append(ctx["message"]))
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.INFO, logger="pipeviz.serving"):
            handler(loop, {"message": "Task exception was never retrieved", "exception": WebSocketClosedError()})
            handler(loop, {"message": "boom", "exception": ZeroDivisionError()})
    finally:
        loop.close()
    assert seen == ["boom"]
    assert [r.levelno for r in caplog.records] == [logging.INFO]

    async def installed():
        loop = asyncio.get_running_loop()
        serving.quiet_closed_sockets()
        first = loop.get_exception_handler()
        serving.quiet_closed_sockets()  # each session calls it: once per loop, not wrapped again
        return first._pipeviz, loop.get_exception_handler() is first

    assert in_thread(asyncio.run, installed()) == (True, True)


@pytest.mark.browser
def test_pages_under_concurrency_request_nothing_outside_the_server(browser):
    """Several Chromium pages at once, plus scripted sessions, with every request that
    leaves the loopback interface blocked and recorded. Bokeh keeps an unused session
    for 1 ms here, so pages also take the path a heavily loaded server takes (their
    session is rebuilt for the websocket). Closing them logs no traceback
    (served_app checks the server log)."""
    outside: list[str] = []

    def route(r):
        if urlsplit(r.request.url).hostname in LOOPBACK or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    with served_app("--unused-session-lifetime", "1", "--check-unused-sessions", "20") as url:
        scripted: list[str] = []
        errors: list[BaseException] = []

        def script(P):
            try:
                scripted.extend(pulled_stylesheets(url, P))
            except BaseException as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=script, args=(P,)) for P in (5, 6)]
        contexts = [browser.new_context() for _ in range(4)]
        pages = []
        for i, ctx in enumerate(contexts):
            ctx.route("**/*", route)
            page = ctx.new_page()
            page.goto(f"{url}?schedule=gpipe&P={i + 2}&m=8", wait_until="commit")
            pages.append(page)
        for t in threads:
            t.start()
        for i, page in enumerate(pages):
            P = i + 2
            page.get_by_text(f"{100 * (P - 1) / (8 + P - 1):.2f}% simulated").first.wait_for(timeout=120_000)
        for t in threads:
            t.join(120)
        for ctx in contexts:
            ctx.close()
        assert not errors, errors
        assert scripted and off_server(scripted) == []
    assert outside == [], sorted(set(outside))


def test_small_columns_travel_inline_and_large_ones_as_buffers():
    """inline_small_buffers(): a PATCH-DOC carries columns under INLINE_BYTES in its JSON (one
    websocket message in all) and larger ones as binary buffers, which Bokeh's
    client reads alike: the values arrive unchanged either way."""
    import numpy as np
    from bokeh.core.serialization import Deserializer
    from bokeh.document import Document
    from bokeh.models import ColumnDataSource
    from bokeh.protocol import Protocol

    compat.inline_small_buffers()
    doc = Document()
    sources = [ColumnDataSource(data={"x": np.zeros(1)}) for _ in range(2)]
    for source in sources:
        doc.add_root(source)
    events = []
    doc.on_change(lambda event: events.append(event))
    small, large = np.linspace(0, 1, 100), np.linspace(0, 1, compat.INLINE_BYTES // 8 + 1)
    sources[0].data, sources[1].data = {"x": small}, {"x": large}
    msg = Protocol().create("PATCH-DOC", events)
    assert [memoryview(b.data).nbytes for b in msg.buffers] == [large.nbytes]  # the large column only
    content = Deserializer(references=doc.models).decode(msg.content, msg.buffers)
    got = [e["data"]["x"] for e in content["events"]]
    assert np.array_equal(got[0], small) and np.array_equal(got[1], large)


def test_a_patch_goes_out_as_soon_as_the_socket_is_free_not_10_ms_later(monkeypatch):
    """While a Bokeh message holds the socket's write lock, Panel keeps a patch and
    retries in 10 ms; with prompt_patches() the patch is written as the lock is freed:
    within a few turns of the event loop, long before Panel's retry could fire."""
    import asyncio

    from bokeh.document import Document
    from panel.io import document as pdoc
    from tornado.locks import Lock

    compat.prompt_patches()

    class Socket:
        def __init__(self):
            self.write_lock = Lock()

    class Connection:
        def __init__(self):
            self._socket = Socket()

    written: list = []
    monkeypatch.setitem(pdoc.extra_socket_handlers, Socket, lambda conn, msg: written.append(msg) or [])

    async def scenario():
        doc, conn = Document(), Connection()
        await conn._socket.write_lock.acquire()  # an OK's frames are still going out
        pdoc._WRITE_BLOCK[doc] = True
        pdoc._WRITE_MSGS[doc] = {conn: ["the keypress's patch"]}
        task = asyncio.ensure_future(pdoc._dispatch_msgs(doc))
        for _ in range(5):
            await asyncio.sleep(0)
        held = list(written)  # nothing may cut into the OK's frames
        conn._socket.write_lock.release()
        for _ in range(5):
            await asyncio.sleep(0)
        prompt = list(written)
        await asyncio.wait_for(task, 5)
        return held, prompt, doc in pdoc._WRITE_BLOCK

    held, prompt, still_blocked = in_thread(asyncio.run, scenario())
    assert held == []
    assert prompt == ["the keypress's patch"]
    assert not still_blocked  # Panel's bookkeeping ends as after its own write


def test_the_servers_startup_objects_are_out_of_the_collectors_walks():
    """After the server's setup (serve_setup.py) the objects made at import are frozen:
    what a full collection walks is a small part of what the process holds, so a
    collection in a keypress walks the sessions' objects, not Bokeh's and Panel's."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import gc, sys; import serve_setup; "
            "print(gc.get_freeze_count(), len(gc.get_objects()), 'pipeviz.served.view' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(serving.__file__).resolve().parents[1],
                         capture_output=True, text=True, check=True).stdout.split()
    frozen, walked, imported = int(out[0]), int(out[1]), out[2] == "True"
    assert imported
    assert frozen > 100_000 and walked < frozen / 10, (frozen, walked)
