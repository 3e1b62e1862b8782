"""The session's URL (Panel's `pn.state.location`): the view a URL asks for, and the
view written back as the URL, so the address bar is a permalink.

The URL the browser opened with is applied once the page has rendered
(`pn.state.onload`): figure changes made before are lost in the browser (measured: a
URL applied on its first arrival updated the readouts but not the figures). A URL
changed afterwards by the reader (a course page retargeting its iframe) is applied as
it comes. Every valid state is written back in place, never an invalid one and never
over the URL the browser opened with before it was read; an order of one's own does
not fit in a URL, so while one is shown the URL keeps the last schedule's view.
pipeviz reads the raw query itself (view/fields.parse): nothing is converted or
evaluated, and a bad value is a note.
"""

from __future__ import annotations

from urllib.parse import urlencode

import panel as pn

from .. import compat
from ..view.fields import encode
from ..view.fields import parse as parse_url
from .session import Session


def url_lang() -> str | None:
    """The language the session's URL asks for (`?lang=zh`), read when the session
    starts, so that the first view is already in it (a reader of `lang=zh` should not
    see the English page first). None when there is no session or no valid `lang`."""
    args = pn.state.session_args or {}
    raw = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in args.get("lang", [])]
    if not raw:
        return None
    updates, _ = parse_url("?" + urlencode([("lang", v) for v in raw]))
    return updates.get("lang")


class UrlSync:
    def __init__(self, session: Session):
        self.session = session
        self.ready = False  # the browser has rendered the first view
        self._writing = False  # our own write is coming back as a URL change
        compat.raw_location_query()  # Panel's own reading of the query would convert and evaluate it
        # The session's own Location, taken while the session is built: `pn.state.location`
        # follows `pn.state.curdoc`, which in a later callback can be another session's.
        self.location = loc = pn.state.location
        if loc is not None:
            loc.param.watch(self._on_url, ["search", "hash"])
            pn.state.onload(self._on_load)

    def _on_load(self) -> None:
        self.ready = True
        self._apply()

    def _on_url(self, *_) -> None:
        if not self._writing and self.ready:
            self._apply()

    def _apply(self) -> None:
        loc = self.location
        self.session.apply_query(loc.search or "", loc.hash or "")

    def write(self) -> None:
        loc = self.location
        s = self.session
        if loc is None or not self.ready or s.problem is not None or s.custom:
            return
        query = encode(s.state())
        search = "?" + query if query else ""
        if loc.search != search or loc.hash:
            self._writing = True
            try:
                loc.param.update(search=search, hash="")
            finally:
                self._writing = False
