"""`panel serve app.py --setup serve_setup.py`: what the server process needs before it
starts (see pipeviz/hostcheck.py and pipeviz/serving.py)."""

from pipeviz import hostcheck, serving

hostcheck.install()
serving.install()
