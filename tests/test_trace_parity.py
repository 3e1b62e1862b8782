"""static/trace.js against pipeviz/trace, in the Debian chromium: the page reads the same
files (as File objects, through its streams, gzip and all) to the same run, the same
numbers, gap lines, imbalance and what-if rows, bit for bit, and refuses the same bad
input with the same message (key, arguments and text in both languages).

Cases: every real trace (the shared three and tests/data/traces), the same files in
other orders, with ranks and clock offsets given, re-laid out (a bare list of events,
whitespace, a byte-order mark), synthetic steps of every schedule with communication
in their waits, a user's pattern, and every kind of bad input the reader names.
"""

from __future__ import annotations

import base64
import gzip
import json
from contextlib import chdir
from pathlib import Path

import pytest
import twin
from tracegen import load, rank_files, synthetic, trace_dirs, write

from pipeviz import NAMES, Config, ConfigError, Costs, run
from pipeviz.errors import PipevizError
from pipeviz.trace import compile_pattern, read_traces, report, what_if

pytestmark = pytest.mark.browser
LANGS = ("en", "zh")


def layout(r, rep, w) -> dict:
    """A run, its report and its what-if rows in the page's layout (JS_LAYOUT)."""
    o, mt, c = r.order, r.metrics, rep.costs
    sm = rep.simulated_metrics
    return {
        "run": {
            "files": list(r.files), "declared": list(r.declared), "offsetsMs": list(r.offsets_ms),
            "placement": r.placement, "P": r.P, "m": r.m, "V": r.V, "t0Us": r.t0_us,
            "order": {"text": o.to_text(), "kind": o.kind, "mb": o.mb, "stage": o.stage, "mb2": o.mb2,
                      "stage2": o.stage2, "rankPtr": o.rank_ptr, "stageToRank": o.stage_to_rank},
            "start": r.start, "end": r.end, "names": list(r.names),
            "comm": {k: getattr(r.comm, k) for k in ("rank", "start", "end", "kind", "mb", "stage", "peer")}
            | {"rankPtr": r.comm.rank_ptr, "tokens": [r.comm.token(i) for i in range(r.comm.n)]},
            "metrics": {"makespan": mt.makespan, "busy": mt.busy, "idle": mt.idle,
                        "bubbleFraction": mt.bubble_fraction, "steadyBubbleFraction": mt.steady_bubble_fraction,
                        "peakChunks": mt.peak_chunks, "peakMicrobatches": mt.peak_microbatches,
                        "bubbles": dict(zip(("rank", "start", "end"), mt.bubbles))},
        },
        "report": {
            "costs": {"mean": c.mean, "count": c.count, "stageMean": [list(row) for row in c.stage_mean],
                      "stageCount": [list(row) for row in c.stage_count], "stageRank": c.stage_rank,
                      "stageWork": c.stage_work, "stageWeight": c.stage_weight},
            "simulated": {"start": rep.simulated.start, "end": rep.simulated.end},
            "simulatedMetrics": {"makespan": sm.makespan, "bubbleFraction": sm.bubble_fraction, "busy": sm.busy,
                                 "idle": sm.idle},
            "gap": rep.gap,
            "gaps": [{"rank": g.rank, "op": g.op, "waited": g.waited, "model": g.model, "excess": g.excess,
                      "cause": g.cause, "comm": g.comm, "spent": g.spent, "msg": g.msg} for g in rep.gaps],
            "imbalance": {"makespan": rep.imbalance.makespan, "extra": rep.imbalance.extra,
                          "slowest": rep.imbalance.slowest, "ratio": rep.imbalance.ratio, "msg": rep.imbalance.msg},
        },
        "whatIf": {
            "costs": None if w.costs is None else {"tf": w.costs.tf, "tb": w.costs.tb, "tw": w.costs.tw,
                                                   "comm": w.costs.comm, "tfb": w.costs.tfb},
            "splitEven": w.split_even, "error": w.error,
            "rows": [{"schedule": row.schedule, "V": row.V, "error": row.error} if row.error is not None else
                     {"schedule": row.schedule, "V": row.V, "error": None, "makespan": row.makespan,
                      "bubbleFraction": row.bubble_fraction, "peakInflightMicrobatches": row.peak_inflight_microbatches,
                      "peakInflightChunks": row.peak_inflight_chunks, "vsMeasured": row.vs_measured,
                      "vsModel": row.vs_model, "sameOrder": row.same_order} for row in w.rows],
        },
    }


