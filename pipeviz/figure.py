"""Figures for slides: `python -m pipeviz figure --schedule zb-v -P 4 -m 8 -o zbv.svg`.

The explorer's own figures (render/figures.py), at a chosen width, with the slide's
legend and readout shown (render/teach.py: text inside the figure, so an SVG's text
holds the readout) and, with `inflight=True`, the in-flight bars beside the timeline.
Bokeh exports it through a headless browser: `export_svg` (Bokeh's SVG backend) for
.svg, `export_png` for .png, both driving Debian's chromium through selenium and
chromium-driver (see docs/stack.md). The browser opens only a local file and is started
with its network features off.
"""

from __future__ import annotations

import os
import shutil
import struct
import unicodedata
import zlib
from contextlib import contextmanager
from pathlib import Path

from .engine import Result
from .errors import PipevizError
from .view import columns, teach
from .view.fields import defaults

FORMATS = (".svg", ".png")
MIN_WIDTH, MAX_WIDTH = 400, 4000
BARS_WIDTH = 260
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver", "chromium.chromedriver")


# Widths in em, generous for Liberation Sans (the browser's Helvetica) and Noto CJK:
# the figure is made in a browser that measures nothing before its text is placed.
NARROW, NARROW_EM, DIGIT_EM, OTHER_EM, WIDE_EM, BOLD = " .,:;'|!()[]ijlf-", 0.32, 0.56, 0.72, 1.0, 1.1


def text_px(text: str, font_px: float, bold: bool = False) -> float:
    """An upper estimate of `text`'s width in px, for wrapping a figure's readout."""
    em = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in "WF":
            em += WIDE_EM
        elif ch in NARROW:
            em += NARROW_EM
        elif ch.isdigit() or ch.islower():
            em += DIGIT_EM
        else:
            em += OTHER_EM
    return em * font_px * (BOLD if bold else 1.0)


class FigureError(PipevizError):
    """A figure that cannot be written: the format, the width, or a missing browser."""


def layout(res: Result, lang: str = "en", width: int = 1200, inflight: bool = False, projector: bool = False,
           critical: bool = False, unit: str = "micro-batches"):
    """The Bokeh layout of the figure (a fixed size: `width` pixels wide)."""
    from bokeh.layouts import row

    from .render import teach as render_teach
    from .render.figures import BORDER_LEFT, Figures

    timeline_width = width - (BARS_WIDTH if inflight else 0)
    figs = Figures(width=timeline_width)
    state = {**defaults(), "lang": lang, "projector": projector, "critical": critical, "unit": unit}
    plot_px = (timeline_width - BORDER_LEFT - 20) / teach.label_scale(state)
    figs.apply(columns.figure_view(res, unit, lang, plot_px))
    figs.apply(teach.figure_view(res, state, lang))
    tl = figs.timeline
    tl.sizing_mode = "fixed"
    tl.width = timeline_width
    tl.toolbar_location = None
    # The readout's lines, wrapped to the room right of the rank axis (the titles start there).
    room = timeline_width - BORDER_LEFT - teach.SLIDE_MARGIN_PX
    on = 1 if projector else 0
    head, summary = teach.slide_texts(res, lang)
    head_lines = teach.slide_lines(head, lambda t: text_px(t, teach.FONTS["title"][on], bold=True) <= room)
    summary_lines = teach.slide_lines(summary, lambda t: text_px(t, teach.FONTS["tick"][on]) <= room)
    figs.models["slide_readout"].text = "\n".join(head_lines)
    figs.models["slide_summary"].text = "\n".join(summary_lines)
    render_teach.add_slide_legend(figs)
    for name in ("slide_legend", "slide_readout", "slide_summary"):
        figs.models[name].visible = True
    # The legend and the readout's lines, below the plot.
    tl.height += teach.slide_extra(projector, len(head_lines), len(summary_lines))
    if not inflight:
        return tl
    bars = figs.inflight
    bars.width = BARS_WIDTH
    bars.height = tl.height
    bars.min_border_bottom = tl.min_border_bottom
    return row(tl, bars)


def _find(names: tuple[str, ...], env: str) -> str | None:
    if os.environ.get(env):
        return os.environ[env]
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@contextmanager
def webdriver(scale: float = 1.0):
    """A headless chromium driven by selenium, quit on exit (FigureError if there is none)."""
    try:
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.chrome.webdriver import WebDriver
    except ImportError:
        raise FigureError("figure.no_selenium") from None
    driver_path = _find(DRIVERS, "PIPEVIZ_CHROMEDRIVER")
    browser = _find(CHROMIUM, "PIPEVIZ_CHROMIUM")
    if driver_path is None or browser is None:
        raise FigureError("figure.no_browser")
    options = Options()
    options.binary_location = browser
    for arg in ("--headless", "--hide-scrollbars", "--disable-gpu", "--force-color-profile=srgb",
                f"--force-device-scale-factor={scale:g}", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--no-first-run", "--disable-quic"):
        options.add_argument(arg)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # chromium refuses to run as root with its sandbox
    try:
        driver = WebDriver(service=Service(driver_path), options=options)
    except Exception as e:  # selenium's own errors: say what to install, not a traceback
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise FigureError("figure.browser_failed", why=why) from None
    try:
        yield driver
    finally:
        driver.quit()


def check(path: str, width: int) -> str:
    """The format of `path` ('.svg' or '.png'), or a FigureError."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FigureError("figure.format", path=path, valid=", ".join(FORMATS))
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise FigureError("figure.width", width=width, low=MIN_WIDTH, high=MAX_WIDTH)
    return suffix


def write(res: Result, path: str, lang: str = "en", width: int = 1200, inflight: bool = False,
          projector: bool = False, critical: bool = False, scale: float = 2.0) -> None:
    """Write the figure to `path` (.svg or .png)."""
    suffix = check(path, width)
    from bokeh.io import export_png, export_svg

    fig = layout(res, lang, width, inflight, projector, critical)
    with webdriver(scale if suffix == ".png" else 1.0) as driver:
        try:
            if suffix == ".svg":
                svgs = export_svg(fig, filename=path, webdriver=driver, timeout=30)
                if not svgs:
                    raise FigureError("figure.empty", path=path)
            else:
                export_png(fig, filename=path, webdriver=driver, timeout=30, scale_factor=scale)
                head, summary = teach.slide_texts(res, lang)
                add_png_text(path, {"Title": head, "Description": f"{head}\n{summary}", "Software": "pipeviz"})
        except OSError as e:
            raise FigureError("figure.write", path=path, why=e.strerror or str(e)) from None


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def add_png_text(path: str, items: dict[str, str]) -> None:
    """Put `items` into the PNG at `path` as iTXt chunks (UTF-8 text under PNG's
    standard keywords), after its header: a PNG's readout, for search, screen readers
    and slides' alt text, as an SVG holds it as text."""
    with open(path, "rb") as f:
        data = f.read()
    header_end = 8 + 8 + 13 + 4  # signature, then IHDR: length and type, 13 bytes, CRC
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise FigureError("figure.empty", path=path)
    chunks = b"".join(png_chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + text.encode("utf-8"))
                      for key, text in items.items())
    with open(path, "wb") as f:
        f.write(data[:header_end] + chunks + data[header_end:])
