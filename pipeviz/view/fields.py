"""The explorer's fields, presets and URL.

A field is one value of the explorer's state: a schedule name, P, a cost, the
language. Each declares its type, range, default and label once; the served app
makes its `param` parameters and widgets from them, and the standalone page gets
them as data. Features register their own fields and presets here.

URL: `?schedule=interleaved&P=8&m=16&V=2` or the same after `#`. Parsing never
evaluates anything. A value is read as a choice (exact), or as a number written with
ASCII digits (an optional sign, digits with one optional point, an optional
exponent); a number out of range is clamped with a note, anything else is ignored
with a note. The query and the fragment are both read and the fragment wins where
both name a field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

from ..costs import COST_MIN
from ..encoder import PLACES as ENCODER_PLACES
from ..registry import NAMES
from ..text import Msg, msg, strings

MAX_RAW = 40  # longer URL values are not read (and are shown cut to this length)


@dataclass(frozen=True, kw_only=True)
class Field:
    name: str
    kind: str  # "int", "float", "choice", "bool" or "text"
    default: object
    low: float | None = None  # int and float
    high: float | None = None
    step: float | None = None  # the widget's step
    # A float that may be 0 but is otherwise at least this (a cost the engine takes as
    # 0 or from costs.COST_MIN): a URL value between is moved to the nearer of the two.
    least: float | None = None
    choices: tuple[str, ...] = ()  # choice
    in_url: bool = True
    max_len: int = MAX_RAW  # longer URL values are not read

    @property
    def label_key(self) -> str:
        return f"field.{self.name}"

    @property
    def range_text(self) -> str:
        """'1..32', '0.01..1000', 'a, b, c'."""
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "0, 1"
        if self.kind == "text":  # read as it is; its own module checks it
            return f"text of at most {self.max_len} characters"
        if self.least is not None:
            return f"{_fmt(self.low)}, {_fmt(self.least)}..{_fmt(self.high)}"
        return f"{_fmt(self.low)}..{_fmt(self.high)}"

    def nearest(self, value: float) -> float:
        """The valid value nearest to `value` (a number in range, or clamped to it)."""
        x = min(max(value, self.low), self.high)
        if self.least is not None and 0 < x < self.least:
            x = 0.0 if x < self.least / 2 else self.least
        return x

    def as_data(self) -> dict:
        return {
            "name": self.name, "kind": self.kind, "default": self.default, "low": self.low, "high": self.high,
            "step": self.step, "least": self.least, "choices": list(self.choices), "inUrl": self.in_url,
            "rangeText": self.range_text, "maxLen": self.max_len,
        }


FIELDS: dict[str, Field] = {}
NO_ENCODER = "none"  # the encoder field's value for no encoder


def register(*fields: Field) -> None:
    for f in fields:
        if f.name in FIELDS and FIELDS[f.name] != f:
            raise ValueError(f"field {f.name!r} registered twice")
        FIELDS[f.name] = f


register(
    Field(name="schedule", kind="choice", default="1f1b", choices=NAMES),
    Field(name="P", kind="int", default=4, low=1, high=32, step=1),
    Field(name="m", kind="int", default=8, low=1, high=128, step=1),
    Field(name="V", kind="int", default=1, low=1, high=8, step=1),
    Field(name="tf", kind="float", default=1.0, low=0.01, high=1000, step=0.1),
    Field(name="tb", kind="float", default=1.0, low=0.01, high=1000, step=0.1),
    Field(name="tw", kind="float", default=1.0, low=0, high=1000, step=0.1, least=COST_MIN),
    Field(name="comm", kind="float", default=0.0, low=0, high=1000, step=0.1, least=COST_MIN),
    # An overlapped F&B (DualPipe-V); 0 stands for t_f + t_b + t_w, no gain from overlapping.
    Field(name="tfb", kind="float", default=0.0, low=0, high=1000, step=0.1, least=COST_MIN),
    Field(name="unit", kind="choice", default="micro-batches", choices=("micro-batches", "chunks")),
    Field(name="lang", kind="choice", default="en", choices=("en", "zh")),
    # The article's closing section: an encoder in the bubbles (pipeviz.encoder) and
    # activation balancing (pipeviz.balance). encoder=none runs no encoder.
    Field(name="encoder", kind="choice", default=NO_ENCODER, choices=(NO_ENCODER, *ENCODER_PLACES)),
    Field(name="ef", kind="float", default=0.5, low=0.1, high=50, step=0.1),
    Field(name="eb", kind="float", default=1.0, low=0.1, high=50, step=0.1),
    Field(name="frozen", kind="bool", default=False),
    Field(name="balance", kind="bool", default=False),
)


def defaults() -> dict:
    return {k: f.default for k, f in FIELDS.items()}


@dataclass(frozen=True)
class Preset:
    name: str
    values: dict  # field -> value; fields not named keep their value


PRESETS: dict[str, Preset] = {}


def preset(name: str, **values) -> None:
    for k in values:
        if k not in FIELDS:
            raise ValueError(f"preset {name!r} sets unknown field {k!r}")
    PRESETS[name] = Preset(name, values)


_COSTS = dict(tf=1.0, tb=1.0, tw=1.0, comm=0.0, tfb=0.0)
_PLAIN = dict(encoder="none", balance=False)  # the sections before the closing one
# Named after the article's sections, in its order; the last is the Zero Bubble
# paper's measured GPT stage (ms, P=8, m=24).
preset("article", schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
preset("drag-v", schedule="interleaved", P=4, m=8, V=2, unit="micro-batches", **_COSTS, **_PLAIN)
preset("staircase", schedule="interleaved", P=8, m=16, V=2, unit="chunks", **_COSTS, **_PLAIN)
preset("gpipe-memory", schedule="gpipe", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
preset("zero-bubble", schedule="zb-h1", P=4, m=8, V=1, unit="micro-batches", **_COSTS, **_PLAIN)
# The closing section: fill the bubbles with an encoder, flatten the staircase.
preset("encoder", schedule="1f1b", P=4, m=8, V=1, unit="micro-batches", **_COSTS, encoder="bubbles", ef=0.5,
       eb=1.0, frozen=False, balance=False)
preset("bpipe", schedule="1f1b", P=8, m=8, V=1, unit="micro-batches", **_COSTS, encoder="none", balance=True)
preset("gpt", P=8, m=24, tf=18.5, tb=18.1, tw=9.3, comm=0.6, tfb=0.0)
preset("deepseek", schedule="dualpipe-v", P=4, m=10, V=2, unit="chunks", **_COSTS, **_PLAIN)  # DeepSeek's figure

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only


def read_number(raw: str) -> float | None:
    """A finite number written with ASCII digits, or None."""
    text = raw.strip(" \t\n\r")
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def shown(raw: str) -> str:
    """A URL value as a note quotes it: at most MAX_RAW characters."""
    return raw if len(raw) <= MAX_RAW else raw[:MAX_RAW] + "…"


def read_value(f: Field, raw: str) -> tuple[object, Msg | None]:
    """(value, note): value None when it is ignored."""
    if len(raw) > f.max_len:
        return None, msg("url.too_long", key=f.name, value=shown(raw), n=f.max_len)
    if f.kind == "text":  # plain text, never evaluated: the field's module parses it
        return raw, None
    if f.kind == "choice":
        if raw in f.choices:
            return raw, None
        return None, msg("url.choice", key=f.name, value=raw, valid=f.range_text)
    value = read_number(raw)
    if f.kind == "bool":
        if value in (0.0, 1.0):
            return bool(value), None
        return None, msg("url.choice", key=f.name, value=raw, valid=f.range_text)
    if value is None or (f.kind == "int" and not value.is_integer()):
        key = "url.not_whole" if f.kind == "int" else "url.not_number"
        return None, msg(key, key=f.name, value=raw, valid=f.range_text)
    clamped = f.nearest(value)
    typed = int(clamped) if f.kind == "int" else float(clamped)
    if clamped != value:
        return typed, msg("url.clamped", key=f.name, value=raw, valid=f.range_text, to=typed)
    return typed, None


def parse(search: str, fragment: str = "") -> tuple[dict, list[Msg]]:
    """Values to apply and notes about anything clamped or ignored. `preset=NAME`
    applies the preset first; other fields in the URL then override it."""
    pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True)
    pairs += parse_qsl(fragment.lstrip("#"), keep_blank_values=True)
    updates: dict = {}
    notes: list[Msg] = []
    chosen = None
    for key, raw in pairs:
        if key == "preset":
            if raw in PRESETS:
                chosen = raw
            else:
                notes.append(msg("url.choice", key="preset", value=shown(raw), valid=", ".join(PRESETS)))
            continue
        f = FIELDS.get(key)
        if f is None or not f.in_url:
            notes.append(msg("url.unknown", key=shown(key), known=", ".join(url_keys() + ["preset"])))
            continue
        value, note = read_value(f, raw)
        if note is not None:
            notes.append(note)
        if value is not None:
            updates[key] = value
    if chosen is not None:
        updates = {**PRESETS[chosen].values, **updates}
    return updates, notes


def url_keys() -> list[str]:
    return [k for k, f in FIELDS.items() if f.in_url]


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def encode(state: dict) -> str:
    """'schedule=1f1b&P=4&...': every URL field, in FIELDS' order, numbers written shortest."""
    return "&".join(f"{k}={quote(_fmt(state[k]), safe='-.,')}" for k in url_keys() if k in state)


