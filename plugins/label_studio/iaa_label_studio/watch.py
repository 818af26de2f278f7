"""``iaa label-studio watch``: a small webhook receiver that keeps agreement and gold labels up to date.

* On start: a full sync, then a webhook is registered on the project for ANNOTATION_CREATED, ANNOTATION_UPDATED
  and ANNOTATIONS_DELETED, posting to this receiver with the shared secret in the ``X-IAA-Secret`` header (Label
  Studio signs nothing; a custom header is what it offers). It is removed again on exit.
* The receiver reads nothing of a body before the request has shown the right secret (403 otherwise) and a
  ``Content-Length`` within ``--max-body`` (411 when missing or chunked, 400 when invalid, 413 when larger). One
  thread waits for the request line and headers of every connection (a selector, at most :data:`HEADER_TIMEOUT`
  seconds each, :data:`PENDING` at a time): idle or slow clients cost a socket, never a worker. Requests whose
  headers are complete are served by a bounded pool of threads (503 when every one is busy), each cut after
  :data:`TIMEOUT` seconds in all.
  A bad request costs one log line, never a traceback. An authenticated webhook that is not one of the
  expected events (not JSON, no task id, ...) gets 400 and a log line. A good one is answered (204) and queued;
  a worker thread runs a sync of what changed (the saved state of :mod:`iaa_label_studio.state`: the server is
  asked which tasks changed since the previous run, and the tasks an event names are read in any case). Events
  about the plugin's own annotations are ignored.
* Label Studio never retries a webhook, so the same sync of what changed also runs every ``--poll`` seconds
  (reconciliation); it notices every change made through the API whether or not a webhook arrived.
"""

from __future__ import annotations

import hmac
import io
import json
import queue
import secrets
import selectors
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Callable, TextIO

from .api import Api, LabelStudioError, redact_url
from .state import StateStore
from .sync import sync

__all__ = ["watch", "receiver", "SECRET_HEADER", "ACTIONS", "MAX_BODY"]

SECRET_HEADER = "X-IAA-Secret"
ACTIONS = ["ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED"]
_NO_TASK = object()  # queue marker: an event that names no task (deletions carry only ids)
#: the largest webhook body read (Label Studio's annotation payloads are a few kB)
MAX_BODY = 1 << 20
#: seconds a connection may take in all (request line, headers, body, answer) before it is cut
TIMEOUT = 10.0
#: seconds a connection may take to send its request line and headers (waited for without a worker)
HEADER_TIMEOUT = 5.0
#: connections waiting for their headers at the same time (beyond: the oldest is dropped)
PENDING = 256
#: the longest request line and headers
MAX_HEADERS = 64 << 10
#: requests (headers complete) served at the same time; more are answered 503 at once
CONNECTIONS = 8


class _BadWebhook(ValueError):
    pass