JS_LAYOUT = """
window.__traceCase = async (files, options) => {
  const X = PipevizEngine.trace, W = __twin;
  const list = files.map((f) => new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
  let r, rep, w;
  try {
    r = await X.readFiles(list, options);
    rep = X.report(r);
    w = X.whatIf(rep);
  } catch (e) {
    return JSON.stringify({error: W.error(e)});
  }
  const o = r.order, mt = r.metrics, c = rep.costs, sm = rep.simulatedMetrics, cm = r.comm;
  const tokens = [];
  for (let i = 0; i < cm.n; i++) tokens.push(cm.token(i));
  return JSON.stringify(W.summary({
    run: {files: r.files, declared: r.declared, offsetsMs: r.offsetsMs, placement: r.placement, P: r.P, m: r.m,
          V: r.V, t0Us: r.t0Us,
          order: {text: o.toText(), kind: o.kind, mb: o.mb, stage: o.stage, mb2: o.mb2, stage2: o.stage2,
                  rankPtr: o.rankPtr, stageToRank: o.stageToRank},
          start: r.start, end: r.end, names: r.names,
          comm: {rank: cm.rank, start: cm.start, end: cm.end, kind: cm.kind, mb: cm.mb, stage: cm.stage, peer: cm.peer,
                 rankPtr: cm.rankPtr, tokens},
          metrics: {makespan: mt.makespan, busy: mt.busy, idle: mt.idle, bubbleFraction: mt.bubbleFraction,
                    steadyBubbleFraction: mt.steadyBubbleFraction, peakChunks: mt.peakChunks,
                    peakMicrobatches: mt.peakMicrobatches, bubbles: mt.bubbles}},
    report: {costs: {mean: c.mean, count: c.count, stageMean: c.stageMean, stageCount: c.stageCount,
                     stageRank: c.stageRank, stageWork: c.stageWork, stageWeight: c.stageWeight},
             simulated: {start: rep.simulated.start, end: rep.simulated.end},
             simulatedMetrics: {makespan: sm.makespan, bubbleFraction: sm.bubbleFraction, busy: sm.busy, idle: sm.idle},
             gap: rep.gap, gaps: rep.gaps,
             imbalance: rep.imbalance},
    whatIf: {costs: w.costs && {tf: w.costs.tf, tb: w.costs.tb, tw: w.costs.tw, comm: w.costs.comm, tfb: w.costs.tfb},
             splitEven: w.splitEven, error: w.error, rows: w.rows},
  }));
};
"""


def error_data(e) -> dict:
    return {"type": type(e).__name__, **twin.msg_data(e.msg), "text": {lang: e.text(lang) for lang in LANGS}}


def expected(paths: list[str], options: dict) -> dict:
    try:
        pattern = compile_pattern(options["pattern"], options.get("patternKinds")) if options.get("pattern") else None
        r = read_traces(paths, options.get("ranks"), options.get("offsetsMs"), pattern)
        rep = report(r)
        return twin.summary(layout(r, rep, what_if(rep)))
    except PipevizError as e:
        return {"error": error_data(e)}


@pytest.fixture(scope="module")
def page(browser):
    pg = browser.new_page()
    twin.load(pg)
    pg.add_script_tag(content=JS_LAYOUT)
    yield pg
    pg.close()


def compare(page, paths: list[Path], options: dict, label: str) -> tuple[dict, list[str]]:
    """Python's summary of a case, and how the page's differs (the files are named as
    the page names them: without their folder, which is every case's own)."""
    files = [{"name": p.name, "b64": base64.b64encode(p.read_bytes()).decode()} for p in paths]
    got = json.loads(page.evaluate("([f, o]) => __traceCase(f, o)", [files, options]))
    with chdir(paths[0].parent if paths else Path.cwd()):
        exp = expected([p.name for p in paths], options)
    d = twin.Diff()
    d.walk("", exp, got)
    return exp, ([f"[{label}]\n    " + "\n    ".join(d.errors)] if d.errors else [])


