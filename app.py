"""`panel serve app.py`: the pipeviz explorer, one independent state per browser session.

It opens at the article's first figure (1f1b, P=4, m=8, V=1, default costs), or at
the view a URL asks for: `?schedule=interleaved&P=8&m=16&V=2`.
"""

import panel as pn

from pipeviz import compat
from pipeviz.render.style import READOUT_CSS
from pipeviz.served import Explorer, url_lang
from pipeviz.serving import quiet_closed_sockets
from pipeviz.text import template

compat.local_resources()  # before any model exists: Panel's CSS from this server, never its CDN
quiet_closed_sockets()  # a browser that leaves mid-write is not a server error (pipeviz/serving.py)
pn.extension(raw_css=[READOUT_CSS])
lang = url_lang() or "en"  # the session opens in the URL's language (the rest of the URL follows on load)
Explorer(lang=lang).servable(title=template("page.title", lang))
