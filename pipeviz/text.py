"""Every word pipeviz shows, in English and Chinese (简体), and the one way to fill them in.

The words are one table of data, key -> (English, Chinese), in `pipeviz.words`. A
string is a template with `{name}` slots; `fill` puts the arguments in. The
standalone page receives this table as data and fills templates with the twin of
`fill` in static/text.js, so a message is written once and both explorers say the
same thing. Messages travel as a `Msg` (key and arguments), so
tests compare what was meant, not how a number was spelled.

Argument formatting is fixed and small, so that JavaScript can do exactly the same:
a message in its text (same language), a bool as "true"/"false", an int as its
digits, a float as Python's `:g` (six significant digits), a list or tuple joined
with ", ", anything else as str().
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape

from .words import TABLE as _TABLE

LANGS = ("en", "zh")

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def table() -> dict[str, tuple[str, str]]:
    """The whole table (for the standalone page and for tests)."""
    return dict(_TABLE)


def template(key: str, lang: str = "en") -> str:
    try:
        pair = _TABLE[key]
    except KeyError:
        raise KeyError(f"no string {key!r}") from None
    return pair[1] if lang == "zh" else pair[0]


def arg_text(value, lang: str = "en") -> str:
    if isinstance(value, Msg):  # a message inside a message, in the same language
        return value.text(lang)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(arg_text(v, lang) for v in value)
    return str(value)


def fill(key: str, lang: str = "en", /, html: bool = False, **args) -> str:
    """The string `key` in `lang` with its slots filled. With html=True the template
    is markup (ours) and each argument is escaped; a plain message shown as HTML is
    `escape(fill(...))`, as `Msg.html` does."""
    text = template(key, lang)

    def put(match: re.Match) -> str:
        name = match.group(1)
        if name not in args:
            raise KeyError(f"string {key!r} needs argument {name!r}")
        value = arg_text(args[name], lang)
        return escape(value) if html else value

    return _SLOT.sub(put, text)


@dataclass(frozen=True)
class Msg:
    """A message: a key in the table and its arguments."""

    key: str
    args: dict = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        return fill(self.key, lang, **self.args)

    def html(self, lang: str = "en") -> str:
        """The text, escaped for HTML: a message is plain text, never markup."""
        return escape(self.text(lang))

    def as_dict(self) -> dict:
        """As the page's JavaScript holds a message: {"key", "args"}, nested alike."""
        return {"key": self.key, "args": {k: v.as_dict() if isinstance(v, Msg) else v for k, v in self.args.items()}}

    def __str__(self) -> str:
        return self.text()


def msg(key: str, /, **args) -> Msg:
    return Msg(key, args)


def join(parts: Iterable[str], lang: str) -> str:
    return ("；" if lang == "zh" else "; ").join(parts)
