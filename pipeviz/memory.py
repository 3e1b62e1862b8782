"""Memory in bytes from a model config (docs/model.md, "Memory in bytes"). No UI here.

A model config: L layers, hidden h, heads a, sequence s, micro-batch size b, vocab v,
tensor parallel t (with sequence parallelism), an untied head or not, the activation
mode, bytes per parameter. From it:

activation bytes per layer per micro-batch (Korthikanti et al. 2022, "Reducing
Activation Recomputation in Large Transformer Models", eq. 1-2), all over t:
  none   no flash attention, no recompute    s b h (34 + 5 a s / h)
  flash  flash attention or selective recompute  34 s b h
  full   full recompute (the layer's input only)  2 s b h
and where the backward is split, a chunk awaiting W only keeps 32 s b h / t per
layer, in every mode (docs/model.md). With full recompute that is more than the 2 s b h it
held before its B: the input-gradient pass recomputes the layer, and W then needs
the linear layers' inputs.

parameters: 12 h^2 + 13 h per layer, v h for the embedding (first stage) and again
for an untied head (last stage), over t; 16 bytes each (bf16 weights and gradients,
fp32 Adam moments and master weights) or 18 with fp32 gradients.

What the formulas leave out, for every preset alike: 12 h^2 + 13 h is GPT's layer (a
4h MLP of two matrices, full multi-head attention, biases, two LayerNorms). Llama's
layers differ: a SwiGLU MLP of three matrices of width 11008 (7B), 13824 (13B),
28672 (70B) or 14336 (Llama-3 8B) instead of 4h, grouped-query attention in 70B and
Llama-3 8B (8 key/value heads: smaller K and V projections), RMSNorm and no biases.
The per-layer activation formula likewise assumes GPT's layer. Not counted either:
position embeddings, the LM head's logits and loss activations (s b v per
micro-batch), the final norm, communication buffers, the framework's workspace and
fragmentation. The numbers compare schedules on one model; they are not a sizing
guarantee.

A rank's memory at time t is its parameters' bytes plus, for each chunk in flight
(`pipeviz.metrics`: forward started, last backward op not ended), that chunk's
layers times the per-layer bytes: the full activation while it awaits its B (or its
full backward), 32 s b h / t while it awaits W only. Layers are split as evenly as
possible over the S stages, the first L mod S stages one more; that split also
gives the stage weights (`stage_weights`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from .errors import ConfigError
from .metrics import Steps
from .order import FB, B, F, I, Order, W

GIB = 2**30
MIB = 2**20
ACT_MODES = ("none", "flash", "full")
BYTES_PER_PARAM = (16, 18)

# (low, high) of each whole-number field of a model config.
LIMITS = {
    "L": (1, 1024), "h": (1, 131072), "a": (1, 1024), "s": (1, 1048576), "b": (1, 4096),
    "vocab": (1, 1048576), "t": (1, 64),
}
EXTRA_MAX = 100.0  # embedding or head, in layer-equivalents


@dataclass(frozen=True)
class Model:
    L: int  # transformer layers
    h: int  # hidden size
    a: int  # attention heads
    vocab: int
    s: int = 2048  # sequence length
    b: int = 1  # micro-batch size (sequences per micro-batch)
    t: int = 1  # tensor-parallel size (with sequence parallelism)
    untied: bool = False  # the LM head has its own v h weights on the last stage
    act: str = "none"  # activation mode: none, flash (or selective recompute), full recompute
    bytes_per_param: int = 16
    embed: float = 0.0  # the embedding's time, in layer-equivalents (stage weights only)
    head: float = 0.0  # the LM head's and loss's time, in layer-equivalents (stage weights only)
    name: str = "custom"

    def __post_init__(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not low <= value <= high:
                raise ConfigError("model.whole", name=name, value=str(value), low=low, high=high)
            object.__setattr__(self, name, int(value))
        if self.act not in ACT_MODES:
            raise ConfigError("model.act", value=str(self.act), valid=", ".join(ACT_MODES))
        if self.bytes_per_param not in BYTES_PER_PARAM:
            raise ConfigError("model.bpp", value=str(self.bytes_per_param))
        for name in ("embed", "head"):
            value = getattr(self, name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not (number and 0 <= value <= EXTRA_MAX):
                raise ConfigError("model.extra", name=name, value=float(value) if number else str(value),
                                  high=EXTRA_MAX)
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "untied", bool(self.untied))

    def replace(self, **changes) -> Model:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return Model(**{**values, **changes})

    # -- bytes (numerators before the division by t, exact integers) -------------

    def _act_num(self) -> int:
        s, b, h, a = self.s, self.b, self.h, self.a
        if self.act == "flash":
            return 34 * s * b * h
        if self.act == "full":
            return 2 * s * b * h
        return s * b * (34 * h + 5 * a * s)  # s b h (34 + 5 a s / h), kept whole

    # Each numerator is a whole number, made a float once, then divided by t (the
    # page's JavaScript does the same, so both round alike).

    @property
    def act_bytes(self) -> float:
        """Activation bytes per layer per micro-batch, over t."""
        return float(self._act_num()) / self.t

    @property
    def w_only_bytes(self) -> float:
        """Bytes per layer a chunk awaiting W only keeps: 32 s b h / t."""
        return float(self._w_only_num()) / self.t

    def _w_only_num(self) -> int:
        return 32 * self.s * self.b * self.h

    @property
    def layer_params(self) -> int:
        return 12 * self.h * self.h + 13 * self.h

    @property
    def vocab_params(self) -> int:
        return self.vocab * self.h

    @property
    def total_params(self) -> int:
        """Parameters of the whole model (before tensor parallelism)."""
        return self.L * self.layer_params + self.vocab_params * (2 if self.untied else 1)


# Published shapes (L, h, a, vocab, untied). Sources: GPT-3 6.7B: Brown et al. 2020,
# "Language Models are Few-Shot Learners", Table 2.1 (32 layers, d_model 4096, 32
# heads; GPT-2's 50257-token vocabulary, tied embedding), as docs/model.md's preset.
# Llama 2: Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models",
# and the released configs (meta-llama/Llama-2-{7b,13b,70b}-hf: num_hidden_layers,
# hidden_size, num_attention_heads, vocab_size 32000, tie_word_embeddings false).
# 70B has 8 key/value heads (GQA), which 12h^2 + 13h does not model (see above).
# Llama 3 8B: Meta 2024, "The Llama 3 Herd of Models", Table 3, and
# meta-llama/Meta-Llama-3-8B's config (32 layers, 4096, 32 heads, 8 key/value heads,
# vocab 128256, untied).
PRESETS: dict[str, dict] = {
    "gpt3-6.7b": dict(L=32, h=4096, a=32, vocab=50257, untied=False),
    "llama2-7b": dict(L=32, h=4096, a=32, vocab=32000, untied=True),
    "llama3-8b": dict(L=32, h=4096, a=32, vocab=128256, untied=True),
    "llama2-13b": dict(L=40, h=5120, a=40, vocab=32000, untied=True),
    "llama2-70b": dict(L=80, h=8192, a=64, vocab=32000, untied=True),
}
ARCH_FIELDS = ("L", "h", "a", "vocab", "untied")  # what a preset fixes


def preset(name: str, **changes) -> Model:
    """A preset model (with any training-side fields changed: s, b, t, act, ...)."""
    try:
        shape = PRESETS[name]
    except KeyError:
        raise ConfigError("model.unknown", name=str(name), names=", ".join(PRESETS)) from None
    return Model(**{**shape, **changes, "name": name})


def as_data() -> dict:
    """What the page's memory.js reads instead of repeating it."""
    return {
        "presets": PRESETS, "archFields": list(ARCH_FIELDS), "limits": {k: list(v) for k, v in LIMITS.items()},
        "extraMax": EXTRA_MAX, "actModes": list(ACT_MODES), "bytesPerParam": list(BYTES_PER_PARAM), "gib": GIB,
        "mib": MIB, "defaults": {("bytesPerParam" if f.name == "bytes_per_param" else f.name): f.default
                                 for f in fields(Model) if f.name in ("s", "b", "t", "act", "bytes_per_param", "name")},
    }


