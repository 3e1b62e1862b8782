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
    "trace.no_files": ("give one跟踪文件file per rank", "请为每个 rank 给出一个跟踪文件"),
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
}
