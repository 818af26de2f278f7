"""The first sync in bulk (issue 13, items 4 and 5) against a REAL Label Studio server.

A dedicated service account (the plugin's user, given a password with ``label-studio reset_password`` on the
server's host, logged in, its token read from ``/api/current-user/token``: what the README asks of an admin) runs
the sync: the gold predictions and the scores in one import, the data fields by ``add_data_field`` (the gold is a
prediction only, issue 36: no annotation is written). The result must be exactly what the per-request path writes,
no human annotation may change by a byte, and a re-sync writes nothing.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import PLUGIN_EMAIL, Api, Connection, LabelStudioError  # noqa: E402
from iaa_label_studio.plan import AGREEMENT_TAB, DISAGREEMENT_TAB, REVIEW_TAB, canonical  # noqa: E402

pytestmark = pytest.mark.slow  # each test syncs projects on a real server (tens of seconds)

CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>'
)
ANNOTATORS = ["b1@example.com", "b2@example.com", "b3@example.com"]


def res(label: str) -> list:
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


def run(*args: str) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``, run by the command line's own main in this process (lst.run_cli)."""
    return lst.run_cli("label-studio", *args)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-bulk"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


@pytest.fixture(scope="module")
def service_token(server, api):
    """The plugin's service account, created as the README tells an admin to."""
    api.plugin_user(create=True)
    return server.service_account(PLUGIN_EMAIL, "a-long-service-password-42")


def _tasks(api, n: int, seed: int = 7) -> list[dict]:
    """n tasks; every third has two annotations (below the overlap of 3), the others three; ties happen."""
    users = list(lst.make_users(api, ANNOTATORS).values())
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = 2 if i % 3 == 0 else 3
        labels = rng.choice(["pos", "neg", "neu"], size=k, p=[0.6, 0.3, 0.1])
        out.append(
            {
                "data": {"text": f"task {i}", "meta_field": {"i": i}},
                "annotations": [{"completed_by": u, "result": res(str(lab))} for u, lab in zip(users, labels)],
            }
        )
    return out


def _project(api, title: str, tasks: list[dict]) -> int:
    pid = lst.make_project(api, title, CONFIG, tasks)
    api.update_project(pid, {"maximum_annotations": 3})
    return pid


def _snapshot(api, pid: int, bot_id: int) -> dict:
    tasks = sorted(api.tasks(pid), key=lambda t: t["id"])
    human = {
        a["id"]: json.dumps({k: v for k, v in a.items() if k != "created_ago"}, sort_keys=True)
        for t in tasks
        for a in t["annotations"]
        if a["completed_by"] != bot_id
    }
    return {"tasks": tasks, "human": human}


def _written(tasks: list[dict], bot_id: int) -> list:
    """What the connector wrote, per task in order, comparable across two projects."""
    out = []
    for t in tasks:
        ours = [canonical(a["result"]) for a in t["annotations"] if a["completed_by"] == bot_id]
        preds = sorted(
            (p["model_version"], p["score"], canonical(p["result"]))
            for p in t["predictions"]
            if p["model_version"].startswith("iaa-engine")
        )
        out.append((t["data"], ours, preds, t["is_labeled"], t["total_annotations"]))
    return out


