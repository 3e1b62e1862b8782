"""Each schedule's title, summary, checks and caveats."""

STRINGS = {
    # pipeviz/schedules/gpipe.py
    "sched.gpipe.title": ("GPipe", "GPipe"),
    "sched.gpipe.summary": (
        "all forwards, then all backwards: every rank holds all m activations",
        "先做完全部前向，再做全部反向：每个 rank 都要攒着全部 m 份激活",
    ),
    # pipeviz/schedules/one_f_one_b.py
    "sched.1f1b.title": ("1F1B", "1F1B"),
    "sched.1f1b.summary": (
        "warm-up, then one forward and one backward: at most P-r activations on rank r",
        "先 warmup，之后一个前向接一个反向：rank r 最多攒 P-r 份激活",
    ),
    # pipeviz/schedules/interleaved.py
    "sched.interleaved.title": ("Interleaved 1F1B", "Interleaved 1F1B"),
    "sched.interleaved.summary": (
        "V chunks per rank (Megatron's order): the fill shrinks V-fold, warm-up memory grows",
        "每个 rank 放 V 个虚拟段（Megatron 的顺序）：灌满时间缩到 1/V，warmup 攒的激活变多",
    ),
    "interleaved.pytorch": (
        "PyTorch's order (ScheduleInterleaved1F1B: one round of all m = {m} micro-batches); Megatron-core "
        "refuses m < P = {P}, and from m = {P} on the order is Megatron's",
        "PyTorch 的顺序（ScheduleInterleaved1F1B：全部 m = {m} 个微批次为一轮）；Megatron-core 不接受 "
        "m < P = {P}，m >= {P} 时用 Megatron 的顺序",
    ),
    "interleaved.G_range": (
        "interleaved group size G must satisfy P <= G <= m, here {P} <= G <= {m}; got G={G}",
        "interleaved 的分组大小 G 须满足 P <= G <= m，这里是 {P} <= G <= {m}；实际 G={G}",
    ),
    "interleaved.G_last": (
        "interleaved G={G} leaves a last group of {rest} micro-batches, fewer than P={P} "
        "(Megatron-core rejects it); use a G that divides m={m} or leaves at least {P}",
        "interleaved 的 G={G} 会留下只有 {rest} 个微批次的最后一组，少于 P={P}（Megatron-core 不接受）；"
        "请用能整除 m={m} 的 G，或让最后一组至少有 {P} 个",
    ),
    # pipeviz/schedules/looped_bfs.py
    "sched.looped-bfs.title": ("Looped BFS", "Looped BFS"),
    "sched.looped-bfs.summary": (
        "V chunks per rank, breadth first (PyTorch's order): each rank holds all m activations",
        "每个 rank 放 V 个块，广度优先（PyTorch 的顺序）：每个 rank 攒全部 m 份激活",
    ),
    # pipeviz/schedules/zb_h1.py
    "sched.zb-h1.title": ("ZB-H1", "ZB-H1"),
    "sched.zb-h1.summary": (
        "1F1B with W split off the backward: W's fill the drain at 1F1B's memory",
        "1F1B 把 W 从反向里拆出来：W 填进排空阶段，显存与 1F1B 相同",
    ),
    "zb-h1.few_m": (
        "with m = {m} < P = {P} the steady state never starts, so too few W's are pending to fill "
        "the drain; the closed form holds for m >= P",
        "m = {m} < P = {P} 时进不了稳态，攒下的 W 太少，填不满排空阶段；闭式公式在 m >= P 时成立",
    ),
    "zb-h1.big_w": (
        "t_w = {tw} is more than t_f = {tf} or t_b = {tb}: a W no longer fits in the wait it fills, "
        "so the W's push the cool-down out; the closed form holds for t_w <= min(t_f, t_b)",
        "t_w = {tw} 大于 t_f = {tf} 或 t_b = {tb}：一个 W 塞不进它要填的等待，W 会把收尾推后；"
        "闭式公式在 t_w <= min(t_f, t_b) 时成立",
    ),
    # pipeviz/schedules/zb_h2.py
    "sched.zb-h2.title": ("ZB-H2", "ZB-H2"),
    "sched.zb-h2.summary": (
        "up to 2P-1 micro-batches in flight: W's fill warm-up and drain, zero steady bubble",
        "最多 2P-1 份在途激活：W 填满 warmup 和排空，稳态气泡为零",
    ),
    "zb-h2.few_m": (
        "with m = {m} < P = {P} the pipeline never fills; the closed form holds for m >= P",
        "m = {m} < P = {P} 时流水线灌不满；闭式公式在 m >= P 时成立",
    ),
    "zb-h2.few_steady": (
        "m = {m} < 2P-1 = {cap}: too few micro-batches to keep 2P-1 in flight",
        "m = {m} < 2P-1 = {cap}：微批次太少，攒不满 2P-1 份在途激活",
    ),
    # pipeviz/schedules/zb_v.py
    "sched.zb-v.title": ("ZB-V", "ZB-V"),
    "sched.zb-v.summary": (
        "two chunks per rank in a V: about zero bubble at about P micro-batches on every rank",
        "每个 rank 按 V 形放两个块：气泡约为零，每个 rank 约攒 P 份激活",
    ),
    "zb-v.few_m": (
        "m = {m} < 2P-1 = {need} micro-batches cannot fill the V; the lower bound is met for m >= 2P-1",
        "m = {m} < 2P-1 = {need} 个微批次填不满这个 V；m >= 2P-1 时才能达到下界",
    ),
    # pipeviz/schedules/v_half.py
    "sched.v-half.title": ("V-Half", "V-Half"),
    "sched.v-half.summary": (
        "a V holding half of 1F1B's activations, for about half its bubble",
        "V 形调度，只攒 1F1B 一半的激活，气泡约为其一半",
    ),
    "v-half.estimate": (
        "the closed form is the authors' estimate at t_f = t_b = t_w (half of 1F1B's bubble, "
        "(P+2)//2 = {peak} micro-batches at the peak); the order comes from greedy passes over a repeated "
        "building block, so it is only approximate",
        "闭式公式是作者在 t_f = t_b = t_w 时的估计（气泡为 1F1B 的一半，峰值 (P+2)//2 = {peak} 份微批次）；"
        "顺序来自对重复构建块的贪心调整，所以只是近似",
    ),
    # pipeviz/schedules/v_min.py
    "sched.v-min.title": ("V-Min", "V-Min"),
    "sched.v-min.summary": (
        "a V holding a third of 1F1B's activations, for about two thirds of its bubble",
        "V 形调度，只攒 1F1B 三分之一的激活，气泡约为其三分之二",
    ),
    "v-min.estimate": (
        "the closed form is the authors' estimate at t_f = t_b = t_w (two thirds of 1F1B's bubble plus an "
        "overhead, (P+4)//3 = {peak} micro-batches at the peak); the order comes from greedy passes over a "
        "repeated building block, so it is only approximate",
        "闭式公式是作者在 t_f = t_b = t_w 时的估计（气泡为 1F1B 的三分之二再加一点开销，峰值 (P+4)//3 = {peak} "
        "份微批次）；顺序来自对重复构建块的贪心调整，所以只是近似",
    ),
    # pipeviz/schedules/dualpipe_v.py
    "sched.dualpipe-v.title": ("DualPipe-V", "DualPipe-V"),
    "sched.dualpipe-v.summary": (
        "DeepSeek's V: overlapped forward & backward pairs, 2P+1 chunks in flight on every rank",
        "DeepSeek 的 V 形调度：前向与反向成对重叠，每个 rank 攒 2P+1 块激活",
    ),
    "dualpipe-v.deepseek": ("DeepSeek's bubble", "DeepSeek 给出的气泡"),
    "dualpipe-v.f_ne_b": (
        "DeepSeek's count takes a forward to cost what an input-gradient backward costs (t_f = t_b; here "
        "{tf} and {tb}): otherwise the fill and the drain wait a different time; it holds for t_f = t_b",
        "DeepSeek 的算法默认前向与对输入的反向一样长（t_f = t_b；这里是 {tf} 和 {tb}）：否则灌满与排空的等待不同；"
        "在 t_f = t_b 时成立",
    ),
    "dualpipe-v.big_w": (
        "t_w = {tw} is more than t_f = t_b = {tf}: a W of step 3 no longer fits in the wait it fills; "
        "DeepSeek's bubble holds for t_w <= t_f",
        "t_w = {tw} 大于 t_f = t_b = {tf}：第 3 步的 W 塞不进它要填的等待；DeepSeek 的气泡在 t_w <= t_f 时成立",
    ),
    "dualpipe-v.fast_fb": (
        "t_fb = {tfb} is less than t_f + t_w = {least}: the overlapped pairs finish before their "
        "neighbours can feed them, so ranks wait inside the steady state; DeepSeek's bubble holds for t_fb >= t_f + t_w",
        "t_fb = {tfb} 小于 t_f + t_w = {least}：重叠的前向与反向做完时，相邻 rank 还喂不上，所以稳态里也在等；"
        "DeepSeek 的气泡在 t_fb >= t_f + t_w 时成立",
    ),
    "dualpipe-v.m_below_2P": (
        "DualPipe-V needs m >= 2P micro-batches (DeepSeek's rule): with P = {P}, use m >= {need} (got m = {m})",
        "DualPipe-V 需要 m >= 2P 个微批次（DeepSeek 的规定）：P = {P} 时请用 m >= {need}（实际 m = {m}）",
    ),
}
