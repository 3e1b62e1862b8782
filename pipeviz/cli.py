"""Command line: `python -m pipeviz export | show | compare | page | figure`.

Invalid input exits with status 2 and one line on stderr saying what is wrong and what
would be valid; never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import unicodedata
from collections.abc import Callable, Sequence

from . import registry
from .config import MAX_OPS, PLACES, Config, Encoder
from .config import MODES as BALANCE_MODES
from .costs import COST_MAX, COST_MIN, MAY_BE_ZERO, Costs
from .errors import ConfigError, DeadlockError, PipevizError
from .export import MAX_OPS as EXPORT_MAX_OPS
from .order import PLACEMENTS
from .text import fill
from .view.schedule_view import V_STEP

EXIT_USAGE = 2
MAX_TEXT_WIDTH = 10_000  # columns of `show`'s text timeline
# What `show` answers in about a second: the engine's limit (its timeline is drawn a
# column at a time, whatever the op count).
SHOW_MAX_OPS = MAX_OPS


def one_line(text: str) -> str:
    """`text` with the control, format and separator characters a user typed written
    as escapes: an error stays one line, and a bidi override cannot reorder it."""
    return "".join(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in _UNSEEN else ch
                   for ch in text)


_UNSEEN = {"Cc", "Cf", "Zl", "Zp"}


def _fail(prog: str, message: object) -> None:
    print(f"{prog}: error: {one_line(str(message))}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)} (see --help)\n")


def _whole(name: str, low: int = 1) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {low}, got {value}")
        return value

    parse.__name__ = name
    return parse


def _cost(name: str) -> Callable[[str], float]:
    zero = "0 or " if name in MAY_BE_ZERO else ""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not (value == 0 and zero or COST_MIN <= value <= COST_MAX):
            raise argparse.ArgumentTypeError(
                f"{name} must be {zero}a number between {COST_MIN:g} and {COST_MAX:g}, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def _add_config_args(p: argparse.ArgumentParser, model: bool = True) -> None:
    names = ", ".join(registry.NAMES)
    p.add_argument("--schedule", "-s", default=None, metavar="NAME",
                   help=f"schedule: {names} (default 1f1b)")
    p.add_argument("-P", type=_whole("P"), default=None,
                   help="pipeline ranks, one GPU each (default 4; with --order, the order's line count, "
                        "which -P must match)")
    p.add_argument("-m", type=_whole("m"), default=None, help="micro-batches per iteration (default 8)")
    fixed = {}
    for name, spec in registry.SCHEDULES.items():
        fixed.setdefault(spec.fixed_V, []).append(name)
    v_help = "; ".join(f"{V} for {', '.join(names)}" for V, names in fixed.items() if V is not None)
    p.add_argument("-V", type=_whole("V"), default=None,
                   help=f"model chunks per rank: {v_help}; any for {', '.join(fixed.get(None, []))} "
                        "(default: the schedule's own, else 2)")
    p.add_argument("-G", "--group-size", dest="G", type=_whole("G"), default=None,
                   help="interleaved only: micro-batches per group (default P, or PyTorch's rule "
                        "when P does not divide m; Megatron-core's limits apply)")
    _add_cost_args(p)
    enc = p.add_argument_group("encoder", "independent work beside the pipeline, e.g. a vision encoder "
                                          "(adds EF and EB ops; docs/model.md: Independent work in the bubbles)")
    enc.add_argument("--encoder-f", dest="encoder_f", type=_cost("encoder-f"), default=None, metavar="E",
                     help="encoder forward cost per micro-batch, same units as --tf (turns the encoder on)")
    enc.add_argument("--encoder-b", dest="encoder_b", type=_cost("encoder-b"), default=None, metavar="E",
                     help="encoder backward cost per micro-batch (needed unless --encoder-frozen)")
    enc.add_argument("--encoder-place", dest="encoder_place", choices=PLACES, default=None,
                     help="stage0: part of stage 0; separate: all forwards before the pipeline, all backwards "
                          "after it; bubbles: in the pipeline's idle gaps (default bubbles)")
    enc.add_argument("--encoder-frozen", dest="encoder_frozen", action="store_true",
                     help="a frozen encoder: forwards only, no EB ops")
    p.add_argument("--balance", choices=BALANCE_MODES, default=None,
                   help="bpipe: pair rank r with rank P-1-r and move front ranks' activations to the partner "
                        "(adds peak_resident_* and balance_transfers to the metrics; the timeline is unchanged)")
    if model:
        _add_model_args(p)


def _add_cost_args(p: argparse.ArgumentParser) -> None:
    # None when not given: a profiled step (--trace) brings its own costs, and a flag
    # given beside it is refused rather than ignored.
    p.add_argument("--tf", type=_cost("tf"), default=None,
                   help="forward cost of a rank's whole share of the model (default 1)")
    p.add_argument("--tb", type=_cost("tb"), default=None,
                   help="input-gradient backward (B) cost, same units (default 1)")
    p.add_argument("--tw", type=_cost("tw"), default=None,
                   help="weight-gradient backward (W) cost; an unsplit backward costs tb+tw (default 1)")
    p.add_argument("--comm", type=_cost("comm"), default=None,
                   help="latency added to every dependency between ranks (default 0)")
    p.add_argument("--tfb", type=_cost("tfb"), default=None,
                   help="an overlapped F&B op (DualPipe), same units (default tf+tb+tw: no overlap gain)")


def _encoder(args: argparse.Namespace) -> Encoder | None:
    """The encoder the flags ask for: none without --encoder-f."""
    others = [flag for flag, given in (("--encoder-b", args.encoder_b is not None),
                                       ("--encoder-place", args.encoder_place is not None),
                                       ("--encoder-frozen", args.encoder_frozen)) if given]
    if args.encoder_f is None:
        if others:
            raise CliError(f"{others[0]} needs --encoder-f E (the encoder's forward cost per micro-batch)")
        return None
    if args.encoder_b is None and not args.encoder_frozen:
        raise CliError("--encoder-f needs --encoder-b E (the encoder's backward cost), or --encoder-frozen "
                         "for an encoder without a backward")
    eb = args.encoder_b if args.encoder_b is not None else args.encoder_f
    return Encoder(args.encoder_f, eb, args.encoder_place or "bubbles", args.encoder_frozen)


def _add_model_args(p: argparse.ArgumentParser) -> None:
    """A model config (docs/model.md, "Memory in bytes") and stage weights ("Per-stage costs")."""
    from .memory import EXTRA_MAX, LIMITS, PRESETS

    g = p.add_argument_group("model and memory (docs/model.md: Memory in bytes, Per-stage costs)")
    g.add_argument("--model", metavar="NAME", choices=(*PRESETS, "custom"),
                   help=f"a model config: {', '.join(PRESETS)}, or custom (then give --layers, --hidden, --heads, "
                        "--vocab). Adds peak memory in GiB per rank to the metrics, and sets the stage weights "
                        "from the model's layer split")
    for flag, key, what in (("--layers", "L", "transformer layers L"), ("--hidden", "h", "hidden size h"),
                            ("--heads", "a", "attention heads a"), ("--vocab", "vocab", "vocabulary size"),
                            ("--seq", "s", "sequence length s (default 2048)"),
                            ("--mbs", "b", "micro-batch size b, sequences (default 1)"),
                            ("--t", "t", "tensor-parallel size t, with sequence parallelism (default 1)")):
        low, high = LIMITS[key]
        g.add_argument(flag, dest=f"model_{key}", metavar=key, type=_whole_in(flag, low, high), default=None,
                       help=f"{what}; {low}..{high}")
    g.add_argument("--untied", dest="model_untied", action="store_const", const=True, default=None,
                   help="the LM head has its own weights (on the last stage); presets know their own")
    act = g.add_mutually_exclusive_group()
    act.add_argument("--flash", dest="model_act", action="store_const", const="flash",
                     help="flash attention or selective recompute: 34 s b h bytes per layer")
    act.add_argument("--full-recompute", dest="model_act", action="store_const", const="full",
                     help="full recompute: 2 s b h bytes per layer (default: neither, s b h (34 + 5 a s / h))")
    g.add_argument("--bytes-per-param", dest="model_bytes_per_param", type=int, choices=(16, 18), default=None,
                   help="16 (bf16 weights and grads, fp32 Adam and master weights; default) or 18 (fp32 grads)")
    g.add_argument("--embed-layers", dest="model_embed", type=_extra("--embed-layers", EXTRA_MAX), default=None,
                   help=f"the embedding's time in layer-equivalents, added to stage 0's weight; 0..{EXTRA_MAX:g} "
                        "(default 0)")
    g.add_argument("--head-layers", dest="model_head", type=_extra("--head-layers", EXTRA_MAX), default=None,
                   help=f"the LM head's and loss's time in layer-equivalents, added to the last stage's weight; "
                        f"0..{EXTRA_MAX:g} (default 0)")
    g.add_argument("--hbm", type=_extra("--hbm", 4096, low=1), default=80.0,
                   help="HBM per GPU in GiB, the line memory is held to (default 80: an '80 GB' A100 or H100)")
    w = g.add_mutually_exclusive_group()
    w.add_argument("--stage-weights", metavar="W0,W1,...", default=None,
                   help="one weight per stage, e.g. 1.3,1,1,1.2: an op on stage s costs its usual cost times w_s "
                        "(overrides the model's)")
    w.add_argument("--equal-stages", action="store_true",
                   help="time every stage alike even with --model (memory still counts each stage's layers)")


def _whole_in(name: str, low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number in {low}..{high}, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def _extra(name: str, high: float, low: float = 0.0) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be a number in {low:g}..{high:g}, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def _add_order_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--order", metavar="FILE",
                   help="time your own order instead of a schedule: one line per rank in PyTorch's action "
                        "notation (0F0 0F1 1B0 ..., 0F3&5B1 for an overlapped pair; # starts a comment) or the "
                        "JSON export; m is read from it, P is its line count")
    p.add_argument("--placement", choices=PLACEMENTS, default=None,
                   help="with --order: loop (stage s on rank s mod P) or v (rank r holds r and 2P-1-r); "
                        "default loop")


COST_DEFAULTS = {"tf": 1.0, "tb": 1.0, "tw": 1.0, "comm": 0.0}  # None in the parser: --trace refuses a given cost


def _add_trace_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("a profiled step (docs/reading.md: A real run)")
    g.add_argument("--trace", nargs="+", metavar="FILE",
                   help="read a real step instead of a schedule: one Chrome trace per rank as torch.profiler writes "
                        "it (.json, or .json.gz), in any order. PyTorch's pipeline runtime labels every action "
                        "(PP:2F0, PP:1I3, PP:0SEND_F1, ...); its GPipe labels Forward i / Backward i. P, m and V "
                        "come from the traces; times are in ms")
    g.add_argument("--ranks", metavar="R,R,...",
                   help="with --trace: each file's rank, in the order the files are given (default: each trace's "
                        "distributedInfo.rank, else the files' order)")
    g.add_argument("--offsets", metavar="MS,MS,...",
                   help="with --trace: a clock offset in ms added to each rank's times, rank 0 first (traces "
                        "taken on several hosts)")
    g.add_argument("--pattern", metavar="TEMPLATE",
                   help="with --trace: how other frameworks name their ops, e.g. '{kind}_mb{mb}_stage{stage}': "
                        "slots {kind}, {mb} and {stage} (leave out {stage} when it is the rank's own), * for any "
                        "text; {kind} reads F, B, I, W, forward, backward, fwd, bwd, input, weight, ... any case")
    g.add_argument("--pattern-kinds", metavar="WORD=K,...",
                   help="with --pattern: more words for {kind}, e.g. forward_step=F,backward_step=B "
                        "(K one of F, B, I, W, SEND_F, RECV_F, SEND_B, RECV_B)")
    g.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="with --trace: a progress bar on stderr while the traces are read (default: when stderr "
                        "is a terminal)")


TRACE_ONLY = ("ranks", "offsets", "pattern", "pattern_kinds", "progress")


def _trace_conflicts(args: argparse.Namespace) -> None:
    """--trace reads P, m, V and the costs from the traces: no schedule flag applies."""
    if not getattr(args, "trace", None):
        given = [f"--{k.replace('_', '-')}" for k in TRACE_ONLY if getattr(args, k, None) is not None]
        if given:
            raise CliError(f"{given[0]} applies to --trace FILE...")
        return
    flags = {"schedule": "--schedule", "P": "-P", "m": "-m", "V": "-V", "G": "-G", "order": "--order",
             "placement": "--placement", "tf": "--tf", "tb": "--tb", "tw": "--tw", "comm": "--comm",
             "tfb": "--tfb", "encoder_f": "--encoder-f", "encoder_b": "--encoder-b",
             "encoder_place": "--encoder-place", "balance": "--balance", "model": "--model",
             "stage_weights": "--stage-weights"}
    given = [flag for key, flag in flags.items() if getattr(args, key, None) is not None]
    given += [flag for key, flag in (("encoder_frozen", "--encoder-frozen"), ("equal_stages", "--equal-stages"))
              if getattr(args, key, False)]
    given += sorted({f"--{k[len('model_'):]}" for k, v in vars(args).items() if k.startswith("model_") and v is not None})
    if given:
        raise CliError(f"--trace reads P, m, V and the costs from the traces: leave out {', '.join(given)}")
    if args.pattern_kinds is not None and args.pattern is None:
        raise CliError("--pattern-kinds applies to --pattern TEMPLATE")


def _numbers(flag: str, text: str, cast, example: str) -> list:
    try:
        values = [cast(x) for x in text.split(",")]
    except ValueError:
        values = None
    if not values or (cast is float and not all(math.isfinite(x) for x in values)):
        raise CliError(f"{flag} takes numbers separated by commas, e.g. {example}; got {text!r}")
    return values


def _run_trace(args: argparse.Namespace):
    """The report and what-if rows of the traces --trace names (TraceError if they cannot be read)."""
    from .trace import compile_pattern, read_traces, report, what_if

    ranks = _numbers("--ranks", args.ranks, int, "1,0,2") if args.ranks is not None else None
    offsets = _numbers("--offsets", args.offsets, float, "0,0.25,-1.5") if args.offsets is not None else None
    pattern = compile_pattern(args.pattern, args.pattern_kinds) if args.pattern is not None else None
    show_bar = args.progress if args.progress is not None else sys.stderr.isatty()
    bar = _Progress() if show_bar else None
    try:
        run = read_traces(args.trace, ranks, offsets, pattern, progress=bar)
    finally:
        if bar is not None:
            bar.done()
    rep = report(run)
    return rep, what_if(rep)


class _Progress:
    """A progress bar on stderr, redrawn in place as the traces are read."""

    WIDTH = 30

    def __init__(self):
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        share = min(done / total, 1.0) if total > 0 else 1.0
        step = int(share * 100)
        if step == self.shown:
            return
        self.shown = step
        filled = int(share * self.WIDTH)
        sys.stderr.write(f"\rreading traces [{'#' * filled}{'.' * (self.WIDTH - filled)}] {step:3d}% "
                         f"{done / 1e6:.1f} of {total / 1e6:.1f} MB")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown >= 0:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _costs(args: argparse.Namespace) -> Costs:
    tf, tb, tw, comm = (COST_DEFAULTS[k] if getattr(args, k) is None else getattr(args, k) for k in COST_DEFAULTS)
    return Costs(tf, tb, tw, comm, args.tfb)


def _config(args: argparse.Namespace) -> Config:
    if getattr(args, "placement", None) is not None:
        raise CliError("--placement applies to --order FILE; a schedule has its own placement")
    name = args.schedule or "1f1b"
    if (name, args.V is not None and args.V > 1) == (V_STEP[0], True):
        # The explorers' rule (view/schedule_view.py): V > 1 on 1F1B is interleaved 1F1B.
        name = V_STEP[1]
        NOTES.append(fill("rule.to_interleaved", "en", V=args.V))
    spec = registry.get(name)
    V = args.V if args.V is not None else spec.own_V(1)
    P = args.P if args.P is not None else 4
    m = args.m if args.m is not None else 8
    cfg = Config(name, P, m, V, _costs(args), args.G, encoder=_encoder(args), balance=args.balance)
    weights = None
    if getattr(args, "stage_weights", None) is not None:
        from .stages import parse_weights

        weights = parse_weights(args.stage_weights)
    else:
        model = _model(args)
        if model is not None and not args.equal_stages:
            from .memory import stage_weights

            weights = stage_weights(model, spec.chunks_per_rank(V) * P)
    return cfg.replace(stage_weights=weights) if weights is not None else cfg


def _run(args: argparse.Namespace, max_ops: int | None = None):
    """The result to print: a schedule's, or an order's of one's own (--order). With
    max_ops, a run of more ops is refused before the engine runs (what the output
    format writes in about a second)."""
    from .engine import run

    if not getattr(args, "order", None):
        cfg = _config(args)
        if max_ops is not None:  # the engine's own refusals first (past its limit, a bad V, ...)
            _check_ops(registry.check(cfg).n_ops(cfg) + _encoder_ops(cfg), max_ops, args)
        return run(cfg)
    from .custom import run_text

    given = [flag for flag, value in (("--schedule", args.schedule), ("-m", args.m), ("-V", args.V), ("-G", args.G))
             if value is not None]
    closing = [flag for flag, value in (("--encoder-f", args.encoder_f), ("--balance", args.balance)) if value is not None]
    if closing:
        raise CliError(f"--order times the order as written; {', '.join(closing)} applies to a schedule (--schedule)")
    if given:
        raise CliError(f"--order reads the order from FILE (m and V come from it): leave out {', '.join(given)}")
    if getattr(args, "stage_weights", None) is not None:
        raise CliError("--stage-weights applies to a schedule; an order of your own is timed with equal stages "
                       "(--model still measures its memory)")
    text = _read(args.order)
    if max_ops is not None:  # its tokens (an op each, or a communication action): refused before it is read
        tokens = sum(len(line.split("#", 1)[0].replace(",", " ").split()) for line in text.splitlines())
        _check_ops(tokens, max_ops, args, exact=False)
    res = run_text(text, args.placement or "loop", _costs(args), args.P)
    if res.deadlock is not None:
        raise res.deadlock
    if max_ops is not None:
        _check_ops(res.order.n_ops, max_ops, args)
    return res


def _encoder_ops(cfg: Config) -> int:
    """The encoder's ops (an EF and, unless frozen, an EB per micro-batch)."""
    enc = cfg.encoder
    return 0 if enc is None else cfg.m * (1 if enc.frozen else 2)


