"""Colours, in one place for both explorers and figure export.

Ops are coloured by what they do (their display kind) and shaded by chunk: chunk 0
takes the kind's base colour, later chunks lighter shades of it, so a reader can
follow the loops of an interleaved or V schedule. A colour is an index into one
palette (display kind * MAX_CHUNKS + chunk), so the figures send numbers, not strings.
"""

from __future__ import annotations

import numpy as np

from ..order import EB, EF, FB, KIND_NAMES, B, F, I, W

# Okabe-Ito: F blue, B vermillion, W bluish green, encoder reddish purple.
KIND_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")
DISPLAY_NAMES = ("F", "B", "W", "E")
# Op kind -> display kind. An I is the paper's B (input gradient); an F&B is drawn
# as its forward half and its backward half.
DISPLAY_KIND = np.zeros(len(KIND_NAMES), dtype=np.int64)
DISPLAY_KIND[[F, B, I, W, FB, EF, EB]] = [0, 1, 1, 2, 0, 3, 3]
W_ONLY_COLOR = "#9fd8c5"  # lighter: chunks holding only what W needs
BUBBLE_HATCH = "#6b6b6b"
RANK_PALETTE = (  # cividis-like, dark = rank 0: the staircase reads top to bottom
    "#00204d", "#00336f", "#39486b", "#575c6d", "#707173", "#8a8779", "#a69d75", "#c4b56c",
    "#e4cf5b", "#ffea46",
)
MAX_CHUNKS = 8  # colour index = display kind * MAX_CHUNKS + chunk


def shade(color: str, t: float) -> str:
    """`color` moved a fraction t toward white."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    mix = [round(x + (255 - x) * t) for x in (r, g, b)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def chunk_palette(chunks: int) -> list[str]:
    """Display kind * MAX_CHUNKS + chunk -> colour: each kind's base colour for chunk
    0, lighter shades for later chunks (up to 60% toward white)."""
    out = []
    for color in KIND_COLORS:
        for c in range(MAX_CHUNKS):
            out.append(shade(color, 0.6 * c / (chunks - 1) if chunks > 1 and c < chunks else 0.0))
    return out


def as_data() -> dict:
    return {
        "kindColors": list(KIND_COLORS), "displayNames": list(DISPLAY_NAMES), "displayKind": DISPLAY_KIND.tolist(),
        "wOnlyColor": W_ONLY_COLOR, "bubbleHatch": BUBBLE_HATCH, "rankPalette": list(RANK_PALETTE),
        "maxChunks": MAX_CHUNKS,
    }