# -- layer split and stage weights ---------------------------------------------------


def layer_split(L: int, S: int) -> np.ndarray:
    """(S,) layers per stage: as even as possible, the first L mod S stages one more."""
    if L < S:
        raise ConfigError("model.few_layers", L=L, S=S)
    base, extra = divmod(L, S)
    return np.array([base + 1] * extra + [base] * (S - extra), dtype=np.int64)


def stage_weights(model: Model, S: int) -> tuple[float, ...]:
    """w_s = (layers of stage s + its extra layer-equivalents) / (L / S): the
    embedding's on stage 0, the head's on stage S-1 (both on one stage if S = 1)."""
    extra = layer_split(model.L, S).astype(np.float64)
    extra[0] += model.embed
    extra[-1] += model.head
    return tuple(float(x) for x in extra * S / model.L)


# -- memory of one run ---------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Memory:
    model: Model
    hbm_gib: float
    layers: np.ndarray  # (S,) layers of each stage
    params: np.ndarray  # (P,) bytes of parameters (and gradients, optimizer state) per rank
    peak: np.ndarray  # (P,) bytes at the rank's peak: parameters + activations
    peak_b: np.ndarray  # (P,) at that peak, activation bytes of chunks awaiting B (all, if unsplit)
    peak_w: np.ndarray  # (P,) ... of chunks awaiting W only
    activations: Steps  # activation bytes over time per rank (parameters not included)
    before: Memory | None = None  # with BPipe balancing, the bytes before it (else None)

    @property
    def hbm(self) -> float:
        return self.hbm_gib * GIB

    @property
    def over(self) -> np.ndarray:
        """(P,) bytes over the HBM capacity at the peak (0 where it fits)."""
        return np.maximum(self.peak - self.hbm, 0.0)

    @property
    def tightest(self) -> int:
        """The rank with the highest peak (the lowest such rank on a tie)."""
        return int(np.argmax(self.peak))

    @property
    def fits(self) -> bool:
        return bool(self.peak.max() <= self.hbm)