# -- the cases ---------------------------------------------------------------------------

def real_cases(tmp: Path) -> list[tuple[str, list[Path], dict]]:
    out = []
    for d in trace_dirs():
        where = tmp / d.name
        where.mkdir()
        paths = []
        for p in rank_files(d):
            (where / p.name).write_bytes(p.read_bytes())
            paths.append(where / p.name)
        out.append((d.name, paths, {}))
        out.append((d.name + " reversed", paths[::-1], {}))
    return out


def variant_cases(tmp: Path) -> list[tuple[str, list[Path], dict]]:
    base = [d for d in trace_dirs() if d.name == "torch-ZBVZeroBubble-P3-m6"][0]
    traces = [load(p) for p in rank_files(base)]
    out = []

    def put(name: str, texts: list, binary: bool = False) -> list[Path]:
        where = tmp / name
        where.mkdir()
        paths = []
        for r, t in enumerate(texts):
            p = where / f"rank{r}.json"
            p.write_bytes(t if binary else t.encode())
            paths.append(p)
        return paths

    plain = put("plain", [json.dumps(t) for t in traces])
    out.append(("ranks given", plain[::-1], {"ranks": [2, 1, 0]}))
    out.append(("clock offsets", plain, {"offsetsMs": [0.0, 0.125, -2.5]}))
    out.append(("a bare list", put("bare", [json.dumps(t["traceEvents"]) for t in traces])[::-1], {}))
    out.append(("indent, BOM", put("bom", [b"\xef\xbb\xbf" + json.dumps(t, indent=1).encode() for t in traces],
                                   binary=True), {}))
    out.append(("two BOMs", put("bom2", [b"\xef\xbb\xbf\xef\xbb\xbf" + json.dumps(t).encode() for t in traces],
                                binary=True), {}))
    gz = put("gz", [gzip.compress(json.dumps(t, separators=(",", ":")).encode()) for t in traces], binary=True)
    out.append(("gzip", gz, {}))
    global_ranks = [dict(t, distributedInfo=dict(t["distributedInfo"], rank=2 * t["distributedInfo"]["rank"] + 4))
                    for t in traces]
    out.append(("global ranks 4, 6, 8", put("global", [json.dumps(t) for t in global_ranks]), {}))
    # Ops back to back on a clock 1000 ms ahead, set right: the rounding leaves them
    # 1e-10 us apart the wrong way, within the format's nanosecond, so they abut.
    res = run(Config("interleaved", 1, 1, 3, Costs(0.25, 0.25, 0.25, 0.0)))
    ahead = synthetic(res.order, res.timeline.start, res.timeline.end)
    for e in ahead[0]["traceEvents"]:
        if "ts" in e:
            e["ts"] += 1e6
    out.append(("a clock 1000 ms ahead, set right", put("ahead", [json.dumps(t) for t in ahead]), {"offsetsMs": [-1000.0]}))
    return out


def synthetic_cases(tmp: Path) -> list[tuple[str, list[Path], dict]]:
    """Every schedule, with comm, and RECV/SEND actions in the waits comm makes."""
    out = []
    words = {"F": "fwd", "B": "bwd", "I": "bwd_input", "W": "wgrad"}
    for k, name in enumerate(NAMES):
        P, m = (3, 6) if name != "dualpipe-v" else (2, 5)
        V = 2 if name in ("zb-v", "dualpipe-v", "interleaved") else 1
        try:
            res = run(Config(name, P, m, V, Costs(1.0, 1.25, 0.5, 0.3 if k % 2 else 0.0, 2.0 if name == "dualpipe-v" else None)))
        except ConfigError:  # pragma: no cover
            continue
        o, tl = res.order, res.timeline
        comm = []
        for r in range(P):
            lo, hi = int(o.rank_ptr[r]), int(o.rank_ptr[r + 1])
            prev = 0.0
            for i in range(lo, hi):
                op = o.op(i)
                if tl.start[i] - prev > 1e-9 and op[0] != "F&B":
                    kind = "RECV_F" if op[0] == "F" else "SEND_B" if i % 3 else "UNSHARD"
                    mid = prev + (tl.start[i] - prev) * (0.2 if i % 2 else 0.9)
                    comm.append((r, f"PP:{op[2]}{kind}{op[1] if kind != 'UNSHARD' else ''}", prev, mid))
                prev = tl.end[i]
        where = tmp / f"syn-{name}"
        paths = write(synthetic(o, tl.start, tl.end, comm=comm), where)
        out.append((f"synthetic {name}", paths, {}))
        if name == "interleaved":
            named = write(synthetic(o, tl.start, tl.end, names=lambda op: f"megatron/{words[op[0]]}.chunk{op[2]}.mb{op[1]}",
                                    rank_key=False), tmp / "pattern")
            out.append(("a pattern", named, {"pattern": "*/{kind}.chunk{stage}.mb{mb}"}))
            out.append(("a pattern with words", named, {"pattern": "megatron/{kind}.chunk{stage}.mb{mb}",
                                                       "patternKinds": " fwd = F , BWD=B"}))
            out.append(("no pattern: named regions", named, {}))
    return out


