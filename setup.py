"""Builds the engine's compiled loops at install (`pip install .`, `pip install -e .`).

Cython compiles pipeviz/kernels.py, typed by pipeviz/kernels.pxd, into the extension
module pipeviz._kernels, so nothing is compiled when pipeviz runs (no JIT: no
wait before the first answer, no cache to fill in each fresh container). The
copy compiled is kernels.py with its source's SHA-256 appended, which
pipeviz.compiled compares with the kernels.py beside it: an extension built from
another version of the file is not used. Everything else is in pyproject.toml.

Needs a C compiler (gcc or clang) and Python's headers at install. Without them the
install still succeeds (the extension is optional) and pipeviz runs kernels.py as
plain Python, much slower, and says so.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
SOURCES = ("kernels.py", "kernels.pxd")  # what the extension is built from (pipeviz.compiled hashes the same)


def source_digest() -> str:
    return hashlib.sha256(b"".join((ROOT / "pipeviz" / name).read_bytes() for name in SOURCES)).hexdigest()


def kernel_extensions() -> list[Extension]:
    from Cython.Build import cythonize

    out = ROOT / "build" / "kernels" / "pipeviz"
    out.mkdir(parents=True, exist_ok=True)
    (out / "__init__.py").write_text("")
    code = (ROOT / "pipeviz" / "kernels.py").read_text(encoding="utf-8")
    _write_if_changed(out / "_kernels.py", f'{code}\n\nSOURCE_SHA256 = "{source_digest()}"\n')
    _write_if_changed(out / "_kernels.pxd", (ROOT / "pipeviz" / "kernels.pxd").read_text(encoding="utf-8"))
    # No FMA contraction: the compiled floats must be the plain run's and the JavaScript
    # twin's to the bit (a*b+c rounded twice, not once).
    flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]
    ext = Extension("pipeviz._kernels", [str((out / "_kernels.py").relative_to(ROOT))], extra_compile_args=flags,
                    optional=True)
    return cythonize(
        [ext], language_level=3, quiet=True,
        # Indices are the loops' own and in range (held so by tests/test_kernels.py), so unchecked.
        compiler_directives={"boundscheck": False, "wraparound": False, "initializedcheck": False},
    )


def _write_if_changed(path: Path, text: str) -> None:
    """Rewrite only on a change, so Cython does not translate an unchanged file again."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


setup(ext_modules=kernel_extensions())
