"""The trade-off view: every schedule and V as a point, time against memory."""

STRINGS = {
    # pipeviz/view/tradeoff.py
    "tradeoff.title": ("Trade-off: time against memory", "权衡：时间与显存"),
    "tradeoff.axis_gib": ("peak memory of the tightest rank (GiB)", "最紧张 rank 的显存峰值（GiB）"),
    "tradeoff.axis_mb": ("peak in flight on the tightest rank (micro-batches)", "最紧张 rank 的在途峰值（微批次）"),
    "tradeoff.axis_y": ("makespan (one iteration)", "一次迭代的总时长"),
    "tradeoff.hover_schedule": ("schedule", "调度"),
    "tradeoff.hover_makespan": ("makespan", "总时长"),
    "tradeoff.hover_bubble": ("bubble", "气泡"),
    "tradeoff.hover_memory": ("peak", "峰值"),
    "tradeoff.hover_mark": ("marks", "标记"),
    "tradeoff.fits": ("fits", "放得下"),
    "tradeoff.over": ("over HBM", "超出显存"),
    "tradeoff.front": ("Pareto front", "帕累托前沿"),
    "tradeoff.hbm": ("HBM {v} GiB", "显存 {v} GiB"),
    "tradeoff.key": (
        "Each point is a schedule at one V, at P = {P}, m = {m} and these costs; filled points fit in HBM, hollow "
        "ones do not; outlined in black and joined by the line: the Pareto front (no point is as fast and as "
        "light); ringed: the schedule shown. Tap or click a point to show that schedule.",
        "每个点是一个调度在某个 V 下的结果，P = {P}，m = {m}，开销同上；实心点放得下显存，空心点放不下；"
        "黑色描边并由折线相连的是帕累托前沿（没有别的点同样快又同样省）；圆环：当前显示的调度。点选一个点即切换到该调度。",
    ),
    "tradeoff.key_no_model": (
        "Each point is a schedule at one V, at P = {P}, m = {m} and these costs; outlined in black and joined by "
        "the line: the Pareto front (no point is as fast and as light); ringed: the schedule shown. Choose a model "
        "(Model and memory) for GiB and the HBM line. Tap or click a point to show that schedule.",
        "每个点是一个调度在某个 V 下的结果，P = {P}，m = {m}，开销同上；黑色描边并由折线相连的是帕累托前沿"
        "（没有别的点同样快又同样省）；圆环：当前显示的调度。选择模型（模型与显存）可改用 GiB 并显示显存线。"
        "点选一个点即切换到该调度。",
    ),
    "tradeoff.caveat": (
        "Equal devices, not equal stages: every point runs on the same P ranks. Interleaved and Looped BFS at V, "
        "and the V-shaped ZB-V, V-Half, V-Min and DualPipe-V (V = 2), cut the model into V·P stages, V per rank, so "
        "each rank holds the same layers in smaller pieces. Tables that compare equal stages instead (DeepSeek's: "
        "PP stages on PP/2 devices for DualPipe-V) give DualPipe-V twice the parameters per device; here its "
        "parameters per rank are 1F1B's.",
        "设备数相同，而非段数相同：所有点都在同样的 P 个 rank 上运行。交错式和 Looped BFS 取 V 时，以及 V 形的 "
        "ZB-V、V-Half、V-Min 和 DualPipe-V（V = 2），把模型切成 V·P 段、每个 rank V 段，每个 rank 持有的层数不变，"
        "只是切得更细。按段数相同比较的表格（如 DeepSeek 的表：DualPipe-V 用一半的卡放同样多的段）"
        "会得出 DualPipe-V 每张卡的参数翻倍；这里它每个 rank 的参数与 1F1B 相同。",
    ),
    "tradeoff.computing": ("Computing: {done} of {n} points shown so far.", "计算中：已显示 {n} 个点中的 {done} 个。"),
    "tradeoff.refused": ("{n} configurations refused, absent from the chart:", "{n} 个配置被拒绝，图中没有它们："),
    "tradeoff.refused_one": ("{name} V={Vs}: {why}", "{name} V={Vs}：{why}"),
    "tradeoff.problem": ("The trade-off cannot be drawn: {why}", "无法绘制权衡图：{why}"),
    "tradeoff.not_shown": (
        "The order shown is your own: it is not one of the points.", "当前显示的是你自己的调度顺序，它不在这些点中。"),
    "tradeoff.pending": ("not computed yet", "尚未计算"),
}
