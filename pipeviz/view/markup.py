"""Readouts are built from markup with {slots} (a feature's LAYOUTS) and parts that
are already HTML: words from the strings table with their arguments escaped. This is
the one way to put them together; static/readouts.js has its twin."""

from __future__ import annotations

from collections.abc import Mapping


def compose(layouts: Mapping[str, str], layout: str, **parts: str) -> str:
    """Put HTML parts into one of `layouts`, in the order given (never raw text)."""
    out = layouts[layout]
    for k, v in parts.items():
        out = out.replace("{" + k + "}", v)
    return out
