"""An order of one's own: its card, readout and deadlock words."""

STRINGS = {
    # pipeviz/view/own_order.py
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
    "own.back": ("Back to the schedules", "回到调度"),
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
}
