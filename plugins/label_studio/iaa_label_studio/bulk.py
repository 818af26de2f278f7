"""The bulk writes Label Studio offers, each with its per-request fallback.

* New gold annotations: the Data Manager action ``predictions_to_annotations`` turns the gold predictions
  (model version ``iaa-engine-gold``, imported just before) of the selected tasks into annotations in one call.
  The action makes **the caller** the author (``completed_by = request.user``), so it is used only when the token
  is the plugin's own service account (:data:`iaa_label_studio.api.PLUGIN_EMAIL`); with a human's token each
  gold annotation is a request of its own, completed by the plugin's user. The action creates an annotation per
  gold prediction that has none yet: the selection is exactly the tasks that need one.
* Task data fields: the Data Manager action ``add_data_field`` sets one key of ``data`` on a set of tasks in one
  call (the server changes that key alone, in the data as it is at that moment), so each distinct value of each
  field costs one call. Removing a field has no bulk form: those go per task (read-modify-write).

When an action is missing (another server version) or fails, what it did not do falls back to one request per
task; the caller records why.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .api import Api, LabelStudioError

__all__ = ["gold_annotations", "data_fields", "MIN_TASKS_PER_CALL"]

#: ``add_data_field`` is used when its calls would average at least this many tasks each (a call costs roughly
#: as much as two per-task writes plus a little per task)
MIN_TASKS_PER_CALL = 4


def gold_annotations(api: Api, project_id: int, changes: list, *, bot_id: int, gold_version: str) -> tuple[list, str]:
    """Create the gold annotations of ``changes`` (``create_annotation``) by ``predictions_to_annotations``.

    Returns ``(left, why)``: the changes still to make one by one (none when the action did them all) and why
    some are left (empty when none are)."""
    ids = sorted({int(c.task) for c in changes})
    try:
        answer = api.action(project_id, "predictions_to_annotations", ids, model_version=gold_version)
    except LabelStudioError as exc:
        return list(changes), f"predictions_to_annotations failed: {exc}"
    m = re.search(r"Created (\d+) annotation", str(answer.get("detail", "")))
    if m and int(m.group(1)) == len(ids):
        return [], ""
    # fewer (or an unexpected answer): read those tasks back and do what is missing one by one
    have = set()
    for t in api.tasks_export(project_id, ids):
        if any(_uid(a.get("completed_by")) == bot_id for a in t.get("annotations") or []):
            have.add(int(t["id"]))
    left = [c for c in changes if int(c.task) not in have]
    why = f"predictions_to_annotations answered {answer.get('detail')!r}" if left else ""
    return left, why


def _uid(v: Any) -> Any:
    return v.get("id") if isinstance(v, dict) else v


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
    from .sync import Change

    left = [Change("update_data", t, body=body) for t, body in sorted(rest.items())]
    return left, calls, ""
