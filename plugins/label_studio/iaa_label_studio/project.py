"""Pull a project and compute its agreement with :mod:`iaa_engine` (every number comes from the core).

:func:`pull` reads the project, its label config and every task (all pages);
:func:`analyse` turns the tasks into one :class:`iaa_engine.Annotations` per
control tag and asks the core for the report, the agreement of every task, the
gold labels and the agreement of each annotator with the ground truth.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie
from iaa_engine.base import Progress

from .api import Api, LabelStudioError
from .convert import NO_REGION, Control, ControlData, Converted, convert, parse_config
from .quality import Quality, check_models, control_quality, known_labels, model_tables
from .state import PullState, StateStore, counts_differ, slim_task

__all__ = ["Project", "ControlResult", "Analysis", "pull", "analyse", "GROUND_TRUTH"]

GROUND_TRUTH = "ground truth"


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
        users[u["id"]] = u.get("email") or u.get("username") or f"user {u['id']}"
    if plugin_user is None:
        from .api import PLUGIN_EMAIL

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
    return sorted((slim_task(t) for t in tasks), key=lambda t: t["id"]), how


def _read_ranges(api: Api, project_id: int, workers: int, bar: Progress) -> list[dict] | None:
    """Every task through JSON exports of consecutive id ranges, ``workers`` at a time, and the project's
    predictions in one list beside them; None when the ids are too sparse for ranges to pay (the caller then
    reads one snapshot), or when fewer tasks came than the project counted (tasks deleted meanwhile, or a server
    that did not order by id: never a partial read). Ids in a range that belong to no task of the project are
    ignored by the server."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from .api import id_chunks

    bounds = api.task_id_range(project_id)
    if bounds is None:  # the Data Manager lists no task while the project counts 1,000 or more: ask the snapshot
        return None
    lo, hi, n = bounds
    if hi - lo + 1 > PARALLEL_MAX_SPREAD * max(n, 1):
        return None
    params = {"exportType": "JSON", "download_all_tasks": "true"}
    tasks: list[dict] = []
    with ThreadPoolExecutor(max_workers=workers + 1) as pool:  # the prediction list beside ``workers`` ranges
        predictions = pool.submit(api.predictions, project_id=project_id)
        parts = [
            pool.submit(api.request, "GET", f"api/projects/{int(project_id)}/export", params={**params, "ids[]": c})
            for c in id_chunks(range(lo, hi + 1))
        ]
        for f in as_completed(parts):
            part = f.result()
            tasks += part
            bar.update(len(part))
        known = {q["id"]: q for q in predictions.result()}
    if len(tasks) < n:
        return None
    return _with_predictions(api, project_id, tasks, known)


def _with_predictions(api: Api, project_id: int, tasks: list[dict], known: dict[int, dict]) -> list[dict]:
    """Replace the prediction ids the JSON export lists by the predictions (``known`` ones, else fetched)."""
    missing = [t for t in tasks if any(not isinstance(x, dict) and x not in known for x in t.get("predictions") or [])]
    if missing:
        if len(missing) <= 100:
            fetched = [q for t in missing for q in api.predictions(task_id=t["id"])]
        else:
            fetched = api.predictions(project_id=project_id)
        known = {**known, **{q["id"]: q for q in fetched}}
    for t in tasks:
        t["predictions"] = [
            x if isinstance(x, dict) else known[x]
            for x in t.get("predictions") or []
            if isinstance(x, dict) or x in known
        ]
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


