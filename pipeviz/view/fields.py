"""The explorer's whole field table, its presets and its URL.

The fields come from the features that declare them, in the order of
`view/features.py`; a field is declared once (`view/field.py`). The served app makes
its `param` parameters and widgets from this table, and the standalone page gets it
as data.

URL: `?schedule=interleaved&P=8&m=16&V=2` or the same after `#`. Parsing never
evaluates anything (`field.read_value`); a value out of range is clamped with a
note, anything else is ignored with a note. The query and the fragment are both read
and the fragment wins where both name a field.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

from ..text import Msg, msg
from .features import FEATURES
from .field import MAX_RAW, Field, fmt, read_value, shown

__all__ = ["FIELDS", "MAX_RAW", "PRESETS", "Field", "Preset", "defaults", "encode", "parse",
           "url_keys", "with_base"]


def _table() -> dict[str, Field]:
    table: dict[str, Field] = {}
    for feature in FEATURES:
        for f in feature.fields:
            if f.name in table:
                raise ValueError(f"field {f.name!r} is declared by two features")
            table[f.name] = f
    return table


FIELDS: dict[str, Field] = _table()


def defaults() -> dict:
    return {k: f.default for k, f in FIELDS.items()}


@dataclass(frozen=True)
class Preset:
    name: str
    values: dict  # field -> value; fields not named keep their value


def _presets(*presets: Preset) -> dict[str, Preset]:
    for p in presets:
        for k in p.values:
            if k not in FIELDS:
                raise ValueError(f"preset {p.name!r} sets unknown field {k!r}")
    return {p.name: p for p in presets}


_COSTS = dict(tf=1.0, tb=1.0, tw=1.0, comm=0.0, tfb=0.0)
_PLAIN = dict(encoder="none", balance=False)  # the sections before the closing one
# Named after the article's sections, in its order; the last two are the Zero Bubble
# paper's measured GPT stage (ms, P=8, m=24) and DeepSeek's figure.
PRESETS: dict[str, Preset] = _presets(
    Preset("article", dict(schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)),
    Preset("drag-v", dict(schedule="interleaved", P=4, m=8, V=2, unit="micro-batches", **_COSTS, **_PLAIN)),
    Preset("staircase", dict(schedule="interleaved", P=8, m=16, V=2, unit="chunks", **_COSTS, **_PLAIN)),
    Preset("gpipe-memory", dict(schedule="gpipe", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)),
    Preset("zero-bubble", dict(schedule="zb-h1", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)),
    # The closing section: fill the bubbles with an encoder, flatten the staircase.
    Preset("encoder", dict(schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, encoder="bubbles", ef=0.5,
                           eb=1.0, frozen=False, balance=False)),
    Preset("bpipe", dict(schedule="1f1b", P=8, m=8, V=1, unit="micro-batches", **_COSTS, encoder="none",
                         balance=True)),
    Preset("gpt", dict(P=8, m=24, tf=18.5, tb=18.1, tw=9.3, comm=0.6, tfb=0.0)),
    Preset("deepseek", dict(schedule="dualpipe-v", P=4, m=10, V=2, unit="chunks", **_COSTS, **_PLAIN)),
)


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


def encode(state: dict, base: dict | None = None) -> str:
    """'schedule=interleaved&V=2': the URL fields whose values differ from `base` (the
    view a URL is read against: the defaults, or the view a page was built to open at),
    in FIELDS' order, numbers written shortest. A permalink names only what it changes;
    a URL naming every field (as older ones did) reads the same."""
    base = defaults() if base is None else base
    return "&".join(f"{k}={quote(fmt(state[k]), safe='-.,')}" for k in url_keys() if k in state and state[k] != base.get(k))


def with_base(updates: dict, base: dict | None = None) -> dict:
    """A URL's values as a whole view: every URL field it does not name at `base`'s
    value (the defaults by default), so that a permalink opens the view it was written
    for whatever was shown before."""
    base = defaults() if base is None else base
    return {**{k: base[k] for k in url_keys()}, **updates}
