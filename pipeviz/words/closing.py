"""The article's closing section: an encoder in the bubbles, activation balancing."""

STRINGS = {
    # pipeviz/view/closing.py
    "cl.encoder": (
        "Encoder ({place}): makespan <b>{makespan}</b> ({pipeline} without it) · exposed encoder time <b>{exposed}</b>"
        " · encoder work hidden <b>{hidden}</b> · bubble filled <b>{filled}</b>",
        "编码器（{place}）：总时长 <b>{makespan}</b>（不带编码器 {pipeline}）· 暴露在外的编码器时间 <b>{exposed}</b>"
        " · 藏进气泡的编码器计算 <b>{hidden}</b> · 被填上的气泡 <b>{filled}</b>",
    ),
    "cl.fit": (
        "in the bubbles: {fit_f} of {others_f} forwards and {fit_b} of {others_b} backwards beyond the first slots; "
        "{rounds_f} prologue and {rounds_b} epilogue slot(s)",
        "塞进气泡的：首轮之外的 {others_f} 个前向里 {fit_f} 个、{others_b} 个反向里 {fit_b} 个；"
        "前面 {rounds_f} 轮、后面 {rounds_b} 轮",
    ),
    "cl.fit_frozen": (
        "in the bubbles: {fit_f} of {others_f} forwards beyond the first slot (frozen: no backward, {fit_b} of "
        "{others_b}); {rounds_f} prologue slot(s), {rounds_b} epilogue",
        "塞进气泡的：首轮之外的 {others_f} 个前向里 {fit_f} 个（冻结：没有反向，{others_b} 个里 {fit_b} 个）；"
        "前面 {rounds_f} 轮，后面 {rounds_b} 轮",
    ),
    "cl.fit_none": (
        "m ≤ P: every encoder op runs in the first slot before or after the pipeline, as separate places it",
        "m ≤ P：所有编码器操作都在流水线前后的首轮里，和单独跑一样",
    ),
    "cl.balance": (
        "Balanced (BPipe): rank 0 keeps <b>{rank0}</b> micro-batches ({rank0_before} before); the most any rank "
        "holds is <b>{most}</b> ({most_before} before) · <b>{transfers}</b> activation transfers per iteration "
        "(micro-batch equivalents) · the timeline is unchanged",
        "均衡后（BPipe）：rank 0 留 <b>{rank0}</b> 份微批次的激活（均衡前 {rank0_before}）；单卡最多 <b>{most}</b>"
        "（均衡前 {most_before}）· 每次迭代搬运激活 <b>{transfers}</b> 次（按微批次计）· 时间线不变",
    ),
    "cl.balance_none": (
        "Balanced (BPipe): nothing to move: no front rank holds more than its partner (rank P-1-r)",
        "均衡（BPipe）：没有可搬的：前面的 rank 都不比配对的 rank P-1-r 攒得多",
    ),
    "cl.places": ("The three placements at these settings", "这组设置下的三种放置方式"),
    "cl.th.place": ("encoder placement", "编码器放置"),
    "cl.th.makespan": ("makespan", "总时长"),
    "cl.th.pipeline": ("without the encoder", "不带编码器"),
    "cl.th.exposed": ("exposed encoder time", "暴露的编码器时间"),
    "cl.th.hidden": ("encoder work hidden", "藏进气泡的编码器计算"),
    "cl.th.filled": ("bubble filled", "被填上的气泡"),
    "cl.why": (
        "In the bubbles only one e_f slot before the pipeline and one e_b slot after it are exposed; every other "
        "encoder op runs in an idle gap before its forward (or after its backward). The gain shrinks when they no "
        "longer fit: a large e_f sends forwards into further rounds before the pipeline, as separate does, and with "
        "m ≤ P every encoder op is in the first slots, so bubbles is separate.",
        "塞进气泡时只有流水线之前的一个 e_f 和之后的一个 e_b 暴露在外；其余编码器操作都放进它的前向之前"
        "（或反向之后）的空闲里。放不下时收益就变小：e_f 太大时前向被挤到流水线之前的更多轮里，和单独跑一样；"
        "m ≤ P 时所有编码器操作都在首轮里，塞进气泡就等于单独跑。",
    ),
}