@dataclass
class ControlResult:
    """Agreement of one control tag."""

    control: Control
    converted: ControlData
    data: ie.Annotations | None
    report: ie.Report | None
    task_agreement: pd.Series  # task id -> agreement (nan: fewer than two annotations)
    gold: dict  # task id -> list of Label Studio result dicts (the gold label(s) of this control)
    ties: int
    vs_ground_truth: dict  # annotator -> {"percent_agreement", "cohen_kappa", "n_shared"}
    notes: list[str]
    n_duplicates: int = 0
    #: each annotator against the pooled others (:func:`iaa_engine.annotator_agreement`), by annotator name
    vs_others: dict = field(default_factory=dict)
    #: Krippendorff's alpha with partial credit between labels (sets, taxonomy paths, texts), or None
    partial_credit: dict | None = None
    #: the scorecard, gold questions, model raters and disagreements (:mod:`iaa_label_studio.quality`)
    quality: Quality | None = None

    def details(self) -> dict:
        cd = self.converted
        invalid = dict(cd.invalid)
        if self.n_duplicates:
            invalid["another annotation by the same annotator on the task (first kept)"] = self.n_duplicates
        return _nan_to_none(
            {
                "tag": self.control.tag,
                "to_name": self.control.to_name,
                "level": self.control.level,
                "multiple": self.control.multiple,
                "n_tasks": cd.n_tasks,
                "n_tasks_with_annotations": int(cd.table["task"].nunique()) if len(cd.table) else 0,
                "n_results_used": int((cd.table["label"].astype(object) != NO_REGION).sum()) - self.n_duplicates
                if len(cd.table)
                else 0,
                "n_results_invalid": sum(invalid.values()),
                "invalid": invalid,
                "n_gold_tasks": len(self.gold),
                "n_gold_ties": self.ties,
                "annotators_vs_others": self.vs_others,
                "ground_truth": self.vs_ground_truth,
                "partial_credit": self.partial_credit,
                "region_matching": _region_matching(cd),
                "quality": self.quality.to_dict() if self.quality is not None else None,
                "notes": self.notes,
            }
        )


def _region_matching(cd: ControlData) -> dict | None:
    """Regions: how well each pair of annotators' regions match (the core's precision / recall / F1), or None."""
    m = cd.matching
    if m is None:
        return None
    d = m.to_dict()
    return {k: d[k] for k in ("kind", "threshold", "n_regions", "n_units", "n_missed", "f1_overall", "pairs")}


@dataclass
class Analysis:
    project: Project
    controls: dict[str, ControlResult]
    converted: Converted
    primary: str | None  # the control whose task agreement is the task's score

    def task_score(self, task_id: int) -> float:
        if self.primary is None:
            return math.nan
        return float(self.controls[self.primary].task_agreement.get(task_id, math.nan))

    def to_json(self) -> dict:
        """``controls``: per tag exactly the JSON of ``iaa report --json``; ``details``: what the plugin adds."""
        return {
            "project": {"id": self.project.id, "title": self.project.title, "n_tasks": len(self.project.tasks)},
            "controls": {n: (r.report.to_dict() if r.report is not None else None) for n, r in self.controls.items()},
            "details": {n: r.details() for n, r in self.controls.items()},
            "primary_control": self.primary,
            "unknown_controls": dict(self.converted.unknown),
            "notes": list(self.converted.notes),
        }


