"""The served explorer (`panel serve app.py`): a session's state (session.py), the
view built on it (view.py: figures, readouts, layout; controls.py: the widgets), the
URL it follows and writes (location.py), the work that follows the chart a little
later (deferred.py) and the panes for reading at a glance (glance.py)."""

from .location import url_lang
from .session import Session
from .view import Explorer

__all__ = ["Explorer", "Session", "url_lang"]
