"""The explorer as one self-contained HTML file: `python -m pipeviz page -o explorer.html`.

The page is the same for every configuration but for what it opens at: the value of
a few widgets, the line under the bar and the puzzle's block (view/opening.py). So the
page in each language is built once, at the defaults (pipeviz/page_document.py: the
Bokeh document and every script, a few seconds, most of them Bokeh's), kept in a cache
named by a hash of the code that makes it, and each `page` sets those values in a copy
(a few milliseconds). A page built either way is the same page.

The cache is PIPEVIZ_CACHE_DIR if set (empty: no cache), else $XDG_CACHE_HOME/pipeviz,
else ~/.cache/pipeviz. A cache that cannot be read or written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from html import escape, unescape
from importlib import metadata
from pathlib import Path

from . import static
from .config import Config
from .errors import ConfigError
from .view.fields import FIELDS
from .view.opening import PUZZLE, SUMMARY, puzzle_block, summary, widget_values

# Bokeh's file_html writes the document as JSON, HTML-escaped, in one script element.
DOC_JSON = re.compile(r'(<script type="application/json" id="[^"]+">)(.*?)(</script>)', flags=re.S)
# What else the template's bytes depend on, beside pipeviz's own files.
MADE_WITH = ("bokeh", "rjsmin")
KEPT = 8  # templates kept in the cache: two languages of a few checkouts or versions


def build(cfg: Config, lang: str = "en") -> str:
    """The page's HTML, opening at `cfg` (a ConfigError if the explorer cannot show it)."""
    if cfg.G is not None:  # the explorers have no G field: they show Megatron's smallest valid group
        raise ConfigError("page.G", G=cfg.G)
    checked = [("P", cfg.P), ("m", cfg.m), ("V", cfg.V), ("tf", cfg.costs.tf), ("tb", cfg.costs.tb),
               ("tw", cfg.costs.tw), ("comm", cfg.costs.comm), ("tfb", cfg.costs.tfb or 0.0)]
    if cfg.encoder is not None:
        checked += [("ef", cfg.encoder.ef), ("eb", cfg.encoder.eb)]
    for key, value in checked:
        f = FIELDS[key]
        if not f.low <= value <= f.high:
            raise ConfigError("page.range", key=key, value=value, valid=f.range_text)
    from .engine import run

    run(cfg)  # the same checks and messages as everywhere else
    return opened_at(template(lang), cfg, lang)


def opened_at(html: str, cfg: Config, lang: str) -> str:
    """The page template `html` (page_document.template_html) opening at `cfg`: the
    widgets' values set in the document's JSON, the summary and the puzzle's block put in."""
    found = DOC_JSON.search(html)
    if found is None or html.count(SUMMARY) != 1 or html.count(PUZZLE) != 1:
        raise ValueError("not a page template: no document JSON, or not one mark for the summary and the puzzle")
    docs = json.loads(unescape(found.group(2)))
    values = widget_values(cfg, lang)
    seen = set()
    for model in _models(docs):
        name = model["attributes"].get("name")
        if name in values:
            if name in seen:
                raise ValueError(f"two models of the page are named {name!r}")
            seen.add(name)
            model["attributes"].update(values[name])
    if seen != values.keys():
        raise ValueError(f"the page has no widget named {sorted(values.keys() - seen)}")
    # As Bokeh writes it (bokeh.embed.elements.html_page_for_render_items): compact JSON,
    # ASCII only, HTML-escaped; BokehJS reads it back the same way.
    body = escape(json.dumps(docs, separators=(",", ":"), allow_nan=False), quote=False)
    html = html[:found.start(2)] + body + html[found.end(2):]
    return html.replace(SUMMARY, summary(cfg, lang), 1).replace(PUZZLE, puzzle_block(cfg, lang), 1)


def _models(node):
    """Every model defined in a Bokeh document's JSON (each is defined once, where it
    first appears; later mentions are references by id)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "object" and isinstance(node.get("attributes"), dict):
                yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def template(lang: str) -> str:
    """The page template in `lang`, from the cache or built (and kept) now."""
    where = cache_dir()
    path = where / f"page-{lang}-{template_key()}.html" if where is not None else None
    if path is not None:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    from .page_document import template_html

    html = template_html(lang)
    if path is not None:
        _keep(path, html)
    return html


def cache_dir() -> Path | None:
    """Where page templates are kept, or None for no cache (PIPEVIZ_CACHE_DIR="")."""
    env = os.environ.get("PIPEVIZ_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pipeviz"


def template_key() -> str:
    """A hash of everything a template's bytes depend on: pipeviz's Python and
    JavaScript as installed, and the versions of what builds it. A change to any of
    them names another file, so a template is never used by code that did not make it."""
    h = hashlib.sha256()
    for name in MADE_WITH:
        h.update(f"{name}=={metadata.version(name)}\n".encode())
    for root in (Path(__file__).resolve().parent, Path(static.__file__).resolve().parent):
        h.update(source_hash(root).encode())
    return h.hexdigest()[:20]


def source_hash(root: Path) -> str:
    """A hash of the .py and .js files under `root`, by their paths and bytes."""
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".js") and "__pycache__" not in p.parts)
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def _keep(path: Path, html: str) -> None:
    """Write the template beside the others, at once (a reader never sees half a file),
    and drop all but the KEPT newest (other checkouts may share the cache)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".page-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        os.replace(tmp, path)
        tmp = None
        kept = sorted(path.parent.glob("page-*.html"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written: the page is built again next time
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