def _nan_to_none(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _nan_to_none(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_nan_to_none(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _gold_value(control: Control, label: Any) -> dict:
    k = control.kind
    if k == "choices":
        return {"choices": list(label) if control.multiple else [label]}
    if k == "rating":
        return {"rating": int(label)}
    if k == "number":
        return {"number": float(label) if not float(label).is_integer() else int(label)}
    if k == "taxonomy":
        paths = [label] if label and isinstance(label[0], str) else list(label)
        return {"taxonomy": [list(p) for p in paths]}
    if k == "textarea":
        return {"text": [label]}
    raise AssertionError(k)  # pragma: no cover


def _result(control: Control, value: dict, rid: str) -> dict:
    return {
        "id": rid,
        "from_name": control.name,
        "to_name": control.to_name,
        "type": control.kind,
        "origin": "manual",
        "value": value,
    }


def _analyse_control(cd: ControlData, *, hierarchy: bool, models: pd.DataFrame | None = None) -> ControlResult:
    c = cd.control
    table = cd.table
    notes = list(cd.notes)
    empty = pd.Series(dtype=float)
    if table.empty:
        notes.append("no valid annotations for this tag")
        return ControlResult(c, cd, None, None, empty, {}, 0, {}, notes)
    dup = table.duplicated(["item", "annotator"], keep="first").to_numpy()
    n_dup = int(dup.sum())
    table = table.loc[~dup]
    level = c.level
    data = ie.Annotations.from_long(table, level=level)
    single_paths = c.kind == "taxonomy" and all(
        isinstance(x, tuple) and x and isinstance(x[0], str) for x in data.categories
    )
    if c.kind == "taxonomy" and not single_paths:
        notes.append("hierarchical facet skipped: some annotations select several taxonomy paths")
    rep = ie.report(data, hierarchy="/" if (hierarchy and single_paths) else None)
    # a task's agreement: the joint probability of agreement over its items (one item, or its span units)
    tasks = table.drop_duplicates("item").set_index("item")["task"]
    ta = ie.group_agreement(data, tasks)
    task_agreement = pd.Series(ta.to_numpy(), index=ta.index.astype(int), name="agreement")
    vs_others = ie.annotator_agreement(data)
    vs_others = {
        str(a): {
            "agreement": float(r.agreement),
            "kappa": float(r.kappa),
            "n_items": int(r.n_items),
            "n_pairs": int(r.n_pairs),
        }
        for a, r in vs_others.iterrows()
        if r.n_items > 0
    }
    gold, ties = _gold(c, data, table)
    partial = _partial_credit(c, table, notes)
    if len(table) and table["ground_truth"].all():
        notes.append(
            "every annotation is marked ground truth (Label Studio marks imported annotations so unless "
            "told otherwise): no agreement with ground truth is computed"
        )
    return ControlResult(
        c,
        cd,
        data,
        rep,
        task_agreement,
        gold,
        ties,
        _vs_ground_truth(table, level),
        notes,
        n_dup,
        _nan_to_none(vs_others),
        partial,
        control_quality(c, data, table, models),
    )


#: the partial-credit distance per kind of control: the label is a set (MASI, Passonneau 2006), a set of taxonomy
#: paths (MASI), or a text (normalised Levenshtein); single-valued controls have no partial credit beyond their level
_PARTIAL = {"choices": "masi", "taxonomy": "masi", "textarea": "levenshtein"}


def _partial_credit(c: Control, table: pd.DataFrame, notes: list[str]) -> dict | None:
    """Krippendorff's alpha of the control with the partial-credit distance of :data:`_PARTIAL` (the core's
    ``krippendorff_alpha(distance=...)``), or None where it does not apply."""
    distance = _PARTIAL.get(c.kind)
    if distance is None or (c.kind == "choices" and not c.multiple):
        return None
    labels = table["label"]
    if c.kind == "taxonomy":  # one path (a tuple of names) becomes a set of one path, like several paths
        labels = labels.map(lambda v: (v,) if v and isinstance(v[0], str) else v)
    data = ie.Annotations.from_long(table[["item", "annotator"]].assign(label=labels.to_numpy()))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
            alpha = ie.krippendorff_alpha(data, distance=distance)
    except ValueError as exc:  # e.g. too many distinct texts for a table of distances
        notes.append(f"partial-credit alpha ({distance}) not computed: {exc}")
        return None
    return {"distance": distance, "krippendorff_alpha": _nan_to_none(float(alpha))}


class GoldLabels(dict):
    """Task id -> the gold results of one control; ``tied``: the tasks where a tie left (part of) the gold
    undecided (no label is written for a tied item: the gold keeps none of the tied labels; those tasks need
    adjudication)."""

    tied: frozenset = frozenset()


def _gold(c: Control, data: ie.Annotations, table: pd.DataFrame) -> tuple[dict, int]:
    """Majority gold label per task (per span unit for Labels); ties are not written and are counted. A task
    with ground truth (its ground-truth annotations agree; :func:`iaa_label_studio.quality.known_labels`) has
    that label as its gold, majority or tie: the admin's answer is never overruled by a vote."""
    gs = ie.gold_standard(data, rule="majority")
    per_item = gs.per_item()
    winners = gs.labels[~gs.labels["tie"]].set_index("item")["label"]
    known = known_labels(table)[0] if c.region is None else pd.Series(dtype=object)
    known = known[known.index.isin(per_item["item"])]
    if len(known):
        winners = pd.concat([winners[~winners.index.isin(known.index)], known])
    tie = per_item["tie"].to_numpy(dtype=bool) & ~per_item["item"].isin(known.index).to_numpy()
    ties = int(tie.sum())
    gold = GoldLabels()
    tied_items = per_item.loc[tie, "item"]
    item_task = table.drop_duplicates("item").set_index("item")["task"]
    gold.tied = frozenset(int(t) for t in item_task.reindex(tied_items.to_numpy()).dropna())
    if c.region is None:
        for item, label in winners.items():
            gold.setdefault(int(item), []).append(_result(c, _gold_value(c, label), f"iaa-{c.name}"))
        return gold, ties
    # regions: a unit is gold when its majority label is a label, not "(no region)" (every annotator of the task has
    # a value for every unit); text spans take the most common (start, end) and its text, other regions the value
    # of the first region carrying the winning label
    marked = table[table["label"].astype(object) != NO_REGION]
    for item, part in marked.groupby("item", sort=False):
        if item not in winners.index or winners[item] == NO_REGION:
            continue
        tid = int(part["task"].iloc[0])
        label = winners[item]
        labels = list(label) if isinstance(label, tuple) else [label]
        if c.kind == "labels" and c.object_tag.lower() == "text":
            bounds = Counter(zip(part["start"], part["end"])).most_common(1)[0][0]
            text = part.loc[(part["start"] == bounds[0]) & (part["end"] == bounds[1]), "text"].iloc[0]
            value = {"start": bounds[0], "end": bounds[1], "labels": labels}
            if isinstance(text, str):
                value["text"] = text
            rid = f"iaa-{c.name}-{bounds[0]}-{bounds[1]}"
        else:
            same = part[part["label"].map(lambda v: v == label)]
            value = dict(same["value"].iloc[0] if len(same) else part["value"].iloc[0])
            value[c.kind if c.kind in value else "labels"] = labels
            rid = f"iaa-{c.name}-{str(item).rsplit('#', 1)[-1]}"
        gold.setdefault(tid, []).append(_result(c, value, rid))
    return gold, ties


def _vs_ground_truth(table: pd.DataFrame, level: str) -> dict:
    """Each annotator's agreement with the ground-truth annotations (the core's pairwise matrices)."""
    if not table["ground_truth"].any() or table["ground_truth"].all():
        return {}
    t = table[["item", "annotator", "label", "ground_truth"]].copy()
    t.loc[t["ground_truth"], "annotator"] = GROUND_TRUTH
    t = t.drop_duplicates(["item", "annotator"], keep="first")
    data = ie.Annotations.from_long(t, level=level)
    pa = ie.percent_agreement_matrix(data)
    ck = ie.cohen_kappa_matrix(data)
    names = list(pa.annotators)
    g = names.index(GROUND_TRUTH)
    out = {}
    for a, name in enumerate(names):
        if name == GROUND_TRUTH:
            continue
        out[str(name)] = {
            "percent_agreement": float(pa.values[g, a]),
            "cohen_kappa": float(ck.values[g, a]),
            "n_shared": int(pa.n_shared[g, a]),
        }
    return out


def analyse(
    project: Project,
    *,
    iou_threshold: float | None = None,
    primary: str | None = None,
    hierarchy: bool = True,
    models: Iterable[str] | None = None,
    own_versions: Iterable[str] | None = None,
) -> Analysis:
    """Convert every task and compute the agreement of every supported control tag.

    ``models``: prediction model versions that join as model raters (:func:`iaa_engine.model_agreement` per tag,
    beside the humans, whose own agreement never includes them); ``own_versions``: the connector's model versions,
    never accepted as raters (default: its gold and agreement versions).
    """
    exclude = [project.plugin_user] if project.plugin_user is not None else []
    conv = convert(
        project.tasks,
        project.controls,
        exclude_users=exclude,
        annotator_names=project.users,
        iou_threshold=iou_threshold,
    )
    tables: dict = {}
    if models is not None:
        if own_versions is None:
            from .sync import GOLD_VERSION, SCORE_VERSION

            own_versions = (GOLD_VERSION, SCORE_VERSION)
        names = check_models(project.tasks, list(models), own_versions)
        tables, more = model_tables(
            project.tasks,
            project.controls,
            names,
            exclude_users=exclude,
            annotator_names=project.users,
            iou_threshold=iou_threshold,
        )
        conv.notes += [f"model raters: {n}" for n in more]
        empty = pd.DataFrame(columns=["item", "annotator", "label"])
    results = {
        name: _analyse_control(cd, hierarchy=hierarchy, models=None if models is None else tables.get(name, empty))
        for name, cd in conv.controls.items()
    }
    if primary is not None and primary not in results:
        raise ValueError(
            f"--score-control must name a supported control tag of the project: "
            f"{', '.join(results) or 'none'}; got {primary!r}"
        )
    if primary is None:
        primary = next((n for n, r in results.items() if r.data is not None), next(iter(results), None))
    return Analysis(project, results, conv, primary)


def fmt(v: Any) -> str:
    return "undefined" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.4f}"