def bad_cases(tmp: Path) -> list[tuple[str, list[Path], dict]]:
    base = [d for d in trace_dirs() if d.name == "torch-Interleaved1F1B-P2-m6-V3"][0]
    t0, t1 = (load(p) for p in rank_files(base))
    text0 = json.dumps(t0)
    gz = gzip.compress(text0.encode())
    broken = bytearray(gz)
    broken[len(gz) // 2: len(gz) // 2 + 16] = b"\x00" * 16
    d = tmp / "bad"
    d.mkdir()
    good1 = d / "good1.json"
    good1.write_text(json.dumps(t1))
    good0 = d / "good0.json"
    good0.write_text(text0)

    def f(name: str, data) -> Path:
        p = d / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        return p

    def events(t, keep=lambda e: True, extra=()):
        return json.dumps(dict(t, traceEvents=[e for e in t["traceEvents"] if keep(e)] + list(extra)))

    first_ts = min(e["ts"] for e in t1["traceEvents"] if e.get("name", "").startswith("PP:1F"))
    odd_names = [{"ph": "X", "cat": "user_annotation", "name": n, "ts": 1, "dur": 1}
                 for n in ("it's \"x\"\t\u200b\xa0é", "\x7f\U0001F600", "\ud800 lone")]
    out = [
        ("binary", [f("png.json", b"\x89PNG\r\n\x1a\n\x00\x00")], {}),
        ("text", [f("text.json", "not a trace\n")], {}),
        ("plain JSON", [f("plain.json", '{"schemaVersion": 1}')], {}),
        ("empty", [f("empty.json", " \n")], {}),
        ("BOM only", [f("bom.json", b"\xef\xbb\xbf")], {}),
        ("no ops", [f("noops.json", events(t0, lambda e: not e.get("name", "").startswith("PP:"))), good1], {}),
        ("no ops, odd names", [f("odd.json", events(t0, lambda e: False, odd_names)), good1], {}),
        ("no ops, nothing annotated", [f("bare.json", '{"traceEvents": [{"ph": "X", "name": "x"}]}')], {}),
        ("truncated", [f("cut.json", text0[: len(text0) // 2]), good1], {}),
        ("truncated gzip", [f("cut.json.gz", gz[: len(gz) // 2]), good1], {}),
        ("gzip without its trailer", [f("trailer.json.gz", gz[:-8]), good1], {}),
        ("broken gzip", [f("broken.json.gz", bytes(broken)), good1], {}),
        ("a micro-batch missing", [good0, f("missing.json", events(t1, lambda e: e.get("name") != "PP:1F3"))], {}),
        ("one rank twice", [good0, f("also0.json", json.dumps(dict(t1, distributedInfo={"rank": 0})))], {}),
        ("a rank as a float", [good0, f("float.json", json.dumps(dict(t1, distributedInfo={"rank": 1.0})))], {}),
        ("a rank unsaid", [good0, f("unsaid.json", json.dumps({k: v for k, v in t1.items() if k != "distributedInfo"}))],
         {}),
        ("overlapping ops", [good0, f("overlap.json", events(t1, extra=[{"ph": "X", "name": "PP:1F9", "ts": first_ts,
                                                                         "dur": 1e6}]))], {}),
        ("a bad overlap", [good0, f("ovl.json", events(t1, extra=[{"ph": "X", "name": "PP:(1F3;1I2)OVERLAP_F_B", "ts": 1,
                                                                   "dur": 1}]))], {}),
        ("stages that do not divide", [good0, f("stages.json", events(t1, extra=[{"ph": "X", "name": "PP:6F0", "ts": 1,
                                                                                  "dur": 0}]))], {}),
        ("ranks swapped", [good0, good1], {"ranks": [1, 0]}),
        ("ranks not a permutation", [good0, good1], {"ranks": [0, 0]}),
        ("ranks too few", [good0, good1], {"ranks": [0]}),
        ("offsets too few", [good0, good1], {"offsetsMs": [1.5]}),
        ("an offset too large", [good0, good1], {"offsetsMs": [0.0, -2e9]}),
        ("a pattern without kind", [good0, good1], {"pattern": "x{mb}"}),
        ("a pattern with a bad slot", [good0, good1], {"pattern": "{kind}{mb}{rank}"}),
        ("a pattern with three stars", [good0, good1], {"pattern": "*a*b*{kind}{mb}"}),
        ("bad pattern kinds", [good0, good1], {"pattern": "{kind}{mb}", "patternKinds": "fwd=F, x y=B"}),
        ("no files", [], {}),
    ]
    for k, text in enumerate(STREAM_CASES):
        out.append((f"stream {text[:30]!r}", [f(f"s{k}.json", text)], {}))
    return out


STREAM_CASES = [
    "x", "12", "[", "{", '{"traceEvents": [', '{"traceEvents": [{"a": tru', '{"traceEvents": [{"a": trux}]}',
    '{"traceEvents": [1, 2,]}', '{"traceEvents": []} x', '{"a": NaN, "traceEvents": []}', '{"traceEvents": [], }',
    '{"traceEvents": [] "b": 1}', "{'traceEvents': []}", '{"traceEvents": [{"a": 1}}]}', '{"traceEvents": [01]}',
    '{"traceEvents": [1.]}', '{"traceEvents": [{"a": "\x01"}]}', '{"traceEvents": [], "b": [1, 2',
    '{"traceEvents": [], "b"', '{"traceEvents": []', '{"x": []}', "[]", "{}", '{"traceEvents": [1e400, -0, 1E-2]}',
    '{"traceEvents": [{"ph": "X", "name": "PP:0F0", "ts": 1, "dur": 2}, {"ph": "X", "name": "PP:0B0", "ts": 3, '
    '"dur": 1}], "distributedInfo": {"rank": "0"}}',
]


def test_the_page_reads_real_and_synthetic_steps_as_python_does(page, tmp_path):
    cases = real_cases(tmp_path) + variant_cases(tmp_path) + synthetic_cases(tmp_path)
    failures, gaps = [], set()
    for label, paths, options in cases:
        exp, bad = compare(page, paths, options, label)
        failures += bad
        gaps |= {g["cause"] for g in exp.get("report", {}).get("gaps", [])}
    assert len(cases) >= 35 and gaps == {"recv", "send", "book", "none"}
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:6])


def test_the_page_refuses_what_python_refuses_in_the_same_words(page, tmp_path):
    cases = bad_cases(tmp_path)
    failures, keys = [], set()
    for label, paths, options in cases:
        exp, bad = compare(page, paths, options, label)
        keys.add(exp.get("error", {}).get("key"))
        failures += bad
    assert keys >= {"trace.not_text", "trace.not_json", "trace.no_events", "trace.empty", "trace.no_ops",
                    "trace.no_ops_named", "trace.truncated", "trace.gzip", "trace.disagree", "trace.same_rank",
                    "trace.rank_unknown", "trace.overlap_ops", "trace.overlap", "trace.stages", "trace.placement",
                    "trace.ranks_perm", "trace.ranks_count", "trace.offsets_count", "trace.offset",
                    "trace.pattern_needs", "trace.pattern_slot", "trace.pattern_stars", "trace.pattern_kinds",
                    "trace.no_files"}
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:8])
