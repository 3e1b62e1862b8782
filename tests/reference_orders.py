"""Independent, per-op reference implementations of the orders docs/model.md fixes ("Schedules").

They follow the libraries' loop structure (a counter per chunk, one op at a time) so
that the vectorized, phase-by-phase generators in pipeviz are checked against a
different way of writing the same rule.
"""

from __future__ import annotations


def one_f_one_b(P: int, m: int, r: int) -> list[tuple[str, int, int]]:
    warm = min(P - 1 - r, m)
    ops = [("F", i, r) for i in range(warm)]
    f, b = warm, 0
    while f < m:
        ops += [("F", f, r), ("B", b, r)]
        f += 1
        b += 1
    ops += [("B", i, r) for i in range(b, m)]
    return ops


def megatron_interleaved(P: int, m: int, V: int, G: int, r: int) -> list[tuple[str, int, int]]:
    """Megatron-core's schedule table and warm-up count, one op at a time."""
    table = []
    for g0 in range(0, m, G):
        last = g0 + G >= m
        group = range(g0, m) if last else range(g0, g0 + G)
        for c in range(V):
            for mb in group:
                table.append((mb, c))
    total = m * V
    warm = min((P - r - 1) * 2 + (V - 1) * G, total)
    ops = []
    for k in range(warm):
        mb, c = table[k]
        ops.append(("F", mb, c * P + r))
    for k in range(total - warm):
        mb, c = table[warm + k]
        ops.append(("F", mb, c * P + r))
        mb, c = table[k]
        ops.append(("B", mb, (V - 1 - c) * P + r))
    for k in range(total - warm, total):
        mb, c = table[k]
        ops.append(("B", mb, (V - 1 - c) * P + r))
    return ops


def smallest_megatron_group(P: int, m: int) -> int | None:
    """The smallest G that Megatron-core 0.19.2 accepts: P <= G <= m, and a last group
    m mod G that is 0 or at least P."""
    return next((G for G in range(P, m + 1) if not 0 < m % G < P), None)