def param_bytes(model: Model, order: Order) -> np.ndarray:
    """(P,) parameter bytes per rank: each held stage's layers, the embedding on stage
    0, an untied head on the last stage; over t, times bytes per parameter."""
    S = order.S
    count = layer_split(model.L, S) * model.layer_params
    count[0] += model.vocab_params
    if model.untied:
        count[-1] += model.vocab_params
    per_rank = np.bincount(order.stage_to_rank, weights=count.astype(np.float64), minlength=order.P)
    return per_rank * model.bytes_per_param / model.t


def measure_memory(tl, model: Model, hbm_gib: float = 80.0) -> Memory:
    """Bytes per rank over a timeline (`simulate.Timeline`), as docs/model.md says.

    Events follow `metrics._events`: each op adds its change at its start (a forward
    takes its chunk's activation) or at its end (a B frees it, an I swaps it for the
    W-only share, a W frees that, an F&B frees its backward part's chunk), in each
    rank's order, start before end; a running sum is the bytes held. The sums run
    over exact integers (bytes times t) and are divided by t at the end."""
    order = tl.order
    kind, P, n = order.kind, order.P, order.n_ops
    layers = layer_split(model.L, order.S)
    lay = np.where(order.stage >= 0, layers[np.maximum(order.stage, 0)], 0).astype(np.float64)
    lay2 = np.where(order.stage2 >= 0, layers[np.maximum(order.stage2, 0)], 0).astype(np.float64)
    act = float(model._act_num())
    w_only = float(model._w_only_num())
    d_b = np.zeros(2 * n)
    d_w = np.zeros(2 * n)
    d_b[0::2] = np.where((kind == F) | (kind == FB), lay * act, 0.0)
    d_b[1::2] = -np.where((kind == B) | (kind == I), lay * act, np.where(kind == FB, lay2 * act, 0.0))
    d_w[1::2] = np.where(kind == I, lay * w_only, 0.0) - np.where(kind == W, lay * w_only, 0.0)
    ptr = 2 * order.rank_ptr  # rank r's events are [ptr[r], ptr[r+1])
    held_b = _rank_cumsum(d_b, ptr)
    held_w = _rank_cumsum(d_w, ptr)
    total = held_b + held_w
    rank = np.repeat(order.rank, 2)
    time = np.empty(2 * n)
    time[0::2], time[1::2] = tl.start, tl.end
    # A rank's state at an instant is the one after all of that instant's events (a
    # W of t_w = 0 frees what its I just handed it at the same time).
    settled = np.ones(2 * n, dtype=bool)
    settled[:-1] = (rank[1:] != rank[:-1]) | (time[1:] != time[:-1])
    at = _first_peak(np.where(settled, total, -np.inf), ptr, P)
    has = ptr[1:] > ptr[:-1]
    t = model.t
    peak_b = np.where(has, held_b[at], 0.0) / t
    peak_w = np.where(has, held_w[at], 0.0) / t
    params = param_bytes(model, order)
    changes = (d_b + d_w) != 0
    return Memory(
        model=model, hbm_gib=float(hbm_gib), layers=layers, params=params,
        peak=params + peak_b + peak_w, peak_b=peak_b, peak_w=peak_w,
        activations=_steps(rank, time, total / t, changes),
    )


