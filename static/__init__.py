"""The browser code of both explorers: the standalone page's JavaScript engine and
explorer (each file the twin of a Python module, held to it by tests/test_js_parity.py),
and what the served app runs in the browser too (compat.js, a11y.js, teach_models.js).

It lives at the top of the repository, beside `pipeviz/`, and is installed as the
package `pipeviz.static` (pyproject.toml maps it), so `pip install .` and
`python -m pipeviz page` find it where the code does.
"""

from importlib import resources


def read(name: str) -> str:
    """A file of this folder, as installed, by its path ("engine.js",
    "schedules/gpipe.js"); a missing file is an OSError that names it."""
    try:
        return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    except OSError as e:
        raise OSError(f"cannot read pipeviz/static/{name}: {e.strerror or e}") from None
