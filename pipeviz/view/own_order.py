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

import numpy as np

from ..custom import Stuck, read_cached, run_cached
from ..engine import Result
from ..errors import OrderError
from ..order import PLACEMENTS
from ..text import Msg, fill, msg
from .fields import FIELDS, Field, register
from .palette import DISPLAY_KIND, MAX_CHUNKS

register(
    Field(name="order", kind="text", default="", in_url=False),
    Field(name="placement", kind="choice", default="loop", choices=PLACEMENTS, in_url=False),
    Field(name="custom", kind="bool", default=False, in_url=False),
)

OWN_FIELDS = ("order", "placement", "custom")
LEAVE = {"schedule", "P", "m", "V"}  # moving one of these goes back to the schedules


def shown(state: dict) -> bool:
    return bool(state.get("custom"))


def rule(state: dict, changed: set) -> tuple[bool, list[Msg]]:
    """Apply the rule to `state` (in place). True when the order is shown, so the
    schedules' own rules do not apply."""
    if not shown(state):
        return False, []
    if changed & LEAVE and not changed & set(OWN_FIELDS):
        state["custom"] = False
        return False, [msg("rule.custom_off")]
    try:
        order = read_cached(state.get("order", ""), state.get("placement", "loop"))
    except OrderError:
        return True, []  # the explorer says what is wrong with it
    for key, value in (("P", order.P), ("m", order.m), ("V", order.chunks_per_rank)):
        f = FIELDS[key]
        if f.low <= value <= f.high:
            state[key] = value
    return True, []


def run(state: dict, costs) -> Result:
    """The order's result (an OrderError if it is not a valid order)."""
    return run_cached(state.get("order", ""), state.get("placement", "loop"), costs)


def stuck_columns(res: Result, row: float, lang: str = "en") -> dict:
    """Where a deadlocked order stuck: each stuck rank's next op, drawn after its last
    op that ran in the op's colour, and what it waits for written beside it."""
    from .columns import chunk_of_stage  # columns imports this module

    s: Stuck | None = getattr(res, "stuck", None)
    if s is None:
        empty = np.zeros(0)
        return {"left": empty, "right": empty, "top": empty, "bottom": empty, "rank": empty, "color": empty,
                "x": empty, "y": empty, "op": [], "waits": [], "label": []}
    r = s.rank.astype(np.float64)
    color = DISPLAY_KIND[s.kind] * MAX_CHUNKS + chunk_of_stage(res, s.stage)
    waits = [fill("own.waits", lang, op=w, rank=wr) for w, wr in zip(s.waits, s.waits_rank.tolist())]
    label = [fill("own.waits_label", lang, op=t, dep=d, rank=wr)
             for t, d, wr in zip(s.token, s.waits_token, s.waits_rank.tolist())]
    return {"left": s.left, "right": s.right, "top": r - row, "bottom": r + row, "rank": r,
            "color": color.astype(np.float64), "x": s.right, "y": r, "op": list(s.op), "waits": waits,
            "label": label}


def readout_values(res: Result) -> dict:
    """What the readout says of an order of one's own (no closed form)."""
    deadlock = getattr(res, "deadlock", None)
    return {
        "P": res.config.P, "m": res.config.m, "V": res.config.V, "placement": res.schedule.placement,
        "deadlock": deadlock is not None,
    }


def verdict(v: dict) -> Msg:
    return msg("own.shown", P=v["P"], m=v["m"], V=v["V"], placement=v["placement"])
