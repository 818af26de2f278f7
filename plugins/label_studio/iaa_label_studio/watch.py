"""``iaa label-studio watch``: a small webhook receiver that keeps agreement and gold labels up to date.

* On start: a full sync, then a webhook is registered on the project for ANNOTATION_CREATED, ANNOTATION_UPDATED
  and ANNOTATIONS_DELETED, posting to this receiver with the shared secret in the ``X-IAA-Secret`` header (Label
  Studio signs nothing; a custom header is what it offers). It is removed again on exit.
* A request without the right secret gets 403. A good one is answered at once (204) and queued; a worker thread
  updates the affected tasks (created/updated carry the task; deletions carry only ids, so they trigger a full
  sync). Events about the plugin's own annotations are ignored.
* Label Studio never retries a webhook, so a full sync also runs every ``--poll`` seconds (reconciliation).
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
from .project import Project, analyse
from .sync import apply, plan, sync

__all__ = ["watch", "update_tasks", "SECRET_HEADER", "ACTIONS"]

SECRET_HEADER = "X-IAA-Secret"
ACTIONS = ["ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED"]
_FULL = object()  # queue marker: reconcile everything


def update_tasks(api: Api, project: dict, task_ids: set[int], *, bot_id: int, iou_threshold: float | None,
                 primary: str | None, field: str, model_version: str, gold: bool, workers: int) -> dict:
    """Recompute and write the given tasks only (task agreement and majority gold depend on the task alone)."""
    from .convert import parse_config

    tasks = [t for t in (api.task(tid) for tid in sorted(task_ids)) if t is not None]
    controls = parse_config(project.get("label_config") or "<View/>")
    users = {u["id"]: u.get("email") or f"user {u['id']}" for u in api.users()}
    sub = Project(int(project["id"]), project.get("title", ""), project.get("label_config", ""), controls, tasks,
                  users, bot_id, {**project, "model_version": model_version})
    analysis = analyse(sub, iou_threshold=iou_threshold, primary=primary)
    changes = plan(analysis, bot_id=bot_id, field=field, model_version=model_version, gold=gold)
    done = apply(api, sub.id, changes, bot_id=bot_id, workers=workers, progress=False) if changes else {}
    return dict(done)


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
                events.put((action, _FULL))

    return Handler


def watch(api: Api, project_id: int, *, listen: str = "127.0.0.1:8765", public_url: str | None = None,
          secret: str | None = None, poll: float = 300.0, iou_threshold: float | None = None,
          primary: str | None = None, field: str = "iaa_agreement", model_version: str = "iaa-engine-agreement",
          gold: bool = True, workers: int = 8, max_seconds: float | None = None, out: TextIO | None = None) -> int:
    """Run until interrupted (SIGINT/SIGTERM) or ``max_seconds``; returns the exit status."""
    import sys

    out = out or sys.stdout

    def say(msg: str) -> None:
        out.write(f"{time.strftime('%H:%M:%S')} {msg}\n")
        out.flush()

    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise LabelStudioError(f"--listen must be HOST:PORT; got {listen!r}")
    secret = secret or secrets.token_urlsafe(24)
    project = api.project(project_id)
    kw = dict(iou_threshold=iou_threshold, primary=primary, field=field, model_version=model_version, gold=gold,
              workers=workers)
    s = sync(api, project_id, summary_dir=None, **kw)
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
            full = any(tid is _FULL for _, tid in batch)
            try:
                if full or (next_poll is not None and time.monotonic() >= next_poll):
                    s = sync(api, project_id, summary_dir=None, **kw)
                    why = "webhook " + ",".join(sorted({a for a, _ in batch})) if full else "reconcile (poll)"
                    say(f"{why}: full sync, {s['done'] or 'nothing to change'}")
                    if next_poll is not None:
                        next_poll = time.monotonic() + poll
                elif batch:
                    tids = {tid for _, tid in batch}
                    done = update_tasks(api, project, tids, bot_id=bot_id, **kw)
                    say(f"webhook {','.join(sorted({a for a, _ in batch}))}: tasks "
                        f"{','.join(map(str, sorted(tids)))}: {done or 'nothing to change'}")
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
