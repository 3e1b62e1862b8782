"""Every word pipeviz shows, in English and Chinese (简体): one table, kept as data.

Each module here holds the words of one part of pipeviz as a plain dict, key ->
(English, Chinese); `pipeviz.text` reads the table built below and fills templates
from it, and the standalone page receives it whole. Nothing registers words at
import time: a part's words are in its file here, and this list is all of them.
Adding words means adding entries to the file of their part (or a file of a new part,
listed in PARTS).

The table is checked as it is built: a key stands once, both languages are given,
and both use the same {slots}, so neither language can drop an argument.
"""

from __future__ import annotations

import re

from . import closing, commands, engine, explorer, memory, own_order, puzzle, schedules, teach, traces, tradeoff

PARTS = (engine, schedules, explorer, memory, own_order, closing, teach, puzzle, commands, traces, tradeoff)

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def build(parts=PARTS) -> dict[str, tuple[str, str]]:
    """The one table, from every part's STRINGS (ValueError on a bad entry)."""
    table: dict[str, tuple[str, str]] = {}
    for part in parts:
        for key, pair in part.STRINGS.items():
            if key in table:
                raise ValueError(f"string {key!r} stands in two parts; keep it in one")
            en, zh = pair
            if not en or not zh:
                raise ValueError(f"string {key!r} needs both English and Chinese")
            if set(_SLOT.findall(en)) != set(_SLOT.findall(zh)):
                raise ValueError(f"string {key!r}: English and Chinese use different slots")
            table[key] = (en, zh)
    return table


TABLE = build()
