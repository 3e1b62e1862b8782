"""`panel serve app.py --setup serve_setup.py`: what the server process needs before it
starts (see pipeviz/hostcheck.py)."""

from pipeviz.hostcheck import install

install()
