"""Apply a plan (:mod:`iaa_label_studio.plan`): the bulk writes Label Studio offers, each with its per-request
fallback, resumable (a write that fails leaves a consistent project; the next run plans only what is missing).

Order: deletions and updates of the connector's own objects (request by request, in parallel); all new
predictions in ONE import (each import recounts the whole project); task data; the project last; then the Data
Manager tabs that are missing. The gold is a prediction only: nothing here creates an annotation.

* Task data fields: the Data Manager action ``add_data_field`` sets one key of ``data`` on a set of tasks in one
  call (the server changes that key alone, in the data as it is at that moment), so each distinct value of each
  field costs one call. Removing a field has no bulk form: those go per task, by read-modify-write of the
  server's current data (never from a cached copy: ``PATCH /api/tasks/{id}`` replaces ``data`` wholesale).

When an action is missing (another server version) or fails, what it did not do falls back to one request per
task; ``info`` records why.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from iaa_engine.base import Progress

from .api import Api, LabelStudioError
from .plan import Change, tab_definitions

__all__ = ["apply", "data_fields", "ensure_tabs", "MIN_TASKS_PER_CALL"]

#: ``add_data_field`` is used when its calls would average at least this many tasks each (a call costs roughly
#: as much as two per-task writes plus a little per task)
MIN_TASKS_PER_CALL = 4


def _kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return "Number"
    if isinstance(value, str):
        return "String"
    return None


def data_fields(api: Api, project_id: int, changes: list) -> tuple[list, int, str]:
    """Set the data fields of ``changes`` (``update_data``) with ``add_data_field``, one call per (field, value).

    Returns ``(left, calls, why)``: the changes (or parts of them: removals, values of another type) still to
    write per task, the number of calls made, and why nothing went in bulk (empty otherwise)."""
    groups: dict[tuple[str, str, Any], list[int]] = defaultdict(list)
    rest: dict[int, dict] = {}
    for c in changes:
        for k, v in c.body.items():
            kind = _kind(v)
            if kind is None:  # a removal (None), or a type the action cannot write
                rest.setdefault(c.task, {})[k] = v
            else:
                groups[(k, kind, v)].append(int(c.task))
    n_bulk = sum(len(t) for t in groups.values())
    if not groups or n_bulk < MIN_TASKS_PER_CALL * len(groups):
        return list(changes), 0, "" if not groups else "too many distinct values for add_data_field"
    calls = 0
    for (name, kind, value), tids in groups.items():
        try:
            api.action(project_id, "add_data_field", tids, value_name=name, value_type=kind, value=value)
        except LabelStudioError as exc:
            if calls == 0:  # the action is not there: everything per task
                return list(changes), 0, f"add_data_field failed: {exc}"
            for t in tids:  # a later call failed: that value per task
                rest.setdefault(t, {})[name] = value
            continue
        calls += 1
    left = [Change("update_data", t, body=body) for t, body in sorted(rest.items())]
    return left, calls, ""


def apply(
    api: Api,
    project_id: int,
    changes: list[Change],
    *,
    workers: int = 4,
    progress: bool | None = None,
    bulk: bool = True,
    info: dict | None = None,
) -> Counter:
    """Perform the writes. Returns counts per kind; ``info`` (a dict) receives how they were made.

    Order: deletions and updates of the connector's own objects (request by request, in parallel); all new
    predictions in ONE import (each import recounts the whole project); task data (``add_data_field`` per
    distinct value, else read-modify-write per task); the project last.
    """
    done: Counter = Counter()
    info = {} if info is None else info
    info.setdefault("data", "none")
    bar = Progress(len(changes), "writing", show=progress)

    def one(c: Change) -> str:
        if c.kind == "delete_annotation":
            api.delete_annotation(c.target)
        elif c.kind == "update_prediction":
            api.update_prediction(c.target, c.body)
        elif c.kind == "delete_prediction":
            api.delete_prediction(c.target)
        elif c.kind == "update_data":
            api.merge_task_data(c.task, c.body)  # read-modify-write of the server's current data
        return c.kind

    def parallel(items: list[Change]) -> None:
        if not items:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            futures = [pool.submit(one, c) for c in items]
            for fut in as_completed(futures):
                done[fut.result()] += 1  # the first failure stops everything not yet started
                bar.update()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    by_kind: dict[str, list[Change]] = defaultdict(list)
    for c in changes:
        by_kind[c.kind].append(c)
    try:
        parallel(by_kind["delete_prediction"] + by_kind["update_prediction"] + by_kind["delete_annotation"])
        creates = [c.body for c in by_kind["create_prediction"]]
        if creates:  # one call: the server recounts the whole project per import
            api.import_predictions(project_id, creates)
            done["create_prediction"] += len(creates)
            bar.update(len(creates))
        data = by_kind["update_data"]
        if data:
            rest = data
            if bulk:
                rest, n_calls, why = data_fields(api, project_id, data)
                n_bulk = len(data) - len(rest)
                done["update_data"] += n_bulk
                bar.update(n_bulk)
                if n_calls:
                    info["data"] = f"add_data_field ({n_calls} calls)" + (f", {len(rest)} per task" if rest else "")
                else:
                    info["data"] = "per task" + (f" ({why})" if why else "")
            else:
                info["data"] = "per task"
            parallel(rest)
        for c in by_kind["update_project"]:  # last: the server accepts a model_version only once a prediction has it
            api.update_project(project_id, c.body)
            done[c.kind] += 1
            bar.update()
    finally:
        bar.close()
    return done


#: the tab the Data Manager makes when it is first opened on a project with no tab; created before the connector's
#: own on such a project, so that opening it does not show the connector's tabs alone
DEFAULT_TAB = {
    "title": "Default",
    "type": "list",
    "target": "tasks",
    "filters": {"conjunction": "and", "items": []},
    "ordering": [],
    "hiddenColumns": {"explore": [], "labeling": []},
    "columnsWidth": {},
    "columnsDisplayType": {},
    "gridWidth": 4,
}


def ensure_tabs(
    api: Api, project_id: int, analysis: Any, *, field: str, gold: bool = True, dry_run: bool = False
) -> dict:
    """Create the tabs that are missing; returns ``{"created": [titles], "kept": [titles]}`` (``dry_run``: what
    it would create, creating nothing). Only when some task has an agreement (the fields the tabs show and filter
    on): a project of judgments only (Pairwise, Ranker) gets none. A project without any tab (its Data Manager never
    opened) first gets a ``Default`` one."""
    controls = [n for n, r in analysis.controls.items() if r.data is not None]
    out: dict[str, list[str]] = {"created": [], "kept": []}
    if not any(bool(analysis.controls[n].task_agreement.notna().any()) for n in controls):
        return out  # nothing would fill them
    views = api.views(project_id)
    have = {str((v.get("data") or {}).get("title")) for v in views}
    if not views:
        if not dry_run:
            api.create_view(project_id, dict(DEFAULT_TAB))
        out["created"].append(DEFAULT_TAB["title"])
    for data in tab_definitions(field, controls, gold=gold):
        if data["title"] in have:
            out["kept"].append(data["title"])
        else:
            if not dry_run:
                api.create_view(project_id, data)
            out["created"].append(data["title"])
    return out
