"""pipeviz installs as a package: `pip install .` (not editable) into a fresh venv,
its engine's loops compiled at install, then the installed `pipeviz` command writes
the page and the export from anywhere."""

from __future__ import annotations

import json
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with pipeviz installed from this checkout, built as pip builds it
    (its loops compiled by Cython, requirements-test.txt's). Its dependencies are this run's own,
    seen through a .pth line: unpacking Panel, Bokeh and numpy again took two of the
    suite's minutes and tests pip, not pipeviz (scripts/setup.sh installs them from
    requirements.txt, which test_requirements_satisfy_pyproject holds to pyproject.toml)."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env, with_pip=False)  # pip, setuptools and Cython: this run's own too
    site = next((env / "lib").glob("python3*/site-packages"))
    (site / "the_tests_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    pip = subprocess.run(
        [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-build-isolation", str(ROOT)],
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


def test_requirements_satisfy_pyproject():
    """The dependencies the installed copy above borrows are requirements.txt's: each of
    pyproject.toml's is pinned there, at a version its specifier accepts (Bokeh and Panel
    exactly: pipeviz/compat.py and static/compat.js reach into their internals)."""
    import re
    import tomllib

    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M))
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    for spec in wanted:
        name, rest = re.match(r"([A-Za-z0-9_.-]+)(.*)", spec).groups()
        assert name in pins, f"{name} is a dependency but requirements.txt does not pin it"
        version = tuple(int(x) for x in pins[name].split(".")[:3])
        for op, bound in re.findall(r"(==|>=|<)([\d.]+)", rest):
            b = tuple(int(x) for x in bound.split("."))
            ok = {"==": version == b, ">=": version[:len(b)] >= b, "<": version[:len(b)] < b}[op]
            assert ok, f"requirements.txt pins {name}=={pins[name]}, outside pyproject.toml's {spec}"
    assert any(s.startswith("bokeh==") for s in wanted) and any(s.startswith("panel==") for s in wanted)
