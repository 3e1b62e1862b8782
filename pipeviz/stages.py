"""Per-stage costs (docs/model.md, "Per-stage costs"): one weight per stage, w_s.

Real stages are not equal: the first holds the embedding, the last the LM head and
the loss, and L layers rarely split evenly. An op on stage s costs its usual cost
times w_s (`simulate.op_durations` applies them). A run carries its weights in
`Config.stage_weights` (None: every stage 1), so cached results are keyed by them.

Weights come from a model config (`pipeviz.memory.stage_weights`: layers per stage
plus the embedding's and the head's layer-equivalents, over L/S) or are typed as a
list ("1.3, 1, 1, 1.2", `parse_weights`).

Where the weights are not all equal, no schedule's closed form holds: each is derived
for equal stages. `with_caveat` says so on the closed form, naming the weights.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from .errors import ConfigError
from .text import Msg, msg

WEIGHT_MIN = 0.001
WEIGHT_MAX = 1000.0
MAX_SHOWN = 8  # weights named in a message, then "…"
_SPLIT = re.compile(r"[\s,;]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only


def check_weights(weights: Sequence) -> tuple[float, ...]:
    """`weights` as a tuple of floats if each is a number in [WEIGHT_MIN, WEIGHT_MAX]."""
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise ConfigError("weights.type", value=str(weights)[:40])
    if len(weights) == 0:
        raise ConfigError("weights.empty")
    out = []
    for s, w in enumerate(weights):
        number = isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w)
        if not (number and WEIGHT_MIN <= w <= WEIGHT_MAX):
            raise ConfigError("weights.range", stage=s, value=float(w) if number else str(w), low=WEIGHT_MIN,
                              high=WEIGHT_MAX)
        out.append(float(w))
    return tuple(out)


def parse_weights(text: str) -> tuple[float, ...] | None:
    """Weights typed as text: numbers separated by commas or spaces. Empty: None
    (every stage alike). Nothing is evaluated; a number is ASCII digits with an
    optional sign, point and exponent."""
    body = text.strip()
    if not body:
        return None
    tokens = [t for t in _SPLIT.split(body) if t]
    for t in tokens:
        if not _NUMBER.fullmatch(t):
            raise ConfigError("weights.parse", token=t[:20])
    return check_weights([float(t) for t in tokens])


def check_length(weights: tuple[float, ...] | None, S: int, name: str) -> None:
    if weights is not None and len(weights) != S:
        raise ConfigError("weights.length", n=len(weights), S=S, name=name)


def uneven(weights: Sequence[float] | None) -> bool:
    """Some stage costs more than another."""
    return weights is not None and min(weights) != max(weights)


def weights_text(weights: Sequence[float]) -> str:
    """'1.3, 1, 1, 1.2' (:g each; at most MAX_SHOWN, then '…')."""
    shown = ", ".join(f"{w:g}" for w in weights[:MAX_SHOWN])
    return shown + (", …" if len(weights) > MAX_SHOWN else "")


def weights_caveat(weights: Sequence[float] | None) -> Msg | None:
    if not uneven(weights):
        return None
    return msg("cf.weights", weights=weights_text(weights), low=float(min(weights)), high=float(max(weights)))


def with_caveat(theory, weights: Sequence[float] | None):
    """The closed form, marked as not exact (and why) when the stages are unequal.
    The peak in-flight counts stay: they depend on each rank's order only."""
    caveat = weights_caveat(weights)
    if caveat is None:
        return theory
    if theory.caveat is not None:
        caveat = msg("cf.and", first=caveat, second=theory.caveat)
    return replace(theory, caveat=caveat, bubble_exact=False, steady_exact=False)
