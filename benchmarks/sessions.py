"""A class on one server: N sessions at once on one `panel serve` process, driven
from a script (Bokeh's websocket protocol), not browsers, so the two cores go to
the server.

    .venv/bin/python benchmarks/sessions.py [--sessions 50] [--updates 20] [--warmup 8]

Each session loads the page as a browser does (GET, then the websocket with the
page's token), pulls its document, then moves its own P and m sliders away from the
defaults and back and forth between its own two values of each, one change
at a time: it sends the slider's new value (the PATCH-DOC a browser sends) and waits
for the readout the server sends back. Every readout must be exactly the one
pipeviz computes for that session's own state (no cross-talk). Printed:
- updates per second held by the server over the measured phase, and the latency
  of each update (send to readout received), median / p90 / p99 / max;
- the server's RSS after warm-up and over the measured updates (flat within 10%
  is the target) and after the sessions closed and Bokeh released them;
- the sessions the server holds (its own stats log) while open and after close;
- any exception the server logged (there must be none).
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

from pipeviz import Config, run
from pipeviz.view.readouts import readout_html, readout_values

ROOT = Path(__file__).resolve().parent.parent


def expected_readout(P: int, m: int) -> str:
    return readout_html(readout_values(run(Config("1f1b", P, m))), "en")


class Server:
    """`panel serve app.py` as scripts/serve runs it, with Bokeh's stats in its log."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", "app.py", "--setup", "serve_setup.py", "--address", "127.0.0.1",
             "--port", "0", "--stats-log-frequency", "1000", "--check-unused-sessions", "1000", "--log-level", "debug"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "BOKEH_LOG_LEVEL": "info"},
        )
        self.log: list[str] = []
        self.url = None
        ready = threading.Event()

        def read():
            for line in self.proc.stdout:
                self.log.append(line)
                found = re.search(r"Bokeh app running at: (http://127\.0\.0\.1:\d+/app)", line)
                if found:
                    self.url = found.group(1)
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(120):
            raise RuntimeError("panel serve did not start:\n" + "".join(self.log))

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def sessions(self) -> int | None:
        """Sessions the server holds, from its latest stats line."""
        for line in reversed(self.log):
            found = re.search(r"has (\d+) sessions", line)
            if found:
                return int(found.group(1))
        return None

    def exceptions(self) -> list[str]:
        return [line for line in self.log if "Traceback" in line or "Error" in line and "error" in line.lower()]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def find(obj, pred):
    """Serialized Bokeh models in a document's JSON that satisfy pred."""
    if isinstance(obj, dict):
        if obj.get("type") == "object" and pred(obj):
            yield obj
        for v in obj.values():
            yield from find(v, pred)
    elif isinstance(obj, list):
        for v in obj:
            yield from find(v, pred)


QUIET_S = 5.0