def pytorch_group_size(P: int, m: int) -> int | None:
    rounds = max(1, m // P)
    return None if m % rounds else m // rounds


def zb_h1(P: int, m: int, r: int) -> list[tuple[str, int, int]]:
    """1F1B with B then W, where rank r lets up to r W's wait."""
    warm = min(P - 1 - r, m)
    ops = [("F", i, r) for i in range(warm)]
    pending: list[int] = []
    f, b = warm, 0
    while f < m:
        ops += [("F", f, r), ("B", b, r)]
        pending.append(b)
        f += 1
        b += 1
        if len(pending) > r:
            ops.append(("W", pending.pop(0), r))
    while b < m:
        ops.append(("B", b, r))
        pending.append(b)
        b += 1
        ops.append(("W", pending.pop(0), r))
    ops += [("W", i, r) for i in pending]
    return ops


def zb_h2_greedy(P: int, m: int) -> list[list[tuple[str, int, int]]]:
    """The Zero Bubble paper's greedy rule at unit costs, one rank and one unit at a time."""
    INF = float("inf")
    f_end = [[INF] * m for _ in range(P)]
    b_end = [[INF] * m for _ in range(P)]
    nf, nb, nw = [0] * P, [0] * P, [0] * P
    ops: list[list] = [[] for _ in range(P)]
    t = 0
    while any(x < m for x in nw):
        chosen = []
        for r in range(P):
            b_ok = nb[r] < nf[r] and (r == P - 1 or b_end[r + 1][nb[r]] <= t)
            f_ok = nf[r] < m and nf[r] - nw[r] < 2 * P - 1 and (r == 0 or f_end[r - 1][nf[r]] <= t)
            if b_ok:
                chosen.append((r, "B", nb[r]))
            elif f_ok:
                chosen.append((r, "F", nf[r]))
            elif nw[r] < nb[r]:
                chosen.append((r, "W", nw[r]))
        for r, k, mb in chosen:
            ops[r].append((k, mb, r))
            if k == "F":
                f_end[r][mb] = t + 1
                nf[r] += 1
            elif k == "B":
                b_end[r][mb] = t + 1
                nb[r] += 1
            else:
                nw[r] += 1
        t += 1
    return ops


def zb_v(P: int, m: int, r: int) -> list[tuple[str, int, int]]:
    """ZB-V's order with one counter per chunk and op kind, as PyTorch's
    ScheduleZBVZeroBubble counts them (written independently here)."""
    n = max(m, 2 * P - 1)
    s0, s1 = r, 2 * P - 1 - r
    ops = []
    cnt = {"F0": 0, "F1": 0, "B0": 0, "B1": 0, "W0": 0, "W1": 0}

    def emit(key):
        kind, chunk = key[0], key[1]
        ops.append((kind, cnt[key], s0 if chunk == "0" else s1))
        cnt[key] += 1

    for _ in range(2 * (P - r) - 1):
        emit("F0")
    for _ in range(r):
        emit("F1")
        emit("F0")
    for _ in range(P - r):
        emit("F1")
        emit("B1")
        emit("W1")
    while cnt["F1"] < cnt["F0"] or cnt["F0"] < n:
        if cnt["F0"] < n:
            emit("F0")
        emit("B0")
        emit("W0")
        emit("F1")
        emit("B1")
        emit("W1")
    for _ in range(r):
        emit("B0")
        emit("B1")
    for _ in range(P - r):
        emit("B0")
        emit("W0")
    while cnt["W1"] < cnt["B1"]:
        emit("W1")
    while cnt["W0"] < cnt["B0"]:
        emit("W0")
    return [op for op in ops if op[1] < m]


def dualpipe_v(P: int, m: int, r: int) -> list[tuple]:
    """DualPipe-V on rank r, one op at a time, as DeepSeek's `DualPipeV.step` runs it:
    a forward and a backward counter per chunk, a switch that turns split backwards
    on in step 6, and a first-in first-out queue of pending weight gradients."""
    from collections import deque

    stage = (r, 2 * P - 1 - r)
    nxt = {("F", 0): 0, ("F", 1): 0, ("B", 0): 0, ("B", 1): 0}
    pending: deque = deque()
    ops: list[tuple] = []

    def take(kind, chunk):
        mb = nxt[(kind, chunk)]
        nxt[(kind, chunk)] += 1
        return mb, stage[chunk]

    def forward(chunk):
        ops.append(("F", *take("F", chunk)))

    def backward(chunk, split=False):
        mb, s = take("B", chunk)
        if split:
            ops.append(("I", mb, s))
            pending.append((mb, s))
        else:
            ops.append(("B", mb, s))

    def weight():
        ops.append(("W", *pending.popleft()))

    def overlapped(f_chunk, b_chunk):
        f_mb, f_s = take("F", f_chunk)
        b_mb, b_s = take("B", b_chunk)
        ops.append(("F&B", f_mb, f_s, b_mb, b_s))

    for _ in range((P - r - 1) * 2):  # Step 1: nF0
        forward(0)
    for _ in range(r + 1):  # Step 2: nF0F1
        forward(0)
        forward(1)
    for _ in range(P - r - 1):  # Step 3: nB1W1F1
        backward(1, split=True)
        weight()
        forward(1)
    for i in range(m - 2 * P + r + 1):  # Step 4: nF0B1F1B0
        if i == 0 and r == P - 1:
            forward(0)
            backward(1)
        else:
            overlapped(0, 1)
        overlapped(1, 0)
    for _ in range(P - r - 1):  # Step 5: nB1F1B0
        backward(1)
        overlapped(1, 0)
    zb = False
    n6 = r + 1
    for i in range(n6):  # Step 6: nB1B0, the switch at i = n6 // 2 (before B1 on odd ranks)
        if i == n6 // 2 and r % 2 == 1:
            zb = True
        backward(1, split=zb)
        if i == n6 // 2 and r % 2 == 0:
            zb = True
        backward(0, split=zb)
    for _ in range(P - r - 1):  # Step 7: nWB0
        weight()
        backward(0, split=True)
    for _ in range(r + 1):  # Step 8: nW
        weight()
    assert not pending
    return ops
