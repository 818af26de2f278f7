"""A full read from a Label Studio server with several processes (issue 13: the unchanged re-sync without saved
state) against a REAL server: the same Label Studio, served by gunicorn with two worker processes as its Docker
image serves it with uWSGI (``deploy/uwsgi.ini``: two processes per core).

The connector then reads the project as consecutive id ranges through the JSON export, several requests at a
time, with the project's predictions listed beside them. The read must be exactly the export snapshot's: every
task, annotation and prediction, none of another project's tasks (whose ids fall inside the ranges), and a
re-sync after a sync must find nothing to write.
"""

from __future__ import annotations

import pytest

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

import iaa_label_studio.api as api_mod  # noqa: E402
import iaa_label_studio.read as read_mod  # noqa: E402
from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api, id_chunks  # noqa: E402
from iaa_label_studio.read import pull  # noqa: E402
from iaa_label_studio.sync import render_summary, sync  # noqa: E402

pytestmark = pytest.mark.slow  # a real server, started under gunicorn

CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>'
)
LABELS = ["pos", "neg", "neu"]


def res(label: str) -> list:
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


def test_id_chunks_keep_every_id_in_order_within_the_query_budget():
    ids = list(range(1, 5000)) + [10**9 + 7, 10**9 + 8]
    chunks = list(id_chunks(ids, max_chars=300))
    assert [i for c in chunks for i in c] == ids
    for c in chunks:
        assert sum(len(str(i)) + 11 for i in c) <= 300  # "ids%5B%5D=" + digits + "&"
    for c, after in zip(chunks, chunks[1:]):  # each is as full as the budget allows
        assert sum(len(str(i)) + 11 for i in [*c, after[0]]) > 300
    assert len(chunks[0]) == 9 + (300 - 9 * 12) // 13  # 1-9 take 12 characters each, 10-99 take 13
    assert list(id_chunks([], max_chars=300)) == []
    assert list(id_chunks([123456], max_chars=5)) == [[123456]]  # one id always goes, even over the budget


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # pages of at most 5 tasks (an admin's TASK_API_PAGE_SIZE_MAX): every list the connector reads is paged
    srv = lst.server_or_skip(
        tmp_path_factory.mktemp("label-studio-processes"), processes=2, settings={"TASK_API_PAGE_SIZE_MAX": "5"}
    )
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


@pytest.fixture(scope="module")
def interleaved(api):
    """Two projects whose task ids interleave (imported in alternating batches of 3): ``(a, b)``, each with
    annotations by three people and an imported prediction on every other task."""
    users = list(lst.make_users(api, ["p1@example.com", "p2@example.com", "p3@example.com"]).values())
    a = api.request("POST", "api/projects", json={"title": "ranges A", "label_config": CONFIG})["id"]
    b = api.request("POST", "api/projects", json={"title": "ranges B", "label_config": CONFIG})["id"]
    k = 0
    for batch in range(8):
        for pid in (a, b):
            tasks = []
            for _ in range(3):
                t = {
                    "data": {"text": f"task {k} of {pid}"},
                    "annotations": [
                        {"completed_by": u, "result": res(LABELS[(k + j * (k % 2)) % 3])} for j, u in enumerate(users)
                    ],
                }
                if k % 2 == 0:
                    t["predictions"] = [{"model_version": "someone's model", "score": 0.5, "result": res("neu")}]
                tasks.append(t)
                k += 1
            api.request("POST", f"api/projects/{pid}/import", json=tasks)
    return a, b


def test_the_server_is_seen_as_several_processes(api, interleaved):
    api.project(interleaved[0])
    assert not api.single_process and "gunicorn" in api.server_software.lower()


def test_id_ranges_read_exactly_what_one_snapshot_reads(api, interleaved, monkeypatch):
    a, b = interleaved
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    monkeypatch.setattr(api_mod, "ID_QUERY_CHARS", 60)  # 4 or 5 ids a request: many ranges, read 3 at a time
    lo, hi, n = api.task_id_range(a)
    assert n == 24 and hi - lo + 1 == 45  # A's ids interleave with B's: 21 of the range are B's
    ranged = pull(api, a, workers=3)
    assert ranged.pull_info["how"] == "id ranges, 2 requests at a time"  # at most PARALLEL_REQUESTS
    snapshot = pull(api, a, workers=1)
    assert snapshot.pull_info["how"] == "export snapshot"
    assert ranged.tasks == snapshot.tasks  # tasks, annotations, whole predictions: the same, in id order
    assert len(ranged.tasks) == 24 and all(f"of {a}" in t["data"]["text"] for t in ranged.tasks)
    assert sum(len(t["predictions"]) for t in ranged.tasks) == 16  # k = 6m, 6m + 2 of each batch of A
    assert all(isinstance(q, dict) and q["model_version"] for t in ranged.tasks for q in t["predictions"])
    other = pull(api, b, workers=3)  # and B alone from its own ranges
    assert len(other.tasks) == 24 and all(f"of {b}" in t["data"]["text"] for t in other.tasks)


