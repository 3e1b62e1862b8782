"""`pipeviz figure`: the timeline with its legend and readout, for slides, as SVG
and PNG, written through the Debian chromium (selenium and chromium-driver) as a
lecturer would run it, and checked as files: a valid SVG whose text holds the
readout, a valid PNG of the asked width whose pixels show the ops and whose text
chunks hold the readout, and one clear line for what cannot be written."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

import pytest
from PIL import Image

from pipeviz import Config, run
from pipeviz.text import template
from pipeviz.view import teach
from pipeviz.view.palette import KIND_COLORS

SVG = "{http://www.w3.org/2000/svg}"


def figure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeviz", "figure", *args], capture_output=True, text=True,
                          timeout=300)


def png_texts(data: bytes) -> dict[str, str]:
    """The PNG's tEXt and iTXt chunks, keyword -> text (checking every chunk's CRC)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, pos = {}, 8
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert int.from_bytes(data[pos + 8 + n:pos + 12 + n], "big") == zlib.crc32(kind + body)
        if kind == b"tEXt":
            key, text = body.split(b"\0", 1)
            out[key.decode("latin-1")] = text.decode("latin-1")
        elif kind == b"iTXt":
            key, rest = body.split(b"\0", 1)
            assert rest[:2] == b"\0\0"  # not compressed
            _lang, _translated, text = rest[2:].split(b"\0", 2)
            out[key.decode("latin-1")] = text.decode("utf-8")
        pos += 12 + n
        if kind == b"IEND":
            break
    return out


@pytest.mark.browser
def test_the_svg_holds_the_timeline_its_legend_and_its_readout_as_text(tmp_path):
    out = tmp_path / "1f1b.svg"
    p = figure("-s", "1f1b", "-P", "4", "-m", "8", "--width", "1000", "-o", str(out))
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()  # well-formed XML
    assert root.tag == f"{SVG}svg" and float(root.get("width")) == 1000
    texts = {t.text for t in root.iter(f"{SVG}text") if t.text}
    head, summary = teach.slide_texts(run(Config("1f1b", 4, 8)), "en")
    assert head.startswith("1F1B, P=4, m=8, V=1: Bubble (one iteration): 27.27% simulated")
    assert {head, summary} <= texts
    assert {template("kind.F"), template("kind.B"), template("legend.idle")} <= texts  # the legend
    assert {str(mb) for mb in range(8)} <= texts  # the micro-batch numbers on the boxes
    # Every op is a box: at least one rect per op, in the forward's colour among others.
    assert len(list(root.iter(f"{SVG}rect"))) + len(list(root.iter(f"{SVG}path"))) >= 64


@pytest.mark.browser
def test_the_png_is_as_wide_as_asked_shows_the_ops_and_carries_its_readout(tmp_path):
    out = tmp_path / "zbv.png"
    p = figure("-s", "zb-v", "-P", "4", "-m", "8", "-V", "2", "--lang", "zh", "--inflight", "--width", "900",
               "-o", str(out))
    assert p.returncode == 0, p.stderr
    data = out.read_bytes()
    texts = png_texts(data)
    head, summary = teach.slide_texts(run(Config("zb-v", 4, 8, 2)), "zh")
    assert "气泡占比" in head and "5.88%" in head
    assert texts["Title"] == head and texts["Description"] == f"{head}\n{summary}"
    with Image.open(out) as img:
        img.load()  # decodes every pixel: a truncated or corrupt file fails here
        assert img.size[0] == 900 * 2  # twice the width, for a sharp slide
        colors = {c for _, c in img.convert("RGB").getcolors(maxcolors=1 << 20)}
    forward = tuple(int(KIND_COLORS[0][i:i + 2], 16) for i in (1, 3, 5))
    assert forward in colors  # the forwards are drawn in their colour


def test_a_file_name_without_a_known_format_is_one_clear_line(tmp_path):
    p = figure("-s", "1f1b", "-o", str(tmp_path / "slide.pdf"))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert ".svg" in p.stderr and ".png" in p.stderr
    p = figure("-s", "1f1b", "--width", "50", "-o", str(tmp_path / "slide.svg"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "400..4000" in p.stderr
