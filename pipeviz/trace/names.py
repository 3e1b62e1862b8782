"""What an event's name says: which pipeline op it is, if any.

Three vocabularies (docs/reading.md, "A real run"):
- PyTorch's pipeline runtime (torch.distributed.pipelining) names each action
  `PP:<action>` in its action notation: `PP:2F0`, `PP:1I3`, `PP:0W1`, `PP:3B2` (compute:
  F forward, I input-gradient backward, W weight gradient, B full backward),
  `PP:(0F3;3B1)OVERLAP_F_B` (DualPipe-V's overlapped forward and full backward, one op),
  `PP:0SEND_F1`, `RECV_F`, `SEND_B`, `RECV_B` (communication of one micro-batch) and
  `PP:2UNSHARD`, `RESHARD`, `REDUCE_GRAD` (bookkeeping, no micro-batch);
- its GPipe: `Forward 3`, `Backward 3`, whose stage is the rank's own;
- a pattern of the user's for other frameworks' labels (`Pattern`).

A name reads as a tuple (kind, mb, stage, mb2, stage2): kind one of F, B, I, W, F&B or
a COMM_KINDS word; stage OWN_STAGE where the name leaves it to the rank; mb2 and
stage2 the backward part of an F&B, else -1; mb -1 for bookkeeping. Numbers are ASCII
digits, at most 9 of them (as in pasted orders, order.py).

Patterns are templates, never code: `{kind}`, `{mb}` and `{stage}` are slots, `*` is
any text, every other character stands for itself. A template becomes a regular
expression made only of escaped literals and these fixed groups, matched against the
whole name. At most MAX_STARS stars and names of at most MAX_NAME characters keep
the matching's backtracking small (a few hundred thousand steps for a hostile name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import TraceError

COMPUTE_KINDS = ("F", "B", "I", "W", "F&B")
COMM_KINDS = ("SEND_F", "RECV_F", "SEND_B", "RECV_B", "UNSHARD", "RESHARD", "REDUCE_GRAD")
OWN_STAGE = -2  # "the stage of the rank that ran it": GPipe's names, a pattern without {stage}
MAX_NAME = 256
MAX_STARS = 2

_N = "([0-9]{1,9})"
_COMPUTE = re.compile(_N + "([FIBW])" + _N)
_OVERLAP = re.compile(r"\((.*)\)OVERLAP_F_B", re.S)
_MOVE = re.compile(_N + "(SEND_F|RECV_F|SEND_B|RECV_B)" + _N)
_BOOK = re.compile(_N + "(UNSHARD|RESHARD|REDUCE_GRAD)")
_GPIPE = re.compile("(Forward|Backward) " + _N)

PP_PREFIX = "PP:"


class OverlapError(ValueError):
    """An overlapped pair that is not one forward and one full backward (the reader
    says so, naming the file)."""


def pp_action(action: str) -> tuple | None:
    """PyTorch's action (the name after "PP:") as a tuple, or None if it is none of its
    words. An overlapped pair that is not one forward and one full backward raises
    OverlapError."""
    if found := _COMPUTE.fullmatch(action):
        return (found.group(2), int(found.group(3)), int(found.group(1)), -1, -1)
    if found := _MOVE.fullmatch(action):
        return (found.group(2), int(found.group(3)), int(found.group(1)), -1, -1)
    if found := _BOOK.fullmatch(action):
        return (found.group(2), -1, int(found.group(1)), -1, -1)
    if found := _OVERLAP.fullmatch(action):
        parts = [_COMPUTE.fullmatch(p) for p in found.group(1).split(";")]
        kinds = sorted(p.group(2) for p in parts if p)
        if None in parts or kinds != ["B", "F"]:
            raise OverlapError(PP_PREFIX + action)
        f, b = sorted(parts, key=lambda p: p.group(2) != "F")
        return ("F&B", int(f.group(3)), int(f.group(1)), int(b.group(3)), int(b.group(1)))
    return None


def gpipe(name: str) -> tuple | None:
    """PyTorch GPipe's `Forward i` / `Backward i` (a full backward), on the rank's own stage."""
    if found := _GPIPE.fullmatch(name):
        return ("F" if found.group(1) == "Forward" else "B", int(found.group(2)), OWN_STAGE, -1, -1)
    return None


# What a pattern's {kind} may say, case aside, unless the user maps other words.
KIND_WORDS = {
    "f": "F", "fwd": "F", "forward": "F",
    "b": "B", "bwd": "B", "backward": "B",
    "i": "I", "input": "I", "dgrad": "I", "backward_input": "I", "bwd_input": "I",
    "w": "W", "weight": "W", "wgrad": "W", "backward_weight": "W", "bwd_weight": "W",
}
PATTERN_KINDS = ("F", "B", "I", "W", "SEND_F", "RECV_F", "SEND_B", "RECV_B")
SLOTS = ("kind", "mb", "stage")
SLOTS_TEXT, NEEDS_TEXT, STAGE_TEXT = "{kind}, {mb}, {stage}", "{kind}, {mb}", "{stage}"
_PIECE = re.compile(r"\{([^{}]*)\}|\*")
_WORD = re.compile("[A-Za-z_]+")


@dataclass(frozen=True)
class Pattern:
    """A user's name template and its kind words (see the module docstring)."""

    template: str
    regex: re.Pattern
    groups: tuple[str, ...]  # the slots in the order they appear
    words: dict  # lower-case word -> kind

    def match(self, name: str) -> tuple | None:
        if len(name) > MAX_NAME:
            return None
        found = self.regex.fullmatch(name)
        if found is None:
            return None
        got = dict(zip(self.groups, found.groups()))
        kind = self.words.get(got["kind"].lower())
        if kind is None:
            return None
        stage = int(got["stage"]) if "stage" in got else OWN_STAGE
        return (kind, int(got["mb"]), stage, -1, -1)


