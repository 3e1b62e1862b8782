"""The closed-form values a schedule promises, and where the promise holds.

Each schedule module states its bubble, peak in-flight and p2p formulas as a
:class:`ClosedForm`. Bubbles are exact fractions (costs enter as the decimals a
person typed), so the app can print "3/11". `bubble_exact` says whether the formula
is guaranteed to equal the simulation for this configuration; where it is not,
`caveat` says why (a message), in words a reader can check against the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .costs import Costs
from .text import Msg, msg


@dataclass(frozen=True, eq=False)
class ClosedForm:
    bubble: Fraction  # one-iteration bubble fraction
    bubble_formula: str  # in docs/model.md's symbols, e.g. "(P-1)/(m+P-1)"
    bubble_exact: bool  # the simulation must equal `bubble` for this configuration
    caveat: Msg | None  # why the simulation may differ, None when exact
    steady_bubble: Fraction  # steady-state bubble (iterations back to back)
    steady_exact: bool
    peak_chunks: np.ndarray  # (P,) peak in-flight chunks per rank
    peak_awaiting_b: np.ndarray | None  # (P,) split backward: at the peak, chunks awaiting B
    peak_awaiting_w: np.ndarray | None  # (P,) ... and chunks awaiting W only
    p2p_per_microbatch: int
    # A bubble its authors state as idle time (DeepSeek's for DualPipe-V), shown as
    # theirs beside the simulated idle of every rank; None for most schedules.
    authors: AuthorsBubble | None = None
    # Whose order this is, where it is not the one the schedule's summary names
    # (interleaved below m = P runs PyTorch's, which Megatron-core refuses); shown
    # with the readout. None for most configurations.
    source: Msg | None = None
    # The peak is the order's exactly (False: an estimate, e.g. the authors' for a
    # schedule whose order comes from a greedy pass; the caveat says so).
    peak_exact: bool = True


@dataclass(frozen=True, eq=False)
class AuthorsBubble:
    """A bubble as a schedule's authors state it: idle time, not a fraction, in their
    notation. `rank` is the rank whose idle it equals where it holds (the closed
    form's `bubble_exact`); the simulation says whether that is the largest."""

    who: str  # strings key naming whose formula it is, e.g. "cf.deepseek"
    formula: str  # in their notation, and restated in docs/model.md's symbols
    idle: Fraction  # its value, in pipeviz's time units
    rank: int


def exact(x: float) -> Fraction:
    """A cost as the decimal it was written as (0.1 is 1/10, not a binary fraction)."""
    return Fraction(repr(float(x)))


def cost_fractions(costs: Costs) -> tuple[Fraction, Fraction, Fraction]:
    return exact(costs.tf), exact(costs.tb), exact(costs.tw)


def idle_fraction(idle: Fraction, work: Fraction) -> Fraction:
    """Bubble fraction of a rank that works `work` and idles `idle` per iteration."""
    total = work + max(idle, Fraction(0))
    return max(idle, Fraction(0)) / total if total else Fraction(0)


def comm_caveat(costs: Costs) -> Msg | None:
    return msg("cf.comm", comm=costs.comm) if costs.comm > 0 else None


def uniform_caveat(costs: Costs) -> Msg | None:
    """For schedules whose closed form is derived at t_f = t_b = t_w."""
    if costs.comm > 0:
        return comm_caveat(costs)
    if not costs.uniform:
        return msg("cf.uniform", tf=costs.tf, tb=costs.tb, tw=costs.tw)
    return None


def fraction_text(x: Fraction, max_denominator: int = 10_000) -> str:
    """'3/11', or '' when the exact fraction would be unreadable."""
    if x.denominator == 1:
        return str(x.numerator)
    return f"{x.numerator}/{x.denominator}" if x.denominator <= max_denominator else ""


# fill_drain's formulas, for one chunk per rank and for V (the page reads them as data).
FILL_DRAIN_FORMULAS = {"bubble": "(P-1)/(m+P-1)", "bubble_v": "(P-1)/(mV+P-1)"}


def fill_drain(P: int, m: int, V: int, costs: Costs, peak: np.ndarray, order_caveat: Msg | None = None) -> ClosedForm:
    """GPipe, 1F1B and interleaved: the fill and drain cost (P-1) chunk-steps of
    t_f + t_b each, a V-th of a rank's share, at any t_f and t_b; nothing else idles.
    Bubble (P-1)/(mV+P-1), the same one iteration or back to back."""
    caveat = order_caveat or comm_caveat(costs)
    bubble = Fraction(P - 1, m * V + P - 1)
    return ClosedForm(
        bubble=bubble,
        bubble_formula=FILL_DRAIN_FORMULAS["bubble" if V == 1 else "bubble_v"],
        bubble_exact=caveat is None,
        caveat=caveat,
        steady_bubble=bubble,
        steady_exact=caveat is None,
        peak_chunks=peak.astype(np.int64),
        peak_awaiting_b=None,
        peak_awaiting_w=None,
        p2p_per_microbatch=2 * (V * P - 1) if P > 1 else 0,
    )