def balance_memory(mem: Memory, tl, pairs) -> Memory:
    """Bytes per rank after BPipe balancing (docs/model.md, "Activation balancing (BPipe)"), from the
    bytes before it (`mem`, of timeline `tl`) and the pairs (front, partner, target T
    in chunks) of `balance.bpipe`. At every instant the front rank keeps its T oldest
    in-flight chunks (by forward start) and its partner holds the rest, in bytes: a
    chunk keeps its stage's layers and its state (awaiting B, or awaiting W only)
    wherever it is held. Parameters do not move. Unpaired ranks keep their bytes."""
    if not pairs:
        return mem
    order, model = tl.order, mem.model
    P, t = order.P, model.t
    act, w_only = float(model._act_num()), float(model._w_only_num())
    series = {r: _series(mem.activations, r) for r in range(P)}  # r -> (time, total) before
    split = {}  # rank -> (time, b, w) after, for the ranks a pair changes
    for front, partner, T in pairs:
        tf, fb, fw, eb, ew = _front_excess(tl, front, int(T), mem.layers, act, w_only)
        split[front] = (tf, fb - eb, fw - ew)
        tp, pb, pw = _held(tl, partner, mem.layers, act, w_only)
        at = np.union1d(tp, tf)
        split[partner] = (at, _at(tp, pb, at) + _at(tf, eb, at), _at(tp, pw, at) + _at(tf, ew, at))
    peak_b, peak_w = mem.peak_b.copy(), mem.peak_w.copy()
    ranks, times, values = [], [], []
    for r in range(P):
        if r in split:
            time, b, w = split[r]
            k = int(np.argmax(b + w)) if time.size else 0
            peak_b[r] = b[k] / t if time.size else 0.0
            peak_w[r] = w[k] / t if time.size else 0.0
            value = (b + w) / t
        else:
            time, value = series[r]
        ranks.append(np.full(time.size, r, dtype=np.int64))
        times.append(time)
        values.append(value)
    steps = Steps(rank=np.concatenate(ranks), time=np.concatenate(times), value=np.concatenate(values))
    return Memory(model=model, hbm_gib=mem.hbm_gib, layers=mem.layers, params=mem.params,
                  peak=mem.params + peak_b + peak_w, peak_b=peak_b, peak_w=peak_w, activations=steps, before=mem)


