"""What one capability adds to the explorer, declared in one place: a `Feature`.

Each feature module (the schedule and its sliders, an order of one's own, the
closing section, the model and memory, the teaching view) declares one. The list of
them is `view/features.py`; the field table (`view/fields.py`) and the state rules
(`view/state.py`) iterate that list, so neither imports a feature by name, and what
a feature adds can be read in its declaration:

  fields         its values in the explorer's state (and the URL, where `in_url`)
  engine_fields  those of them the engine reads: a change runs the engine again
  rule           keeps the state valid after a change: adjusts `state` in place,
                 appends a note for each adjustment, and returns True when the rules
                 after it must not apply (an order of one's own sets P, m and V)
  configure      its part of the engine's Config, from the state (raising
                 ConfigError when the state cannot be shown)
  layouts        markup its readouts fill together with the readouts' own (the
                 page's static/readouts.js composes from the union)
  data           what its JavaScript twin reads, under `PIPEVIZ_DATA.features[name]`

Its words are in its part of `pipeviz.words`; its figures' columns and its
readouts are functions of its module that both explorers call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..config import Config
from ..text import Msg
from .field import Field

Rule = Callable[[dict, set, list[Msg]], bool]


@dataclass(frozen=True, kw_only=True)
class Feature:
    name: str
    fields: tuple[Field, ...] = ()
    engine_fields: tuple[str, ...] = ()
    rule: Rule | None = None
    configure: Callable[[Config, dict], Config] | None = None
    layouts: Mapping[str, str] = field(default_factory=dict)
    data: Callable[[], dict] | None = None

    def __post_init__(self) -> None:
        names = {f.name for f in self.fields}
        if not set(self.engine_fields) <= names:
            raise ValueError(f"feature {self.name!r}: engine fields {sorted(set(self.engine_fields) - names)} "
                             "are not its fields")
