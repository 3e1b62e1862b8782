"""The engine's messages: configs, costs, stage weights, orders, the simulator, closed
forms, the registry, orders of one's own, the encoder, balancing and memory."""

STRINGS = {
    # pipeviz/errors.py
    "deadlock": ("deadlock: {parts}", "死锁：{parts}"),
    "deadlock.part": (
        "rank {rank} is stuck at {op}, which waits for {dep} on rank {dep_rank}",
        "rank {rank} 卡在 {op}，它在等 rank {dep_rank} 上的 {dep}",
    ),
    # pipeviz/config.py
    "config.whole": ("{name} must be a whole number, got {value}", "{name} 必须是整数，实际是 {value}"),
    "config.low": ("{name} must be at least {low}, got {value}", "{name} 至少为 {low}，实际是 {value}"),
    "config.encoder": ("encoder must be an Encoder(ef, eb, place, frozen) or None, got {value}",
                       "encoder 必须是 Encoder(ef, eb, place, frozen) 或 None，实际是 {value}"),
    # pipeviz/costs.py
    "cost.number": (
        "{name} must be a number between {low} and {high}, got {value}",
        "{name} 必须是 {low} 到 {high} 之间的数，实际是 {value}",
    ),
    "cost.range": (
        "{name} must be between {low} and {high}, got {value}",
        "{name} 必须在 {low} 到 {high} 之间，实际是 {value}",
    ),
    "cost.range0": (
        "{name} must be 0 or between {low} and {high}, got {value}",
        "{name} 必须是 0，或在 {low} 到 {high} 之间，实际是 {value}",
    ),
    # pipeviz/stages.py
    "weights.type": ("stage weights must be a list of numbers, got {value}", "段权重必须是一列数，实际是 {value}"),
    "weights.empty": ("stage weights: give one number per stage, or none for equal stages",
                      "段权重：每段给一个数，或者不填表示各段相同"),
    "weights.range": (
        "stage weight {stage} must be a number between {low} and {high}, got {value}",
        "第 {stage} 段的权重必须是 {low} 到 {high} 之间的数，实际是 {value}",
    ),
    "weights.parse": (
        "stage weights: '{token}' is not a number; write one positive number per stage, e.g. 1.3, 1, 1, 1.2",
        "段权重：'{token}' 不是数；每段写一个正数，例如 1.3, 1, 1, 1.2",
    ),
    "weights.length": (
        "{n} stage weights were given, but {name} here has {S} stages; give {S} weights, one per stage",
        "给了 {n} 个段权重，但这里 {name} 有 {S} 段；请给 {S} 个权重，每段一个",
    ),
    "cf.weights": (
        "the stages cost different amounts (weights {weights}, from {low} to {high}); the closed form assumes "
        "equal stages, so the slowest stage sets the pace and the simulation differs",
        "各段开销不同（权重 {weights}，从 {low} 到 {high}）；闭式公式假设各段相同，最慢的段决定节奏，所以模拟值不同",
    ),
    "cf.and": ("{first}; and {second}", "{first}；另外，{second}"),
    # pipeviz/order.py
    "order.kind": ("unknown op kind '{kind}'; valid kinds: {valid}", "未知的操作类型 '{kind}'；可用类型：{valid}"),
    "order.token": (
        "line {line}: '{token}' is not an op; write stage, kind and micro-batch with kind F, B, I or W "
        "(e.g. 2F0, 5I3), an overlapped pair as 0F3&5B1, or an encoder op as EF3 / EB3",
        "第 {line} 行：'{token}' 不是一个操作；依次写段号、类型和微批次号，类型为 F、B、I 或 W"
        "（如 2F0、5I3），重叠的一对写作 0F3&5B1，编码器操作写作 EF3 / EB3",
    ),
    "order.placement": (
        "unknown placement '{placement}'; choose one of {valid}",
        "未知的放置方式 '{placement}'；可选 {valid}",
    ),
    "order.empty": ("the order has no ops; write one line per rank", "这个顺序里没有操作；每个 rank 写一行"),
    "order.too_big": (
        "the order names micro-batches 0..{last_mb} on stages 0..{last_stage}: each needs a forward and a "
        "backward, {n} ops, more than the {max} pipeviz times quickly",
        "这个顺序用到了微批次 0..{last_mb} 和段 0..{last_stage}：每一对都要一次前向和一次反向，共 {n} 个操作，"
        "超过了 pipeviz 能快速计算的 {max} 个",
    ),
    "order.too_many": (
        "the order has {n} ops, more than the {max} pipeviz times quickly",
        "这个顺序有 {n} 个操作，超过了 pipeviz 能快速计算的 {max} 个",
    ),
    "order.lines": (
        "the order has {lines} lines but P = {P}; write one line per rank",
        "这个顺序有 {lines} 行，但 P = {P}；每个 rank 写一行",
    ),
    # pipeviz/simulate.py
    "order.rank_ptr": ("rank_ptr must run from 0 to {n} over {P} ranks", "rank_ptr 必须在 {P} 个 rank 上从 0 走到 {n}"),
    "order.stage_to_rank": ("stage_to_rank must map each stage to a rank in 0..{last}",
                            "stage_to_rank 必须把每个段映射到 0..{last} 中的一个 rank"),
    "order.range": (
        "{op} on rank {rank} is out of range: micro-batches are 0..{last_mb} and stages 0..{last_stage}",
        "rank {rank} 上的 {op} 超出范围：微批次为 0..{last_mb}，段为 0..{last_stage}",
    ),
    "order.wrong_rank": (
        "{op} is on rank {rank}, but stage {stage} lives on rank {home}",
        "{op} 在 rank {rank} 上，但第 {stage} 段在 rank {home} 上",
    ),
    "order.missing_f": (
        "{op} is missing: every micro-batch needs a forward on every stage (here mb {mb}, stage {stage})",
        "缺少 {op}：每个微批次在每一段都要有一次前向（这里是微批次 {mb}，第 {stage} 段）",
    ),
    "order.missing_b": (
        "the backward of mb {mb} on stage {stage} is missing: write {op}, or I then W, or an F&B pair holding it",
        "缺少微批次 {mb} 在第 {stage} 段的反向：写 {op}，或先 I 再 W，或放进一个 F&B 对",
    ),
    "order.twice": ("{op} appears {n} times; every op must appear exactly once", "{op} 出现了 {n} 次；每个操作只能出现一次"),
    "order.missing_w": ("{op} is missing: {i_op} splits the backward, so its W must follow",
                        "缺少 {op}：{i_op} 拆分了反向，所以必须有对应的 W"),
    "order.stray_w": ("{op} has no {i_op} before it: a W follows the I of a split backward",
                      "{op} 之前没有 {i_op}：W 只能跟在拆分反向的 I 之后"),
    "order.encoder_missing": ("{op} is missing: encoder ops come once per micro-batch, or not at all",
                              "缺少 {op}：编码器操作要么每个微批次一次，要么都没有"),
    "order.segment": ("segment must give one segment per op ({n})", "segment 必须为每个操作（共 {n} 个）给出所在阶段"),
    # pipeviz/closed_form.py
    "cf.comm": (
        "comm = {comm} adds latency at every cross-rank hop of the fill and drain, which the closed form leaves out",
        "comm = {comm} 在灌满和排空的每一次跨 rank 传递上都加了延迟，闭式公式没有算这部分",
    ),
    "cf.uniform": (
        "the closed form is derived at t_f = t_b = t_w (here {tf}, {tb}, {tw}); other costs shift where W's fit",
        "闭式公式是在 t_f = t_b = t_w 时推出的（这里是 {tf}、{tb}、{tw}）；别的开销会改变 W 能填进哪里",
    ),
    # pipeviz/registry.py
    "schedule.unknown": ("unknown schedule '{name}'; choose one of {names}", "未知的调度 '{name}'；可选 {names}"),
    "schedule.fixed_v1": (
        "{name} runs one model chunk per rank, so V must be 1 (got V={V}); for V > 1 choose interleaved",
        "{name} 每个 rank 只放一个模型块，所以 V 必须是 1（实际 V={V}）；V > 1 请选 interleaved",
    ),
    "schedule.fixed_v": (
        "{name} places exactly {fixed} chunks per rank in a V, so V must be {fixed} (got V={V})",
        "{name} 每个 rank 按 V 形放 {fixed} 个模型块，所以 V 必须是 {fixed}（实际 V={V}）",
    ),
    "schedule.no_G": (
        "the group size G only applies to interleaved, not {name}; leave G unset",
        "分组大小 G 只用于 interleaved，不用于 {name}；请不要设置 G",
    ),
    "schedule.too_big": (
        "{name} with P={P}, m={m}, V={V} has {n} ops, more than the {max} pipeviz times quickly; "
        "use m <= {m_max} at this P and V",
        "{name} 在 P={P}、m={m}、V={V} 时有 {n} 个操作，超过了 pipeviz 能快速计算的 {max} 个；"
        "在这个 P 和 V 下请用 m <= {m_max}",
    ),
    "schedule.too_big_P": (
        "{name} with P={P}, V={V} has {n} ops for a single micro-batch, more than the {max} pipeviz "
        "times quickly; use a smaller P or V",
        "{name} 在 P={P}、V={V} 时单个微批次就有 {n} 个操作，超过了 pipeviz 能快速计算的 {max} 个；"
        "请减小 P 或 V",
    ),
    # pipeviz/custom.py
    "sched.custom.title": ("Your order", "你的顺序"),
    "sched.custom.summary": ("an order you pasted or edited", "你粘贴或修改的顺序"),
    "order.json": (
        "the text starts like JSON ({ or [) but does not read as JSON: paste the export whole, or write the order "
        "one line per rank",
        "这段文字以 JSON 的样子开头（{ 或 [），却读不成 JSON：请完整粘贴导出的内容，或者每个 rank 写一行",
    ),
    "order.json_deep": ("the JSON nests deeper than {depth} levels; the export nests 4",
                        "这段 JSON 嵌套超过 {depth} 层；导出的内容只有 4 层"),
    "order.json_ops": (
        "the JSON holds no ops: give the export's object (with \"ops\") or its list of ops",
        "JSON 里没有操作：请给出导出的对象（含 \"ops\"）或其中的操作列表",
    ),
    "order.json_op": ("op {n} of the JSON is not an object with rank, kind, mb and stage",
                      "JSON 的第 {n} 个操作不是含 rank、kind、mb 和 stage 的对象"),
    "order.json_number": ("op {n} of the JSON: {key} must be a whole number from 0 to {max}",
                          "JSON 的第 {n} 个操作：{key} 必须是 0 到 {max} 之间的整数"),
    "order.json_kind": ("op {n} of the JSON: its kind must be one of F, B, W, F&B, EF, EB",
                        "JSON 的第 {n} 个操作：kind 必须是 F、B、W、F&B、EF、EB 之一"),
    "order.json_pair": (
        "op {n} of the JSON is an F&B: its parts must be its F then its B, each with mb and stage",
        "JSON 的第 {n} 个操作是 F&B：它的 parts 必须依次是 F 和 B，各有 mb 和 stage",
    ),
    "order.json_empty_rank": (
        "rank {rank} has no ops in the JSON; every rank holds stages, so every rank needs its ops",
        "JSON 里 rank {rank} 没有操作；每个 rank 都放着段，所以每个 rank 都要有操作",
    ),
    "order.wrong_placement": (
        "{op} is on rank {rank}, but with placement {placement} stage {stage} lives on rank {home}; "
        "every op of this order fits placement {other}: choose it",
        "{op} 在 rank {rank} 上，但按 {placement} 放置，第 {stage} 段在 rank {home} 上；"
        "这个顺序的每个操作都符合 {other} 放置：请选它",
    ),
    "order.json_ranks": ("the order has {ranks} ranks but P = {P}", "这个顺序有 {ranks} 个 rank，但 P = {P}"),
    # pipeviz/encoder.py
    "encoder.place": ("unknown encoder placement '{place}'; choose one of {valid}",
                      "未知的编码器放置方式 '{place}'；可选 {valid}"),
    "encoder.frozen": ("frozen must be true or false, got {value}", "frozen 必须是 true 或 false，实际是 {value}"),
    "encoder.caveat": ("the closed form is the pipeline's alone; the encoder's work is not in it",
                       "闭式公式只算流水线本身，不含编码器的计算"),
    # pipeviz/balance.py
    "balance.mode": ("unknown activation balancing '{mode}'; choose one of {valid}",
                     "未知的激活均衡方式 '{mode}'；可选 {valid}"),
    # pipeviz/memory.py
    "model.whole": ("{name} must be a whole number in {low}..{high}, got {value}",
                    "{name} 必须是 {low}..{high} 之间的整数，实际是 {value}"),
    "model.act": ("activation mode '{value}' is not one of {valid}", "激活模式 '{value}' 不在 {valid} 之中"),
    "model.bpp": ("bytes per parameter must be 16 or 18, got {value}", "每个参数的字节数必须是 16 或 18，实际是 {value}"),
    "model.extra": ("{name} must be a number of layer-equivalents in 0..{high}, got {value}",
                    "{name} 必须是 0..{high} 之间的层当量，实际是 {value}"),
    "model.unknown": ("unknown model '{name}'; choose one of {names}", "未知的模型 '{name}'；可选 {names}"),
    "model.few_layers": (
        "L = {L} layers cannot be split over S = {S} stages (every stage needs a layer); use L >= {S}, "
        "or fewer stages",
        "L = {L} 层分不到 S = {S} 段上（每段至少一层）；请用 L >= {S}，或减少段数",
    ),
}
