"""The one list of schedules: each `pipeviz/schedules/*.py` module declares its own
`ENTRY`, and this module collects them (in the order their `position` gives).

Adding a schedule means writing its module (generator, closed form, entry and
strings) and its JavaScript twin in `static/schedules/`; nothing here.
"""

from __future__ import annotations

import importlib
import pkgutil

from . import schedules
from .config import MAX_OPS, Config
from .errors import ConfigError
from .schedule import Schedule
from .stages import check_length
from .text import strings

__all__ = ["NAMES", "SCHEDULES", "Schedule", "check", "get"]


def _collect() -> dict[str, Schedule]:
    entries = []
    for info in pkgutil.iter_modules(schedules.__path__):
        module = importlib.import_module(f"{schedules.__name__}.{info.name}")
        entry = getattr(module, "ENTRY", None)
        if isinstance(entry, Schedule):
            entries.append(entry)
    entries.sort(key=lambda e: e.position)
    return {e.name: e for e in entries}


SCHEDULES: dict[str, Schedule] = _collect()
NAMES = tuple(SCHEDULES)


def get(name) -> Schedule:
    try:
        return SCHEDULES[name]
    except (KeyError, TypeError):
        raise ConfigError("schedule.unknown", name=str(name), names=", ".join(NAMES)) from None


def check(cfg: Config) -> Schedule:
    """The schedule for `cfg`, or a ConfigError saying what is wrong and what is valid."""
    spec = get(cfg.schedule)
    if spec.fixed_V is not None and cfg.V != spec.fixed_V:
        key = "schedule.fixed_v1" if spec.fixed_V == 1 else "schedule.fixed_v"
        raise ConfigError(key, name=spec.name, fixed=spec.fixed_V, V=cfg.V)
    if cfg.G is not None and not spec.takes_G:
        raise ConfigError("schedule.no_G", name=spec.name)
    check_length(cfg.stage_weights, spec.chunks_per_rank(cfg.V) * cfg.P, spec.name)
    # Size first: the schedule's own checks may search for a valid m, which must stay cheap.
    n_ops = spec.n_ops(cfg)
    if n_ops > MAX_OPS:
        per_mb = n_ops // cfg.m
        if per_mb > MAX_OPS:
            raise ConfigError("schedule.too_big_P", name=spec.name, P=cfg.P, V=cfg.V, n=f"{per_mb:,}",
                              max=f"{MAX_OPS:,}")
        raise ConfigError("schedule.too_big", name=spec.name, P=cfg.P, m=cfg.m, V=cfg.V, n=f"{n_ops:,}",
                          max=f"{MAX_OPS:,}", m_max=MAX_OPS // per_mb)
    if spec.check:
        spec.check(cfg)
    return spec


strings({
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
})
