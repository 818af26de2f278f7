"""``iaa label-studio watch``: a small webhook receiver that keeps agreement and gold labels up to date.

* On start: a full sync, then a webhook is registered on the project for ANNOTATION_CREATED, ANNOTATION_UPDATED
  and ANNOTATIONS_DELETED, posting to this receiver with the shared secret in the ``X-IAA-Secret`` header (Label
  Studio signs nothing; a custom header is what it offers). It is removed again on exit.
* A request without the right secret gets 403. A good one is answered at once (204) and queued; a worker thread
  runs a sync of what changed (the saved state of :mod:`iaa_label_studio.state`: the server is asked which tasks
  changed since the previous run, and the tasks an event names are read in any case). Events about the plugin's
  own annotations are ignored.
* Label Studio never retries a webhook, so the same sync of what changed also runs every ``--poll`` seconds
  (reconciliation); it notices every change made through the API whether or not a webhook arrived.
"""

from __future__ import annotations

import hmac
import json
import queue
import secrets
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from .api import Api, LabelStudioError
from .state import StateStore
from .sync import sync

__all__ = ["watch", "SECRET_HEADER", "ACTIONS"]

SECRET_HEADER = "X-IAA-Secret"
ACTIONS = ["ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED"]
_NO_TASK = object()  # queue marker: an event that names no task (deletions carry only ids)


def _handler(secret: str, events: queue.Queue, bot_id: int, project_id: int):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet: nothing about requests (or headers) is logged
            pass

        def _answer(self, code: int, text: str = "") -> None:
            body = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer(200 if self.path == "/health" else 404, "ok" if self.path == "/health" else "")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            given = self.headers.get(SECRET_HEADER) or ""
            if not hmac.compare_digest(given.encode(), secret.encode()):
                self._answer(403, "wrong or missing secret")
                return
            try:
                payload = json.loads(raw or b"{}")
            except ValueError:
                self._answer(400, "not JSON")
                return
            self._answer(204)  # answer at once; the work happens in the worker thread
            action = payload.get("action")
            proj = (payload.get("project") or {}).get("id")
            if proj is not None and int(proj) != project_id:
                return
            if action in ("ANNOTATION_CREATED", "ANNOTATION_UPDATED"):
                ann = payload.get("annotation") or {}
                who = ann.get("completed_by")
                who = who.get("id") if isinstance(who, dict) else who
                if who == bot_id:
                    return  # our own gold annotation
                tid = (payload.get("task") or {}).get("id") or ann.get("task")
                if tid is not None:
                    events.put((action, int(tid)))
            elif action == "ANNOTATIONS_DELETED":
                events.put((action, _NO_TASK))

    return Handler


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
    max_seconds: float | None,
    out: TextIO,
    full: bool,
    kw: dict,
) -> int:
    def say(msg: str) -> None:
        out.write(f"{time.strftime('%H:%M:%S')} {msg}\n")
        out.flush()

    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise LabelStudioError(f"--listen must be HOST:PORT; got {listen!r}")
    secret = secret or secrets.token_urlsafe(24)
    api.project(project_id)  # a clear error for an unknown project before anything else
    s = sync(api, project_id, summary_dir=None, full=full, **kw)
    say(f"initial sync: {s['done'] or 'nothing to change'}")
    bot_id = s["plugin_user"]["id"]
    events: queue.Queue = queue.Queue()
    try:
        server = ThreadingHTTPServer((host, int(port)), _handler(secret, events, bot_id, project_id))
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
    say(f"listening on {host}:{server.server_address[1]}, webhook {hook['id']} -> {url}; {every}")
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
                say(f"error: {exc}")
    finally:
        server.shutdown()
        try:
            api.delete_webhook(hook["id"])
            say(f"webhook {hook['id']} removed; stopped")
        except LabelStudioError as exc:
            say(f"could not remove webhook {hook['id']}: {exc}")
            status = 1
    return status
