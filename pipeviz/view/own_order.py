"""The explorer's side of bring-your-own-order (the logic is `pipeviz.custom`): its
fields, its state rule, what the figures and readouts show for it.

Fields (none in the URL: an order does not fit one):
  order      the pasted text (action notation or the JSON export)
  placement  loop or v
  custom     show the order instead of the chosen schedule

State rule: while `custom` is on, P, m and V follow the order (P its ranks, m read
from it, V its chunks per rank) where the sliders reach them; moving the schedule,
P, m or V turns it off and goes back to the schedules, with a note. Costs apply to
the order as to any schedule.
"""

from __future__ import annotations

from ..custom import read_cached, run_cached
from ..engine import Result
from ..errors import OrderError
from ..order import PLACEMENTS
from ..text import Msg, msg
from .feature import Feature
from .field import Field
from .schedule_view import BY_NAME

FIELDS = (
    Field(name="order", kind="text", default="", in_url=False),
    Field(name="placement", kind="choice", default="loop", choices=PLACEMENTS, in_url=False),
    Field(name="custom", kind="bool", default=False, in_url=False),
)
OWN_FIELDS = tuple(f.name for f in FIELDS)
LEAVE = {"schedule", "P", "m", "V"}  # moving one of these goes back to the schedules


def shown(state: dict) -> bool:
    return bool(state.get("custom"))


def rule(state: dict, changed: set, notes: list[Msg]) -> bool:
    """Apply the rule to `state` (in place). True when the order is shown, so the
    schedules' own rules do not apply."""
    if not shown(state):
        return False
    if changed & LEAVE and not changed & set(OWN_FIELDS):
        state["custom"] = False
        notes.append(msg("rule.custom_off"))
        return False
    try:
        order = read_cached(state.get("order", ""), state.get("placement", "loop"))
    except OrderError:
        return True  # the explorer says what is wrong with it
    for key, value in (("P", order.P), ("m", order.m), ("V", order.chunks_per_rank)):
        f = BY_NAME[key]
        if f.low <= value <= f.high:
            state[key] = value
    return True


def run(state: dict, costs) -> Result:
    """The order's result (an OrderError if it is not a valid order)."""
    return run_cached(state.get("order", ""), state.get("placement", "loop"), costs)


# First in the explorer's list: while the order is shown, the rules after it do not apply.
def as_data() -> dict:
    """The rule's fields for the page's twin (static/state.js)."""
    return {"ownFields": list(OWN_FIELDS), "leave": sorted(LEAVE)}


FEATURE = Feature(name="own_order", fields=FIELDS, engine_fields=OWN_FIELDS, rule=rule, data=as_data)