def test_ids_too_sparse_for_ranges_are_read_with_one_snapshot(api, interleaved, monkeypatch):
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    monkeypatch.setattr(read_mod, "PARALLEL_MAX_SPREAD", 1.5)  # A spans 45 ids for 24 tasks
    got = pull(api, interleaved[0], workers=3)
    assert got.pull_info["how"] == "export snapshot" and len(got.tasks) == 24


def test_a_range_read_that_misses_tasks_or_fails_falls_back_to_one_snapshot(api, interleaved, monkeypatch):
    """Never a partial read: a server that ignored the ordering (both ends the same task) gives fewer tasks than
    the project counts, and a Data Manager that refuses the query errs; both end in one snapshot of all 24."""
    from iaa_label_studio.api import LabelStudioError

    a = interleaved[0]
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    lo, hi, n = api.task_id_range(a)
    monkeypatch.setattr(Api, "task_id_range", lambda self, pid: (lo, lo, n))
    got = pull(api, a, workers=3)
    assert got.pull_info["how"] == "export snapshot" and len(got.tasks) == 24

    monkeypatch.setattr(Api, "task_id_range", lambda self, pid: None)  # the Data Manager listed nothing
    got = pull(api, a, workers=3)
    assert got.pull_info["how"] == "export snapshot" and len(got.tasks) == 24

    def refuse(self, pid):
        raise LabelStudioError("Label Studio answered HTTP 400 to GET /api/tasks")

    monkeypatch.setattr(Api, "task_id_range", refuse)
    got = pull(api, a, workers=3)
    assert got.pull_info["how"] == "export snapshot" and len(got.tasks) == 24


def test_a_few_changed_tasks_are_read_without_leaving_a_copy_on_the_server(server, api, interleaved):
    """Label Studio's export endpoint writes what it sends into its export directory (two files per call, never
    deleted); the Data Manager's list does not. A re-sync's few changed tasks come from the list, field for field
    what the export gives."""
    from iaa_label_studio.read import _with_predictions
    from iaa_label_studio.state import slim_task

    a = interleaved[0]
    ids = [t["id"] for t in pull(api, a, workers=1).tasks][::3]
    export_dir = server.base / "data" / "export"
    before = sorted(p.name for p in export_dir.iterdir())
    listed = [slim_task(t) for t in _with_predictions(api, a, api.tasks_by_ids(a, ids), {})]
    assert sorted(p.name for p in export_dir.iterdir()) == before
    exported = [slim_task(t) for t in _with_predictions(api, a, api.tasks_export(a, ids), {})]
    assert len(list(export_dir.iterdir())) == len(before) + 2  # the export's own copy: the tasks and an info file
    by_id = {t["id"]: t for t in exported}
    assert [t["id"] for t in listed] == ids and all(t == by_id[t["id"]] for t in listed)
    assert sum(len(t["predictions"]) for t in listed) > 0


def test_a_project_that_retrieves_predictions_automatically_is_never_read_through_the_task_list(
    api, interleaved, monkeypatch, tmp_path
):
    """Its Data Manager list would ask the ML backend for the listed tasks' predictions: a full read is one
    snapshot (no id bounds from the list), a re-sync's changed tasks come from the export."""
    from iaa_label_studio.state import StateStore

    b = interleaved[1]
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    api.update_project(b, {"evaluate_predictions_automatically": True})
    try:

        def never(*args, **kwargs):
            raise AssertionError("the Data Manager's task list was read")

        monkeypatch.setattr(Api, "tasks_by_ids", never)
        monkeypatch.setattr(Api, "task_id_range", never)
        store = StateStore(tmp_path / "state")
        full = pull(api, b, workers=3, state=store)
        assert full.pull_info["how"] == "export snapshot" and len(full.tasks) == 24
        t = full.tasks[0]
        a = t["annotations"][0]
        api.request("PATCH", f"api/annotations/{a['id']}", json={"result": res("neu")})
        again = pull(api, b, workers=3, state=store)
        assert again.pull_info["mode"] == "incremental" and again.pull_info["read"] >= 1
        assert next(x for x in again.tasks if x["id"] == t["id"])["annotations"][0]["result"][0]["value"] == {
            "choices": ["neu"]
        }
    finally:
        api.update_project(b, {"evaluate_predictions_automatically": False})


def test_a_sync_then_a_cold_re_sync_read_in_ranges_writes_nothing(api, interleaved, monkeypatch):
    """The predictions the sync wrote are read back whole by the ranges' prediction list: nothing is planned."""
    a = interleaved[0]
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    first = sync(api, a, workers=3, summary_dir=None, html=False, progress=False, state=None)
    assert first["pull"]["how"].startswith("id ranges") and first["done"]
    again = sync(api, a, workers=3, summary_dir=None, html=False, progress=False, state=None)
    assert again["pull"]["how"].startswith("id ranges") and again["planned"] == {}
    assert again["agreement"]["controls"] == first["agreement"]["controls"]
    assert "read all 24 tasks (no state kept; id ranges, 2 requests at a time)" in render_summary(again)
