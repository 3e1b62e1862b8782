"""A real run: one profiled step read from its traces, and what pipeviz says of it.

    from pipeviz.trace import read_traces, report, what_if
    run = read_traces(["rank0.json", "rank1.json.gz"])  # one file per rank, any order
    rep = report(run)                                    # measured costs, the model, the gaps
    rows = what_if(rep).rows                             # every schedule at the run's costs

What a view needs (times in ms from the earliest compute start over all ranks):
- real ops per rank: `run.order` (kind, mb, stage, mb2, stage2, rank_ptr: each rank's
  ops in the order they ran) with `run.start`, `run.end`; `run.names` the events'
  names; `run.metrics` (makespan, busy, idle, bubble fraction, idle intervals, in
  flight) and `run.timeline` as for a schedule;
- communication per rank: `run.comm` (rank, start, end, kind into names.COMM_KINDS,
  mb, stage, peer, rank_ptr), for a thin lane beside each rank;
- the model of the same order: `rep.simulated` (a Timeline over the same op indices)
  and `rep.simulated_metrics`; `rep.gap` = measured - simulated makespan;
- gap lines: `rep.gaps`, each a wait longer than the model's with its words
  (`gap.msg`, a Msg in either language) and where it is (rank, op, comm);
- measured costs: `rep.costs` (mean per kind, per stage, stage work and weights) and
  `rep.imbalance` (what unequal stages cost in the model, with its words);
- what if: `what_if(rep)` -> rows for the comparison table (schedule, V, makespan,
  bubble, peak in flight, against the measured and the modelled step, or the reason a
  schedule cannot run).
Output formats (JSON, CSV, Chrome trace, actions, text) are in `pipeviz.trace.output`.
Every refusal is a TraceError (pipeviz.errors) with one line saying what is wrong.
static/trace.js is the page's twin: the same reading, numbers and messages.

Modules: `stream` (the JSON, a chunk at a time), `names` (what an event's name says),
`read` (files -> Run), `report` (the numbers), `whatif`, `output`.
"""

from .names import COMM_KINDS, Pattern, compile_pattern
from .names import as_data as _names_data
from .read import Comm, Run, read_traces
from .report import Costs, Gap, Imbalance, Report, report
from .whatif import Row, WhatIf, what_if

__all__ = ["COMM_KINDS", "Pattern", "compile_pattern", "Comm", "Run", "read_traces", "Costs", "Gap", "Imbalance",
           "Report", "report", "Row", "WhatIf", "what_if"]


def as_data() -> dict:
    """What static/trace.js reads instead of repeating it (page_document.page_data()["trace"])."""
    from . import read, stream
    from .report import CAUSES, GAP_SHARE, MEASURED_KINDS, STAGE_KINDS
    from .whatif import INTERLEAVED

    return {**_names_data(), "maxFiles": read.MAX_FILES, "maxKept": read.MAX_KEPT, "maxOffsetMs": read.MAX_OFFSET_MS,
            "abutUs": read.ABUT_US,
            "examples": read.EXAMPLES, "gapShare": GAP_SHARE, "measuredKinds": list(MEASURED_KINDS),
            "stageKinds": list(STAGE_KINDS), "gzipMagic": list(stream.GZIP_MAGIC), "interleaved": INTERLEAVED,
            "eventsKey": stream.EVENTS_KEY, "infoKey": stream.INFO_KEY, "rankKey": stream.RANK_KEY, "causes": list(CAUSES)}