strings({
    "url.unknown": ("URL: ignored unknown parameter '{key}'; known: {known}",
                    "URL：忽略了未知参数 '{key}'；可用的有：{known}"),
    "url.choice": ("URL: {key}='{value}' is not one of {valid}; ignored", "URL：{key}='{value}' 不在 {valid} 之中；已忽略"),
    "url.not_whole": ("URL: {key}='{value}' is not a whole number in {valid}; ignored",
                      "URL：{key}='{value}' 不是 {valid} 之间的整数；已忽略"),
    "url.not_number": ("URL: {key}='{value}' is not a number in {valid}; ignored",
                       "URL：{key}='{value}' 不是 {valid} 之间的数；已忽略"),
    "url.clamped": ("URL: {key}={value} is outside {valid}; clamped to {to}",
                    "URL：{key}={value} 超出了 {valid}；已改为 {to}"),
    "url.too_long": ("URL: the value of {key} ('{value}') is longer than {n} characters; ignored",
                     "URL：{key} 的值（'{value}'）超过 {n} 个字符；已忽略"),
})

strings({
    "field.schedule": ("Schedule", "调度"),
    "field.P": ("P (ranks)", "P（rank 数）"),
    "field.m": ("m (micro-batches)", "m（微批次数）"),
    "field.V": ("V (chunks per rank)", "V（每个 rank 的虚拟段数）"),
    "field.tf": ("t_f (forward)", "t_f（前向）"),
    "field.tb": ("t_b (backward: input gradient)", "t_b（反向：对输入的梯度）"),
    "field.tw": ("t_w (backward: weight gradient)", "t_w（反向：对权重的梯度）"),
    "field.comm": ("comm (latency per hop)", "comm（每跳延迟）"),
    "field.tfb": ("t_fb (overlapped F&B; 0: t_f+t_b+t_w)", "t_fb（重叠的前向与反向；0 即 t_f+t_b+t_w）"),
    "field.unit": ("In-flight bars in", "在途激活的单位"),
    "field.lang": ("Language", "语言"),
    "field.encoder": ("Encoder (independent work, e.g. a vision tower)", "编码器（独立的计算，比如视觉编码器）"),
    "field.ef": ("e_f (encoder forward per micro-batch)", "e_f（每个微批次的编码器前向）"),
    "field.eb": ("e_b (encoder backward per micro-batch)", "e_b（每个微批次的编码器反向）"),
    "field.frozen": ("frozen encoder (no backward)", "冻结编码器（没有反向）"),
    "field.balance": ("Balance activations (pair rank r with rank P-1-r)", "均衡在途激活（rank r 与 rank P-1-r 配对）"),
    "choice.encoder.none": ("none", "无"),
    "choice.encoder.stage0": ("part of stage 0", "并入第 0 段"),
    "choice.encoder.separate": ("separate: before and after the pipeline", "单独跑：流水线之前和之后"),
    "choice.encoder.bubbles": ("in the bubbles", "塞进气泡"),
    "preset.encoder": ("Fill the bubbles: an encoder beside 1F1B", "填气泡：1F1B 旁边的编码器"),
    "preset.bpipe": ("Flatten the staircase: BPipe, P=8", "压平阶梯：BPipe，P=8"),
    "choice.unit.micro-batches": ("micro-batches", "微批次"),
    "choice.unit.chunks": ("chunks", "块"),
    "choice.lang.en": ("English", "English"),
    "choice.lang.zh": ("中文", "中文"),
    "field.preset": ("Start from", "从这里开始"),
    "preset.article": ("The first figure: 1F1B, P=4, m=8", "第一张图：1F1B，P=4，m=8"),
    "preset.drag-v": ("Drag V: interleaved, V=2", "拉 V：interleaved，V=2"),
    "preset.staircase": ("The memory staircase: P=8, m=16, V=2 (chunks)", "显存阶梯：P=8，m=16，V=2（按块计）"),
    "preset.gpipe-memory": ("GPipe vs 1F1B memory", "GPipe 与 1F1B 的显存"),
    "preset.zero-bubble": ("Zero Bubble: ZB-H1", "Zero Bubble：ZB-H1"),
    "preset.gpt": ("Profiled GPT costs (Zero Bubble paper)", "实测 GPT 开销（Zero Bubble 论文）"),
    "preset.deepseek": ("DualPipe-V: DeepSeek's figure, P=4, m=10", "DualPipe-V：DeepSeek 的示意图，P=4，m=10"),
})

strings({
    "app.tagline": ("How pipeline-parallel training spends its time.", "流水线并行训练的时间花在了哪里。"),
    "notice.invalid": ("Not valid: {why}. The chart still shows {shown}.", "无效：{why}。图上仍是 {shown}。"),
    "notice.nothing": ("nothing yet", "空白"),
    "notice.config": ("{name} with P={P}, m={m}, V={V}", "{name}，P={P}，m={m}，V={V}"),
    "costs.title": ("Costs", "开销"),
    "costs.note": (
        "Per rank's whole share of the model, in any time unit. The article's units: forward 1, "
        "backward 2 = t_b + t_w (the input gradient and the weight gradient, 1 each).",
        "按每个 rank 承担的整份模型计，时间单位任意。文章的约定：前向 1，反向 2 = t_b + t_w"
        "（对输入的梯度和对权重的梯度各 1）。",
    ),
    "table.title": ("All schedules at this P, m and V", "这组 P、m、V 下的全部调度"),
})
