"""`panel serve app.py --setup serve_setup.py`: what the server process needs before it
starts (pipeviz/hostcheck.py, pipeviz/serving.py)."""

import pipeviz.served  # noqa: F401  (everything a session uses, imported before the freeze)
from pipeviz import hostcheck, serving

hostcheck.install()
serving.install()
serving.freeze_startup()  # last: what the lines above imported is frozen too
