"""Which build of the engine's loops runs: `K`.

`pipeviz._kernels` is pipeviz/kernels.py compiled by Cython at install (setup.py),
C that starts at once. It is used when it was built from the kernels.py and
kernels.pxd beside it (their SHA-256, which the build appends to its copy); otherwise
(not built: no C compiler at install; or built from an older kernels.py, as an
editable install is after an edit) the plain-Python kernels.py runs: the same
numbers, much slower, and a warning says how to build. PIPEVIZ_KERNELS=python
chooses kernels.py (the parity tests and benchmarks compare the two).
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

SOURCES = ("kernels.py", "kernels.pxd")  # as setup.py hashes them


def source_digest() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        return hashlib.sha256(b"".join((here / name).read_bytes() for name in SOURCES)).hexdigest()
    except OSError:
        return None


def _load():
    if os.environ.get("PIPEVIZ_KERNELS") == "python":
        from . import kernels

        return kernels, False
    try:
        from . import _kernels
    except ImportError:
        why = "pipeviz._kernels is not built"
    else:
        if getattr(_kernels, "SOURCE_SHA256", None) == source_digest():
            return _kernels, True
        why = "pipeviz._kernels was built from another pipeviz/kernels.py"
    from . import kernels

    warnings.warn(f"{why}: running the engine's loops as plain Python, much slower. Build them with "
                  "`pip install .` (or `pip install -e .` in a checkout; needs a C compiler).",
                  RuntimeWarning, stacklevel=3)
    return kernels, False


K, COMPILED = _load()
