"""Screenshots of the Data Manager for the README, from a real server started the test suite's way.

    python plugins/label_studio/scripts/screenshots.py OUT_DIR

Starts a server (``iaa_label_studio.testing``), builds a small project (three annotators, overlap 3, a few tasks
unfinished, a few ties), syncs it as the service account, logs in as the admin and drives headless Chromium
through the DevTools protocol (a minimal WebSocket client: no extra dependency) to capture the two tabs and a task
with its gold annotation.
"""

from __future__ import annotations

import base64
import http.cookiejar
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from iaa_label_studio import testing as lst
from iaa_label_studio.api import PLUGIN_EMAIL, Api, Connection
from iaa_label_studio.plan import AGREEMENT_TAB, REVIEW_TAB
from iaa_label_studio.sync import sync

CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text" choice="single-radio">'
    '<Choice value="positive"/><Choice value="negative"/><Choice value="neutral"/></Choices></View>'
)
REVIEWS = [
    ("Arrived quickly and works as described.", "ppp"),
    ("Battery died after two days.", "nnn"),
    ("It is a phone case. It fits.", "upn"),
    ("Great screen, terrible speakers.", "pnu"),
    ("Would buy again.", "ppu"),
    ("Not what the pictures showed.", "nnp"),
    ("Okay for the price.", "up"),
    ("The strap broke the first week.", "nn"),
    ("Exactly what I needed for my trip.", "ppn"),
    ("Customer service never answered.", "nun"),
    ("Does the job, nothing more.", "uu"),
    ("Five stars, my kids love it.", "pp"),
]
LABEL = {"p": "positive", "n": "negative", "u": "neutral"}


class CDP:
    """Just enough of a WebSocket client (RFC 6455, text frames) for Chrome's DevTools protocol."""

    def __init__(self, ws_url: str) -> None:
        u = urllib.parse.urlsplit(ws_url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(head.decode(errors="replace"))
        self.n = 0

    def _send(self, text: str) -> None:
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (
            bytes([0x80 | n])
            if n < 126
            else bytes([0x80 | 126]) + struct.pack(">H", n)
            if n < 65536
            else bytes([0x80 | 127]) + struct.pack(">Q", n)
        )
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _recv_exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed")
            out += chunk
        return out

    def _recv(self) -> str:
        parts = b""
        while True:
            b1, b2 = self._recv_exact(2)
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            parts += self._recv_exact(n)
            if b1 & 0x80:
                return parts.decode()

    def call(self, method: str, **params) -> dict:
        self.n += 1
        self._send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(self._recv())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg.get("result", {})


def session_cookies(url: str) -> dict:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(url + "/user/login/", timeout=30).read().decode()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    m = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    form = {"email": lst.USER, "password": lst.PASSWORD, "csrfmiddlewaretoken": m.group(1) if m else csrf}
    req = urllib.request.Request(
        url + "/user/login/", data=urllib.parse.urlencode(form).encode(), headers={"Referer": url + "/user/login/"}
    )
    opener.open(req, timeout=30).read()
    return {c.name: c.value for c in jar}


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "plugins/label_studio/docs")
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="iaa-ls-shots-"))
    server = lst.start_test_server(tmp / "server")
    chrome = None
    try:
        admin = Api(server.client())
        users = list(lst.make_users(admin, ["alice@example.com", "bob@example.com", "chen@example.com"]).values())
        tasks = [
            {
                "data": {"text": text},
                "annotations": [
                    {
                        "completed_by": u,
                        "result": [
                            {
                                "from_name": "sentiment",
                                "to_name": "text",
                                "type": "choices",
                                "value": {"choices": [LABEL[c]]},
                            }
                        ],
                    }
                    for u, c in zip(users, votes)
                ],
            }
            for text, votes in REVIEWS
        ]
        pid = lst.make_project(admin, "Product reviews", CONFIG, tasks)
        admin.update_project(pid, {"maximum_annotations": 3})
        admin.plugin_user(create=True)
        bot = Api(Connection(server.url, server.service_account(PLUGIN_EMAIL, "screenshots-service-password")))
        sync(bot, pid, html=False)
        views = {v["data"]["title"]: v["id"] for v in admin.views(pid)}
        gold_task = next(
            t["id"] for t in admin.tasks(pid) if t["data"].get("iaa_gold") == "final" and t["data"]["iaa_agreement"] < 1
        )
        cookies = session_cookies(server.url)
        port = lst.free_port()
        exe = shutil.which("chromium") or "/usr/bin/chromium"
        chrome = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                f"--remote-debugging-port={port}",
                f"--user-data-dir={tmp / 'profile'}",
                "--window-size=1500,820",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=2))
                page = next(p for p in pages if p.get("type") == "page")
                break
            except (OSError, StopIteration, ValueError):
                time.sleep(0.2)
        cdp = CDP(page["webSocketDebuggerUrl"])
        cdp.call("Network.enable")
        for name, value in cookies.items():
            cdp.call("Network.setCookie", name=name, value=value, domain="127.0.0.1", path="/")
        cdp.call("Emulation.setDeviceMetricsOverride", width=1500, height=820, deviceScaleFactor=1, mobile=False)
        shots = {
            "dm-agreement-tab.png": f"{server.url}/projects/{pid}/data?tab={views[AGREEMENT_TAB]}",
            "dm-needs-adjudication-tab.png": f"{server.url}/projects/{pid}/data?tab={views[REVIEW_TAB]}",
            "task-with-gold.png": f"{server.url}/projects/{pid}/data?tab={views[AGREEMENT_TAB]}&task={gold_task}",
        }
        for name, url in shots.items():
            cdp.call("Page.navigate", url=url)
            time.sleep(8)
            png = base64.b64decode(cdp.call("Page.captureScreenshot", format="png")["data"])
            (out / name).write_bytes(png)
            print(out / name, len(png))
    finally:
        if chrome is not None:
            chrome.terminate()
            chrome.wait(timeout=20)
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
