"""The rules that keep the explorer's state valid, shared by both explorers.

`normalize(state, changed)` takes the state after a change (a widget moved, a
preset, a URL) and returns a state the engine accepts, with a note for each thing it
adjusted. The explorers show the notes until the next change, never an invalid
chart, and never write an invalid state to the URL.

Each feature's rule applies in the order of `view/features.py` (an order of one's
own, V and the schedule, the encoder, the model: see each feature's module), then the
last rule, for every schedule: where the schedule refuses m (Megatron's interleaved
order needs m >= P), m moves to the nearest value it accepts, and the note gives the
rule. `config(state)` is the engine configuration a state shows: the schedule
feature makes it, the others add their part.
"""

from __future__ import annotations

from functools import lru_cache

from ..config import Config
from ..errors import ConfigError
from ..registry import SCHEDULES, check
from ..text import Msg, msg
from .closing import NO_ENCODER
from .features import FEATURES
from .fields import FIELDS

# The fields the engine reads: a change to any other field (unit, lang) redraws
# without running the engine.
ENGINE_FIELDS = tuple(name for f in FEATURES for name in f.engine_fields)
# Both explorers refresh the comparison table, the sweep and the URL this long after a
# change (once, however many changes come in between): the chart and its readout are
# sent and painted first, and a drag is not slowed by them (benchmarks/app.py, page.py).
# The table's engine runs go one per slice (pipeviz/slicing.py), so a key waits for one run,
# not all of them.
LATER_MS = 120


def config(state: dict) -> Config:
    """The engine configuration a state shows (ConfigError if it has none)."""
    cfg = None
    for feature in FEATURES:
        if feature.configure is not None:
            cfg = feature.configure(cfg, state)
    return cfg


def row_config(state: dict, name: str) -> Config:
    """The comparison table's row for schedule `name`: the state's P, m, V (the
    schedule's own V where it has one, Schedule.own_V), costs, balancing, and stage weights for that row's
    stages. Like `readouts.table_config`, no encoder: the rows compare schedules (the
    closing section compares the encoder's placements)."""
    return config({**state, "schedule": name, "V": SCHEDULES[name].own_V(state["V"]), "encoder": NO_ENCODER})


def problem(state: dict) -> ConfigError | None:
    try:
        check(config(state))
    except ConfigError as e:
        return e
    return None


def normalize(state: dict, changed) -> tuple[dict, list[Msg]]:
    state = dict(state)
    changed = set(changed)
    notes: list[Msg] = []
    for feature in FEATURES:
        if feature.rule is not None and feature.rule(state, changed, notes):
            return state, notes
    error = problem(state)
    if error is not None:
        m = nearest_m(state)
        if m is not None:
            state["m"] = m
            notes.append(msg("rule.m_snap", why=error.msg, m=m))
    return state, notes


def nearest_m(state: dict) -> int | None:
    """The m in the field's range nearest to state's m that the schedule accepts (the
    larger one on a tie), or None."""
    f = FIELDS["m"]
    m = state["m"]
    for d in range(1, int(f.high - f.low) + 1):
        for cand in (m + d, m - d):
            if f.low <= cand <= f.high and problem({**state, "m": cand}) is None:
                return cand
    return None


def m_start(state: dict) -> int:
    """The m slider's lowest value: the smallest m the schedule accepts with the rest
    of the state as it is (Megatron's interleaved order: m >= P), so that dragging m
    never offers a value the order refuses (the slider and the chart would disagree
    while the rule put m back). The field's low when no m is accepted (the state is
    invalid for another reason)."""
    if state.get("custom"):  # an order of one's own: its text may be megabytes, never kept as a key
        return _first_m(state)
    # Without one, its text does not matter (and is not kept in the cache).
    return _m_start(tuple(sorted((k, v) for k, v in state.items() if k not in ("m", "order"))))


@lru_cache(maxsize=256)
def _m_start(rest: tuple) -> int:
    """m_start for the state `rest` (every field but m and the order's text): each
    keypress asks it again, and up to 32 configurations are checked (interleaved at P=32)."""
    return _first_m(dict(rest))


def _first_m(state: dict) -> int:
    f = FIELDS["m"]
    for m in range(int(f.low), int(f.high) + 1):
        if problem({**state, "m": m}) is None:
            return m
    return int(f.low)
