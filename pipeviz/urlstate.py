"""The explorer's state: its ranges, its presets, and its URL.

`?schedule=interleaved&P=8&m=16&V=2&tf=1&tb=1&tw=1&comm=0`.

Parsing never evaluates anything: each value is read as a name, a whole number or a
decimal, checked against the explorer's ranges, clamped (with a note) when it is a
number out of range, and rejected (with a note) when it is not a number at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from .registry import NAMES


@dataclass(frozen=True)
class Field:
    kind: type  # int or float
    low: float
    high: float
    doc: str

    @property
    def range_text(self) -> str:
        """'1..32', '0.01..1000': the range as messages write it."""
        return f"{_fmt(self.low)}..{_fmt(self.high)}"


# The explorer's ranges: one place for the sliders, the URL and the standalone page.
FIELDS: dict[str, Field] = {
    "P": Field(int, 1, 32, "pipeline ranks, one GPU each"),
    "m": Field(int, 1, 128, "micro-batches per iteration"),
    "V": Field(int, 1, 8, "model chunks per rank (virtual stages)"),
    "tf": Field(float, 0.01, 1000, "forward cost of a rank's share of the model"),
    "tb": Field(float, 0.01, 1000, "input-gradient backward (B) cost"),
    "tw": Field(float, 0, 1000, "weight-gradient backward (W) cost"),
    "comm": Field(float, 0, 1000, "latency of each dependency between ranks"),
}
KEYS = ("schedule", *FIELDS)

PRESETS = {
    "article": dict(P=4, m=8, tf=1.0, tb=1.0, tw=1.0, comm=0.0),
    # Measured in the Zero Bubble paper's experiments (ms per stage, P=8, m=24).
    "gpt": dict(P=8, m=24, tf=18.5, tb=18.1, tw=9.3, comm=0.6),
}


def parse(query: str) -> tuple[dict, list[str]]:
    """Values to apply and notes about anything clamped or rejected."""
    updates: dict = {}
    notes: list[str] = []
    for key, raw in parse_qsl(query.lstrip("?#"), keep_blank_values=True):
        if key == "schedule":
            if raw in NAMES:
                updates["schedule"] = raw
            else:
                notes.append(f"schedule={raw!r} is not a schedule; choose one of {', '.join(NAMES)} (ignored)")
            continue
        field = FIELDS.get(key)
        if field is None:
            notes.append(f"ignored unknown URL parameter {key!r}; known: {', '.join(KEYS)}")
            continue
        value = _number(raw, field.kind)
        if value is None:
            what = "a whole number" if field.kind is int else "a number"
            notes.append(f"{key}={raw!r} is not {what} in {field.range_text}; ignored")
            continue
        clamped = min(max(value, field.low), field.high)
        if clamped != value:
            notes.append(f"{key}={raw} is outside {field.range_text}; clamped to {_fmt(field.kind(clamped))}")
        updates[key] = field.kind(clamped)
    return updates, notes


def _number(raw: str, kind: type):
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if kind is int:
        return int(value) if value.is_integer() else None
    return value


def _fmt(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def encode(state: dict) -> str:
    """'?schedule=1f1b&P=4&...' for the keys in KEYS, numbers written shortest."""
    return "?" + urlencode({k: _fmt(state[k]) if k != "schedule" else state[k] for k in KEYS if k in state})
