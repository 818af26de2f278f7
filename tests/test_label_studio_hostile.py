"""Hostile or broken Label Studio answers (issue 25): each is one line naming what the server sent, never a
traceback, and nothing waits forever or reads without bound.

Faults a real server cannot produce (JSON nested 200,000 levels deep, a task id of 10**30, a project that is a
list, users that are not a list, an error body echoing the request's headers, a server that stalls or trickles
one byte at a time) come from a tiny ``http.server`` on 127.0.0.1; everything else is tested against a real Label
Studio server (the module's fixture starts one): annotations of the wrong shape set aside and counted, the size
cap on a real export, annotator-typed terminal escapes in the text report and the sync summary.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_engine.cli import main  # noqa: E402
from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api, LabelStudioError  # noqa: E402
from iaa_label_studio.state import MAX_STATE_BYTES, PullState, StateStore  # noqa: E402

TOKEN = "hostile-test-token-0123456789"
CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sent" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/></Choices></View>'
)


def _ann(aid: int, who: int, label: str) -> dict:
    result = [{"from_name": "sent", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]
    return {"id": aid, "completed_by": who, "result": result, "was_cancelled": False, "ground_truth": False}


def _task(tid: Any, labels: tuple[str, str] = ("pos", "pos")) -> dict:
    return {
        "id": tid,
        "data": {"text": "t"},
        "updated_at": "2026-01-01T00:00:00Z",
        "annotations": [_ann(10, 1, labels[0]), _ann(11, 2, labels[1])],
        "predictions": [],
    }


# --------------------------------------------------------------------------- a fake server, for faults only


class Fake:
    """A Label Studio look-alike on 127.0.0.1 answering one project; ``routes`` override answers by path: a JSON
    value, raw bytes, or a function ``(handler) -> None`` that writes the answer itself."""

    def __init__(self, routes: dict[str, Any] | None = None, *, tasks: Any = None) -> None:
        tasks = [_task(1), _task(2, ("pos", "neg"))] if tasks is None else tasks
        project = {"id": 1, "title": "p", "label_config": CONFIG, "task_number": 2, "maximum_annotations": 1}
        self.routes: dict[str, Any] = {
            "GET /api/current-user/whoami": {"id": 1, "email": "admin@example.com"},
            "GET /api/users": [{"id": 1, "email": "a@example.com"}, {"id": 2, "email": "b@example.com"}],
            "GET /api/projects/1": project,
            "POST /api/projects/1/exports/": {"id": 5, "status": "completed"},
            "GET /api/projects/1/exports/5/download": tasks,
            "DELETE /api/projects/1/exports/5": b"",
            "GET /api/projects/1/export": tasks,
            "GET /api/predictions": [],
            "GET /api/tasks": {"tasks": tasks, "total": 2},
            **(routes or {}),
        }
        self.seen: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                key = f"{self.command} {self.path.split('?')[0]}"
                fake.seen.append(key)
                answer = fake.routes.get(key, fake.routes.get("*"))
                if callable(answer):
                    answer(self)
                    return
                if answer is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(200 if body or self.command != "DELETE" else 204)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_DELETE = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    made: list[Fake] = []

    def make(routes: dict[str, Any] | None = None, **kw: Any) -> Fake:
        made.append(Fake(routes, **kw))
        return made[-1]

    yield make
    for f in made:
        f.close()


def report(url: str, capsys, *more: str) -> tuple[int, str, str]:
    """``iaa label-studio report`` in this process: (exit status, stdout, stderr)."""
    status = main(["label-studio", "report", "--url", url, "--token", TOKEN, "-p", "1", "--no-state", *more])
    out = capsys.readouterr()
    return status, out.out, out.err


def one_line_error(status: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("iaa: error: "), err
    assert "Traceback" not in err and TOKEN not in err
    return lines[0]


def test_the_fake_serves_a_good_project(fake, capsys):
    """The look-alike is good enough: without a fault the report runs (so the faults below are what fails)."""
    status, out, err = report(fake().url, capsys)
    assert status == 0, err
    assert "Label Studio project 1 'p': 2 tasks" in out


def test_json_nested_200000_levels_deep_is_one_line(fake, capsys):
    deep = b"[" * 200_000 + b"]" * 200_000
    f = fake({k: deep for k in ("GET /api/projects/1/exports/5/download", "GET /api/projects/1/export")})
    f.routes["GET /api/tasks"] = deep
    line = one_line_error(*report(f.url, capsys)[::2])
    assert "nested too deeply" in line and "GET /api/tasks" in line, line


@pytest.mark.parametrize(
    "tid, shown",
    [
        (10**30, "a number 1000000000000000000000000000000"),
        ("x", "a string 'x'"),
        (-3, "a number -3"),
        (True, "a boolean True"),
        ([1], "a list [1]"),
    ],
)
def test_a_task_id_that_is_not_an_id_is_one_line_naming_it(fake, capsys, tid, shown):
    f = fake(tasks=[_task(1), _task(tid)])
    line = one_line_error(*report(f.url, capsys)[::2])
    assert f"task of project 1 whose id is {shown}: expected a whole number below 2**63" in line, line


@pytest.mark.parametrize(
    "route, answer, expected",
    [
        (
            "GET /api/projects/1",
            [{"id": 1}],
            "answered GET /api/projects/1 with a list [{'id': 1}]: expected a project",
        ),
        (
            "GET /api/projects/1",
            {"id": "1"},
            "answered GET /api/projects/1 with an object {'id': '1'}: expected a proj",
        ),
        ("GET /api/users", {"results": "notalist"}, "GET /api/users with an object {'results': 'notalist'}: expected"),
        ("GET /api/users", [{"id": 1}, "bob"], "answered GET /api/users with a string 'bob' among the users"),
        ("GET /api/current-user/whoami", "me", "answered GET /api/current-user/whoami with a string 'me': expected"),
        ("GET /api/projects/1/exports/5/download", {"tasks": "x"}, "GET /api/tasks with a string 'x': expected a list"),
    ],
)
def test_answers_of_the_wrong_shape_are_one_line_naming_what_came(fake, capsys, route, answer, expected):
    f = fake({route: answer})
    if "download" in route:  # the readers tried after the snapshot fails get the same answer: the last one says
        f.routes["GET /api/projects/1/export"] = answer
        f.routes["GET /api/tasks"] = answer
    line = one_line_error(*report(f.url, capsys)[::2])
    assert expected in line, line


def test_an_error_body_echoing_the_token_never_shows_it_nor_drives_the_terminal(fake, capsys):
    def echo(h: BaseHTTPRequestHandler) -> None:
        sent = "; ".join(f"{k}: {v}" for k, v in h.headers.items())
        body = f"bad request\x1b[2J; you sent: {sent}".encode()
        h.send_response(400)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    f = fake({"GET /api/projects/1": echo})
    line = one_line_error(*report(f.url, capsys)[::2])
    assert "Authorization: Token ***" in line and TOKEN not in line, line
    assert "bad request\\x1b[2J" in line and "\x1b" not in line  # the server's escape shown, not run
    with pytest.raises(LabelStudioError) as exc:  # the Python API too
        Api(f.url, TOKEN).project(1)
    assert TOKEN not in str(exc.value) and "***" in str(exc.value)
    # quoted in an answer of the wrong shape, and cut by the quote: no piece of it either
    g = fake({"GET /api/projects/1": [f"you sent {TOKEN}"]})
    line = one_line_error(*report(g.url, capsys)[::2])
    assert "expected a project" in line and not any(TOKEN[i : i + 8] in line for i in range(len(TOKEN) - 7)), line


# --------------------------------------------------------------------------- deadlines and size


def _trickle(head: bytes, body: bytes, every: float) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(h: BaseHTTPRequestHandler) -> None:
        try:
            h.wfile.write(head)
            h.wfile.flush()
            for b in body:
                time.sleep(every)
                h.wfile.write(bytes([b]))
                h.wfile.flush()
        except OSError:
            pass

    return answer


def test_a_server_trickling_one_byte_at_a_time_is_cut_at_the_deadline(fake):
    body = json.dumps({"id": 1, "email": "x" * 10}).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    f = fake({"GET /api/current-user/whoami": _trickle(head, body, 0.2)})
    api = Api(f.url, TOKEN, timeout=1.0, deadline=2.0)
    t0 = time.monotonic()
    with pytest.raises(LabelStudioError, match=r"did not finish answering GET /api/current-user/whoami within 2 s"):
        api.whoami()
    assert time.monotonic() - t0 < 3.5  # each byte came within the 1 s wait: only the deadline stops it
    # trickled headers, the same
    g = fake({"GET /api/current-user/whoami": _trickle(b"", head + body, 0.2)})
    t0 = time.monotonic()
    with pytest.raises(LabelStudioError, match="within 2 s"):
        Api(g.url, TOKEN, timeout=1.0, deadline=2.0).whoami()
    assert time.monotonic() - t0 < 3.5


def test_a_stalled_server_costs_one_wait_not_one_per_attempt():
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(8)  # accepts connections (the kernel does), never answers
    try:
        api = Api(f"http://127.0.0.1:{lsock.getsockname()[1]}", TOKEN, timeout=1.0, retries=2)
        t0 = time.monotonic()
        with pytest.raises(LabelStudioError, match=r"did not answer GET /api/current-user/whoami in time \(nothing"):
            api.whoami()
        assert time.monotonic() - t0 < 2.5  # was 3 attempts of the timeout each
    finally:
        lsock.close()


def test_the_limits_have_documented_defaults_and_are_checked():
    from iaa_label_studio.api import DEADLINE, MAX_RESPONSE_BYTES, TIMEOUT

    assert (TIMEOUT, DEADLINE, MAX_RESPONSE_BYTES) == (60.0, 600.0, 256 << 20)
    api = Api("http://127.0.0.1:9", TOKEN)
    assert (api.timeout, api.deadline, api.max_bytes) == (TIMEOUT, DEADLINE, MAX_RESPONSE_BYTES)
    for bad in ({"timeout": 0}, {"deadline": -1.0}, {"max_bytes": float("nan")}):
        with pytest.raises(ValueError, match="must be a positive number"):
            Api("http://127.0.0.1:9", TOKEN, **bad)


def test_a_gzip_answer_is_capped_after_decompression(fake):
    bomb = gzip.compress(b"[" + b" " * (8 << 20) + b"]")  # 8 MiB of JSON in ~8 kB
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(bomb)
    f = fake({"GET /api/predictions": _trickle(head + bomb, b"", 0)})
    with pytest.raises(LabelStudioError, match=r"larger than 1,048,576 bytes \(the size cap of one answer"):
        Api(f.url, TOKEN, max_bytes=1 << 20).predictions(project_id=1)
    assert Api(f.url, TOKEN, max_bytes=16 << 20).predictions(project_id=1) == []


def test_credentials_in_the_url_are_refused_not_sent_as_basic_auth(capsys):
    url = "http://alice:pa55w0rd@127.0.0.1:9"
    with pytest.raises(LabelStudioError, match="must not carry credentials") as exc:
        Api(url, TOKEN)
    assert "pa55w0rd" not in str(exc.value) and "alice" not in str(exc.value)
    line = one_line_error(*report(url, capsys)[::2])
    assert "must not carry credentials" in line and "***@127.0.0.1:9" in line and "pa55w0rd" not in line


# --------------------------------------------------------------------------- the saved state


def test_a_large_state_is_refused_by_its_size_before_anything_is_parsed(tmp_path, monkeypatch):
    """~300 MiB of valid JSON state (1 GiB took 7.6 GB of memory to parse before being refused): the file's size
    and the bound while decompressing refuse it; json.loads is never called."""
    import iaa_label_studio.state as state_mod

    store = StateStore(tmp_path)
    url, pid = "http://127.0.0.1:8080", 3
    path = store.path(url, pid)
    filler = {"text": "x" * 4000}
    task = json.dumps({"id": 1, "data": filler, "updated_at": None, "annotations": [], "predictions": []})
    n = (300 << 20) // len(task)
    head = json.dumps({"format": 2, "url": url, "project": pid, "watermark": None})[:-1] + ', "tasks": ['
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(head.encode())
        for i in range(n):
            f.write(task.replace('"id": 1,', f'"id": {i + 1},', 1).encode() + (b"," if i + 1 < n else b""))
        f.write(b"]}")

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a state over the size limit must not be parsed")

    monkeypatch.setattr(state_mod.json, "loads", never)
    t0 = time.monotonic()
    state, why = store.read(url, pid)
    assert state is None and f"decompresses to more than {MAX_STATE_BYTES} bytes" in why
    assert MAX_STATE_BYTES == 256 << 20 and time.monotonic() - t0 < 10
    # a compressed file already larger than the limit is refused unread
    small = StateStore(tmp_path, max_bytes=1 << 20)
    state, why = small.read(url, pid)
    assert state is None and "(the file alone has" in why


def test_a_state_within_the_limit_still_reads(tmp_path):
    store = StateStore(tmp_path)
    store.save(PullState("http://h", 1, None, {1: {**_task(1), "id": 1}}))
    state, why = store.read("http://h", 1)
    assert why is None and list(state.tasks) == [1]


# --------------------------------------------------------------------------- against a real server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-hostile"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


ESCAPES = "\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \u202eevil"
TEXT_CONFIG = '<View><Text name="text" value="$text"/><TextArea name="note" toName="text"/></View>'


def _note(text: str) -> list[dict]:
    return [{"from_name": "note", "to_name": "text", "type": "textarea", "value": {"text": [text]}}]


@pytest.fixture(scope="module")
def typed(api):
    """A TextArea project where annotators typed terminal escapes, and disagree (the texts are shown)."""
    users = lst.make_users(api, ["ha@example.com", "hb@example.com"])
    a, b = users["ha@example.com"], users["hb@example.com"]
    tasks = [
        {
            "data": {"text": f"t{i}"},
            "annotations": [
                {"result": _note(ESCAPES if i % 2 else "plain"), "completed_by": a},
                {"result": _note(ESCAPES), "completed_by": b},
            ],
        }
        for i in range(6)
    ]
    return lst.make_project(api, "escapes \x1b[2J", TEXT_CONFIG, tasks)


def _cli(server, capsys, *args: str) -> tuple[int, str, str]:
    status = main(["label-studio", *args, "--url", server.url, "--token", server.token])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.slow  # a real server (its start: ~12 s)
def test_annotator_typed_escapes_are_shown_escaped_in_the_report_and_the_summary(server, typed, capsys, tmp_path):
    status, out, err = _cli(server, capsys, "report", "-p", str(typed), "--no-state")
    assert status == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[31mred\\x1b[0m" in out and "escapes \\x1b[2J" in out  # the core's escaping: shown, not run
    status, out, err = _cli(
        server, capsys, "sync", "-p", str(typed), "--dry-run", "--no-state", "--summary", str(tmp_path)
    )
    assert status == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b" in out  # the dry run's examples and the scorecard quote the typed texts


@pytest.mark.slow  # a real server (its start: ~12 s)
def test_the_size_cap_refuses_a_real_export_larger_than_it(server, api, typed):
    whole = api.tasks_export(typed)
    size = len(json.dumps(whole))
    small = Api(server.client(), max_bytes=size // 2)
    with pytest.raises(LabelStudioError, match=rf"GET /api/projects/{typed}/export is larger than"):
        small.tasks_export(typed)
    assert Api(server.client(), max_bytes=size * 2).tasks_export(typed) == whole


@pytest.mark.slow  # a real server (its start: ~12 s)
def test_annotations_of_the_wrong_shape_are_set_aside_and_counted(server, api, capsys):
    """The server imports an annotation whose result list holds something other than objects: it is set aside
    with its reason and counted (was: counted as a result of an unknown control named 'None')."""
    users = lst.make_users(api, ["wa@example.com", "wb@example.com"])
    a, b = users["wa@example.com"], users["wb@example.com"]
    good = [{"from_name": "sent", "to_name": "text", "type": "choices", "value": {"choices": ["pos"]}}]
    tasks = [
        {
            "data": {"text": "t0"},
            "annotations": [{"result": good, "completed_by": a}, {"result": good, "completed_by": b}],
        },
        {"data": {"text": "t1"}, "annotations": [{"result": ["pos"], "completed_by": a}]},
        {"data": {"text": "t2"}, "annotations": [{"result": [1], "completed_by": b}]},
    ]
    pid = lst.make_project(api, "shapes", CONFIG, tasks)
    stored = sorted(str(x["result"]) for t in api.tasks_export(pid) for x in t["annotations"])
    assert stored[:2] == ["['pos']", "[1]"]  # the server kept them as sent
    status, out, err = _cli(server, capsys, "report", "-p", str(pid), "--no-state", "--json")
    assert status == 0, err
    got = json.loads(out)
    assert got["set_aside"] == {"an annotation with a result that is not a JSON object": 2}
    assert got["unknown_controls"] == {} and got["details"]["sent"]["n_results_used"] == 2
    status, text, err = _cli(server, capsys, "report", "-p", str(pid), "--no-state")
    assert status == 0, err
    assert "Set aside when read (the wrong shape, never used): 2" in text
    assert "  2 × an annotation with a result that is not a JSON object" in text


def test_annotations_no_server_sends_are_set_aside_with_their_reason(fake, capsys):
    t = _task(3)
    t["annotations"] += [
        "not an annotation",
        {**_ann(12, 1, "pos"), "result": {"choices": ["pos"]}},
        {**_ann(13, [7], "pos")},
        {**_ann(10**30, 2, "neg")},
    ]
    f = fake(tasks=[_task(1), t])
    status, out, err = report(f.url, capsys, "--json")
    assert status == 0, err
    assert json.loads(out)["set_aside"] == {
        "an annotation that is not a JSON object": 1,
        "an annotation whose result is not a list": 1,
        "an annotation whose completed_by is not a user id": 1,
        "an annotation whose id is not a whole number": 1,
    }
    status, out, err = report(f.url, capsys)
    assert "Set aside when read (the wrong shape, never used): 4" in out and "1 × an annotation whose id is" in out