class Session:
    def __init__(self, i: int, url: str):
        self.i = i
        self.url = url
        # Each session opens at the defaults (P=4, m=8) and moves to its own values.
        self.P0 = 5 + i % 12
        self.m0 = 9 + (i * 7) % 40
        self.latencies: list[float] = []
        self.mismatches: list[str] = []
        self.table_seen = False  # the comparison table has arrived since the last change

    async def open(self) -> None:
        query = ""
        page = await AsyncHTTPClient().fetch(self.url + query, request_timeout=600, connect_timeout=600)
        token = re.search(r'"token":"([^"]+)"', page.body.decode()).group(1)
        request = HTTPRequest(self.url.replace("http", "ws", 1) + "/ws" + query, connect_timeout=600,
                              request_timeout=600)
        self.ws = await websocket_connect(request, subprotocols=["bokeh", token], max_message_size=256 * 2**20)
        self.receiver = Receiver(Protocol())
        await self.expect("ACK")
        await self.send("PULL-DOC-REQ", {})
        doc = (await self.expect("PULL-DOC-REPLY")).content["doc"]
        sliders = {o["attributes"].get("title"): o["id"] for o in find(doc, lambda o: o.get("name") == "Slider")}
        self.p_id, self.m_id = sliders["P (ranks)"], sliders["m (micro-batches)"]
        readout = list(find(doc, lambda o: str(o.get("name")).endswith("HTML") and "pv-readout"
                            in html.unescape(str(o.get("attributes", {}).get("text", "")))))
        if not readout:
            raise RuntimeError(json.dumps(list(find(doc, lambda o: True)))[:3000])
        self.readout_id = readout[0]["id"]
        self.P, self.m = 4, 8

    async def recv(self):
        while True:
            fragment = await self.ws.read_message()
            if fragment is None:
                raise ConnectionError("server closed the websocket")
            msg = await self.receiver.consume(fragment)
            if msg is not None:
                return msg

    async def expect(self, msgtype: str):
        while True:
            msg = await self.recv()
            if msg.msgtype == msgtype:
                return msg

    async def send(self, msgtype: str, content: dict) -> None:
        header = {"msgid": uuid.uuid4().hex, "msgtype": msgtype}
        for part in (header, {}, content):
            await self.ws.write_message(json.dumps(part))

    async def change(self, attr_id: str, value: int) -> None:
        """Move one slider and wait for this session's readout."""
        event = {"kind": "ModelChanged", "model": {"id": attr_id}, "attr": "value", "new": value}
        t0 = time.perf_counter()
        await self.send("PATCH-DOC", {"events": [event]})
        self.table_seen = False
        want = expected_readout(self.P, self.m)
        while True:
            try:
                msg = await asyncio.wait_for(self.expect("PATCH-DOC"), 120)
            except TimeoutError:
                self.mismatches.append(f"session {self.i}: no readout within 120 s of P={self.P}, m={self.m}")
                return
            texts = [e["new"] for e in self.texts(msg) if e.get("model", {}).get("id") == self.readout_id]
            if texts:
                break
        self.latencies.append((time.perf_counter() - t0) * 1e3)
        got = html.unescape(texts[-1])
        if want not in got:
            self.mismatches.append(f"session {self.i} at P={self.P}, m={self.m}: {got[:120]}")

    def texts(self, msg) -> list[dict]:
        """The text changes in a PATCH-DOC; notes whether the comparison table is among them."""
        found = [e for e in msg.content.get("events", [])
                 if e.get("kind") == "ModelChanged" and e.get("attr") == "text"]
        if any("pv-table-box" in html.unescape(str(e.get("new"))) for e in found):
            self.table_seen = True
        return found

    async def settle(self) -> None:
        """Wait for the rest of the last change: the table, the sweep and the placements
        come after the readout (served/deferred.py). Warm-up ends only once every
        session has drawn its whole page, so what the measured phase adds is growth,
        not a page filled in for the first time. The table is not sent again when it
        is the one shown already, so a session is also settled once the server has
        sent it nothing for QUIET_S."""
        while not self.table_seen:
            try:
                self.texts(await asyncio.wait_for(self.expect("PATCH-DOC"), QUIET_S))
            except TimeoutError:
                return

    async def step(self, k: int) -> None:
        """The k-th change: P and m take turns, each between its own two values."""
        if k % 2 == 0:
            self.P = self.P0 if self.P != self.P0 else self.P0 + 1
            await self.change(self.p_id, self.P)
        else:
            self.m = self.m0 if self.m != self.m0 else self.m0 + 1
            await self.change(self.m_id, self.m)

    async def close(self) -> None:
        self.ws.close()


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def drive(server: Server, n: int, warmup: int, updates: int) -> None:
    AsyncHTTPClient.configure(None, max_clients=n)  # every page at once, as n browsers would
    sessions = [Session(i, server.url) for i in range(n)]
    t0 = time.perf_counter()
    await asyncio.gather(*(s.open() for s in sessions))
    print(f"{n} sessions open in {time.perf_counter() - t0:.1f} s")
    for k in range(warmup):
        await asyncio.gather(*(s.step(k) for s in sessions))
    await asyncio.gather(*(s.settle() for s in sessions))
    for s in sessions:
        s.latencies.clear()
    rss = [server.rss_mb()]
    print(f"after {n * warmup} warm-up updates and every page drawn whole: server RSS {rss[0]:.1f} MB, "
          f"sessions held {server.sessions()}")

    sampling = True

    async def sample():
        while sampling:
            rss.append(server.rss_mb())
            await asyncio.sleep(0.25)

    sampler = asyncio.ensure_future(sample())
    t0 = time.perf_counter()

    async def run_session(s: Session):
        for k in range(warmup, warmup + updates):
            await s.step(k)

    await asyncio.gather(*(run_session(s) for s in sessions))
    elapsed = time.perf_counter() - t0
    sampling = False
    await sampler
    rss.append(server.rss_mb())
    lat = [x for s in sessions for x in s.latencies]
    mismatches = [x for s in sessions for x in s.mismatches]
    print(f"measured: {len(lat)} updates in {elapsed:.1f} s = {len(lat) / elapsed:.1f} updates/s held "
          f"({n} sessions, each waiting for its readout before its next change)")
    print(f"latency ms: median {statistics.median(lat):.0f}  p90 {pct(lat, 0.9):.0f}  p99 {pct(lat, 0.99):.0f}  "
          f"max {max(lat):.0f}")
    lo, hi = min(rss[1:]), max(rss[1:])
    print(f"server RSS over the measured updates: start {rss[0]:.1f}, min {lo:.1f}, max {hi:.1f}, end {rss[-1]:.1f} MB "
          f"(max/start {hi / rss[0]:.3f}; target within 10%: {'yes' if hi <= 1.1 * rss[0] else 'NO'})")
    print(f"cross-talk: {len(mismatches)} readouts that were not the session's own state")
    for x in mismatches[:5]:
        print("   ", x)
    print(f"sessions held by the server while open: {server.sessions()}")
    await asyncio.gather(*(s.close() for s in sessions))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--updates", type=int, default=20, help="measured updates per session (50 x 20 = 1000)")
    ap.add_argument("--warmup", type=int, default=8, help="changes per session before measuring: each of its four states twice")
    args = ap.parse_args()
    server = Server()
    try:
        asyncio.run(drive(server, args.sessions, args.warmup, args.updates))
        open_rss = server.rss_mb()
        deadline = time.time() + 60  # Bokeh releases a session 15 s after its last connection closed
        while time.time() < deadline and server.sessions() not in (0, None):
            time.sleep(1)
        time.sleep(2)
        print(f"after close: sessions held {server.sessions()}, server RSS {server.rss_mb():.1f} MB "
              f"(was {open_rss:.1f} MB with the sessions open)")
    finally:
        server.stop()
    bad = [line for line in server.log if "Traceback" in line or "Exception" in line or "AssertionError" in line]
    print(f"server exceptions: {len(bad)}")
    if bad:
        print("".join(server.log[-80:]))
        sys.exit(1)


if __name__ == "__main__":
    main()