def _int_id(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise _BadWebhook(f"{what} is not an id")
    try:
        return int(v)
    except ValueError:
        raise _BadWebhook(f"{what} is not an id") from None


def _event(payload: Any, bot_id: int | None, project_id: int) -> tuple[str, Any] | None:
    """The queued event of a webhook payload; None for one to ignore (another project, the plugin's own
    annotation); raises :class:`_BadWebhook` for a payload that is not an expected webhook."""
    if not isinstance(payload, dict):
        raise _BadWebhook("not a JSON object")
    action = payload.get("action")
    if action not in ACTIONS:
        raise _BadWebhook(f"unexpected action {str(action)[:40]!r}")
    proj = payload.get("project")
    if proj is not None and not isinstance(proj, dict):
        raise _BadWebhook("project is not an object")
    pid = (proj or {}).get("id")
    if pid is not None and _int_id(pid, "project id") != project_id:
        return None
    if action == "ANNOTATIONS_DELETED":
        return (action, _NO_TASK)
    ann = payload.get("annotation")
    task = payload.get("task")
    if not isinstance(ann, dict) or not isinstance(task, (dict, type(None))):
        raise _BadWebhook(f"{action} without an annotation object")
    # the connector writes no annotation: an event about one of its user's (an earlier version's gold) is a person
    # saving it in the editor, an adjudication
    tid = (task or {}).get("id")
    if tid is None:
        tid = ann.get("task")
        tid = tid.get("id") if isinstance(tid, dict) else tid
    if tid is None:
        raise _BadWebhook(f"{action} names no task")
    return (action, _int_id(tid, "task id"))


def _handler(
    secret: str,
    events: queue.Queue,
    bot_id: int | None,
    project_id: int,
    *,
    max_body: int,
    timeout: float,
    log: Callable[[str], None],
):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection: nothing idles on a kept-alive socket

        def setup(self) -> None:
            self.timeout = timeout  # StreamRequestHandler sets it on the socket: a slow client is cut off
            super().setup()
            prefix = self.server._prefix.pop(self.connection, b"")  # type: ignore[attr-defined]
            if prefix:  # what the server read while waiting for the headers comes first
                self.rfile = io.BufferedReader(_Prefixed(prefix, self.connection))

        def log_message(self, *args: Any) -> None:  # quiet: nothing about good requests (or headers) is logged
            pass

        def log_error(self, fmt: str, *args: Any) -> None:  # the server's own 4xx (bad request line, timeout)
            self._bad((fmt % args) if args else fmt)

        def _bad(self, why: str) -> None:
            if getattr(self, "_logged", False):  # one line per bad request
                return
            self._logged = True
            if self.connection in getattr(self.server, "_cut", ()):
                why = f"cut off: the request took longer than {timeout:g} s"
            log(f"bad request from {self.client_address[0]}: {' '.join(str(why).split())[:200]}")

        def handle(self) -> None:
            try:
                super().handle()
            except OSError as exc:  # the client went away, or was cut off: one line, never a traceback
                what = "timed out" if isinstance(exc, (TimeoutError, socket.timeout)) else type(exc).__name__
                self._bad(what)

        def _answer(self, code: int, text: str = "") -> None:
            body = text.encode()
            self.send_response_only(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if body:
                self.wfile.write(body)
            self.close_connection = True

        def _refuse(self, code: int, why: str) -> None:
            self._bad(f"{self.command} {self.path[:80]}: {code} {why}")
            self._answer(code, why)
            self._unread = True

        def finish(self) -> None:
            super().finish()
            if getattr(self, "_unread", False):  # let the client read the answer: a close with unread data
                _drain(self.connection)  # resets the connection, which can destroy the answer in transit

        def do_GET(self) -> None:
            self._answer(200 if self.path == "/health" else 404, "ok" if self.path == "/health" else "")

        def do_POST(self) -> None:
            # nothing of the body is read before the secret and the size are known to be right
            given = self.headers.get(SECRET_HEADER) or ""
            if not hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode()):
                self._refuse(403, "wrong or missing secret")
                return
            if self.headers.get("Transfer-Encoding"):
                self._refuse(411, "a Content-Length is required (no chunked bodies)")
                return
            declared = self.headers.get_all("Content-Length") or []
            if not declared:
                self._refuse(411, "a Content-Length is required")
                return
            if len(set(declared)) != 1 or not declared[0].strip().isdigit():
                self._refuse(400, "invalid Content-Length")
                return
            length = int(declared[0])
            if length > max_body:
                self._refuse(413, f"body larger than {max_body} bytes")
                return
            raw = self.rfile.read(length)  # bounded, and under the socket timeout
            if len(raw) < length:
                self._refuse(400, "body shorter than its Content-Length")
                return
            try:
                payload = json.loads(raw or b"null")
                ev = _event(payload, bot_id, project_id)
            except (ValueError, RecursionError) as exc:
                why = str(exc) if isinstance(exc, _BadWebhook) else "not JSON"
                self._refuse(400, f"not a Label Studio webhook: {why}")
                return
            if ev is not None:
                events.put(ev)
            self._answer(204)  # the work happens in the main loop

    return Handler


def _drain(sock: socket.socket, limit: int = 1 << 18, seconds: float = 1.0) -> None:
    """Half-close, then discard what the client still sends (at most ``limit`` bytes, ``seconds``)."""
    try:
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        got = 0
        while got < limit:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += len(chunk)
    except OSError:
        pass


class _Prefixed(io.RawIOBase):
    """A connection's bytes: those already read while waiting for its headers, then the socket's."""

    def __init__(self, prefix: bytes, sock: socket.socket) -> None:
        super().__init__()
        self._prefix = memoryview(prefix)
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if len(self._prefix):
            n = min(len(b), len(self._prefix))
            b[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        return self._sock.recv_into(b)


class _Pending:
    """A connection whose request line and headers have not all arrived yet."""

    __slots__ = ("address", "deadline", "data")

    def __init__(self, address: Any, deadline: float) -> None:
        self.address = address
        self.deadline = deadline
        self.data = bytearray()


class _Server(HTTPServer):
    """An HTTP server that waits for every connection's headers in one thread (a selector: an idle or slow client
    costs a socket, never a worker) and serves the requests whose headers are complete with a bounded pool of
    threads. At most :data:`PENDING` connections wait for their headers (the oldest one is dropped for a new one),
    each at most ``header_timeout`` seconds; a request takes at most ``timeout`` seconds in all."""

    daemon_threads = True
    request_queue_size = 128  # connections the kernel holds before they are accepted (socketserver's default: 5)

    def __init__(
        self,
        address,
        handler,
        *,
        connections: int,
        timeout: float,
        header_timeout: float,
        pending: int,
        log: Callable[[str], None],
    ) -> None:
        self._log = log
        self._timeout = timeout
        self._header_timeout = header_timeout
        self._max_pending = pending
        self._slots = threading.BoundedSemaphore(connections)
        self._pool = ThreadPoolExecutor(max_workers=connections, thread_name_prefix="iaa-webhook")
        self._active: dict[socket.socket, float] = {}  # connection -> when it must be done
        self._prefix: dict[socket.socket, bytes] = {}  # connection -> what was read while waiting for its headers
        self._closed = threading.Event()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        self._cut: set[socket.socket] = set()  # connections cut off by the reaper (for the log line)
        super().__init__(address, handler)
        threading.Thread(target=self._reap, name="iaa-webhook-reaper", daemon=True).start()

    def _reap(self) -> None:
        """Cut connections that take longer than the timeout in all (a client trickling bytes resets the socket
        timeout with every byte; this bounds the whole request)."""
        while not self._closed.wait(0.25):
            now = time.monotonic()
            for sock, deadline in list(self._active.items()):
                if now > deadline:
                    self._active.pop(sock, None)
                    self._cut.add(sock)
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

    def serve_forever(self, poll_interval: float = 0.25) -> None:
        """Accept connections and wait for their headers (this thread); hand complete ones to the pool."""
        self._stop.clear()
        self._stopped.clear()
        sel = selectors.DefaultSelector()
        pending: dict[socket.socket, _Pending] = {}
        try:
            self.socket.setblocking(False)
            sel.register(self.socket, selectors.EVENT_READ)
            while not self._stop.is_set():
                for key, _ in sel.select(poll_interval):
                    if key.fileobj is self.socket:
                        self._accept(sel, pending)
                    else:
                        self._read_headers(key.fileobj, sel, pending)  # type: ignore[arg-type]
                now = time.monotonic()
                for sock, p in list(pending.items()):
                    if now > p.deadline:
                        self._drop(
                            sock, sel, pending, f"cut off: no complete request within {self._header_timeout:g} s"
                        )
        finally:
            for sock in list(pending):
                self._drop(sock, sel, pending, None)
            sel.close()
            self._stopped.set()

    def shutdown(self) -> None:
        self._stop.set()
        self._stopped.wait()

    def _accept(self, sel: selectors.BaseSelector, pending: dict) -> None:
        """Accept every connection waiting (the listening socket does not block)."""
        for _ in range(self.request_queue_size):
            try:
                sock, address = self.socket.accept()
            except OSError:  # none left (BlockingIOError), or one that went away
                return
            if len(pending) >= self._max_pending:  # many idle connections: the oldest gives way
                oldest = min(pending, key=lambda s: pending[s].deadline)
                self._drop(oldest, sel, pending, f"dropped: {self._max_pending} connections were waiting for headers")
            sock.setblocking(False)
            pending[sock] = _Pending(address, time.monotonic() + self._header_timeout)
            sel.register(sock, selectors.EVENT_READ)

    def _drop(self, sock: socket.socket, sel: selectors.BaseSelector, pending: dict, why: str | None) -> None:
        p = pending.pop(sock)
        try:
            sel.unregister(sock)
        except (KeyError, ValueError):
            pass
        if why:  # None: the server stops, or a client that sent nothing went away (not worth a line)
            self._log(f"bad request from {p.address[0]}: {why}")
        self.shutdown_request(sock)

    def _read_headers(self, sock: socket.socket, sel: selectors.BaseSelector, pending: dict) -> None:
        p = pending[sock]
        try:
            chunk = sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the client went away before its request was complete
            self._drop(sock, sel, pending, "closed before the request was complete" if p.data else None)
            return
        p.data += chunk
        if b"\r\n\r\n" not in p.data and b"\n\n" not in p.data:
            if len(p.data) > MAX_HEADERS:
                self._drop(sock, sel, pending, f"request line and headers longer than {MAX_HEADERS} bytes")
            return
        pending.pop(sock)
        sel.unregister(sock)
        sock.setblocking(True)
        self._dispatch(sock, p)

    def _dispatch(self, sock: socket.socket, p: _Pending) -> None:
        if not self._slots.acquire(blocking=False):
            self._log(f"bad request from {p.address[0]}: 503 every connection slot is busy")
            try:
                sock.settimeout(1.0)
                sock.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(sock)
            return
        self._prefix[sock] = bytes(p.data)
        self._active[sock] = p.deadline - self._header_timeout + self._timeout  # from the connection's start
        try:
            self._pool.submit(self._serve, sock, p.address)
        except RuntimeError:  # the pool is shut down: the server is stopping
            self._active.pop(sock, None)
            self._prefix.pop(sock, None)
            self._slots.release()
            self.shutdown_request(sock)

    def _serve(self, request, client_address) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self._active.pop(request, None)
            self._prefix.pop(request, None)
            self._cut.discard(request)
            self.shutdown_request(request)
            self._slots.release()

    def handle_error(self, request, client_address) -> None:  # one line, never a traceback
        import sys

        exc = sys.exc_info()[1]
        what = "timed out" if isinstance(exc, (TimeoutError, socket.timeout)) else type(exc).__name__
        self._log(f"bad request from {client_address[0]}: {what}")

    def server_close(self) -> None:
        self._closed.set()
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


def receiver(
    host: str,
    port: int,
    secret: str,
    events: queue.Queue,
    *,
    bot_id: int | None,
    project_id: int,
    log: Callable[[str], None],
    max_body: int = MAX_BODY,
    timeout: float = TIMEOUT,
    connections: int = CONNECTIONS,
    header_timeout: float = HEADER_TIMEOUT,
    pending: int = PENDING,
) -> HTTPServer:
    """The webhook receiver, bound to ``host:port`` (not yet serving: call ``serve_forever``). Each accepted
    webhook puts ``(action, task id)`` on ``events``; ``log`` gets one line per bad request. A connection waits at
    most ``header_timeout`` seconds (never more than ``timeout``) for its request line and headers, without
    holding one of the ``connections`` workers; at most ``pending`` connections wait so."""
    handler = _handler(secret, events, bot_id, project_id, max_body=max_body, timeout=timeout, log=log)
    return _Server(
        (host, int(port)),
        handler,
        connections=max(1, int(connections)),
        timeout=timeout,
        header_timeout=min(float(header_timeout), float(timeout)),
        pending=max(1, int(pending)),
        log=log,
    )


def watch(
    api: Api,
    project_id: int,
    *,
    listen: str = "127.0.0.1:8765",
    public_url: str | None = None,
    secret: str | None = None,
    poll: float = 300.0,
    iou_threshold: float | None = None,
    primary: str | None = None,
    field: str = "iaa_agreement",
    model_version: str = "iaa-engine-agreement",
    gold: bool = True,
    workers: int = 4,
    max_body: int = MAX_BODY,
    max_seconds: float | None = None,
    out: TextIO | None = None,
    state: StateStore | None = None,
    full: bool = False,
) -> int:
    """Run until interrupted (SIGINT/SIGTERM) or ``max_seconds``; returns the exit status.

    Without a ``state`` store a temporary one is used for the life of the service.
    """
    import shutil
    import sys
    import tempfile

    scratch = None
    if state is None:
        scratch = tempfile.mkdtemp(prefix="iaa-ls-watch-")
        state = StateStore(scratch)
    try:
        return _watch(
            api,
            project_id,
            listen=listen,
            public_url=public_url,
            secret=secret,
            poll=poll,
            max_body=max_body,
            max_seconds=max_seconds,
            out=out or sys.stdout,
            full=full,
            kw=dict(
                iou_threshold=iou_threshold,
                primary=primary,
                field=field,
                model_version=model_version,
                gold=gold,
                workers=workers,
                state=state,
            ),
        )
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _watch(
    api: Api,
    project_id: int,
    *,
    listen: str,
    public_url: str | None,
    secret: str | None,
    poll: float,
    max_body: int,
    max_seconds: float | None,
    out: TextIO,
    full: bool,
    kw: dict,
) -> int:
    lock = threading.Lock()

    def say(msg: str) -> None:
        with lock:  # the receiver's threads log too
            out.write(f"{time.strftime('%H:%M:%S')} {msg}\n")
            out.flush()

    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise LabelStudioError(f"--listen must be HOST:PORT; got {listen!r}")
    if max_body < 1:
        raise LabelStudioError(f"--max-body must be a positive number of bytes; got {max_body}")
    secret = secret or secrets.token_urlsafe(24)
    api.project(project_id)  # a clear error for an unknown project before anything else
    s = sync(api, project_id, summary_dir=None, full=full, **kw)
    say(f"initial sync: {s['done'] or 'nothing to change'}")
    bot_id = s["plugin_user"]["id"]
    events: queue.Queue = queue.Queue()
    try:
        server = receiver(
            host, int(port), secret, events, bot_id=bot_id, project_id=project_id, log=say, max_body=max_body
        )
    except OSError as exc:
        raise LabelStudioError(f"cannot listen on {listen}: {exc.strerror or exc}") from None
    url = public_url or f"http://{host}:{server.server_address[1]}/webhook"
    hook = None
    for h in api.webhooks(project_id):  # a hook left by an earlier run with the same URL is replaced
        if h.get("url") == url:
            api.delete_webhook(h["id"])
    hook = api.create_webhook(project_id, url, {SECRET_HEADER: secret}, ACTIONS)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    every = f"reconciling every {poll:g} s" if poll > 0 else "no polling"
    say(f"listening on {host}:{server.server_address[1]}, webhook {hook['id']} -> {redact_url(url)}; {every}")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    next_poll = time.monotonic() + poll if poll > 0 else None
    status = 0
    try:
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            timeout = 0.5
            try:
                first = events.get(timeout=timeout)
            except queue.Empty:
                first = None
            batch = [first] if first is not None else []
            time.sleep(0.1 if batch else 0)  # gather events that arrive together
            while True:
                try:
                    batch.append(events.get_nowait())
                except queue.Empty:
                    break
            polling = next_poll is not None and time.monotonic() >= next_poll
            try:
                if batch or polling:
                    tids = {tid for _, tid in batch if tid is not _NO_TASK}
                    s = sync(api, project_id, summary_dir=None, refresh=tids, **kw)
                    why = (
                        (
                            "webhook "
                            + ",".join(sorted({a for a, _ in batch}))
                            + (f" (tasks {','.join(map(str, sorted(tids)))})" if tids else "")
                        )
                        if batch
                        else "reconcile (poll)"
                    )
                    pi = s["pull"]
                    read = (
                        f"read {pi['read']} changed task(s)"
                        if pi.get("mode") == "incremental"
                        else f"read all {pi['read']} tasks ({pi.get('reason')})"
                    )
                    say(f"{why}: {read}, {s['done'] or 'nothing to change'}")
                    if polling:
                        next_poll = time.monotonic() + poll
            except LabelStudioError as exc:  # the server may be away for a moment: keep serving, retry on poll
                say(f"error: {api.scrub(str(exc))}")
    finally:
        server.shutdown()
        server.server_close()
        try:
            api.delete_webhook(hook["id"])
            say(f"webhook {hook['id']} removed; stopped")
        except LabelStudioError as exc:
            say(f"could not remove webhook {hook['id']}: {exc}")
            status = 1
    return status
