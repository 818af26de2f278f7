"""Security and robustness of the Label Studio connector (issue 13, item 6), without a Label Studio server: the
webhook receiver is started on loopback and spoken to over raw sockets, the state loader and the summary writer
are functions on files, credentials in the URL are checked on the real error paths (an unreachable server, the
installed ``iaa`` command)."""

from __future__ import annotations

import gzip
import io
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.analyse import analyse  # noqa: E402
from iaa_label_studio.api import Api, LabelStudioError, connect, redact_url  # noqa: E402
from iaa_label_studio.convert import parse_config  # noqa: E402
from iaa_label_studio.read import Project  # noqa: E402
from iaa_label_studio.state import MAX_STATE_BYTES, NO_STATE, PullState, StateStore  # noqa: E402
from iaa_label_studio.sync import save_summary  # noqa: E402
from iaa_label_studio.watch import SECRET_HEADER, receiver  # noqa: E402

IAA = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")
SECRET = "s3cret-for-the-test"
PROJECT = 7
BOT = 99
URL = "http://127.0.0.1:8080"


# --------------------------------------------------------------------------- 1. the webhook receiver


class Receiver:
    def __init__(self, **kw):
        self.events: queue.Queue = queue.Queue()
        self.lines: list[str] = []
        self.server = receiver(
            "127.0.0.1", 0, SECRET, self.events, bot_id=BOT, project_id=PROJECT, log=self.lines.append, **kw
        )
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def idle(self, timeout: float = 5.0) -> None:
        """Wait until no request holds a worker: a client gets its answer just before the worker that sent it is
        released, so back-to-back requests on a loaded machine could otherwise meet a 503 (every slot busy)."""
        end = time.monotonic() + timeout
        while self.server._active and time.monotonic() < end:
            time.sleep(0.01)

    def exchange(self, data: bytes, **kw) -> tuple[int | None, float]:
        """:func:`exchange` once no earlier request holds a worker (sequential requests, never a 503 race)."""
        self.idle()
        return exchange(self.port, data, **kw)

    def queued(self) -> list:
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out


@pytest.fixture
def rx():
    r = Receiver(max_body=1024, timeout=1.5, connections=3)
    yield r
    r.close()


