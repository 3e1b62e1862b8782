"""Refuse HTTP requests (page, websocket, static files) whose Host the server does not
serve: the defence against DNS rebinding, where a hostile site points its own name at
127.0.0.1 and then talks to the local server as a same-origin page. Origin checks do
not help there (the browser sends the hostile name as both Host and Origin, and
Tornado accepts an Origin equal to the Host), so the Host itself is checked.

A Host is served when it names the address and port the request arrived on (e.g.
127.0.0.1:5006), `localhost` on that port, or a host the user allowed with
`--allow-websocket-origin` (Bokeh's allowlist, which `panel serve` already keeps).

`install()` puts the check in front of Bokeh's routing once, before the server starts
(pipeviz/compat.py `refuse_hosts`; `panel serve app.py --setup serve_setup.py`, as
scripts/serve runs it).
"""

from __future__ import annotations

from bokeh.server.tornado import BokehTornado
from bokeh.server.util import check_allowlist
from tornado.web import HTTPError, RequestHandler

from . import compat


class Refused(RequestHandler):
    def prepare(self):
        raise HTTPError(403, "Host not served")

    def write_error(self, status_code, **kwargs):  # one plain line, no traceback page
        self.finish(f"{status_code}: this server does not serve the host {self.request.host!r}\n")


def served(app: BokehTornado, request) -> bool:
    host = (request.host or "").lower()
    if not host:
        return False
    try:
        local_ip, port = request.connection.stream.socket.getsockname()[:2]
    except (AttributeError, OSError):  # no socket (a test's fake request): allowlist only
        local_ip, port = None, None
    own = set()
    if port is not None:
        ip = f"[{local_ip}]" if ":" in str(local_ip) else str(local_ip)
        own = {f"{ip}:{port}", f"localhost:{port}"}
        if port == 80:
            own |= {ip, "localhost"}
    return host in own or check_allowlist(host, app.websocket_origins)


def install() -> None:
    compat.refuse_hosts(served, Refused)