def _check_ops(n: int, max_ops: int, args: argparse.Namespace, exact: bool = True) -> None:
    if n <= max_ops:
        return
    what = f"--format {args.format}" if args.command == "export" else args.command
    size = f"{n:,} ops" if exact else f"{n:,} actions"
    others = [f for f, cap in EXPORT_MAX_OPS.items() if cap >= n] if args.command == "export" else []
    hint = f", or --format {' or '.join(others)}" if others else ""
    raise CliError(f"{what} writes at most {max_ops:,} ops (about a second's work); this run has {size}: "
                   f"use a smaller P, m or V{hint}")


def _read(path: str) -> str:
    from .custom import MAX_TEXT as MAX_ORDER_BYTES

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_ORDER_BYTES + 1)
    except OSError as e:
        raise OSError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_ORDER_BYTES:
        raise CliError(f"{path} is larger than {MAX_ORDER_BYTES:,} bytes; an order pipeviz times is smaller")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"{path} is not UTF-8 text (byte {e.start}); write the order as text") from None


class CliError(ValueError):
    """A flag combination the command line refuses (one line, exit 2)."""


def _model(args: argparse.Namespace):
    """The model config the flags give, or None without --model."""
    from .memory import ARCH_FIELDS, PRESETS, Model, preset

    given = {k[len("model_"):]: v for k, v in vars(args).items() if k.startswith("model_") and v is not None}
    name = getattr(args, "model", None)
    if name is None:
        if given:
            raise ConfigError("cli.model_needed", flags=", ".join(sorted(given)))
        return None
    if name == "custom":
        missing = [f for f, flag in (("L", "--layers"), ("h", "--hidden"), ("a", "--heads"), ("vocab", "--vocab"))
                   if f not in given]
        if missing:
            raise ConfigError("cli.custom_needs", fields=", ".join(missing))
        return Model(**given)
    arch_changed = any(k in given and given[k] != PRESETS[name][k] for k in ARCH_FIELDS)
    model = preset(name, **given)
    return model.replace(name="custom") if arch_changed else model


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m pipeviz",
        description="Pipeline-parallel schedules: timelines, bubbles and in-flight activations.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    from .export import FORMATS

    p = sub.add_parser("export", help="write one schedule's ops and metrics (json, csv, chrome-trace)",
                       description="Write each rank's ops with start and end times, and the metrics. "
                                   "json is the stable interface of docs/interfaces.md; csv has one row per op; "
                                   "chrome-trace opens in Perfetto or chrome://tracing.")
    _add_config_args(p)
    _add_order_args(p)
    _add_trace_args(p)
    p.add_argument("--format", "-f", choices=FORMATS, default="json", help="output format (default json)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output (- is standard output)")

    p = sub.add_parser("show", help="print a text timeline and the metrics",
                       description="Print the metrics and a text timeline: one line per rank, "
                                   "ops labelled by kind and micro-batch, '/' where the rank idles.")
    _add_config_args(p)
    _add_order_args(p)
    _add_trace_args(p)
    # Wider than a line anyone reads, and the makespan / width of an unbounded width
    # overflows a float: refused with the range.
    p.add_argument("--width", type=_whole_in("width", 20, MAX_TEXT_WIDTH), default=120,
                   help=f"timeline width in columns, 20..{MAX_TEXT_WIDTH} (default 120)")

    _add_compare_parser(sub)

    p = sub.add_parser("page", help="write the explorer as one self-contained HTML file (no server)",
                       description="Write the interactive explorer as one HTML file with inline Bokeh and the "
                                   "engine in JavaScript: no server, no network. The flags set the view it opens "
                                   "at; a URL fragment such as #schedule=interleaved&P=8&m=16&V=2 overrides them.")
    _add_config_args(p, model=False)
    p.add_argument("-o", "--output", metavar="FILE", default="explorer.html",
                   help="where to write the page (default explorer.html; - writes it to standard output)")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="the language the page opens in (default en); a reader can switch, and lang=zh "
                        "in the URL overrides it")
    _add_figure_parser(sub)
    return parser