def test_the_first_sync_in_bulk_is_the_service_accounts_and_equals_the_per_request_path(
    server, api, service_token, tmp_path
):
    tasks = _tasks(api, n=30)  # tens of tasks: ties, and every third task below the overlap
    bulk_pid = _project(api, "bulk", tasks)
    slow_pid = _project(api, "per request", tasks)
    bot = Api(Connection(server.url, service_token))
    me = bot.whoami()
    assert me["email"] == PLUGIN_EMAIL and me["first_name"] == "iaa-engine" and me["last_name"] == "gold"
    bot_id = me["id"]
    before = _snapshot(api, bulk_pid, bot_id)
    common = ["--summary", str(tmp_path), "--no-html", "--json"]
    out = run("sync", "--url", server.url, "--token", service_token, "-p", str(bulk_pid), *common, "--no-state")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["writes"]["service_account"] is True and "annotations" not in s["writes"]
    assert s["writes"]["data"].startswith("add_data_field ("), s["writes"]
    assert "create_annotation" not in s["done"] and s["done"]["create_prediction"] > len(tasks)
    assert s["done"] == s["planned"]
    after = _snapshot(api, bulk_pid, bot_id)
    assert after["human"] == before["human"]  # every human annotation byte for byte
    assert not [a for t in after["tasks"] for a in t["annotations"] if a["completed_by"] == bot_id]
    # the same project written request by request with the admin's token: the same end state
    out = run("sync", "--url", server.url, "--token", lst.TOKEN, "-p", str(slow_pid), *common, "--no-bulk")
    assert out.returncode == 0, out.stderr
    slow = json.loads(out.stdout)
    assert slow["writes"]["data"] == "per task"
    slow_tasks = _snapshot(api, slow_pid, bot_id)["tasks"]
    assert _written(after["tasks"], bot_id) == _written(slow_tasks, bot_id)
    # tasks below the overlap stayed unlabelled, with their two annotations
    below = [t for t in after["tasks"] if len([a for a in t["annotations"] if a["completed_by"] != bot_id]) == 2]
    assert below and all(not t["is_labeled"] and t["total_annotations"] == 2 for t in below)
    # a re-sync writes nothing: without a saved state, then with one (first run saves it, second reads it)
    state = ["--state-dir", str(tmp_path / "state")]
    for extra in (["--no-state"], state, state):
        out = run("sync", "--url", server.url, "--token", service_token, "-p", str(bulk_pid), *common, *extra)
        again = json.loads(out.stdout)
        assert again["planned"] == {} and again["done"] == {}, (extra, again["planned"])
    assert again["pull"]["mode"] == "incremental"
    assert _snapshot(api, bulk_pid, bot_id)["human"] == before["human"]


def test_the_agreement_column_is_a_rounded_number_and_the_tabs_filter_what_needs_review(
    server, api, service_token, tmp_path
):
    pid = _project(api, "tabs", _tasks(api, n=24, seed=3))
    args = ["--url", server.url, "--token", service_token, "-p", str(pid), "--summary", str(tmp_path), "--no-html"]
    for _ in range(2):  # twice: the tabs are created once
        out = run("sync", *args, "--json", "--no-state")
        assert out.returncode == 0, out.stderr
    views = api.views(pid)
    titles = sorted(v["data"]["title"] for v in views)
    # the project had no tab (its Data Manager never opened): a "Default" one first, so it is not ours alone
    assert titles == sorted(["Default", AGREEMENT_TAB, REVIEW_TAB, DISAGREEMENT_TAB])
    tasks = list(api.tasks(pid))
    agreements = [t["data"].get("iaa_agreement") for t in tasks]
    assert all(type(a) is float and a == round(a, 3) for a in agreements if a is not None)  # JSON numbers
    assert {0.333, 1.0} <= set(agreements)
    # the raw JSON text of one task: a number, not a string
    raw = api._http.get(f"api/tasks/{tasks[0]['id']}", headers={"Authorization": f"Token {lst.TOKEN}"}).text
    assert '"iaa_agreement":' in raw.replace(" ", "") and '"iaa_agreement":"' not in raw.replace(" ", "")
    by_title = {v["data"]["title"]: v for v in views}
    # the agreement tab: every task, lowest agreement first (numeric ordering declared by the tab)
    listed = api.request("GET", "api/tasks", params={"project": pid, "view": by_title[AGREEMENT_TAB]["id"]})
    values = [t["data"].get("iaa_agreement") for t in listed["tasks"]]
    numbers = [v for v in values if v is not None]
    assert numbers == sorted(numbers) and len(listed["tasks"]) == len(tasks)
    # the review tab: exactly the tasks flagged, and they are the tied ones (no gold label written)
    flagged = api.request("GET", "api/tasks", params={"project": pid, "view": by_title[REVIEW_TAB]["id"]})["tasks"]
    want = {t["id"] for t in tasks if t["data"].get("iaa_needs_adjudication") == "yes"}
    assert {t["id"] for t in flagged} == want and want
    for t in tasks:
        votes = [a["result"][0]["value"]["choices"][0] for a in t["annotations"] if a["completed_by"] != _bot(api)]
        counts = sorted((votes.count(v) for v in set(votes)), reverse=True)
        tie = len(counts) > 1 and counts[0] == counts[1]
        assert (t["id"] in want) == tie, (votes, t["data"])
        assert t["data"]["iaa_gold"] == ("none" if tie else "provisional" if len(votes) < 3 else "final")
    # the bot's readable name
    me = next(u for u in api.users() if u["email"] == PLUGIN_EMAIL)
    assert (me["first_name"], me["last_name"]) == ("iaa-engine", "gold")


