"""The rules that keep the explorer's state valid, shared by both explorers.

`normalize(state, changed)` takes the state after a change (a widget moved, a
preset, a URL) and returns a state the engine accepts, with a note for each thing it
adjusted. The explorers show the notes until the next change, never an invalid
chart, and never write an invalid state to the URL.

1. V and the schedule. A schedule with a fixed V (1 for GPipe, 1F1B and ZB-H1/H2,
   2 for the V-shaped ones) keeps it. Moving V above 1 on 1F1B is the article's
   step "drag V to 2 or 3": it moves to interleaved 1F1B, which at V = 1 is 1F1B.
   Interleaved at V = 1 shows 1F1B's order and numbers, and says so.
2. An order of one's own (view/own_order.py): while it is shown, P, m and V follow
   it and the rules below do not apply; moving the schedule, P, m or V goes back.
3. The encoder. Moving e_f, e_b or frozen with no encoder puts one in the bubbles:
   a reader who drags e_f wants to see it.
4. m. Where the schedule refuses m (Megatron's interleaved order needs m >= P),
   m moves to the nearest value it accepts, and the note gives the rule.
5. The model. A preset sets its shape; changing the shape makes it custom
   (`memory_view.normalize`).
"""

from __future__ import annotations

from ..config import Config
from ..costs import Costs
from ..encoder import Encoder
from ..errors import ConfigError
from ..registry import SCHEDULES, check
from ..text import Msg, msg
from . import memory_view, own_order
from .fields import FIELDS, NO_ENCODER

# The fields the engine reads (config(), and an order of one's own): a change to any
# other field (unit, lang) redraws without running the engine.
ENGINE_FIELDS = ("schedule", "P", "m", "V", "tf", "tb", "tw", "comm", "tfb", "encoder", "ef", "eb", "frozen", "balance",
                 *own_order.OWN_FIELDS, *memory_view.ENGINE_FIELDS)
# Rule 3: moving one of these with no encoder runs the encoder with this placement.
ENCODER_KNOBS = ("ef", "eb", "frozen")
ENCODER_ON = "bubbles"
# Rule 1's pair: V > 1 on the first is the second (1F1B is interleaved 1F1B with V = 1).
V_STEP = ("1f1b", "interleaved")
# Both explorers refresh the comparison table, the sweep and the URL this long after a
# change (once, however many changes come in between): the chart and its readout are
# sent and painted first, and a drag is not slowed by them (benchmarks/app.py, page.py).
# The table's engine runs go one per slice (pipeviz/slicing.py), so a key waits for one run,
# not all of them.
LATER_MS = 120


def config(state: dict) -> Config:
    """The engine configuration a state shows (ConfigError if it has none)."""
    cfg = Config(state["schedule"], state["P"], state["m"], state["V"],
                 Costs(state["tf"], state["tb"], state["tw"], state["comm"], state.get("tfb") or None),
                 encoder=encoder_of(state), balance="bpipe" if state["balance"] else None)
    return memory_view.with_weights(cfg, state)


def encoder_of(state: dict) -> Encoder | None:
    """The encoder a state runs: none, or e_f, e_b, placement and frozen."""
    if state["encoder"] == NO_ENCODER:
        return None
    return Encoder(state["ef"], state["eb"], state["encoder"], state["frozen"])


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
    own, notes = own_order.rule(state, changed)  # an order of one's own: P, m, V follow it
    if own:
        return state, notes
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
    elif name == V_STEP[1] and V == 1 and changed & {"V", "schedule"}:
        notes.append(msg("rule.interleaved_v1"))
    if state["encoder"] == NO_ENCODER and changed & set(ENCODER_KNOBS) and "encoder" not in changed:
        state["encoder"] = ENCODER_ON
        notes.append(msg("rule.encoder_on"))
    memory_view.normalize(state, changed, notes)  # 5. a model preset and its shape
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
