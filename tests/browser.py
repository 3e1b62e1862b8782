"""Helpers for browser tests: a served app on a free port, and reading Bokeh models."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@contextmanager
def served_app(*extra: str, timeout: float = 90.0):
    """`panel serve app.py` as scripts/serve runs it, on 127.0.0.1 and a free port;
    yields the app's URL. The server must log no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "app.py", "--setup", "serve_setup.py", "--address", "127.0.0.1",
         "--port", "0", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "BOKEH_LOG_LEVEL": "info"},
    )
    url: list[str] = []
    ready = threading.Event()
    log: list[str] = []

    def read():
        for line in proc.stdout:
            log.append(line)
            found = re.search(r"Bokeh app running at: (http://127\.0\.0\.1:\d+/app)", line)
            if found and not url:
                url.append(found.group(1))
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(timeout):
            raise RuntimeError("panel serve did not start:\n" + "".join(log))
        yield url[0]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        tracebacks = [line for line in log if "Traceback" in line]
        assert not tracebacks, "server logged a traceback:\n" + "".join(log)


def ops_drawn(page) -> int:
    """The ops the timeline draws: a box of the level of detail stands for `count` ops
    (view/lod.py), so the boxes' counts add up to every op of the order."""
    return page.evaluate(
        """() => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name('ops');
                if (m) return Array.from(m.data.count).reduce((a, b) => a + b, 0);
            }
            return -1;
        }"""
    )


def source_length(page, name: str, column: str = "left") -> int:
    return page.evaluate(
        """([name, column]) => {
            for (const doc of Bokeh.documents) {
                const m = doc.get_model_by_name(name);
                if (m) return m.data[column].length;
            }
            return -1;
        }""",
        [name, column],
    )


# Bokeh's UIGestures.doubletap_threshold: a second tap on a canvas this soon after the
# last is one double tap, which the tap tool does not take as a tap. A reader tapping
# twice in a row is slower; a test must be too.
DOUBLE_TAP_MS = 300


def tap(page, x: float, y: float) -> None:
    """Tap page point (x, y) on a Bokeh canvas, as a reader does: not within Bokeh's
    double-tap window of this page's last tap."""
    page.wait_for_function("(ms) => !window.__pvLastTap || performance.now() - window.__pvLastTap > ms",
                           arg=DOUBLE_TAP_MS, polling=50)
    page.mouse.click(x, y)
    page.evaluate("() => { window.__pvLastTap = performance.now(); }")


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def choose_schedule(page, name: str, lang: str = "en") -> None:
    """Pick a schedule in the bar's menu, as a reader does (both explorers: a <select>,
    whose options BokehJS writes without a value attribute: picked by their text)."""
    from pipeviz.text import template

    menu = page.get_by_role("combobox", name=template("field.schedule", lang))
    menu.select_option(label=template(f"sched.{name}.title", lang))


def open_group(page, key: str, lang: str = "en") -> None:
    """Unfold one of the settings' groups (`group.display`, `costs.title`, ...) under More settings."""
    from pipeviz.text import template

    page.get_by_role("button", name=template(key, lang), exact=True).first.click()


def write_page(path: Path, *flags: str) -> Path:
    """`python -m pipeviz page -o path [flags]`, as a reader writes it; fails the test on
    any error (Bokeh's validation says ERROR on stderr)."""
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path), *flags],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert "ERROR" not in p.stderr, p.stderr
    return path