def compile_pattern(template: str, kinds: str | None = None) -> Pattern:
    """A Pattern from a template such as `{kind}_mb{mb}_stage{stage}` and optional kind
    words `forward_step=F,backward_step=B` (TraceError saying what is wrong)."""
    if not template or len(template) > MAX_NAME:
        raise TraceError("trace.pattern_length", max=MAX_NAME)
    parts, groups, at, stars = [], [], 0, 0
    for found in _PIECE.finditer(template):
        parts.append(re.escape(template[at:found.start()]))
        at = found.end()
        if found.group() == "*":
            stars += 1
            parts.append(r"[\s\S]*?")
            continue
        slot = found.group(1)
        if slot not in SLOTS or slot in groups:
            raise TraceError("trace.pattern_slot", pattern=template, slot=found.group(), slots=SLOTS_TEXT)
        groups.append(slot)
        parts.append("([A-Za-z_]+)" if slot == "kind" else "([0-9]{1,9})")
    parts.append(re.escape(template[at:]))
    if "kind" not in groups or "mb" not in groups:
        raise TraceError("trace.pattern_needs", pattern=template, slots=NEEDS_TEXT, stage=STAGE_TEXT)
    if stars > MAX_STARS:
        raise TraceError("trace.pattern_stars", pattern=template, max=MAX_STARS)
    return Pattern(template, re.compile("".join(parts)), tuple(groups), {**KIND_WORDS, **parse_kinds(kinds)})


def parse_kinds(text: str | None) -> dict:
    """`word=K,word=K` (K one of PATTERN_KINDS) as {lower-case word: K}."""
    out: dict = {}
    if not text:
        return out
    for item in text.split(","):
        word, eq, kind = item.strip().partition("=")
        word, kind = word.strip(), kind.strip()
        if not eq or not _WORD.fullmatch(word) or kind not in PATTERN_KINDS:
            raise TraceError("trace.pattern_kinds", item=item.strip(), kinds=", ".join(PATTERN_KINDS))
        out[word.lower()] = kind
    return out


def classify(name: str, pattern: Pattern | None) -> tuple | None:
    """The op an event's name stands for (see the module docstring), or None.
    PyTorch's PP: names first, then the user's pattern, else GPipe's names."""
    if name.startswith(PP_PREFIX):
        return pp_action(name[len(PP_PREFIX):])
    if pattern is not None:
        return pattern.match(name)
    if name.startswith(("Forward ", "Backward ")):
        return gpipe(name)
    return None


def as_data() -> dict:
    """What static/trace.js reads instead of repeating it."""
    return {
        "ownStage": OWN_STAGE, "maxName": MAX_NAME, "maxStars": MAX_STARS, "ppPrefix": PP_PREFIX,
        "kindWords": dict(KIND_WORDS), "patternKinds": list(PATTERN_KINDS), "slots": list(SLOTS),
        "slotsText": SLOTS_TEXT, "needsText": NEEDS_TEXT, "stageText": STAGE_TEXT,
        "commKinds": list(COMM_KINDS),
    }