def _bot(api) -> int:
    return api.plugin_user(create=False)["id"]


def test_a_server_without_the_bulk_actions_gets_every_write_request_by_request(server, api, service_token, monkeypatch):
    """Detect and fall back: when the Data Manager actions answer with an error (an older or trimmed server), the
    same writes are made one by one and the summary says why."""
    from iaa_label_studio.sync import sync

    pid = _project(api, "no actions", _tasks(api, n=12, seed=5))
    calls = []

    def refuse(self, project_id, action, task_ids, **body):
        calls.append(action)
        raise LabelStudioError(f"Label Studio answered HTTP 400 to POST /api/dm/actions: Can't find '{action}'")

    monkeypatch.setattr(Api, "action", refuse)
    bot = Api(Connection(server.url, service_token))
    s = sync(bot, pid, html=False, tabs=False)
    assert sorted(set(calls)) == ["add_data_field"]
    assert s["writes"]["data"].startswith("per task") and "Can't find" in s["writes"]["data"]
    assert s["done"] == s["planned"]
    again = sync(bot, pid, html=False, tabs=False)
    assert again["planned"] == {}


def test_a_bulk_sync_interrupted_after_the_import_is_finished_by_the_next_run(server, api, service_token, monkeypatch):
    """Resumable: a first sync that dies right after the prediction import (before the data fields) leaves the
    predictions without the fields; the next run finds exactly what is missing, writes it in bulk, and the project
    ends as a clean first sync leaves it (no duplicate)."""
    from iaa_label_studio import write
    from iaa_label_studio.sync import sync

    tasks = _tasks(api, n=15, seed=11)
    pid, clean = _project(api, "interrupted", tasks), _project(api, "clean", tasks)
    bot = Api(Connection(server.url, service_token))
    bot_id = bot.whoami()["id"]

    def die(*args, **kwargs):
        raise LabelStudioError("the connection dropped")

    with monkeypatch.context() as m:
        m.setattr(write, "data_fields", die)
        with pytest.raises(LabelStudioError, match="dropped"):
            sync(bot, pid, html=False, tabs=False)
    half = _snapshot(api, pid, bot_id)["tasks"]
    assert not [t for t in half if "iaa_agreement" in t["data"]]
    assert [p for t in half for p in t["predictions"] if p["model_version"] == "iaa-engine-gold"]
    s = sync(bot, pid, html=False, tabs=False)
    assert "create_prediction" not in s["planned"] and s["planned"]["update_data"] >= 5, s["planned"]
    assert s["writes"]["data"].startswith("add_data_field (")
    sync(bot, clean, html=False, tabs=False)
    assert _written(_snapshot(api, pid, bot_id)["tasks"], bot_id) == _written(
        _snapshot(api, clean, bot_id)["tasks"], bot_id
    )
    assert sync(bot, pid, html=False, tabs=False)["planned"] == {}
