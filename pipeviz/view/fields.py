"""The explorer's fields, presets and URL.

A field is one value of the explorer's state: a schedule name, P, a cost, the
language. Each declares its type, range, default and label once; the served app
makes its `param` parameters and widgets from them, and the standalone page gets
them as data. Features register their own fields and presets here.

URL: `?schedule=interleaved&P=8&m=16&V=2` or the same after `#`. Parsing never
evaluates anything. A value is read as a choice (exact), or as a number written with
ASCII digits (an optional sign, digits with one optional point, an optional
exponent); a number out of range is clamped with a note, anything else is ignored
with a note. The query and the fragment are both read and the fragment wins where
both name a field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

from ..costs import COST_MIN
from ..encoder import PLACES as ENCODER_PLACES
from ..registry import NAMES
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
            return f"{_fmt(self.low)}, {_fmt(self.least)}..{_fmt(self.high)}"
        return f"{_fmt(self.low)}..{_fmt(self.high)}"

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


FIELDS: dict[str, Field] = {}
NO_ENCODER = "none"  # the encoder field's value for no encoder


def register(*fields: Field) -> None:
    for f in fields:
        if f.name in FIELDS and FIELDS[f.name] != f:
            raise ValueError(f"field {f.name!r} registered twice")
        FIELDS[f.name] = f


register(
    Field(name="schedule", kind="choice", default="1f1b", choices=NAMES),
    Field(name="P", kind="int", default=4, low=1, high=32, step=1),
    Field(name="m", kind="int", default=8, low=1, high=128, step=1),
    Field(name="V", kind="int", default=1, low=1, high=8, step=1),
    Field(name="tf", kind="float", default=1.0, low=0.01, high=1000, step=0.1),
    Field(name="tb", kind="float", default=1.0, low=0.01, high=1000, step=0.1),
    Field(name="tw", kind="float", default=1.0, low=0, high=1000, step=0.1, least=COST_MIN),
    Field(name="comm", kind="float", default=0.0, low=0, high=1000, step=0.1, least=COST_MIN),
    # An overlapped F&B (DualPipe-V); 0 stands for t_f + t_b + t_w, no gain from overlapping.
    Field(name="tfb", kind="float", default=0.0, low=0, high=1000, step=0.1, least=COST_MIN),
    Field(name="unit", kind="choice", default="micro-batches", choices=("micro-batches", "chunks")),
    Field(name="lang", kind="choice", default="en", choices=("en", "zh")),
    # The article's closing section: an encoder in the bubbles (pipeviz.encoder) and
    # activation balancing (pipeviz.balance). encoder=none runs no encoder.
    Field(name="encoder", kind="choice", default=NO_ENCODER, choices=(NO_ENCODER, *ENCODER_PLACES)),
    Field(name="ef", kind="float", default=0.5, low=0.1, high=50, step=0.1),
    Field(name="eb", kind="float", default=1.0, low=0.1, high=50, step=0.1),
    Field(name="frozen", kind="bool", default=False),
    Field(name="balance", kind="bool", default=False),
)


def defaults() -> dict:
    return {k: f.default for k, f in FIELDS.items()}


@dataclass(frozen=True)
class Preset:
    name: str
    values: dict  # field -> value; fields not named keep their value


PRESETS: dict[str, Preset] = {}


def preset(name: str, **values) -> None:
    for k in values:
        if k not in FIELDS:
            raise ValueError(f"preset {name!r} sets unknown field {k!r}")
    PRESETS[name] = Preset(name, values)


_COSTS = dict(tf=1.0, tb=1.0, tw=1.0, comm=0.0, tfb=0.0)
_PLAIN = dict(encoder="none", balance=False)  # the sections before the closing one
# Named after the article's sections, in its order; the last is the Zero Bubble
# paper's measured GPT stage (ms, P=8, m=24).
preset("article", schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
preset("drag-v", schedule="interleaved", P=4, m=8, V=2, unit="micro-batches", **_COSTS, **_PLAIN)
preset("staircase", schedule="interleaved", P=8, m=16, V=2, unit="chunks", **_COSTS, **_PLAIN)
preset("gpipe-memory", schedule="gpipe", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
preset("zero-bubble", schedule="zb-h1", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
# The closing section: fill the bubbles with an encoder, flatten the staircase.
preset("encoder", schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, encoder="bubbles", ef=0.5,
       eb=1.0, frozen=False, balance=False)
preset("bpipe", schedule="1f1b", P=8, m=8, V=1, unit="micro-batches", **_COSTS, encoder="none", balance=True)
preset("gpt", P=8, m=24, tf=18.5, tb=18.1, tw=9.3, comm=0.6, tfb=0.0)
preset("deepseek", schedule="dualpipe-v", P=4, m=10, V=2, unit="chunks", **_COSTS, **_PLAIN)  # DeepSeek's figure

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


def parse(search: str, fragment: str = "") -> tuple[dict, list[Msg]]:
    """Values to apply and notes about anything clamped or ignored. `preset=NAME`
    applies the preset first; other fields in the URL then override it."""
    pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True)
    pairs += parse_qsl(fragment.lstrip("#"), keep_blank_values=True)
    updates: dict = {}
    notes: list[Msg] = []
    chosen = None
    for key, raw in pairs:
        if key == "preset":
            if raw in PRESETS:
                chosen = raw
            else:
                notes.append(msg("url.choice", key="preset", value=shown(raw), valid=", ".join(PRESETS)))
            continue
        f = FIELDS.get(key)
        if f is None or not f.in_url:
            notes.append(msg("url.unknown", key=shown(key), known=", ".join(url_keys() + ["preset"])))
            continue
        value, note = read_value(f, raw)
        if note is not None:
            notes.append(note)
        if value is not None:
            updates[key] = value
    if chosen is not None:
        updates = {**PRESETS[chosen].values, **updates}
    return updates, notes


def url_keys() -> list[str]:
    return [k for k, f in FIELDS.items() if f.in_url]


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def encode(state: dict) -> str:
    """'schedule=1f1b&P=4&...': every URL field, in FIELDS' order, numbers written shortest."""
    return "&".join(f"{k}={quote(_fmt(state[k]), safe='-.,')}" for k in url_keys() if k in state)
