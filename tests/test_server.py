"""The served app refuses a Host it does not serve (DNS rebinding), over HTTP and
websocket, and serves the ones it does: its own address, localhost, and hosts the
user allowed."""

from __future__ import annotations

import base64
import http.client
import os
from urllib.parse import urlsplit

import pytest
from browser import served_app


def request(url: str, host: str, path: str = "/app", websocket: bool = False) -> int:
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    headers = {"Host": host}
    if websocket:
        headers.update({
            "Origin": f"http://{host}", "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(), "Sec-WebSocket-Version": "13",
            "Sec-Fetch-Site": "same-origin",  # what a rebound page's browser sends
        })
    conn.request("GET", path, headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status


@pytest.fixture(scope="module")
def url():
    with served_app("--allow-websocket-origin", "course.example.edu:8443") as u:
        yield u


def test_own_address_and_localhost_are_served(url):
    port = urlsplit(url).port
    assert request(url, f"127.0.0.1:{port}") == 200
    assert request(url, f"localhost:{port}") == 200


def test_a_host_the_user_allowed_is_served(url):
    assert request(url, "course.example.edu:8443") == 200


@pytest.mark.parametrize("path,websocket", [("/app", False), ("/app/ws", True), ("/static/js/bokeh.min.js", False)])
def test_a_rebound_host_is_refused(url, path, websocket):
    port = urlsplit(url).port
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", f"course.example.edu:{port}"):
        assert request(url, host, path, websocket) == 403, host
