"""What a `panel serve` process needs so that a class can share one server: every
resource from the server itself, sessions that close without server errors, and
keypresses that are not held up by the library's own waits.

`install()` runs once per process, before the server starts (`panel serve app.py
--setup serve_setup.py`, as scripts/serve runs it): it applies the patches of
pipeviz/compat.py that a server needs and, last, moves the objects made at import out
of the collector's full walks (`freeze_startup`). Each session calls
`quiet_closed_sockets()` as it starts. docs/performance.md has what these measured
under a class's load (benchmarks/sessions.py).
"""

from __future__ import annotations

import logging

from . import compat

log = logging.getLogger(__name__)


def quiet_closed_sockets() -> None:
    """Log a write to a closed websocket that nobody awaited as information; every
    other unhandled exception still reaches the loop's handler.

    A browser that goes away without a closing handshake while a write to it is in
    flight: Tornado's `write_message` wraps each write in a task of its own, and when
    the coroutine that awaits it is dropped with the session nothing retrieves the
    task's exception, so asyncio would log "Task exception was never retrieved:
    WebSocketClosedError" with a traceback for a reader who merely left."""
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


def freeze_startup() -> None:
    """The objects alive since import, out of the collector's full walks: Python's
    collector now and then walks every object the process holds, and 160,000 of them
    are Bokeh's, Panel's and pipeviz's own, made at import and alive for as long as
    the process (a full walk paused a keypress 140-190 ms). Call it once everything a
    session uses is imported (serve_setup.py); their cyclic garbage is collected first,
    and sessions' objects are collected as before, so a closed session is still freed."""
    import gc

    import numpy.ma  # noqa: F401  (Bokeh's serializer asks for it at a session's first change: 0.2-0.5 s then)

    gc.collect()
    gc.freeze()


def install() -> None:
    """The server's patches (pipeviz/compat.py): resources, prompt patches, quiet closes."""
    compat.raw_location_query()
    compat.inline_small_buffers()
    compat.prompt_patches()
    compat.guard_closed_sessions()
    compat.cached_defaults()  # every comparison and serialization of a change reads defaults
