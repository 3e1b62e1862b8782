"""A real run read from its profiler traces (pipeviz/trace): what is wrong with the
files, where the step loses time, what the stages cost."""

STRINGS = {
    # pipeviz/trace/stream.py: the file itself
    "trace.open": ("cannot read {file}: {why}", "无法读取 {file}：{why}"),
    "trace.gzip": ("{file} looks like gzip but does not decompress: it is cut short or damaged",
                   "{file} 看起来是 gzip 文件，但无法解压：文件不完整或已损坏"),
    "trace.not_text": ("{file} is not a trace: it is not UTF-8 text (a Chrome trace is JSON, or JSON in gzip)",
                       "{file} 不是跟踪文件：它不是 UTF-8 文本（Chrome 跟踪文件是 JSON，或 gzip 压缩的 JSON）"),
    "trace.empty": ("{file} is empty: a Chrome trace is a JSON object with a traceEvents list",
                    "{file} 是空的：Chrome 跟踪文件是一个带 traceEvents 列表的 JSON 对象"),
    "trace.not_json": (
        "{file} is not a trace: it is not valid JSON (a Chrome trace is one JSON object with a traceEvents list, "
        "as torch.profiler's export_chrome_trace writes it)",
        "{file} 不是跟踪文件：它不是合法的 JSON（Chrome 跟踪文件是一个带 traceEvents 列表的 JSON 对象，"
        "即 torch.profiler 的 export_chrome_trace 写出的格式）",
    ),
    "trace.truncated": ("{file} is cut short: its JSON ends before the trace closes (was it still being written?)",
                        "{file} 不完整：JSON 在跟踪文件结束之前就断了（写入时被中断了吗？）"),
    "trace.no_events": ("{file} is JSON but not a Chrome trace: it has no traceEvents list",
                        "{file} 是 JSON，但不是 Chrome 跟踪文件：里面没有 traceEvents 列表"),
    # pipeviz/trace/read.py: what the events say
    "trace.no_ops": (
        "{file} holds no pipeline ops: no PP: actions of PyTorch's pipeline runtime and no Forward i / Backward i; "
        "for other names give --pattern",
        "{file} 里没有流水线操作：既没有 PyTorch 流水线运行时的 PP: 动作，也没有 Forward i / Backward i；"
        "其他命名请用 --pattern 指定",
    ),
    "trace.no_ops_named": (
        "{file} holds no pipeline ops (no PP: actions, no Forward i / Backward i); its annotated regions are named "
        "like {names}: give --pattern to read them",
        "{file} 里没有流水线操作（没有 PP: 动作，也没有 Forward i / Backward i）；它标注的区域名字形如 {names}："
        "请用 --pattern 来读取",
    ),
    "trace.overlap": ("{file}: {name} overlaps other actions than one forward and one full backward",
                      "{file}：{name} 重叠的不是一个前向加一个完整反向"),
    "trace.too_many": ("the traces hold more than {max} pipeline ops and actions; pipeviz reads fewer",
                       "这些跟踪文件中的流水线操作和动作超过 {max} 个；pipeviz 读取不了这么多"),
    "trace.no_files": ("give one trace file per rank", "请为每个 rank 给出一个跟踪文件"),
    "trace.too_many_files": ("{n} trace files: pipeviz reads at most {max} ranks",
                             "{n} 个跟踪文件：pipeviz 最多读取 {max} 个 rank"),
    "trace.ranks_count": ("--ranks gives {given} ranks for {n} files: give one rank per file, in the files' order",
                          "--ranks 为 {n} 个文件给了 {given} 个 rank：请按文件顺序为每个文件给一个 rank"),
    "trace.ranks_perm": ("--ranks {ranks} must name each rank 0..{last} once",
                         "--ranks {ranks} 必须把 0..{last} 每个 rank 各写一次"),
    "trace.offsets_count": ("--offsets gives {given} clock offsets for {n} ranks: give one per rank (ms, rank 0 first)",
                            "--offsets 为 {n} 个 rank 给了 {given} 个时钟偏移：请每个 rank 给一个（毫秒，从 rank 0 开始）"),
    "trace.offset": ("clock offset {value} must be a number of ms between -{max} and {max}",
                     "时钟偏移 {value} 必须是 -{max} 到 {max} 之间的毫秒数"),
    "trace.rank_unknown": ("{file} does not say its rank (no distributedInfo.rank) but {other} does: give every "
                           "file's rank with --ranks",
                           "{file} 没有写明自己的 rank（没有 distributedInfo.rank），而 {other} 写了："
                           "请用 --ranks 给出每个文件的 rank"),
    "trace.same_rank": ("{file} and {other} both say they are rank {rank}: give each one trace per rank, or their "
                        "ranks with --ranks",
                        "{file} 和 {other} 都说自己是 rank {rank}：请每个 rank 只给一个跟踪文件，或用 --ranks 指明它们的 rank"),
    "trace.overlap_ops": ("{file}: {a} and {b} overlap in time; each op must be one region (narrow the pattern?)",
                          "{file}：{a} 和 {b} 在时间上重叠；每个操作必须是一个单独的区域（是否需要收紧 pattern？）"),
    "trace.stages": ("the traces run stages 0..{last}: {S} stages do not divide among {P} ranks (is a rank's file "
                     "missing?)",
                     "这些跟踪文件运行了第 0..{last} 段：{S} 个段无法平均分给 {P} 个 rank（是否缺了某个 rank 的文件？）"),
    "trace.placement": ("{file} is rank {rank} but runs stage {stage}, which lives on rank {home} (stage s on rank "
                        "s mod {P}): check the files' ranks (--ranks)",
                        "{file} 是 rank {rank}，却运行了第 {stage} 段，而该段在 rank {home} 上（第 s 段在 rank s mod {P}）："
                        "请检查文件的 rank（--ranks）"),
    "trace.placement_v": ("{file} is rank {rank} but runs stage {stage}, which lives on rank {home} in the loop "
                          "placement and on rank {home_v} in the V: check the files' ranks (--ranks)",
                          "{file} 是 rank {rank}，却运行了第 {stage} 段，而该段在循环放置下属于 rank {home}，"
                          "在 V 形放置下属于 rank {home_v}：请检查文件的 rank（--ranks）"),
    "trace.placement_mixed": ("the traces fit neither placement: {file} runs stage {stage} on rank {rank}, {other} "
                              "stage {stage2} on rank {rank2}",
                              "这些跟踪文件两种放置方式都不符合：{file} 在 rank {rank} 上运行第 {stage} 段，"
                              "{other} 在 rank {rank2} 上运行第 {stage2} 段"),
    "trace.disagree": ("the ranks' traces do not make one whole step: {why}", "各 rank 的跟踪文件拼不成完整的一步：{why}"),
    "trace.deadlock": ("the ranks' traces do not make one step that can run: {why}",
                       "各 rank 的跟踪文件拼不成可以运行的一步：{why}"),
    # pipeviz/trace/names.py: the user's pattern
    "trace.pattern_length": ("--pattern must be 1 to {max} characters", "--pattern 的长度必须在 1 到 {max} 个字符之间"),
    "trace.pattern_slot": ("--pattern {pattern}: {slot} is not a slot; the slots are {slots}, each at most once, "
                           "and * matches any text",
                           "--pattern {pattern}：{slot} 不是可用的槽位；槽位是 {slots}，每个最多一次，* 匹配任意文本"),
    "trace.pattern_needs": ("--pattern {pattern} needs the slots {slots} ({stage} too, unless the stage is the "
                            "rank's own); * matches any text",
                            "--pattern {pattern} 需要槽位 {slots}（除非段号就是 rank 本身，还需要 {stage}）；* 匹配任意文本"),
    "trace.pattern_stars": ("--pattern {pattern} has more than {max} *", "--pattern {pattern} 里的 * 超过 {max} 个"),
    "trace.pattern_kinds": ("--pattern-kinds: {item} is not word=KIND with KIND one of {kinds}",
                            "--pattern-kinds：{item} 不是 词=类型 的形式，类型须为 {kinds} 之一"),
    # pipeviz/trace/report.py: where the step loses time
    "trace.gap.recv": ("rank {rank} waits {ms} ms for {comm} from rank {peer} that the model does not have "
                       "(before {op})",
                       "rank {rank} 为来自 rank {peer} 的 {comm} 多等了 {ms} ms，这是模型里没有的（在 {op} 之前）"),
    "trace.gap.send": ("rank {rank} waits {ms} ms in {comm} to rank {peer} that the model does not have "
                       "(before {op})",
                       "rank {rank} 在发往 rank {peer} 的 {comm} 上多等了 {ms} ms，这是模型里没有的（在 {op} 之前）"),
    "trace.gap.book": ("rank {rank} waits {ms} ms in {comm} that the model does not have (before {op})",
                       "rank {rank} 在 {comm} 上多等了 {ms} ms，这是模型里没有的（在 {op} 之前）"),
    "trace.gap.none": ("rank {rank} waits {ms} ms longer than the model before {op}, with nothing recorded: "
                       "launch or host time, or a late input",
                       "rank {rank} 在 {op} 之前比模型多等了 {ms} ms，期间没有记录任何动作：可能是启动或主机开销，或输入来晚了"),
    "trace.imbalance": ("stage {stage} (rank {rank}) does {ratio}x the mean stage's work; timed with each stage's "
                        "own costs the model's step is {ms} ms longer ({with_stages} against {without} ms)",
                        "第 {stage} 段（rank {rank}）的工作量是平均每段的 {ratio} 倍；按每段各自的实测开销计时，"
                        "模型的一步要长 {ms} ms（{with_stages} 对 {without} ms）"),
    "trace.imbalance_shorter": (
        "stage {stage} (rank {rank}) does {ratio}x the mean stage's work; timed with each stage's own costs the "
        "model's step is {ms} ms shorter ({with_stages} against {without} ms): the heavier stages sit where the "
        "order waits anyway",
        "第 {stage} 段（rank {rank}）的工作量是平均每段的 {ratio} 倍；按每段各自的实测开销计时，模型的一步反而短 {ms} ms"
        "（{with_stages} 对 {without} ms）：较重的段恰好落在顺序本来就要等待的地方",
    ),
    "trace.split_even": ("the run did not split its backward: t_b and t_w are each half its full backward",
                         "这次运行没有拆分反向：t_b 和 t_w 各取完整反向的一半"),
    # pipeviz/view/run_view.py: a real run in the explorers
    "run.title": ("A real run", "真实运行"),
    "run.note": (
        "Choose or drop one Chrome trace per rank (torch.profiler's export_chrome_trace, .json or .json.gz): "
        "the step is drawn as a schedule is, beside the model of the same order at its measured costs. "
        "The files are read here and sent nowhere.",
        "选择或拖入每个 rank 一个跟踪文件（PyTorch 性能分析器导出的文件，可以是压缩的）："
        "这一步会像调度一样画出来，旁边是同一顺序按实测开销计时的模型。文件只在这里读取，不会发送到别处。",
    ),
    "run.note_served": (
        "Choose one Chrome trace per rank (torch.profiler's export_chrome_trace, .json or .json.gz), at most {max} "
        "in all: the step is drawn as a schedule is, beside the model of the same order at its measured costs.",
        "选择每个 rank 一个跟踪文件（PyTorch 性能分析器导出的文件，可以是压缩的），"
        "总共最多 {max}：这一步会像调度一样画出来，旁边是同一顺序按实测开销计时的模型。",
    ),
    "run.placement_loop": ("looped", "循环"),
    "run.placement_v": ("V-shaped", "V 形"),
    "run.files": ("Trace files, one per rank", "跟踪文件，每个 rank 一个"),
    "run.drop": ("or drop them anywhere on the page", "或者把它们拖到页面上任意位置"),
    "run.whatif": ("What if: every schedule at these costs", "假如：所有调度都用这组开销"),
    "run.back": ("Close the run: back to the schedules", "关闭运行：回到调度"),
    "run.reading": ("reading {files}…", "正在读取 {files}…"),
    "run.too_large": (
        "{size} of traces: the {where} reads at most {max} at a time; for larger traces use the command line "
        "(python -m pipeviz show --trace ...)",
        "跟踪文件共 {size}：{where}一次最多读取 {max}；更大的跟踪文件请用命令行（python -m pipeviz show --trace ...）",
    ),
    "run.where_page": ("page", "页面"),
    "run.where_served": ("served app", "服务端应用"),
    "run.none_chosen": ("no file was chosen: choose one trace per rank", "没有选择文件：请为每个 rank 选择一个跟踪文件"),
    "run.summary": ("A real run is shown: moving the schedule, P, m or V goes back to the schedules",
                    "正在显示真实运行：改动调度、P、m 或 V 会回到调度"),
    "run.off": ("back to the schedules: choose the files again to see the run", "回到调度：要再看这次运行，请重新选择文件"),
    "run.shown": (
        "A real run: P = {P}, m = {m}, V = {V} chunks per rank, placement {placement}, from {n} files",
        "真实运行：P = {P}，m = {m}，每个 rank V = {V} 块，{placement} 放置，来自 {n} 个文件",
    ),
    "run.bubble": (
        'Bubble (one iteration): <b class="pv-measured">{measured} measured</b> · {model} in the model '
        "(the same order at the measured mean costs, comm 0)",
        '气泡占比（单次迭代）：<b class="pv-measured">实测 {measured}</b> · 模型 {model}（同一顺序、按实测平均开销、通信为 0）',
    ),
    "run.step": ("Step: {measured} ms measured, {model} ms in the model: {gap} ms the model does not have",
                 "一步：实测 {measured} ms，模型 {model} ms：有 {gap} ms 是模型里没有的"),
    "run.gaps": ("Where the step loses time ({n} waits longer than the model's by over 1% of the step, largest "
                 "first):",
                 "这一步在哪里损失时间（{n} 处等待比模型长出一步的 1% 以上，从大到小）："),
    "run.gaps_none": ("No wait is longer than the model's by over 1% of the step.",
                      "没有哪处等待比模型长出一步的 1% 以上。"),
    "run.gaps_more": ("… and {n} more (the JSON export has them all)", "……还有 {n} 处（JSON 导出里有全部）"),
    "run.costs": ("Measured costs (mean ms per op)", "实测开销（每个操作的平均毫秒数）"),
    "run.kind_cost": ("{kind} {ms} ({n} ops)", "{kind} {ms}（{n} 个）"),
    "run.stage": ("stage", "段"),
    "run.work": ("work per micro-batch", "每个微批次的工作量"),
    "run.weight": ("weight", "权重"),
    "run.key": (
        "Each rank: above, the ops that ran; below, dashed, the model (the same order at the measured means); "
        "under both, a thin lane of its communication (dark: receive, mid: send, light: bookkeeping).",
        "每个 rank：上面是实际运行的操作；下面的虚线框是模型（同一顺序、按实测平均开销）；最下面的细条是它的通信"
        "（深色：接收，中间色：发送，浅色：簿记）。",
    ),
    "run.whatif_title": (
        "What if: every schedule at this run's costs (P = {P}, m = {m}; t_f = {tf}, t_b = {tb}, t_w = {tw} ms per "
        "rank, comm 0)",
        "假如：所有调度都用这次运行的开销（P = {P}，m = {m}；每个 rank t_f = {tf}、t_b = {tb}、t_w = {tw} ms，通信为 0）",
    ),
    "run.whatif_prompt": ("Press “What if” to time every schedule at this run's measured costs.",
                          "按“假如”，用这次运行的实测开销为所有调度计时。"),
    "run.th_schedule": ("schedule", "调度"),
    "run.th_makespan": ("step (ms)", "一步（ms）"),
    "run.th_bubble": ("bubble", "气泡"),
    "run.th_peak": ("peak in flight (mb)", "峰值在途（微批次）"),
    "run.th_vs": ("against the measured step (ms)", "对比实测的一步（ms）"),
    "run.ran": ("{text} (the order that ran)", "{text}（实际运行的顺序）"),
    "hover.comm": ("action", "动作"),
}
