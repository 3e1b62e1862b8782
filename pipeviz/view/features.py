"""The explorer's features, listed once. Both explorers show exactly these.

Each feature declares what it adds (`view/feature.py`): its fields, its state rule,
its part of the engine's Config, its readouts' markup and its JavaScript's data. The
field table (`view/fields.py`), the state rules (`view/state.py`) and the page's data
(`pipeviz/page.py`) iterate this list; nothing below it imports a feature by name.

The order is the order the rules apply in, and the order of the fields: a puzzle's
rule comes first (while a puzzle is on, it sets the schedule to its par and keeps P,
m and V placeable by hand), then an order of one's own, because while it is shown P,
m and V are its own and the schedules' rules after it do not apply. The puzzle's
fields come last, so that a permalink still opens with the schedule.
"""

from __future__ import annotations

from . import closing, memory_view, own_order, puzzle, run_view, schedule_view, teach, tradeoff
from .feature import Feature

FEATURES: tuple[Feature, ...] = (
    puzzle.RULE,  # a puzzle's rule (view/puzzle.py): first, it puts an order of one's own away
    own_order.FEATURE,  # an order of one's own: view/own_order.py
    schedule_view.FEATURE,  # the schedule, P, m, V, the costs, unit and language
    closing.FEATURE,  # the article's closing section: an encoder in the bubbles, balancing
    memory_view.FEATURE,  # a model: bytes per rank, unequal stages
    teach.FEATURE,  # the teaching toggles: critical path, projector
    tradeoff.FEATURE,  # every schedule and V as a point, time against memory (no fields: it follows the others)
    puzzle.FEATURE,  # a puzzle: the student places the ops; its fields last (in the URL too)
    run_view.FEATURE,  # a real run read from its traces: no fields (files are not a URL), its layouts and data
)
