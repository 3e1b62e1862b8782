"""One value of the explorer's state, declared once: a field.

A field is a schedule name, P, a cost, the language. Each declares its type, range,
default and label once; the served app makes its `param` parameters and widgets from
them, and the standalone page gets them as data. The features that own them are
listed in `view/features.py`; `view/fields.py` holds the whole table and the URL.

A value from a URL is never evaluated: it is read as a choice (exact), or as a
number written with ASCII digits (an optional sign, digits with one optional point,
an optional exponent); a number out of range is clamped with a note, anything else is
ignored with a note.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..text import Msg, msg

MAX_RAW = 40  # longer URL values are not read (and are shown cut to this length)


@dataclass(frozen=True, kw_only=True)
class Field:
    name: str
    kind: str  # "int", "float", "choice", "bool" or "text"
    default: object
    low: float | None = None  # int and float
    high: float | None = None
    step: float | None = None  # the widget's step
    # A float that may be 0 but is otherwise at least this (a cost the engine takes as
    # 0 or from costs.COST_MIN): a URL value between is moved to the nearer of the two.
    least: float | None = None
    choices: tuple[str, ...] = ()  # choice
    in_url: bool = True
    max_len: int = MAX_RAW  # longer URL values are not read

    @property
    def label_key(self) -> str:
        return f"field.{self.name}"

    @property
    def range_text(self) -> str:
        """'1..32', '0.01..1000', 'a, b, c'."""
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "0, 1"
        if self.kind == "text":  # read as it is; its own module checks it
            return f"text of at most {self.max_len} characters"
        if self.least is not None:
            return f"{fmt(self.low)}, {fmt(self.least)}..{fmt(self.high)}"
        return f"{fmt(self.low)}..{fmt(self.high)}"

    def nearest(self, value: float) -> float:
        """The valid value nearest to `value` (a number in range, or clamped to it)."""
        x = min(max(value, self.low), self.high)
        if self.least is not None and 0 < x < self.least:
            x = 0.0 if x < self.least / 2 else self.least
        return x

    def as_data(self) -> dict:
        return {
            "name": self.name, "kind": self.kind, "default": self.default, "low": self.low, "high": self.high,
            "step": self.step, "least": self.least, "choices": list(self.choices), "inUrl": self.in_url,
            "rangeText": self.range_text, "maxLen": self.max_len,
        }


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only


def read_number(raw: str) -> float | None:
    """A finite number written with ASCII digits, or None."""
    text = raw.strip(" \t\n\r")
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def shown(raw: str) -> str:
    """A URL value as a note quotes it: at most MAX_RAW characters."""
    return raw if len(raw) <= MAX_RAW else raw[:MAX_RAW] + "…"


def read_value(f: Field, raw: str) -> tuple[object, Msg | None]:
    """(value, note): value None when it is ignored."""
    if len(raw) > f.max_len:
        return None, msg("url.too_long", key=f.name, value=shown(raw), n=f.max_len)
    if f.kind == "text":  # plain text, never evaluated: the field's module parses it
        return raw, None
    if f.kind == "choice":
        if raw in f.choices:
            return raw, None
        return None, msg("url.choice", key=f.name, value=raw, valid=f.range_text)
    value = read_number(raw)
    if f.kind == "bool":
        if value in (0.0, 1.0):
            return bool(value), None
        return None, msg("url.choice", key=f.name, value=raw, valid=f.range_text)
    if value is None or (f.kind == "int" and not value.is_integer()):
        key = "url.not_whole" if f.kind == "int" else "url.not_number"
        return None, msg(key, key=f.name, value=raw, valid=f.range_text)
    clamped = f.nearest(value)
    typed = int(clamped) if f.kind == "int" else float(clamped)
    if clamped != value:
        return typed, msg("url.clamped", key=f.name, value=raw, valid=f.range_text, to=typed)
    return typed, None


def fmt(x) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)