def _add_compare_parser(sub) -> None:
    from .compare import FORMATS, MAX_V

    p = sub.add_parser("compare", help="every schedule at one P and m: makespan, bubble, peak memory, Pareto front",
                       description="One row per schedule and each V it accepts (its own V, or 1.."
                                   f"{MAX_V}), each the numbers export gives it with the same flags, sorted "
                                   "by makespan with those that fit the HBM first (with --model); pareto marks "
                                   "the rows no other row beats on both makespan and peak memory (GiB with "
                                   "--model, else micro-batches). Schedules that refuse P and m are listed with "
                                   "their reason.")
    p.add_argument("-P", type=_whole("P"), default=4, help="pipeline ranks, one GPU each (default 4)")
    p.add_argument("-m", type=_whole("m"), default=8, help="micro-batches per iteration (default 8)")
    _add_cost_args(p)
    _add_model_args(p)
    p.add_argument("--format", "-f", choices=FORMATS, default="json", help="output format (default json)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")


def _compare(args: argparse.Namespace) -> str:
    from .compare import compare, render

    weights = None
    if args.stage_weights is not None:
        from .stages import parse_weights

        weights = parse_weights(args.stage_weights)
    model = _model(args)
    result = compare(args.P, args.m, _costs(args), model, args.hbm, weights, args.equal_stages)
    if not result.rows:
        first = result.refused[0]
        raise ConfigError("compare.none", P=args.P, m=args.m, first=first.reason)
    return render(result, args.format)


