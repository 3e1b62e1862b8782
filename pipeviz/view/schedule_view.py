"""The explorer's first feature: the schedule, P, m and V, the costs, the in-flight
unit and the language, and the rule that keeps V and the schedule together.

The rule: a schedule with a fixed V (1 for GPipe, 1F1B and ZB-H1/H2, 2 for the
V-shaped ones) keeps it. Moving V above 1 on 1F1B is the article's step "drag V to 2
or 3": it moves to interleaved 1F1B, which at V = 1 is 1F1B. Choosing interleaved at
V = 1 moves V to 2 (its least V, where it is itself); dragging V back to 1 on it shows
1F1B's order and numbers, and says so.
"""

from __future__ import annotations

from ..config import Config
from ..costs import COST_MIN, Costs
from ..registry import NAMES, SCHEDULES
from ..text import Msg, msg
from .feature import Feature
from .field import Field

# The rule's pair: V > 1 on the first is the second (1F1B is interleaved 1F1B with V = 1).
V_STEP = ("1f1b", "interleaved")

FIELDS = (
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
)
BY_NAME = {f.name: f for f in FIELDS}  # P, m and V's ranges, for the features that follow them


def rule(state: dict, changed: set, notes: list[Msg]) -> bool:
    name, V = state["schedule"], state["V"]
    fixed = SCHEDULES[name].fixed_V
    by_v = "V" in changed and "schedule" not in changed  # the V slider moved, nothing else
    if fixed is not None and V != fixed:
        if by_v and name == V_STEP[0] and V > 1:
            state["schedule"] = V_STEP[1]
            notes.append(msg("rule.to_interleaved", V=V))
        else:
            state["V"] = fixed
            notes.append(msg("rule.v_kept" if by_v else "rule.v_set", name=name, V=fixed))
    elif V < SCHEDULES[name].least_V and "schedule" in changed and "V" not in changed:
        # Chosen at a V where it is another schedule (interleaved at V = 1 is 1F1B): its least V.
        state["V"] = SCHEDULES[name].least_V
        notes.append(msg("rule.v_least", name=name, V=state["V"]))
    elif name == V_STEP[1] and V == 1 and changed & {"V", "schedule"}:
        notes.append(msg("rule.interleaved_v1"))
    return False


def configure(_cfg: Config | None, state: dict) -> Config:
    """The Config the other features refine: the schedule, P, m, V and the costs."""
    return Config(state["schedule"], state["P"], state["m"], state["V"],
                  Costs(state["tf"], state["tb"], state["tw"], state["comm"], state.get("tfb") or None))


FEATURE = Feature(
    name="schedule",
    fields=FIELDS,
    engine_fields=("schedule", "P", "m", "V", "tf", "tb", "tw", "comm", "tfb"),
    rule=rule,
    configure=configure,
    data=lambda: {"vStep": list(V_STEP)},
)
