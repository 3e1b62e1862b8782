"""Read a Chrome trace's events one at a time, without holding its JSON.

A profiler's trace is one JSON object, `{"traceEvents": [event, ...], ...}` (or, in
the trace format's other form, the bare list of events). A real step's trace can be
hundreds of MB, almost all of it events pipeviz does not keep (every aten op, every
kernel). `read_trace` walks the text once, in chunks of CHUNK bytes: each event is
decoded on its own (`json`'s C decoder, `raw_decode`), handed to a callback, and
dropped; the other top-level members are decoded whole and only `distributedInfo` is
kept. At most a chunk of text and one event are held at a time, whatever the size.
A file that starts with gzip's magic bytes is decompressed as it is read.

What counts as what, exactly as static/trace.js decides it (the page reads a dropped
file with the same grammar and says the same of it):
- the text is UTF-8 (a leading byte-order mark is skipped); otherwise `trace.not_text`;
- the first non-space character is { or [; otherwise `trace.not_json` (`trace.empty`
  for a file of nothing but whitespace);
- a value (an event, a member) is "cut short" when the text ends before its extent
  closes: a string's closing quote, the bracket that brings its nesting back to 0
  (any closing bracket counts), or, for a bare word or number, the next , ] } or
  whitespace. A file that ends before the top-level value closes is `trace.truncated`;
- anything else that is not JSON (a bad value whose extent closes, a missing comma,
  text after the end) is `trace.not_json`.

`extent` is that rule; the Python side needs it only when the fast decoder fails (to
tell "cut by the chunk, read more" from "bad JSON"), the page uses it for every value.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import TraceError

CHUNK = 1 << 20  # bytes read at a time
EVENTS_KEY, INFO_KEY, RANK_KEY = "traceEvents", "distributedInfo", "rank"  # the trace format's words
GZIP_MAGIC = b"\x1f\x8b"
_WS = re.compile(r"[ \t\n\r]*")
_SCALAR_END = re.compile(r"[,\]} \t\n\r]")
_DELIMS = ",]} \t\n\r"
_STRING_PART = re.compile(r'[^"\\]*')
_BRACKETS = re.compile(r'["{}\[\]]')


def _no_constant(name: str):
    raise ValueError(name)  # NaN and Infinity are not JSON (a browser refuses them too)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def extent(text: str, i: int) -> int | None:
    """Where the value starting at text[i] ends (one past its last character), or
    None if the text ends first (see the module docstring)."""
    c = text[i]
    if c == '"':
        return _string_end(text, i + 1)
    if c in "{[":
        depth, j = 0, i
        while True:
            found = _BRACKETS.search(text, j)
            if found is None:
                return None
            j = found.end()
            ch = found.group()
            if ch == '"':
                end = _string_end(text, j)
                if end is None:
                    return None
                j = end
            elif ch in "{[":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return j
    found = _SCALAR_END.search(text, i)
    return None if found is None else found.start()


def _string_end(text: str, j: int) -> int | None:
    """One past the closing quote of a string whose body starts at j, or None."""
    n = len(text)
    while True:
        j = _STRING_PART.match(text, j).end()
        if j >= n:
            return None
        if text[j] == '"':
            return j + 1
        j += 2  # a backslash and the character it escapes
        if j > n:
            return None


@dataclass
class Header:
    """What a trace says about itself, besides its events."""

    rank: int | None = None  # distributedInfo.rank, when it is a whole number >= 0
    has_events: bool = False  # a traceEvents list was found


class _Text:
    """The file's text, a chunk at a time: `buf[pos:]` is what is not read yet."""

    def __init__(self, path: str, progress: Callable[[int], None] | None):
        self.path, self.progress = path, progress
        try:
            self.raw = open(path, "rb")
        except OSError as e:
            raise TraceError("trace.open", file=path, why=e.strerror or str(e)) from None
        head = self.raw.read(2)
        self.raw.seek(0)
        self.gz = gzip.GzipFile(fileobj=self.raw, mode="rb") if head == GZIP_MAGIC else None
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.buf, self.pos, self.eof, self.first = "", 0, False, True

    def close(self) -> None:
        self.raw.close()

    def more(self, size: int = 0) -> bool:
        """Read the next chunk (at least `size` bytes) onto the text, dropping what was
        read; False at the end."""
        if self.eof:
            return False
        try:
            data = (self.gz or self.raw).read(max(CHUNK, size))
        except (OSError, EOFError, zlib.error):  # gzip.BadGzipFile is an OSError
            if self.gz is None:
                raise TraceError("trace.open", file=self.path, why="read error") from None
            raise TraceError("trace.gzip", file=self.path) from None
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise TraceError("trace.not_text", file=self.path) from None
        if self.progress is not None:
            self.progress(self.raw.tell())
        if self.first and text:
            self.first = False
            if text[0] == "\ufeff":
                text = text[1:]
        self.buf = self.buf[self.pos:] + text
        self.pos = 0
        if not data:
            self.eof = True
        return True

    def skip_ws(self) -> str:
        """The next character that is not whitespace ('' at the end of the text)."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self):
        """Decode the value at pos and move past it (TraceError if it is not JSON or cut short)."""
        while True:
            buf, i = self.buf, self.pos
            try:
                obj, end = _DECODER.raw_decode(buf, i)
                # A string, object or list ends at its own closing character; a bare
                # word or number only where a delimiter (or the text's end) follows.
                ok = (isinstance(obj, (dict, list, str)) or end < len(buf) and buf[end] in _DELIMS
                      or self.eof and end == len(buf))
            except (ValueError, RecursionError):
                ok = False
            if ok:
                self.pos = end
                return obj
            # Failed, or a bare word or number that may go on in the next chunk:
            # bad JSON if its extent closes here, else read more: as much again as
            # the value holds so far, so a value of n bytes is tried log(n) times.
            if extent(buf, i) is not None:
                raise TraceError("trace.not_json", file=self.path)
            if not self.more(len(buf) - i):
                raise TraceError("trace.truncated", file=self.path)

    def expect(self, closers: str) -> str:
        """The next character, which must be one of `closers` (a comma and a closer)."""
        c = self.skip_ws()
        if c == "":
            raise TraceError("trace.truncated", file=self.path)
        if c not in closers:
            raise TraceError("trace.not_json", file=self.path)
        self.pos += 1
        return c


def read_trace(path: str, on_event: Callable[[dict], None],
               progress: Callable[[int], None] | None = None) -> Header:
    """Walk the trace at `path`, calling `on_event` with every event that is a JSON
    object, in file order; `progress(bytes)` after each chunk (bytes of the file as
    stored, so compressed for gzip). Returns what the trace says of itself. A
    TraceError names what is wrong (module docstring)."""
    text = _Text(path, progress)
    try:
        return _walk(text, on_event)
    finally:
        text.close()


def file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _walk(text: _Text, on_event: Callable[[dict], None]) -> Header:
    head = Header()
    c = text.skip_ws()
    if c == "":
        raise TraceError("trace.empty", file=text.path)
    if c == "[":
        text.pos += 1
        _events(text, on_event)
        head.has_events = True
    elif c == "{":
        text.pos += 1
        _members(text, head, on_event)
    else:
        raise TraceError("trace.not_json", file=text.path)
    if text.skip_ws() != "":
        raise TraceError("trace.not_json", file=text.path)  # text after the end
    return head


def _members(text: _Text, head: Header, on_event: Callable[[dict], None]) -> None:
    """The top-level object's members, after its {."""
    if text.skip_ws() == "}":
        text.pos += 1
        return
    while True:
        c = text.skip_ws()
        if c == "":
            raise TraceError("trace.truncated", file=text.path)
        if c != '"':
            raise TraceError("trace.not_json", file=text.path)
        key = text.value()
        text.expect(":")
        c = text.skip_ws()
        if key == EVENTS_KEY and c == "[":
            text.pos += 1
            _events(text, on_event)
            head.has_events = True
        else:
            if c == "":
                raise TraceError("trace.truncated", file=text.path)
            value = text.value()
            if key == INFO_KEY:
                rank = value.get(RANK_KEY) if isinstance(value, dict) else None
                ok = isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0
                head.rank = rank if ok else None
        if text.expect(",}") == "}":
            return


def _events(text: _Text, on_event: Callable[[dict], None]) -> None:
    """The events list's items, after its [."""
    if text.skip_ws() == "]":
        text.pos += 1
        return
    while True:
        c = text.skip_ws()
        if c == "":
            raise TraceError("trace.truncated", file=text.path)
        event = text.value()
        if isinstance(event, dict):
            on_event(event)
        if text.expect(",]") == "]":
            return
