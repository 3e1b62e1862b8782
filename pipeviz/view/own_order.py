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
from ..text import Msg, fill, msg, strings
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


strings({
    "own.title": ("Your own order", "你自己的顺序"),
    "own.note": (
        "One line per rank, in execution order, in PyTorch's action notation: stage, kind, micro-batch, with "
        "kind F, B (full backward), I (input gradient) or W (weight gradient), e.g. 0F0 0F1 1B0; an overlapped "
        "pair is 0F3&5B1; # starts a comment. Or paste the JSON export. P is the number of lines and m is read "
        "from the order.",
        "每个 rank 一行，按执行顺序，用 PyTorch 的动作写法：段号、类型、微批次号，类型为 F、B（完整反向）、"
        "I（对输入的梯度）或 W（对权重的梯度），如 0F0 0F1 1B0；重叠的一对写作 0F3&5B1；# 开头是注释。"
        "也可以粘贴导出的 JSON。P 是行数，m 从顺序里读出。",
    ),
    "field.order": ("Order (one line per rank)", "顺序（每个 rank 一行）"),
    "field.placement": ("Placement", "放置方式"),
    "field.custom": ("Show my order", "显示我的顺序"),
    "choice.placement.loop": ("loop: stage s on rank s mod P", "循环：第 s 段在 rank s mod P"),
    "choice.placement.v": ("v: rank r holds r and 2P-1-r", "V 形：rank r 放第 r 和 2P-1-r 段"),
    "own.edit": ("Edit this schedule", "修改这个调度"),
    "own.placeholder": ("0F0 0F1 0B0 0F2 0B1 0B2\n1F0 1B0 1F1 1B1 1F2 1B2",
                        "0F0 0F1 0B0 0F2 0B1 0B2\n1F0 1B0 1F1 1B1 1F2 1B2"),
    "rule.custom_off": ("back to the schedules: your order stays in its box", "回到调度：你的顺序还留在框里"),
    "own.shown": (
        "Your order: P = {P} (its lines), m = {m} (read from it), V = {V} chunks per rank, placement {placement}; "
        "no closed form",
        "你的顺序：P = {P}（行数），m = {m}（从顺序读出），每个 rank V = {V} 块，{placement} 放置；没有闭式公式",
    ),
    "own.bubble": ('Bubble (one iteration): <b class="pv-sim">{sim} simulated</b>',
                   '气泡占比（单次迭代）：<b class="pv-sim">模拟 {sim}</b>'),
    "own.deadlock": (
        '<b class="pv-sim">Deadlock</b>: the ops that ran are drawn; each stuck op is outlined, labelled with what it '
        "waits for",
        '<b class="pv-sim">死锁</b>：图上画的是已经运行的操作；卡住的操作加了边框，并标出它在等什么',
    ),
    "own.deadlock_row": ("deadlock: see the chart", "死锁：见上图"),
    "hover.stuck": ("stuck", "卡住"),
    "own.waits": ("{op} on rank {rank}", "rank {rank} 上的 {op}"),
    "own.waits_label": ("{op} waits for {dep} on rank {rank}", "{op} 在等 rank {rank} 上的 {dep}"),
    "hover.waits": ("waits for", "在等"),
})
