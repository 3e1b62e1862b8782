"""pipeviz installs as a package: `pip install .` (not editable) into a fresh venv,
its engine's loops compiled at install, then the installed `pipeviz` command writes
the page and the export from anywhere."""

from __future__ import annotations

import json
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with pipeviz installed from this checkout (pip's cache makes the
    dependencies quick after the first run)."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env, with_pip=True)
    pip = subprocess.run(
        [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    return env


def pipeviz(env: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(env / "bin" / "pipeviz"), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_installed_page_and_export(installed, tmp_path):
    where = subprocess.run([str(installed / "bin" / "python"), "-c", "import pipeviz; print(pipeviz.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert str(installed) in where.stdout  # the installed copy, not this checkout
    # The engine's loops were compiled at install (setup.py), from the installed source.
    built = subprocess.run([str(installed / "bin" / "python"), "-W", "error", "-c",
                            "import pipeviz.compiled as c; print(c.COMPILED, c.K.__name__)"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert built.stdout.split() == ["True", "pipeviz._kernels"], built.stderr
    p = pipeviz(installed, tmp_path, "page", "-o", "x.html")
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "x.html").read_text(encoding="utf-8")
    assert "PipevizEngine" in html and "PIPEVIZ_DATA" in html
    p = pipeviz(installed, tmp_path, "export", "-s", "1f1b", "-P", "4", "-m", "8", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["metrics"]["makespan"] == 33


def test_a_missing_static_file_is_a_read_error(installed, tmp_path):
    site = next((installed / "lib").glob("python3*/site-packages/pipeviz/static"))
    engine = site / "engine.js"
    saved = engine.read_bytes()
    engine.unlink()
    try:
        p = pipeviz(installed, tmp_path, "page", "-o", "x.html")
    finally:
        engine.write_bytes(saved)
    assert p.returncode == 2
    assert "cannot read pipeviz/static/engine.js" in p.stderr and "write" not in p.stderr
    assert not (tmp_path / "x.html").exists()




def test_pyproject_lists_every_package():
    """pyproject.toml lists the packages by hand (static/ is mapped to pipeviz.static), so
    a new package folder must be added there or `pip install .` leaves it out."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    tree = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "pipeviz").rglob("__init__.py")}
    assert listed == tree | {"pipeviz.static"}