def exchange(port: int, data: bytes, *, close_write: bool = False, timeout: float = 5.0) -> tuple[int | None, float]:
    """Send ``data``, read the answer until the server closes; (status or None, seconds until the answer)."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        if close_write:
            s.shutdown(socket.SHUT_WR)
        got = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
                if b"\r\n\r\n" in got:
                    break
        except (ConnectionResetError, socket.timeout):
            pass
    took = time.monotonic() - t0
    if not got.startswith(b"HTTP/"):
        return None, took
    return int(got.split(b" ", 2)[1]), took


def request(headers: dict, body: bytes = b"", *, length: bool = True) -> bytes:
    h = {"Host": "127.0.0.1", **headers}
    if length and "Content-Length" not in h:
        h["Content-Length"] = str(len(body))
    head = "POST /webhook HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
    return head.encode() + body


def webhook(action="ANNOTATION_CREATED", task=1, who=3, project=PROJECT) -> bytes:
    return json.dumps(
        {
            "action": action,
            "task": {"id": task},
            "annotation": {"id": 5, "task": task, "completed_by": who},
            "project": {"id": project},
        }
    ).encode()


def test_secret_and_size_are_checked_before_any_body_is_read(rx):
    # an 800 MB body announced with a wrong secret: refused at once, from the headers alone (nothing is sent)
    status, took = rx.exchange(request({"Content-Length": str(800 * 2**20), SECRET_HEADER: "wrong"}))
    assert status == 403 and took < 1.0
    status, _ = rx.exchange(request({"Content-Length": str(800 * 2**20)}))
    assert status == 403
    # with the right secret, a body over the limit is refused unread too
    status, took = rx.exchange(request({"Content-Length": "1025", SECRET_HEADER: SECRET}))
    assert status == 413 and took < 1.0
    # the refused client may still be sending: it gets its answer all the same
    status, _ = rx.exchange(request({SECRET_HEADER: "wrong"}, b"x" * 200_000))
    assert status == 403
    assert rx.queued() == []
    assert len(rx.lines) == 4 and all(
        line.startswith("bad request from 127.0.0.1: POST /webhook: ") for line in rx.lines
    )
    assert "403" in rx.lines[0] and "413" in rx.lines[2] and SECRET not in "".join(rx.lines)


@pytest.mark.parametrize(
    "headers, code",
    [
        ({"Content-Length": "-1"}, 400),
        ({"Content-Length": "abc"}, 400),
        ({"Content-Length": "1e3"}, 400),
        ({}, 411),
        ({"Transfer-Encoding": "chunked"}, 411),
    ],
)
def test_a_missing_or_invalid_length_is_answered_at_once_with_one_log_line(rx, capfd, headers, code):
    status, took = rx.exchange(request({SECRET_HEADER: SECRET, **headers}, length=False))
    assert status == code and took < 1.0
    assert len(rx.lines) == 1 and f": {code} " in rx.lines[0], rx.lines
    err = capfd.readouterr()
    assert "Traceback" not in err.err + err.out


def test_an_authenticated_but_malformed_webhook_is_400_and_logged_a_good_one_is_queued(rx):
    good = request({SECRET_HEADER: SECRET}, webhook(task=12))
    assert rx.exchange(good)[0] == 204
    assert rx.queued() == [("ANNOTATION_CREATED", 12)] and rx.lines == []
    # ignored without error: another project
    assert rx.exchange(request({SECRET_HEADER: SECRET}, webhook(project=8)))[0] == 204
    # the connector writes no annotation: one of its user's (an earlier version's gold) saved by a person is an
    # adjudication, queued like any other (issue 36)
    assert rx.exchange(request({SECRET_HEADER: SECRET}, webhook("ANNOTATION_UPDATED", task=13, who=BOT)))[0] == 204
    deleted = json.dumps({"action": "ANNOTATIONS_DELETED", "annotations": [{"id": 4}], "project": {"id": PROJECT}})
    assert rx.exchange(request({SECRET_HEADER: SECRET}, deleted.encode()))[0] == 204
    queued = rx.queued()
    assert queued[0] == ("ANNOTATION_UPDATED", 13) and [a for a, _ in queued] == [
        "ANNOTATION_UPDATED",
        "ANNOTATIONS_DELETED",
    ]
    assert rx.lines == []
    bad = [
        b"not json",
        b"[1, 2]",
        b"",
        json.dumps({"action": "ANNOTATION_CREATED", "annotation": {"id": 1}, "project": {"id": PROJECT}}).encode(),
        json.dumps({"action": "PROJECT_DELETED", "project": {"id": PROJECT}}).encode(),
        webhook(task="seven"),
        b"[" * 500 + b"]" * 500,  # nested lists
    ]
    for body in bad:
        assert rx.exchange(request({SECRET_HEADER: SECRET}, body))[0] == 400, body[:40]
    assert rx.queued() == []
    assert len(rx.lines) == len(bad) and all(": 400 not a Label Studio webhook: " in line for line in rx.lines)
    assert "names no task" in rx.lines[3] and "unexpected action 'PROJECT_DELETED'" in rx.lines[4]
    # a body shorter than announced (the client stops sending)
    status, _ = rx.exchange(request({SECRET_HEADER: SECRET, "Content-Length": "100"}, b"{}"), close_write=True)
    assert status == 400 and "shorter than its Content-Length" in rx.lines[-1]


def _until_closed(s: socket.socket, t0: float) -> float:
    s.settimeout(5)
    try:
        while s.recv(100):
            pass
    except OSError:
        pass
    return time.monotonic() - t0


def test_idle_and_slow_clients_never_starve_the_receiver(rx):
    """Issue 25: 8 idle unauthenticated connections made the receiver answer 503 for 10 s at a time. Now a
    connection waits for its headers without a worker: idle ones, one that never finishes its headers and one that
    trickles them are all cut after the timeout (1.5 s here), and good webhooks get through meanwhile."""
    threads0 = threading.active_count()
    t0 = time.monotonic()
    silent = [socket.create_connection(("127.0.0.1", rx.port)) for _ in range(20)]
    idle = socket.create_connection(("127.0.0.1", rx.port))
    idle.sendall(b"POST /webhook HTTP/1.1\r\n")
    trickle = socket.create_connection(("127.0.0.1", rx.port))
    stop = threading.Event()

    def drip():
        for b in request({SECRET_HEADER: SECRET}, webhook()):
            if stop.wait(0.2):
                return
            try:
                trickle.send(bytes([b]))
            except OSError:
                return

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    time.sleep(0.3)
    for t in range(10):  # 22 connections hold nothing: every good webhook is answered at once
        status, took = rx.exchange(request({SECRET_HEADER: SECRET}, webhook(task=100 + t)))
        assert status == 204 and took < 1.0
    assert [tid for _, tid in rx.queued()] == list(range(100, 110))
    assert threading.active_count() <= threads0 + 4  # the pool's 3 threads and the dripper: none per connection
    assert _until_closed(idle, t0) < 3.0
    assert _until_closed(trickle, t0) < 3.0  # a byte every 0.2 s, but the headers never completed in time
    assert all(_until_closed(s, t0) < 3.0 for s in silent)
    stop.set()
    for s in silent + [idle, trickle]:
        s.close()
    assert not [x for x in rx.lines if "503" in x]
    assert sum("cut off" in x for x in rx.lines) == 22, "\n".join(rx.lines)
    assert all(line.startswith("bad request from ") for line in rx.lines)


def test_requests_with_complete_headers_are_served_by_a_bounded_pool(rx):
    """Authenticated requests whose body is slow hold a worker each (3 here), until the request's timeout: more
    are answered 503 at once, and start no thread."""
    threads0 = threading.active_count()
    slow = []
    for _ in range(3):
        s = socket.create_connection(("127.0.0.1", rx.port))
        s.sendall(request({SECRET_HEADER: SECRET, "Content-Length": "500"}, length=False))  # no body yet
        slow.append(s)
    time.sleep(0.3)
    for _ in range(5):
        status, took = exchange(rx.port, request({SECRET_HEADER: SECRET}, webhook()))
        assert status == 503 and took < 1.0
    assert threading.active_count() <= threads0 + 3
    t0 = time.monotonic()
    assert all(_until_closed(s, t0) < 2.0 for s in slow)  # cut at 1.5 s after they connected
    for s in slow:
        s.close()
    time.sleep(0.3)
    assert rx.exchange(request({SECRET_HEADER: SECRET}, webhook(task=3)))[0] == 204
    assert ("ANNOTATION_CREATED", 3) in rx.queued()
    assert sum("503" in line for line in rx.lines) == 5
    assert sum("cut off" in x or "timed out" in x for x in rx.lines) == 3, "\n".join(rx.lines)


# --------------------------------------------------------------------------- 2. the state directory


def test_the_state_directory_is_created_private_and_an_existing_one_is_never_changed(tmp_path):
    state = PullState(URL, PROJECT, datetime.now(timezone.utc), {})
    old = os.umask(0)  # the most permissive umask: what the connector creates must be private anyway
    try:
        new = tmp_path / "a" / "b" / "state"
        warn = io.StringIO()
        path = StateStore(new, warn=warn).save(state)
        assert new.stat().st_mode & 0o777 == 0o700 and path.stat().st_mode & 0o777 == 0o600
        assert warn.getvalue() == ""
        shared = tmp_path / "shared"
        shared.mkdir()
        os.chmod(shared, 0o1777)  # like /tmp
        store = StateStore(shared, warn=warn)
        path = store.save(state)
        store.save(state)
        assert shared.stat().st_mode & 0o7777 == 0o1777  # left as it was
        assert path.stat().st_mode & 0o777 == 0o600
        lines = warn.getvalue().splitlines()
        assert len(lines) == 1 and str(shared) in lines[0] and "1777" in lines[0] and "unchanged" in lines[0]
        assert store.read(URL, PROJECT)[0] is not None
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- 3. credentials in the URL


def test_credentials_in_the_url_are_refused_and_never_shown():
    """A URL with credentials is refused (httpx would send them as basic authentication instead of the token),
    in one line that shows neither them nor the token."""
    assert redact_url("http://alice:pa55w0rd@example.com:8080/ls") == "http://***@example.com:8080/ls"
    assert redact_url("https://example.com/x") == "https://example.com/x"
    with pytest.raises(LabelStudioError) as bad:
        connect("ftp://alice:pa55w0rd@example.com", "token-123456")
    assert "pa55w0rd" not in str(bad.value) and "alice" not in str(bad.value)
    url = f"http://alice:pa55w0rd@127.0.0.1:{lst.free_port()}"
    for attempt in (lambda: connect(url, "token-123456"), lambda: Api(url, "token-123456")):
        with pytest.raises(LabelStudioError) as refused:
            attempt()
        msg = str(refused.value)
        assert "must not carry credentials" in msg and "http://***@127.0.0.1" in msg
        assert "pa55w0rd" not in msg and "alice" not in msg
    # the command line: one line, no credentials, no token
    env = {k: v for k, v in os.environ.items() if k not in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "IAA_DEBUG")}
    out = subprocess.run(
        [IAA, "label-studio", "report", "--url", url, "--token", "token-123456", "-p", "1", "--no-state"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "pa55w0rd" not in out.stderr + out.stdout and "alice" not in out.stderr + out.stdout
    assert "token-123456" not in out.stderr + out.stdout and "***@127.0.0.1" in out.stderr


# --------------------------------------------------------------------------- 4. private summary files

CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/></Choices></View>'
)


def _analysis():
    def ann(aid, who, label):
        return {
            "id": aid,
            "completed_by": who,
            "result": [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}],
            "was_cancelled": False,
            "ground_truth": False,
            "updated_at": None,
        }

    tasks = [
        {
            "id": t,
            "data": {"text": str(t)},
            "updated_at": None,
            "annotations": [ann(10 * t + 1, 1, "pos"), ann(10 * t + 2, 2, "pos" if t % 2 else "neg")],
            "predictions": [],
        }
        for t in range(1, 7)
    ]
    users = {1: "alice@example.com", 2: "bob@example.com"}
    project = Project(PROJECT, "p", CONFIG, parse_config(CONFIG), tasks, users, None)
    return analyse(project)


def test_summary_files_naming_annotators_are_private(tmp_path):
    analysis = _analysis()
    old = os.umask(0o022)
    try:
        # a directory the connector creates: 0700; its files 0600
        new = tmp_path / "new" / "summaries"
        summary = {"project": PROJECT, "agreement": analysis.to_json()}
        save_summary(summary, analysis, new, n_boot=0)
        assert new.stat().st_mode & 0o777 == 0o700
        files = [Path(f) for f in summary["files"]]
        assert [f.suffix for f in files] == [".json", ".html"]
        for f in files:
            assert f.stat().st_mode & 0o777 == 0o600
        assert "alice@example.com" in files[0].read_text()
        # an existing directory (the current one, say) is left alone; files already there, world-readable, are
        # replaced by private ones
        cwd = tmp_path / "cwd"
        cwd.mkdir(mode=0o755)
        for f in files:
            (cwd / f.name).write_text("old")
            os.chmod(cwd / f.name, 0o644)
        save_summary(summary, analysis, cwd, n_boot=0)
        assert cwd.stat().st_mode & 0o777 == 0o755
        assert sorted(p.name for p in cwd.iterdir()) == sorted(f.name for f in files)  # no temporary file left
        for f in cwd.iterdir():
            assert f.stat().st_mode & 0o777 == 0o600 and f.read_text() != "old"
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- 5. corrupt state files


def _gz(obj) -> bytes:
    return gzip.compress(json.dumps(obj).encode())


def _good() -> dict:
    return PullState(URL, PROJECT, datetime.now(timezone.utc), {}).to_json()


def _task(**kw) -> dict:
    return {"id": 1, "data": {}, "updated_at": None, "annotations": [], "predictions": [], **kw}


@pytest.mark.parametrize(
    "content, problem",
    [
        (_gz([1, 2, 3]), "not a JSON object but a list"),
        (b"not gzip", "not a valid gzip file"),
        (gzip.compress(b'{"format": 1, "url": ')[:-9], "not a valid gzip file"),  # truncated
        (gzip.compress(b"\xff\xfe{"), "not valid JSON"),
        (_gz({**_good(), "format": 99}), "format 99"),
        (_gz({**_good(), "project": PROJECT + 1}), "another server or project"),
        (_gz({**_good(), "watermark": "2026-01-01T00:00:00"}), "no time zone"),
        (_gz({**_good(), "watermark": 5}), "watermark is not a date"),
        (_gz({**_good(), "tasks": {"1": {}}}), "tasks is not a list"),
        (_gz({**_good(), "tasks": ["x"]}), "not an object with an integer id"),
        (_gz({**_good(), "tasks": [_task(annotations={})]}), "not a list"),
        (_gz({**_good(), "tasks": [_task(annotations=[{"id": 1, "completed_by": "x", "result": []}])]}), "wrong shape"),
        (_gz({**_good(), "tasks": [_task(predictions=[None])]}), "wrong shape"),
        (_gz({**_good(), "tasks": [_task(data=[])]}), "wrong type"),
    ],
    ids=lambda v: "state" if isinstance(v, bytes) else None,  # gzip bytes hold times: ids the same in every worker
)
def test_a_corrupt_state_is_ignored_with_its_reason(tmp_path, content, problem):
    store = StateStore(tmp_path)
    path = store.path(URL, PROJECT)
    path.write_bytes(content)
    state, why = store.read(URL, PROJECT)
    assert state is None and why.startswith(f"saved state ignored: {path.name} ") and problem in why, why
    assert store.load(URL, PROJECT) is None


def test_a_good_state_reads_back_and_a_missing_one_is_no_state(tmp_path):
    store = StateStore(tmp_path)
    assert store.read(URL, PROJECT) == (None, NO_STATE)
    t = _task(annotations=[{"id": 3, "completed_by": 2, "result": [], "was_cancelled": False}])
    store.save(PullState(URL, PROJECT, datetime.now(timezone.utc), {1: t}))
    state, why = store.read(URL, PROJECT)
    assert why is None and state.tasks == {1: t}


def _read_in_time(store: StateStore, seconds: float = 5.0):
    out: list = []
    th = threading.Thread(target=lambda: out.append(store.read(URL, PROJECT)), daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "reading the state blocked"
    return out[0]


def test_a_fifo_device_or_link_in_place_of_the_state_never_blocks(tmp_path):
    store = StateStore(tmp_path)
    path = store.path(URL, PROJECT)
    os.mkfifo(path)  # nobody writes to it: opening it for reading the usual way blocks for ever
    state, why = _read_in_time(store)
    assert state is None and why.endswith("not a regular file")
    path.unlink()
    path.symlink_to("/dev/zero")
    state, why = _read_in_time(store)
    assert state is None and why.endswith("not a regular file")
    path.unlink()
    elsewhere = tmp_path / "elsewhere.json.gz"
    elsewhere.write_bytes(_gz(_good()))
    path.symlink_to(elsewhere)  # a link, even to a good state, is not followed
    assert _read_in_time(store)[1].endswith("not a regular file")


def test_a_gzip_bomb_stops_at_the_size_limit(tmp_path):
    assert MAX_STATE_BYTES <= 1 << 30
    store = StateStore(tmp_path, max_bytes=1 << 20)
    path = store.path(URL, PROJECT)
    zeros = gzip.compress(b" " * (64 << 20), compresslevel=9)  # 64 MiB of blanks (valid JSON padding), ~64 kB
    path.write_bytes(zeros)
    t0 = time.monotonic()
    state, why = _read_in_time(store)
    assert state is None and f"decompresses to more than {1 << 20} bytes" in why
    assert time.monotonic() - t0 < 2.0
