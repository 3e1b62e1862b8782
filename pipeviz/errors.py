"""Errors a person can act on: each message says what is wrong and what would be valid."""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration that no schedule can run, or that is too large to compute quickly."""


class OrderError(ValueError):
    """An order that is not a valid schedule: a missing or repeated op, a stage on the wrong rank."""


class DeadlockError(RuntimeError):
    """An order that cannot finish. `blocked` lists (rank, op, waits_for) for every stuck rank."""

    def __init__(self, blocked: list[tuple[int, str, str]]):
        self.blocked = blocked
        parts = [f"rank {r} is stuck at {op}, which waits for {dep}" for r, op, dep in blocked]
        super().__init__("deadlock: " + "; ".join(parts))
