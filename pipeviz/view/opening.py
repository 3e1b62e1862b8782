"""What the standalone page shows as it opens at a configuration: the value of each
widget the configuration sets, the line under the bar and the puzzle's block.

`python -m pipeviz page` builds the page's Bokeh document once per language, at the
defaults (pipeviz/page_document.py), and opens it at the flags' view by setting these
values in its JSON (pipeviz/page.py); the document builder gives its widgets the same
values, so a page built either way is the same page.
"""

from __future__ import annotations

from html import escape

from ..config import Config
from ..text import template
from . import glance, puzzle
from .fields import FIELDS, defaults

# Where the page template (page_document.template_html) has the line under the bar and
# the puzzle's block, which pipeviz/page.py fills for the configuration it opens at.
SUMMARY = "<!--pipeviz:summary-->"
PUZZLE = "<!--pipeviz:puzzle-->"


def state_of(cfg: Config) -> dict:
    """The fields a configuration sets."""
    c = cfg.costs
    return {"schedule": cfg.schedule, "P": cfg.P, "m": cfg.m, "V": cfg.V, "tf": c.tf, "tb": c.tb, "tw": c.tw,
            "comm": c.comm}


def widget_values(cfg: Config, lang: str) -> dict[str, dict]:
    """Each page widget the configuration or the language sets, by its model's name:
    the Bokeh properties it opens with. Every other widget opens at its field's default."""
    c, enc = cfg.costs, cfg.encoder

    def index(key: str, choice: str) -> int:
        return FIELDS[key].choices.index(choice)

    def box(on: bool) -> list[int]:  # a one-box CheckboxGroup
        return [0] if on else []

    return {
        "schedule": {"value": cfg.schedule},
        "P": {"value": cfg.P}, "m": {"value": cfg.m}, "V": {"value": cfg.V},
        "tf": {"value": float(c.tf)}, "tb": {"value": float(c.tb)}, "tw": {"value": float(c.tw)},
        "comm": {"value": float(c.comm)}, "tfb": {"value": float(c.tfb or 0.0)},
        "lang": {"active": index("lang", lang)},
        "balance": {"active": box(cfg.balance is not None)},
        "encoder": {"active": index("encoder", enc.place if enc else FIELDS["encoder"].default)},
        "ef": {"value": float(enc.ef if enc else FIELDS["ef"].default)},
        "eb": {"value": float(enc.eb if enc else FIELDS["eb"].default)},
        "frozen": {"active": box(bool(enc and enc.frozen))},
        # The menu names the preset the view is, or shows its prompt (view/glance.matching_preset).
        "preset": {"value": glance.matching_preset({**defaults(), **state_of(cfg), "lang": lang}) or ""},
    }


def summary(cfg: Config, lang: str) -> str:
    """The schedule's one-line summary under the bar, as markup."""
    return escape(template(f"sched.{cfg.schedule}.summary", lang))


def puzzle_block(cfg: Config, lang: str) -> str:
    """The puzzle's block (view/puzzle.py) as the page opens, its puzzle put away: its
    own menus and buttons, which static/puzzle_board.js runs, each action going through
    PipevizExplorer.handle (static/puzzle_view.js draws it again at every change)."""
    state = {**defaults(), **state_of(cfg), "lang": lang}
    return puzzle.block_html(puzzle.block_values(state), lang)