def _add_figure_parser(sub) -> None:
    p = sub.add_parser("figure", help="write the timeline with its legend and readout as SVG or PNG, for slides",
                       description="Write the explorer's timeline, its legend and its readout (as text) at a chosen "
                                   "width; .svg uses Bokeh's SVG backend, .png a headless chromium (both need "
                                   "selenium and chromium-driver).")
    _add_config_args(p)
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="where to write: FILE.svg or FILE.png")
    p.add_argument("--width", type=_whole("width", 1), default=1200, help="figure width in pixels (default 1200)")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="the figure's language (default en)")
    p.add_argument("--inflight", action="store_true", help="add the peak in-flight bars beside the timeline")
    p.add_argument("--critical", action="store_true", help="outline one critical path")
    p.add_argument("--projector", action="store_true", help="larger text and rows, for a lecture hall")


# What the command changed of what was asked (a rule the explorers apply too), said on
# stderr once it has succeeded: a refusal stays one line.
NOTES: list[str] = []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    NOTES.clear()
    try:
        code = _dispatch(args)
        for note in NOTES:
            print(f"pipeviz: {note}", file=sys.stderr)
        return code
    except (PipevizError, DeadlockError, CliError) as e:
        _fail(parser.prog, e)
        return EXIT_USAGE
    except BrokenPipeError:  # whoever read standard output stopped (| head): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # _write names what it could not write
        _fail(parser.prog, e)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in ("export", "show"):
        _trace_conflicts(args)
    if args.command in ("export", "show") and args.trace:
        from .trace import output

        rep, what = _run_trace(args)
        text = output.render(rep, what, args.format) if args.command == "export" else output.show(rep, what, args.width)
        _write(text, getattr(args, "output", None))
    elif args.command == "export":
        from .export import render

        res = _run(args, EXPORT_MAX_OPS[args.format])
        text = render(res, args.format, memory=_memory(res, args))
        _write(text, args.output)
    elif args.command == "show":
        from .textview import show

        res = _run(args, SHOW_MAX_OPS)
        _write(show(res, args.width, memory=_memory(res, args)), None)
    elif args.command == "compare":
        _write(_compare(args), args.output)
    elif args.command == "figure":
        from .figure import check, write

        check(args.output, args.width)  # before running the engine: a wrong name fails fast
        write(_run(args), args.output, args.lang, args.width, args.inflight, args.projector, args.critical)
        print(f"wrote {args.output}", file=sys.stderr)
    elif args.command == "page":
        from .page import build

        html = build(_config(args), args.lang)
        _write(html, args.output)
        where = "standard output" if args.output == STDOUT else args.output
        print(f"wrote {where} ({len(html.encode()) / 1e6:.2f} MB)", file=sys.stderr)
    return 0


def _memory(res, args: argparse.Namespace):
    """Bytes per rank for --model (None without it)."""
    model = _model(args)
    if model is None:
        return None
    from .memory import balance_memory, measure_memory

    mem = measure_memory(res.timeline, model, args.hbm)
    balance = getattr(res, "balance", None)  # --balance bpipe: bytes where BPipe holds them
    return mem if balance is None else balance_memory(mem, res.timeline, balance.pairs)


STDOUT = "-"  # as an output file: standard output, as Unix tools take it


def _write(text: str, path: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if not path or path == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise OSError(f"cannot write {path}: {e.strerror or e}") from None
