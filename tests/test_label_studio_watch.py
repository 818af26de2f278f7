"""`iaa label-studio watch` end to end: a real Label Studio server (SSRF protection off, so that it may post to a
loopback receiver, in this test server only) sends real webhooks to the plugin's receiver."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api  # noqa: E402

IAA = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")
CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/></Choices></View>'
)
SECRET = "s3cret-for-the-test"


def res(label: str) -> list:
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-webhooks"), ssrf=False)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


def start_watch(server, pid: int, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, int, Path]:
    port = lst.free_port()
    log = tmp_path / f"watch-{port}.log"
    env = {k: v for k, v in os.environ.items() if k not in ("IAA_DEBUG",)}
    proc = subprocess.Popen(
        [
            IAA,
            "label-studio",
            "watch",
            "--url",
            server.url,
            "--token",
            lst.TOKEN,
            "-p",
            str(pid),
            "--listen",
            f"127.0.0.1:{port}",
            "--secret",
            SECRET,
            *extra,
        ],
        stdout=open(log, "w"),
        stderr=subprocess.STDOUT,
        env=env,
    )
    wait_for(lambda: "listening on" in log.read_text() or proc.poll() is not None, 60)
    assert proc.poll() is None, log.read_text()
    return proc, port, log


def wait_for(cond, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.2)
    return False


def uid(a: dict):
    """GET /api/tasks/{id} gives completed_by as a user object; the task list gives the id."""
    return a["completed_by"]["id"] if isinstance(a["completed_by"], dict) else a["completed_by"]


def score(api, tid: int):
    t = api.task(tid)
    return t["data"].get("iaa_agreement"), [
        p["score"] for p in t["predictions"] if p["model_version"] == "iaa-engine-agreement"
    ]


def post(port: int, body: dict, headers: dict) -> int:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/webhook",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_webhooks_update_the_affected_task_and_a_wrong_secret_is_rejected(server, api, tmp_path):
    users = lst.make_users(api, ["w1@example.com", "w2@example.com", "w3@example.com"])
    u1, u2, u3 = users.values()
    pid = lst.make_project(
        api,
        "webhooks",
        CONFIG,
        [
            {
                "data": {"text": "a"},
                "annotations": [{"completed_by": u1, "result": res("pos")}, {"completed_by": u2, "result": res("pos")}],
            },
            {
                "data": {"text": "b"},
                "annotations": [{"completed_by": u1, "result": res("pos")}, {"completed_by": u2, "result": res("neg")}],
            },
        ],
    )
    t1, t2 = sorted(t["id"] for t in api.tasks(pid))
    proc, port, log = start_watch(server, pid, tmp_path, "--poll", "0")
    try:
        assert score(api, t1) == (1.0, [1.0]) and score(api, t2) == (0.0, [0.0])  # the initial sync
        hooks = api.webhooks(pid)
        assert len(hooks) == 1 and hooks[0]["url"] == f"http://127.0.0.1:{port}/webhook"
        # a wrong or missing secret is rejected, and changes nothing
        fake = {
            "action": "ANNOTATION_CREATED",
            "task": {"id": t2},
            "annotation": {"task": t2, "completed_by": u1},
            "project": {"id": pid},
        }
        assert post(port, fake, {"X-IAA-Secret": "wrong"}) == 403
        assert post(port, fake, {}) == 403
        # an authenticated webhook that is not one (no task named) is refused and logged, in one line
        assert post(port, {**fake, "task": None, "annotation": {"id": 1}}, {"X-IAA-Secret": SECRET}) == 400
        assert wait_for(
            lambda: "400 not a Label Studio webhook: ANNOTATION_CREATED names no task" in log.read_text(), 5
        )
        # a real webhook: a third annotator labels task 2 (pos, neg, pos -> P = 1/3, gold pos)
        api.create_annotation(t2, res("pos"), u3)
        assert wait_for(lambda: score(api, t2)[0] == 0.333, 30), log.read_text()  # rounded to 3 decimals
        assert score(api, t2)[1] == [0.333]

        def gold():  # the gold is a prediction, never an annotation (issue 36)
            return [p for p in api.task(t2)["predictions"] if p["model_version"] == "iaa-engine-gold"]

        assert wait_for(lambda: len(gold()) == 1, 30), log.read_text()  # the writes of one update run in parallel
        assert gold()[0]["result"][0]["value"] == {"choices": ["pos"]}
        t = api.task(t2)
        assert "ANNOTATION_CREATED" in log.read_text()
        # an update: annotator 2 changes to pos -> unanimous
        a2 = next(a for a in t["annotations"] if uid(a) == u2)
        api.update_annotation(a2["id"], res("pos"))
        assert wait_for(lambda: score(api, t2)[0] == 1.0, 30), log.read_text()
        # a deletion carries only ids: the sync of what changed finds the task
        api.delete_annotation(a2["id"])
        assert wait_for(lambda: "webhook ANNOTATIONS_DELETED: read" in log.read_text(), 30), log.read_text()
        assert score(api, t2) == (1.0, [1.0])  # pos, pos
        assert sorted(uid(a) for a in api.task(t2)["annotations"]) == sorted([u1, u3])  # the humans' only
        # the admin adjudicates in the editor (a copy of the gold prediction, changed): adopted within seconds
        api.request(
            "POST",
            f"api/tasks/{t2}/annotations",
            json={"result": res("neg"), "parent_prediction": gold()[0]["id"], "lead_time": 5.0},
        )
        assert wait_for(lambda: api.task(t2)["data"].get("iaa_gold") == "adjudicated", 30), log.read_text()
        assert gold()[0]["result"][0]["value"] == {"choices": ["neg"]} and score(api, t2)[0] == 1.0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0, log.read_text()
    assert api.webhooks(pid) == []  # removed on exit
    assert lst.TOKEN not in log.read_text() and SECRET not in log.read_text()


@pytest.mark.slow
def test_no_stale_score_after_deletions_under_watch(server, api, tmp_path):
    """Issue 13, item 1: a prediction's score changes in place (same id); the saved state must not keep the old
    one. Under `watch`, annotations are added and deleted; after each step the prediction, the data field and
    the saved state agree with the agreement of what is on the server."""
    from iaa_label_studio.state import StateStore

    users = lst.make_users(api, ["s1@example.com", "s2@example.com", "s3@example.com"])
    u1, u2, u3 = users.values()
    pid = lst.make_project(
        api,
        "stale",
        CONFIG,
        [
            {
                "data": {"text": "a"},
                "annotations": [
                    {"completed_by": u1, "result": res("pos")},
                    {"completed_by": u2, "result": res("pos")},
                    {"completed_by": u3, "result": res("neg")},
                ],
            }
        ],
    )
    (tid,) = [t["id"] for t in api.tasks(pid)]
    state_dir = tmp_path / "state"
    proc, port, log = start_watch(server, pid, tmp_path, "--poll", "0", "--state-dir", str(state_dir))
    store = StateStore(state_dir)

    def saved_score():
        st = store.load(server.url, pid)
        preds = st.tasks[tid]["predictions"] if st else []
        return [p["score"] for p in preds if p["model_version"] == "iaa-engine-agreement"]

    def settled(want):
        return score(api, tid) == (want, [want]) and saved_score() == [want]

    try:
        assert wait_for(lambda: settled(0.333), 30), (score(api, tid), saved_score(), log.read_text())
        neg = next(a for a in api.task(tid)["annotations"] if uid(a) == u3)
        api.delete_annotation(neg["id"])  # pos, pos: 1.0
        assert wait_for(lambda: settled(1.0), 30), (score(api, tid), saved_score(), log.read_text())
        again = api.create_annotation(tid, res("neg"), u3)  # pos, pos, neg: 1/3
        assert wait_for(lambda: settled(0.333), 30), (score(api, tid), saved_score(), log.read_text())
        api.delete_annotation(again["id"])  # back to 1.0: the step that found the stale 0.333 before
        assert wait_for(lambda: settled(1.0), 30), (score(api, tid), saved_score(), log.read_text())
        api.delete_annotation(next(a for a in api.task(tid)["annotations"] if uid(a) == u2)["id"])  # one left
        assert wait_for(lambda: score(api, tid) == (None, []) and saved_score() == [], 30), log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0, log.read_text()


def test_polling_reconciles_what_no_webhook_announced(server, api, tmp_path):
    users = lst.make_users(api, ["w1@example.com", "w2@example.com"])
    u1, u2 = users.values()
    pid = lst.make_project(
        api, "polling", CONFIG, [{"data": {"text": "a"}, "annotations": [{"completed_by": u1, "result": res("pos")}]}]
    )
    (tid,) = [t["id"] for t in api.tasks(pid)]
    # the webhook points nowhere (as if it were lost): only the polling can notice the new annotation
    proc, port, log = start_watch(
        server, pid, tmp_path, "--poll", "1", "--public-url", f"http://127.0.0.1:{lst.free_port()}/nowhere"
    )
    try:
        assert score(api, tid) == (None, [])  # one annotation: no agreement
        api.create_annotation(tid, res("neg"), u2)
        assert wait_for(lambda: score(api, tid)[0] == 0.0, 30), log.read_text()
        assert wait_for(
            lambda: any(
                line.startswith("reconcile (poll): read 1 changed task(s), {") and "create_prediction" in line
                for line in (x[9:] for x in log.read_text().splitlines())
            ),
            30,
        ), log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0, log.read_text()


def test_a_corrupt_state_is_read_around_with_its_reason_and_the_summary_is_private(server, api, tmp_path):
    """Issue 13, item 6 against the real server: a state file that is a JSON list, or a FIFO, makes `sync` read
    everything (never hang) and say why in the summary; the summary files are 0600; an existing state directory
    open to others is left as it is, with one warning line."""
    import gzip
    import stat

    from iaa_label_studio.state import StateStore

    users = lst.make_users(api, ["w1@example.com", "w2@example.com"])
    u1, u2 = users.values()
    pid = lst.make_project(
        api,
        "corrupt state",
        CONFIG,
        [
            {
                "data": {"text": "a"},
                "annotations": [{"completed_by": u1, "result": res("pos")}, {"completed_by": u2, "result": res("neg")}],
            }
        ],
    )
    state_dir = tmp_path / "shared-state"
    state_dir.mkdir()
    os.chmod(state_dir, 0o777)
    summary = tmp_path / "summaries"
    args = ["sync", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-html", "--json"]
    args += ["--state-dir", str(state_dir), "--summary", str(summary)]
    env = {k: v for k, v in os.environ.items() if k not in ("IAA_DEBUG", "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY")}

    def sync():
        out = subprocess.run([IAA, "label-studio", *args], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout), out.stderr

    s1, err = sync()
    assert s1["pull"]["reason"] == "no saved state" and s1["done"]
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o777  # not chmodded
    assert err.count("iaa: warning: the state directory") == 1 and len(err.strip().splitlines()) == 1, err
    path = StateStore(state_dir).path(server.url, pid)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(summary.stat().st_mode) == 0o700
    assert stat.S_IMODE((summary / f"iaa-ls-{pid}.json").stat().st_mode) == 0o600
    assert sync()[0]["pull"]["mode"] == "incremental"
    path.write_bytes(gzip.compress(b"[1, 2, 3]"))
    s3, _ = sync()
    assert s3["pull"]["mode"] == "full" and s3["planned"] == {}
    assert s3["pull"]["reason"] == f"saved state ignored: {path.name} not a JSON object but a list"
    path.unlink()
    os.mkfifo(path)  # reading it the usual way would block for ever (subprocess.run's timeout would fail the test)
    s4, _ = sync()
    assert s4["pull"]["reason"] == f"saved state ignored: {path.name} not a regular file" and s4["planned"] == {}
    saved = json.loads((summary / f"iaa-ls-{pid}.json").read_text())
    assert saved["pull"]["reason"] == s4["pull"]["reason"]