def _series(steps: Steps, r: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.searchsorted(steps.rank, [r, r + 1])
    return steps.time[lo:hi], steps.value[lo:hi]


def _at(time: np.ndarray, value: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A step function (0 before its first step) at each time in `at`, right-continuous."""
    k = np.searchsorted(time, at, side="right") - 1
    return np.where(k >= 0, value[np.maximum(k, 0)] if value.size else 0.0, 0.0)


def _events(tl, r: int):
    """Rank r's events in order: (time, op index, at its end?)."""
    order = tl.order
    for i in range(int(order.rank_ptr[r]), int(order.rank_ptr[r + 1])):
        yield float(tl.start[i]), i, False
        yield float(tl.end[i]), i, True


def _walk(tl, r: int, layers, act: float, w_only: float, T: int | None):
    """Rank r's chunks held (bytes times t, awaiting B and awaiting W only) after each
    instant's events, and with T the part beyond the T oldest chunks."""
    order = tl.order
    kind, mb, stage, mb2, stage2 = order.kind, order.mb, order.stage, order.mb2, order.stage2
    alive: list[tuple[int, int]] = []  # in-flight chunks, oldest forward first
    held: dict[tuple[int, int], list[float]] = {}  # chunk -> [awaiting B, awaiting W only]
    out_t, out = [], []
    events = list(_events(tl, r))
    for n, (time, i, end) in enumerate(events):
        k = int(kind[i])
        if not end and k in (F, FB):
            key = (int(mb[i]), int(stage[i]))
            alive.append(key)
            held[key] = [layers[stage[i]] * act, 0.0]
        elif end and k in (B, W):
            key = (int(mb[i]), int(stage[i]))
            alive.remove(key)
            del held[key]
        elif end and k == I:
            key = (int(mb[i]), int(stage[i]))
            held[key] = [0.0, layers[stage[i]] * w_only]
        elif end and k == FB:
            key = (int(mb2[i]), int(stage2[i]))
            alive.remove(key)
            del held[key]
        if n + 1 < len(events) and events[n + 1][0] == time:
            continue  # the instant's state is the one after all its events
        b = sum(held[c][0] for c in alive)
        w = sum(held[c][1] for c in alive)
        if T is None:
            out.append((b, w))
        else:
            extra = alive[T:]
            out.append((b, w, sum(held[c][0] for c in extra), sum(held[c][1] for c in extra)))
        out_t.append(time)
    cols = np.array(out, dtype=np.float64).reshape(len(out), 2 if T is None else 4)
    return np.array(out_t, dtype=np.float64), cols


def _held(tl, r, layers, act, w_only):
    time, cols = _walk(tl, r, layers, act, w_only, None)
    return time, cols[:, 0], cols[:, 1]


def _front_excess(tl, r, T, layers, act, w_only):
    time, cols = _walk(tl, r, layers, act, w_only, T)
    return time, cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 3]


def _rank_cumsum(delta: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Running sums of `delta` restarting at every rank's first event. Each rank's
    sum starts at exactly 0, so a rank's numbers do not depend on the ranks before."""
    out = np.empty_like(delta)
    for r in range(ptr.size - 1):
        lo, hi = ptr[r], ptr[r + 1]
        out[lo:hi] = np.cumsum(delta[lo:hi])
    return out


def _first_peak(x: np.ndarray, ptr: np.ndarray, P: int) -> np.ndarray:
    """(P,) flat index of the first event at which each rank holds the most (0 for
    a rank with no ops)."""
    out = np.zeros(P, dtype=np.int64)
    for r in range(P):
        lo, hi = ptr[r], ptr[r + 1]
        if hi > lo:
            out[r] = lo + int(np.argmax(x[lo:hi]))
    return out


def _steps(rank, time, value, changes) -> Steps:
    """The step function of the changes, keeping the last of simultaneous ones."""
    r, t, v = rank[changes], time[changes], value[changes]
    last = np.ones(r.size, dtype=bool)
    last[:-1] = (r[1:] != r[:-1]) | (t[1:] != t[:-1])
    return Steps(rank=r[last], time=t[last], value=v[last])
