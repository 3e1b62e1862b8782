"""Colours, in one place for both explorers and figure export.

Ops are coloured by what they do (their display kind) and shaded by chunk, so a
reader can follow the loops of an interleaved or V schedule: with one chunk per rank
each kind has its base colour; with more, chunk 0 is the darkest shade and the last
the lightest, spread over the kind's own range. A colour is an index into one palette
(display kind * MAX_CHUNKS + chunk), so the figures send numbers, not strings.

The colours were chosen by simulating protan, deutan and tritan vision (Machado et
al. 2009) and comparing CIELAB distances; tests/test_palette.py checks the choice:
the kinds stay apart at every chunk count, every colour of one kind stays apart from
every colour of another when there are at most two chunks, and a kind's neighbouring
shades stay apart up to four chunks. Labels inside boxes are black or white,
whichever contrasts more (at least 4.5:1 on any colour).
"""

from __future__ import annotations

import functools

import numpy as np

from ..order import EB, EF, FB, KIND_NAMES, B, F, I, W

# Okabe-Ito hues: F blue, B vermillion, W sky blue, encoder grey; each with the range
# of its chunk shades (negative: toward black, positive: toward white).
KIND_COLORS = ("#0072B2", "#D55E00", "#56B4E9", "#999999")
SHADE_RANGE = ((-0.5, 0.2), (-0.2, 0.55), (-0.45, 0.35), (-0.3, 0.45))
DISPLAY_NAMES = ("F", "B", "W", "E")
# Op kind -> display kind. An I is the paper's B (input gradient); an F&B is drawn
# as its forward half and its backward half.
DISPLAY_KIND = np.zeros(len(KIND_NAMES), dtype=np.int64)
DISPLAY_KIND[[F, B, I, W, FB, EF, EB]] = [0, 1, 1, 2, 0, 3, 3]
W_ONLY_COLOR = "#bfe1f6"  # W's hue, light: chunks holding only what W needs
PARAMS_COLOR = "#b0b0b0"  # parameters, gradients and optimizer state: grey, beside the blues
OVER_COLOR = "#D55E00"  # over the HBM line: Okabe-Ito vermillion, always with a hatch and a label
OVER_TEXT = "#8f3a00"  # the excess's label, dark enough to read on white
BUBBLE_HATCH = "#6b6b6b"
BEFORE_OUTLINE = "#333333"  # after balancing: the bars as they stood before, dashed
# Cividis-like, dark = rank 0: the staircase reads top to bottom. It stops where the
# lightest line still has 3:1 contrast on white (the last rank's line is drawn thick).
RANK_PALETTE = ("#00204d", "#00336f", "#39486b", "#575c6d", "#707173", "#8a8779")
MAX_CHUNKS = 8  # colour index = display kind * MAX_CHUNKS + chunk


@functools.lru_cache(maxsize=4096)  # pure, and asked for on every change
def shade(color: str, t: float) -> str:
    """`color` moved a fraction t toward white (t > 0) or toward black (t < 0)."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    mix = [round(x + (255 - x) * t) if t >= 0 else round(x * (1 + t)) for x in (r, g, b)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def chunk_palette(chunks: int) -> list[str]:
    """Display kind * MAX_CHUNKS + chunk -> colour for a schedule with `chunks` chunks
    per rank (indices past `chunks` are unused and take the base colour)."""
    out = []
    for color, (lo, hi) in zip(KIND_COLORS, SHADE_RANGE):
        for c in range(MAX_CHUNKS):
            t = lo + (hi - lo) * c / (chunks - 1) if 1 < chunks and c < chunks else 0.0
            out.append(shade(color, t))
    return out


def luminance(color: str) -> float:
    """WCAG relative luminance."""
    def lin(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(int(color[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@functools.lru_cache(maxsize=4096)
def label_color(color: str) -> str:
    """Black or white text, whichever contrasts more with a box of `color`."""
    return "#000000" if contrast(color, "#000000") >= contrast(color, "#ffffff") else "#ffffff"


def label_palette(chunks: int) -> list[str]:
    """The label colour (black or white) on each colour of chunk_palette(chunks)."""
    return [label_color(c) for c in chunk_palette(chunks)]


# One colour (Okabe-Ito, safe for colour-blind readers), marker and dash per schedule, in
# the registry's order: the sweep's lines and the trade-off's points. Past the eight
# colours a colour comes back with another marker and dash, so no two schedules look alike.
SCHEDULE_COLORS = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442")
# (The ninth, black again, takes a shape of its own: a cross drawn inside a black marker would not show.)
SCHEDULE_MARKERS = ("circle", "square", "triangle", "diamond", "inverted_triangle", "star", "hex", "plus", "square_pin",
                    "square_x", "triangle_pin", "circle_x")
SCHEDULE_DASHES = ("solid", "dashed", "dotted", "dotdash", "dashdot", "solid", "dashed", "dotted")


def schedule_style(i: int) -> tuple[str, str, str]:
    """(colour, marker, dash) of the i-th schedule (the registry's order)."""
    return (SCHEDULE_COLORS[i % len(SCHEDULE_COLORS)], SCHEDULE_MARKERS[i % len(SCHEDULE_MARKERS)],
            SCHEDULE_DASHES[(i + i // len(SCHEDULE_COLORS)) % len(SCHEDULE_DASHES)])


def as_data() -> dict:
    return {
        # Palettes for 1..MAX_CHUNKS chunks, and their label colours, ready to use.
        "chunkPalettes": [chunk_palette(n) for n in range(1, MAX_CHUNKS + 1)],
        "labelPalettes": [label_palette(n) for n in range(1, MAX_CHUNKS + 1)],
        "kindColors": list(KIND_COLORS), "displayNames": list(DISPLAY_NAMES), "displayKind": DISPLAY_KIND.tolist(),
        "wOnlyColor": W_ONLY_COLOR, "bubbleHatch": BUBBLE_HATCH, "beforeOutline": BEFORE_OUTLINE,
        "rankPalette": list(RANK_PALETTE),
        "maxChunks": MAX_CHUNKS, "paramsColor": PARAMS_COLOR, "overColor": OVER_COLOR, "overText": OVER_TEXT,
        "scheduleColors": list(SCHEDULE_COLORS), "scheduleMarkers": list(SCHEDULE_MARKERS),
        "scheduleDashes": list(SCHEDULE_DASHES),
    }


# The in-flight lines: with more ranks than this, rank 0 and the last rank are drawn
# thick and the others thin and faint, so that the lines do not fuse into one band.
EMPHASIS_ABOVE = 4
LINE_WIDTH = {"all": 1.8, "ends": 2.6, "rest": 1.0}
LINE_ALPHA = {"all": 1.0, "ends": 1.0, "rest": 0.45}


def line_style(P: int) -> dict[str, np.ndarray]:
    """Width and opacity of each rank's in-flight line (columns of the steps source)."""
    if P <= EMPHASIS_ABOVE:
        return {"width": np.full(P, LINE_WIDTH["all"]), "alpha": np.full(P, LINE_ALPHA["all"])}
    width = np.full(P, LINE_WIDTH["rest"])
    alpha = np.full(P, LINE_ALPHA["rest"])
    width[[0, P - 1]] = LINE_WIDTH["ends"]
    alpha[[0, P - 1]] = LINE_ALPHA["ends"]
    return {"width": width, "alpha": alpha}
