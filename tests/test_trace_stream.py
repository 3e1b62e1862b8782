"""The trace's JSON, a chunk at a time: the same step whatever the chunk size and the
file's layout, the right word for every way a file is not a trace, and a large trace
read without holding it."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tracegen import OURS, load, rank_files, synthetic, write

from pipeviz import Config, run
from pipeviz.errors import TraceError
from pipeviz.trace import read_traces, stream
from pipeviz.trace.stream import extent, read_trace

DPV = OURS / "torch-DualPipeV-P2-m4"


def same_run(a, b) -> None:
    assert a.order.to_text() == b.order.to_text()
    assert a.start.tolist() == b.start.tolist() and a.end.tolist() == b.end.tolist()
    assert a.names == b.names and a.declared == b.declared and a.placement == b.placement
    for k in ("rank", "start", "end", "kind", "mb", "stage", "peer"):
        assert getattr(a.comm, k).tolist() == getattr(b.comm, k).tolist()


@pytest.fixture(scope="module")
def reference():
    return read_traces([str(p) for p in rank_files(DPV)])


@pytest.mark.parametrize("chunk", [7, 64, 4099])  # 1 byte: the small cases below
def test_any_chunk_size_reads_the_same_step(chunk, reference, monkeypatch, tmp_path):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    plain = [tmp_path / "rank0.json", tmp_path / "rank1.json"]
    for p, src in zip(plain, rank_files(DPV)):
        p.write_text(json.dumps(load(src)))
    same_run(read_traces([str(p) for p in rank_files(DPV)]), reference)  # gzip
    same_run(read_traces([str(p) for p in plain]), reference)


@pytest.mark.parametrize("layout", [
    {"indent": 2}, {"separators": (",", ":")}, {"indent": "\t", "ensure_ascii": False}, {"indent": "\r\n "},
])
def test_any_whitespace_reads_the_same_step(layout, reference, tmp_path):
    paths = write([load(p) for p in rank_files(DPV)], tmp_path, **layout)
    same_run(read_traces([str(p) for p in paths]), reference)


def test_members_in_any_order_a_bom_and_events_that_are_not_ops(reference, tmp_path):
    traces = []
    for p in rank_files(DPV):
        t = load(p)
        events = t.pop("traceEvents")
        events[3:3] = [1, "x", None, [1, 2], {"ph": "X", "name": "PP:0F0"}, {"ph": "X", "name": "PP:0F0", "ts": "1",
                       "dur": 2}, {"ph": "i", "name": "PP:0F0", "ts": 1, "dur": 1}, {"ph": "X", "name": 7},
                       {"ph": "X", "name": "注意 \u00e9 \\ \" \n", "ts": 1, "dur": 1}]
        traces.append({"a": {"deep": [[[{}]]]}, "traceEvents": events, **t, "z": "}]"})  # distributedInfo after
    paths = write(traces, tmp_path, ensure_ascii=False)
    for p in paths:
        p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    same_run(read_traces([str(p) for p in paths]), reference)


def test_a_bare_list_of_events_takes_the_files_order(reference, tmp_path):
    paths = write([load(p)["traceEvents"] for p in rank_files(DPV)], tmp_path)
    r = read_traces([str(p) for p in paths])
    assert r.declared == (None, None)
    assert r.order.to_text() == reference.order.to_text()


@pytest.mark.parametrize("text, end", [
    ('"abc", 1', 5), ('"a\\"b" x', 6), ('"a\\\\" x', 5), ('{"a": "}"}, 2', 10), ('[1, [2, {"b": ["]"]}]]x', 22),
    ("12, 3", 2), ("true]", 4), ("1.5e3 ", 5), ('"abc', None), ('{"a": [1, 2', None), ("12", None),
    ('"a\\', None), ("[}", 2),
])
def test_extent(text, end):
    assert extent(text, 0) == end


CASES = {
    "": "trace.empty", " \n\t": "trace.empty", "x": "trace.not_json", "12": "trace.not_json",
    "[": "trace.truncated", "{": "trace.truncated", '{"traceEvents": [': "trace.truncated",
    '{"traceEvents": [{"a": tru': "trace.truncated", '{"traceEvents": [{"a": trux}]}': "trace.not_json",
    '{"traceEvents": [1, 2,]}': "trace.not_json", '{"traceEvents": []} x': "trace.not_json",
    '{"a": NaN, "traceEvents": []}': "trace.not_json", '{"traceEvents": [], }': "trace.not_json",
    '{"traceEvents": [] "b": 1}': "trace.not_json", "{'traceEvents': []}": "trace.not_json",
    '{"traceEvents": [{"a": 1}}]}': "trace.not_json", '{"traceEvents": [01]}': "trace.not_json",
    '{"traceEvents": [1.]}': "trace.not_json", '{"traceEvents": [{"a": "\x01"}]}': "trace.not_json",
    '{"traceEvents": [], "b": [1, 2': "trace.truncated", '{"traceEvents": [], "b"': "trace.truncated",
    '{"traceEvents": [], "b": ': "trace.truncated", '{"traceEvents": []': "trace.truncated",
    '{"traceEvents": [1e400, -0, 1E-2, {"ph": "X"}]}': None, '{"x": []}': None, "[]": None, "{}": None,
}


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_what_is_not_json_and_what_is_cut_short(text, chunk, monkeypatch, tmp_path):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    p = tmp_path / "t.json"
    p.write_text(text)
    if CASES[text] is None:
        read_trace(str(p), lambda ev: None)
        return
    with pytest.raises(TraceError) as e:
        read_trace(str(p), lambda ev: None)
    assert e.value.msg.key == CASES[text]


SMALL = json.dumps({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "name": "PP:0F0", "ts": 1.5, "dur": 2, "args": {"s": "a,]}\"[{"}},
    {"ph": "X", "name": "PP:0B0", "ts": 4, "dur": 3.25e1, "args": {"n": [None, True, False, -1e-3]}}],
    "distributedInfo": {"rank": 0}}, indent=1)


@given(cut=st.integers(0, len(SMALL.rstrip()) - 1), chunk=st.integers(1, 40))
def test_every_cut_of_a_trace_is_cut_short(cut, chunk, tmp_path_factory):
    p = tmp_path_factory.mktemp("cut") / "t.json"
    p.write_text(SMALL[:cut])
    stream.CHUNK, old = chunk, stream.CHUNK
    try:
        with pytest.raises(TraceError) as e:
            read_trace(str(p), lambda ev: None)
    finally:
        stream.CHUNK = old
    assert e.value.msg.key == ("trace.empty" if not SMALL[:cut].strip() else "trace.truncated")


@given(at=st.integers(0, len(SMALL) - 1), ch=st.sampled_from(list('{}[]",: x0\\')))
def test_a_changed_character_is_read_or_refused_in_one_word(at, ch, tmp_path_factory):
    text = SMALL[:at] + ch + SMALL[at + 1:]
    p = tmp_path_factory.mktemp("bad") / "t.json"
    p.write_text(text)
    try:
        json.loads(text)
        valid = True
    except ValueError:
        valid = False
    try:
        read_trace(str(p), lambda ev: None)
        assert valid
    except TraceError as e:
        assert not valid or e.msg.key == "trace.no_events"
        assert e.msg.key in ("trace.not_json", "trace.truncated", "trace.no_events")


def test_gzip_is_read_by_its_magic_bytes_not_its_name(reference, tmp_path):
    paths = []
    for r, src in enumerate(rank_files(DPV)):
        p = tmp_path / f"r{r}.json"  # gzip inside, no .gz
        p.write_bytes(gzip.compress(json.dumps(load(src)).encode()))
        paths.append(str(p))
    same_run(read_traces(paths), reference)


def test_a_large_trace_is_read_without_holding_it(tmp_path, monkeypatch):
    """About 4 MB of events, almost all of them aten ops the reader skips, read in
    64 KiB chunks: the reader's own allocations stay within a few chunks (the text
    and its decoding), a small share of the file (parsed whole, it would be several
    times the file). benchmarks/trace.py measures 100 MB with the default chunk."""
    monkeypatch.setattr(stream, "CHUNK", 1 << 16)
    res = run(Config("1f1b", 2, 8))
    paths = write(synthetic(res.order, res.timeline.start, res.timeline.end, fillers=600), tmp_path)
    size = sum(p.stat().st_size for p in paths)
    assert size > 4e6
    tracemalloc.start()
    try:
        r = read_traces([str(p) for p in paths])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.order.n_ops == res.order.n_ops
    assert peak < 1e6, f"{peak / 1e6:.1f} MB held to read {size / 1e6:.1f} MB"
    assert np.allclose(r.start, res.timeline.start, atol=1e-9)
