"""Read a project: its settings, users and every task with its annotations and predictions (through
:mod:`iaa_label_studio.api`, the only module that speaks HTTP), with the saved state of
:mod:`iaa_label_studio.state` so that a re-run reads only what changed.

:func:`pull` returns a :class:`Project`: what the server holds, in the shape of
:func:`iaa_label_studio.state.slim_task`, ordered by id. Nothing is computed here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from iaa_engine.base import Progress

from .api import Api, LabelStudioError, id_chunks, shown
from .convert import Control, parse_config
from .names import PLUGIN_EMAIL
from .state import PullState, StateStore, counts_differ, slim_task

__all__ = [
    "Project",
    "pull",
    "pull_pooled",
    "restrict",
    "control_signature",
    "MARGIN",
    "FULL_SHARE",
    "DM_READ_MAX",
    "PARALLEL_MIN_TASKS",
    "PARALLEL_REQUESTS",
]


@dataclass
class Project:
    """What :func:`pull` read."""

    id: int
    title: str
    label_config: str
    controls: list[Control]
    tasks: list[dict]
    users: dict[int, str]
    plugin_user: int | None
    raw: dict = field(default_factory=dict)
    #: how the tasks were read: ``{"mode": "full"|"incremental", "read": n, ...}``
    pull_info: dict = field(default_factory=dict)
    #: several projects pooled (:func:`pull_pooled`): their ids; each task then carries its ``project``
    pooled: list[int] = field(default_factory=list)


#: changes are looked for from this long before the previous run's start (transactions commit out of order)
MARGIN = timedelta(seconds=30)
#: read everything when more than this share of the tasks changed (reading by id is slower per task)
FULL_SHARE = 0.5
#: a re-sync reads at most this many changed tasks through the Data Manager's task list (more: the JSON export)
DM_READ_MAX = 500
#: a full read is split into id ranges read in parallel from a server with several processes when the project
#: has at least this many tasks ...
PARALLEL_MIN_TASKS = 1_000
#: ... and its ids are this dense (highest - lowest + 1 <= PARALLEL_MAX_SPREAD * number of tasks)
PARALLEL_MAX_SPREAD = 3.0
#: ... with at most this many requests at a time (fewer when ``workers`` is lower): the server's annotators keep
#: its other processes, and on 2 cores 3-4 concurrent exports cost 40-70 % more server CPU than 2 (cache and
#: database contention: 2,000 tasks, gunicorn with 4 processes, 2 requests 2.9-3.4 s, 4 requests 3.9-4.9 s)
PARALLEL_REQUESTS = 2


def pull(
    api: Api,
    project_id: int,
    *,
    plugin_user: int | None = None,
    progress: bool | None = None,
    state: StateStore | None = None,
    full: bool = False,
    refresh: Iterable[int] = (),
    workers: int = 4,
) -> Project:
    """Read the project, its users and every task with its annotations and predictions.

    With a ``state`` store holding the previous run's read, only the tasks changed since then are read (see
    :mod:`iaa_label_studio.state`), plus those in ``refresh``; ``full=True`` reads everything. The tasks come
    back in the shape of :func:`iaa_label_studio.state.slim_task`, ordered by id. A full read from a server
    with several processes (not ``label-studio start``'s development server) reads id ranges with
    ``min(workers, PARALLEL_REQUESTS)`` requests at a time; otherwise one export snapshot.
    """
    p = api.project(project_id)
    started = (api.server_date or datetime.now(timezone.utc)) - timedelta(seconds=1)
    controls = parse_config(p.get("label_config") or "<View/>")
    users: dict[int, str] = {}
    for u in api.users():
        users[u["id"]] = str(u.get("email") or u.get("username") or f"user {u['id']}")
    if plugin_user is None:
        plugin_user = next((uid for uid, email in users.items() if str(email).lower() == PLUGIN_EMAIL), None)
    prev, unusable = None, None
    if state is not None and not full:
        prev, unusable = state.read(api.base_url, project_id)  # unusable: why not (no state, or its problem)
    tasks, info = None, {}
    if prev is not None and prev.watermark is not None:
        tasks, info = _pull_changes(api, p, prev, set(refresh), progress)
    if tasks is None:
        why = "--full" if full else info.get("reason") or unusable or ("no saved state" if state else "no state kept")
        tasks, how = _pull_all(api, int(project_id), p, progress, workers)
        info = {"mode": "full", "read": len(tasks), "reason": why, "how": how}
    if state is not None:
        state.save(PullState(api.base_url, int(project_id), started, {t["id"]: t for t in tasks}))
    return Project(
        int(p["id"]), p.get("title") or "", p.get("label_config") or "", controls, tasks, users, plugin_user, p, info
    )


def _pull_all(api: Api, project_id: int, p: dict, progress: bool | None, workers: int) -> tuple[list[dict], str]:
    """Every task, and how it was read: id ranges in parallel (a server with several processes), else an
    export snapshot, else the plain JSON export and the predictions, else page by page."""
    bar = Progress(p.get("task_number"), "reading tasks", show=progress)
    try:
        tasks = None
        ranges = workers > 1 and not api.single_process and (p.get("task_number") or 0) >= PARALLEL_MIN_TASKS
        # the ranges' bounds come from the Data Manager's list, which on a project that retrieves predictions
        # automatically asks the ML backend for the listed tasks' predictions: not there
        if ranges and p.get("evaluate_predictions_automatically") is False:
            n = min(workers, PARALLEL_REQUESTS)
            try:
                tasks = _read_ranges(api, project_id, n, bar)
            except LabelStudioError:  # e.g. a server whose Data Manager cannot order by id: one snapshot
                tasks = None
            how = f"id ranges, {n} requests at a time"
        if tasks is None:
            try:
                tasks, how = api.tasks_snapshot(project_id), "export snapshot"
            except LabelStudioError:
                try:
                    tasks = _with_predictions(api, project_id, api.tasks_export(project_id), {})
                    how = "JSON export"
                except LabelStudioError:  # e.g. export disabled: page through /api/tasks
                    tasks, how = [], "task list"
                    for t in api.tasks(project_id):
                        tasks.append(t)
                        bar.update()
        bar.update(len(tasks) - bar.done)
    finally:
        bar.close()
    return sorted((slim_task(t) for t in _checked(tasks, project_id)), key=lambda t: t["id"]), how


def _read_ranges(api: Api, project_id: int, workers: int, bar: Progress) -> list[dict] | None:
    """Every task through JSON exports of consecutive id ranges, ``workers`` at a time, and the project's
    predictions in one list beside them; None when the ids are too sparse for ranges to pay (the caller then
    reads one snapshot), or when fewer tasks came than the project counted (tasks deleted meanwhile, or a server
    that did not order by id: never a partial read). Ids in a range that belong to no task of the project are
    ignored by the server."""
    bounds = api.task_id_range(project_id)
    if bounds is None:  # the Data Manager lists no task while the project counts 1,000 or more: ask the snapshot
        return None
    lo, hi, n = bounds
    if hi - lo + 1 > PARALLEL_MAX_SPREAD * max(n, 1):
        return None
    tasks: list[dict] = []
    with ThreadPoolExecutor(max_workers=workers + 1) as pool:  # the prediction list beside ``workers`` ranges
        predictions = pool.submit(api.predictions, project_id=project_id)
        parts = [pool.submit(api.export_part, project_id, c) for c in id_chunks(range(lo, hi + 1))]
        for f in as_completed(parts):
            part = f.result()
            tasks += part
            bar.update(len(part))
        known = {q["id"]: q for q in predictions.result()}
    if len(tasks) < n:
        return None
    return _with_predictions(api, project_id, tasks, known)


def _checked(tasks: list, project_id: int) -> list[dict]:
    """``tasks`` as the server sent them, each checked to be an object with an id (a whole number below 2**63)
    and ``data`` an object; else a one-line error naming what came. (Annotations and predictions of the wrong
    shape are set aside by :func:`iaa_label_studio.state.slim_task`, and counted.)"""
    for t in tasks:
        if not isinstance(t, dict):
            raise LabelStudioError(
                f"Label Studio sent {shown(t)} as a task of project {project_id}: expected an object"
            )
        tid = t.get("id")
        if isinstance(tid, str) and tid.isascii() and tid.isdigit() and len(tid) < 20:
            tid = t["id"] = int(tid)  # a number in a string: read as the number, as before
        if isinstance(tid, bool) or not isinstance(tid, int) or not 0 <= tid < 2**63:
            raise LabelStudioError(
                f"Label Studio sent a task of project {project_id} whose id is {shown(tid)}: expected a whole number "
                "below 2**63"
            )
        if not isinstance(t.get("data") or {}, dict):
            raise LabelStudioError(
                f"Label Studio sent task {tid} of project {project_id} with data {shown(t.get('data'))}: expected an "
                "object"
            )
    return tasks


def _is_id(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _with_predictions(api: Api, project_id: int, tasks: list[dict], known: dict[int, dict]) -> list[dict]:
    """Replace the prediction ids the JSON export lists by the predictions (``known`` ones, else fetched); an
    entry that is neither an id nor an object is kept for :func:`iaa_label_studio.state.slim_task` to set aside."""
    tasks = _checked(tasks, project_id)
    listed = {id(t): t.get("predictions") if isinstance(t.get("predictions"), list) else [] for t in tasks}
    missing = [t for t in tasks if any(_is_id(x) and x not in known for x in listed[id(t)])]
    if missing:
        if len(missing) <= 100:
            fetched = [q for t in missing for q in api.predictions(task_id=t["id"])]
        else:
            fetched = api.predictions(project_id=project_id)
        known = {**known, **{q["id"]: q for q in fetched}}
    for t in tasks:
        if isinstance(t.get("predictions"), list):
            t["predictions"] = [known[x] if _is_id(x) else x for x in listed[id(t)] if not _is_id(x) or x in known]
    return tasks


def _pull_changes(
    api: Api, p: dict, prev: PullState, refresh: set[int], progress: bool | None
) -> tuple[list[dict] | None, dict]:
    """The previous read updated with the tasks changed since; ``(None, {"reason": ...})`` when it cannot be."""
    project_id = int(p["id"])
    too_many = max(200, FULL_SHARE * len(prev.tasks))
    if len(refresh) > too_many:  # e.g. the read-back after a first sync: no need to list what changed
        return None, {"reason": f"{len(refresh)} of {len(prev.tasks)} tasks to read again"}
    since = prev.watermark - MARGIN
    n_listed = api.updated_since(project_id, since, count_only=True)  # listing costs ~3 ms per task: count first
    if n_listed > too_many:
        return None, {"reason": f"{n_listed} of {len(prev.tasks)} tasks changed"}
    listed = api.updated_since(project_id, since) if n_listed else []
    changed = {tid for tid, up in listed if prev.tasks.get(tid, {}).get("updated_at") != up} | refresh
    if len(changed) > too_many:
        return None, {"reason": f"{len(changed)} of {len(prev.tasks)} tasks changed"}
    bar = Progress(len(changed), "reading changed tasks", show=progress)
    try:
        # the predictions of a changed task are read again, never taken from the saved state by id: a
        # prediction's score and result change in place (same id) when it is updated
        ids = sorted(changed)
        # a few tasks: the Data Manager's list, which leaves no copy on the server (the export endpoint writes one
        # into its export directory per call); many: the export, twice as fast per task. Not on a project that
        # retrieves predictions automatically: there the list would ask the ML backend for predictions
        listable = len(ids) <= DM_READ_MAX and p.get("evaluate_predictions_automatically") is False
        read = api.tasks_by_ids(project_id, ids) if listable else api.tasks_export(project_id, ids)
        fresh = _with_predictions(api, project_id, read, {})
        bar.update(len(fresh))
    finally:
        bar.close()
    tasks = dict(prev.tasks)
    for tid in changed:  # read again, or deleted since
        tasks.pop(tid, None)
    tasks.update({t["id"]: t for t in map(slim_task, fresh)})
    out = sorted(tasks.values(), key=lambda t: t["id"])
    differ = counts_differ(p, out)
    if differ:  # something changed while reading, or a bulk action that leaves updated_at alone: ask again
        differ = counts_differ(api.project(project_id), out)
    if differ:
        return None, {"reason": "the project's counters differ from the saved state (" + differ[0] + ")"}
    return out, {"mode": "incremental", "read": len(fresh), "listed": len(listed)}


# --------------------------------------------------------------------------- pooled projects, chosen tasks (issue 27)


def control_signature(controls: list[Control]) -> list[tuple]:
    """What a label config means for agreement: each control's name, tag, object, kind of selection and values
    (layout, styles, headers and the order of the controls do not count)."""
    return sorted(
        (c.name, c.tag, c.to_name, c.object_tag, c.multiple, tuple(c.values), c.max_rating, c.minimum, c.maximum,
         tuple(sorted(c.paths)) if c.paths is not None else None)
        for c in controls
    )  # fmt: skip


def pull_pooled(api: Api, project_ids: list[int], **kwargs) -> Project:
    """Several projects of one server read with :func:`pull` (each with its own saved state) and pooled into one
    :class:`Project`: their tasks side by side, each carrying its ``project``. Refused (ValueError) when their
    label configs differ in the controls used (:func:`control_signature`). Label Studio numbers tasks across the
    whole server (one table), so a task id names its (project, task) pair: items never collide; a server that
    answered otherwise is refused."""
    ids = list(dict.fromkeys(int(p) for p in project_ids))
    parts = [pull(api, pid, **kwargs) for pid in ids]
    first = parts[0]
    want = control_signature(first.controls)
    for p in parts[1:]:
        got = control_signature(p.controls)
        if got != want:
            a, b = {s[0]: s for s in want}, {s[0]: s for s in got}
            differ = sorted(n for n in a.keys() | b.keys() if a.get(n) != b.get(n))
            raise ValueError(
                f"projects {first.id} and {p.id} cannot be pooled: their label configs differ in the controls "
                f"{', '.join(map(repr, differ))} (pooling needs the same control names, tags, objects and values)"
            )
    tasks: list[dict] = []
    owner: dict[int, int] = {}
    for p in parts:
        for t in p.tasks:
            if t["id"] in owner:
                raise ValueError(
                    f"task id {t['id']} is in projects {owner[t['id']]} and {p.id}: the projects cannot be pooled"
                )
            owner[t["id"]] = p.id
            tasks.append({**t, "project": p.id})
    users = {k: v for p in parts for k, v in p.users.items()}
    title = " + ".join(f"{p.id} {p.title!r}" for p in parts)
    return Project(
        first.id, title, first.label_config, first.controls, tasks, users, first.plugin_user, first.raw,
        {str(p.id): p.pull_info for p in parts}, [p.id for p in parts],
    )  # fmt: skip


def restrict(project: Project, task_ids: Iterable[int], why: str) -> Project:
    """``project`` with only the tasks ``task_ids`` (``why`` says where they come from: a tab, a list). Refused
    (ValueError) when some of them are not tasks of the project (the first few named), or when there are none (a tab
    whose filters select no task): an empty selection has no agreement to report or compare."""
    keep = set(int(t) for t in task_ids)
    have = {t["id"] for t in project.tasks}
    if not keep:
        where = f"projects {', '.join(map(str, project.pooled))}" if project.pooled else f"project {project.id}"
        raise ValueError(f"{why} selects no task of {where}: nothing to report or compare (check its filters)")
    unknown = sorted(keep - have)
    if unknown:
        shown_ids = ", ".join(map(str, unknown[:5])) + (", ..." if len(unknown) > 5 else "")
        where = f"projects {', '.join(map(str, project.pooled))}" if project.pooled else f"project {project.id}"
        raise ValueError(f"{len(unknown)} task(s) of {why} are not tasks of {where}: {shown_ids}")
    info = {**project.pull_info, "selected": {"tasks": len(keep), "of": len(project.tasks), "by": why}}
    return dataclasses.replace(project, tasks=[t for t in project.tasks if t["id"] in keep], pull_info=info)
