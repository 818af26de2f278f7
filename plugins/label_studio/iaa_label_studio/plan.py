"""What to write: the computed state against what the server holds, as a list of changes (pure: no HTTP).

Per task, from the tasks as read (so a re-run, or a run after a crash, plans only what is still missing; only the
connector's own objects are ever named, :mod:`iaa_label_studio.names`):

* the gold label(s) as a prediction with model version :data:`~iaa_label_studio.names.GOLD_VERSION`
  (``iaa-engine-gold``), and never as an annotation: Label Studio counts every annotation that is not cancelled
  and has a result, one per user, toward a task's overlap (``tasks/mixins.py``, ``TaskMixin._get_is_labeled_value``;
  ``tasks/functions.py``, ``bulk_update_is_labeled_by_overlap``), so a gold annotation would stop a task being
  served the moment the overlap is raised or a human annotation is deleted. Predictions count toward nothing but
  the project's prediction number. Where an admin adjudicated the gold
  (:func:`iaa_label_studio.convert.adjudication`), the gold is her label, and her annotation is never written;
* the gold annotations of earlier versions (completed by the connector's user
  :data:`~iaa_label_studio.names.PLUGIN_EMAIL`) are deleted, but one that someone saved in the editor, which is
  hers (an adjudication), is never touched;
* the task's agreement as a prediction score (model version ``iaa-engine-agreement``);
* task data fields (numbers rounded to 3 decimals, strings): the agreement (``iaa_agreement``, per control
  ``iaa_agreement_<control>`` when there are several), the state of the gold (``iaa_gold``: ``final`` when the
  annotators reached the overlap, ``provisional`` before, ``adjudicated``, or ``none`` after a tie) and whether
  the task needs adjudication (``iaa_needs_adjudication``: ``yes`` when a tie left a gold label undecided: the
  gold then keeps none of the tied labels), and what to adjudicate
  (``iaa_needs_review``: ``yes`` when the task's annotations do not all agree; ``iaa_confused``: its most confused
  label pair; :mod:`iaa_label_studio.quality`), and per span tag the task's unitizing alpha among its own
  annotators (``iaa_alpha_u``; :func:`iaa_label_studio.analyse.unitizing`);
* the project's ``model_version`` (which also picks the predictions annotators get as pre-labels) only when asked
  (``set_model_version=True``, ``--set-model-version``);
* the saved Data Manager tabs (:func:`tab_definitions`; created once when missing, never changed afterwards):
  ``IAA: agreement`` (every task, lowest agreement first: the tab declares the agreement columns numeric, which is
  what makes the Data Manager sort them as numbers), ``IAA: needs adjudication`` (``iaa_needs_adjudication = yes``)
  and ``IAA: to review`` (``iaa_needs_review = yes``, with the most confused pair as a column).

:mod:`iaa_label_studio.write` applies the changes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .analyse import Analysis
from .convert import human_annotations, saved_by_a_person, user_id
from .names import (
    AGREEMENT_FIELD,
    ALPHA_U_FIELD,
    DIGITS,
    GOLD_FIELD,
    GOLD_VERSION,
    NEEDS_REVIEW,
    REVIEW_FIELD,
    SCORE_VERSION,
)
from .quality import review_values

__all__ = [
    "Change",
    "plan",
    "canonical",
    "overlap_of",
    "tab_definitions",
    "AGREEMENT_TAB",
    "REVIEW_TAB",
    "DISAGREEMENT_TAB",
]


def canonical(result: list | None) -> list:
    """A comparable form of a result list (ignores key order and the order of regions)."""
    out = []
    for r in result or []:
        if isinstance(r, dict):
            out.append(json.dumps({k: r.get(k) for k in ("from_name", "to_name", "type", "value")}, sort_keys=True))
    return sorted(out)


@dataclass
class Change:
    """One write: ``kind`` in delete_annotation (an earlier version's gold annotation), create_prediction,
    update_prediction, delete_prediction, update_data, update_project. ``update_data`` carries the fields to set
    (``{name: value}``, None removes the field): they are merged into the task's data as it is on the server
    at the time of the write."""

    kind: str
    task: int | None
    target: int | None = None  # annotation / prediction id
    body: Any = None

    def describe(self) -> str:
        what = self.kind.replace("_", " ")
        where = f"task {self.task}" if self.task is not None else "project"
        extra = ""
        if self.kind.endswith("prediction") and isinstance(self.body, dict):
            if self.body.get("score") is not None:
                extra = f" score {self.body['score']:g}"
            elif self.body.get("model_version"):
                extra = f" {self.body['model_version']}"
        if self.kind == "update_data":
            extra = " " + ", ".join(f"{k}={v}" for k, v in self.body.items())
        if self.kind == "update_project":
            extra = " " + ", ".join(f"{k}={v!r}" for k, v in self.body.items())
        return f"{what} ({where}{', id ' + str(self.target) if self.target else ''}){extra}"


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _rounded(v: Any) -> float | None:
    x = _num(v)
    return None if x is None else round(x, DIGITS)


def overlap_of(project_raw: dict) -> tuple[int, bool]:
    """``(overlap, cancelled_count)``: the annotations a task needs before Label Studio stops serving it
    (``maximum_annotations``, at least 1) and whether cancelled (skipped) annotations count toward it (the
    project's ``skip_queue`` is ``IGNORE_SKIPPED``). With an overlap cohort below 100 % some tasks need only one
    annotation: the project's maximum is used for all, which errs on the side of not completing a task."""
    try:
        overlap = max(1, int(project_raw.get("maximum_annotations") or 1))
    except (TypeError, ValueError):
        overlap = 1
    return overlap, project_raw.get("skip_queue") == "IGNORE_SKIPPED"


def plan(
    analysis: Analysis,
    *,
    bot_id: int | None,
    field: str | None = AGREEMENT_FIELD,
    model_version: str = SCORE_VERSION,
    gold_version: str = GOLD_VERSION,
    gold: bool = True,
    min_annotations: int = 2,
    set_model_version: bool = False,
) -> list[Change]:
    """Every write needed to bring the project to the computed state (nothing for what is already there).

    Only the connector's own objects are named: annotations completed by ``bot_id``, predictions of
    ``model_version`` and ``gold_version``, and the connector's data fields.
    """
    changes: list[Change] = []
    project = analysis.project
    controls = [n for n, r in analysis.controls.items() if r.data is not None]
    per_control = len(controls) > 1
    overlap, cancelled_count = overlap_of(project.raw)
    tied: set[int] = set()
    for name in controls:
        tied |= set(getattr(analysis.controls[name].gold, "tied", ()))
    mine = {model_version, gold_version}
    for task in project.tasks:
        tid = int(task["id"])
        anns = task.get("annotations") or []
        ours = [a for a in anns if bot_id is not None and user_id(a.get("completed_by")) == bot_id]
        humans = human_annotations(task, [] if bot_id is None else [bot_id])
        n_human = len({user_id(a.get("completed_by")) for a in humans})
        n_done = len(humans) + (
            sum(1 for a in anns if a.get("was_cancelled") and user_id(a.get("completed_by")) != bot_id)
            if cancelled_count
            else 0
        )
        preds = [p for p in task.get("predictions") or [] if isinstance(p, dict)]
        by_version = {v: [p for p in preds if p.get("model_version") == v] for v in mine}
        adjudicated = analysis.adjudications.get(tid)
        # the gold: a prediction, never an annotation (Label Studio counts annotations toward the overlap)
        desired: list = []
        if gold and (n_human >= min_annotations or adjudicated):
            for name in controls:
                desired += analysis.controls[name].gold.get(tid, [])
        # an earlier version's gold annotation goes, unless someone saved it in the editor (then it is hers)
        changes += [Change("delete_annotation", tid, a["id"]) for a in ours if not saved_by_a_person(a, bot_id)]
        if gold:
            gp = by_version[gold_version]
            parents = {a.get("parent_prediction") for a in anns if isinstance(a, dict)}
            # the prediction an adjudication was copied from is kept first (Label Studio would forget the link)
            gp = sorted(gp, key=lambda p: p.get("id") not in parents)
            if desired:
                body = {"task": tid, "result": desired, "model_version": gold_version}
                if not gp:
                    changes.append(Change("create_prediction", tid, body=body))
                elif canonical(gp[0].get("result")) != canonical(desired):
                    changes.append(Change("update_prediction", tid, gp[0]["id"], {"result": desired}))
                changes += [Change("delete_prediction", tid, p["id"]) for p in gp[1:] if p.get("id") not in parents]
            else:
                changes += [Change("delete_prediction", tid, p["id"]) for p in gp if p.get("id") not in parents]
        # agreement prediction
        score = _rounded(analysis.task_score(tid))
        sp = by_version[model_version]
        if score is not None:
            body = {"task": tid, "result": [], "score": score, "model_version": model_version}
            if not sp:
                changes.append(Change("create_prediction", tid, body=body))
            elif _num(sp[0].get("score")) is None or abs(_num(sp[0].get("score")) - score) > 1e-9:
                changes.append(Change("update_prediction", tid, sp[0]["id"], {"score": score}))
            changes += [Change("delete_prediction", tid, p["id"]) for p in sp[1:]]
        else:
            changes += [Change("delete_prediction", tid, p["id"]) for p in sp]
        # task data fields (field None: none at all, e.g. --no-field)
        if field is None:
            continue
        values: dict[str, Any] = {field: score}
        if per_control:
            for name in controls:
                values[f"{field}_{name}"] = _rounded(analysis.controls[name].task_agreement.get(tid, math.nan))
        agreed = n_human >= min_annotations and any(tid in analysis.controls[n].task_agreement.index for n in controls)
        if gold:
            status = None
            if adjudicated and desired:
                status = "adjudicated"
            elif agreed:
                status = ("final" if n_done >= overlap else "provisional") if desired else "none"
            values[GOLD_FIELD] = status
        values[REVIEW_FIELD] = ("yes" if tid in tied else "no") if agreed else None
        values.update(review_values(analysis, tid, agreed))  # iaa_needs_review, iaa_confused (quality.py)
        values.update(_alpha_u_values(analysis, tid))  # iaa_alpha_u of span tags (issue 33)
        data = task.get("data") or {}
        update = {k: v for k, v in values.items() if not (k not in data and v is None) and not _same(data.get(k), v)}
        if update:
            changes.append(Change("update_data", tid, body=update))
    if set_model_version and project.raw.get("model_version") != model_version:
        changes.append(Change("update_project", None, body={"model_version": model_version}))
    return changes


def _alpha_u_values(analysis: Analysis, tid: int) -> dict:
    """``{iaa_alpha_u: value}`` of the task for the span tags (``iaa_alpha_u_<tag>`` when there are several):
    Krippendorff's unitizing alpha among the task's own annotators, None where it has fewer than two or the value is
    undefined."""
    tags = [n for n, r in analysis.controls.items() if (r.unitizing or {}).get("per_task") is not None]
    return {
        (ALPHA_U_FIELD if len(tags) == 1 else f"{ALPHA_U_FIELD}_{n}"): _rounded(
            analysis.controls[n].unitizing["per_task"].get(int(tid))
        )
        for n in tags
    }


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, str) or isinstance(a, str):
        return a == b
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(float(a) - float(b)) <= 1e-9


AGREEMENT_TAB = "IAA: agreement"
REVIEW_TAB = "IAA: needs adjudication"
DISAGREEMENT_TAB = "IAA: to review"

#: Data Manager columns hidden in the tabs (noise next to the agreement)
_HIDDEN = [
    "tasks:annotations_results",
    "tasks:annotations_ids",
    "tasks:predictions_score",
    "tasks:predictions_model_versions",
    "tasks:predictions_results",
    "tasks:file_upload",
    "tasks:storage_filename",
    "tasks:created_at",
    "tasks:updated_at",
    "tasks:updated_by",
    "tasks:avg_lead_time",
    "tasks:draft_exists",
    "tasks:comment_count",
    "tasks:unresolved_comment_count",
    "tasks:last_comment_updated_at",
    "tasks:comment_authors",
]


def tab_definitions(field: str, controls: list[str], *, gold: bool = True) -> list[dict]:
    """The ``data`` of each tab (``POST /api/dm/views``); the gold status column shows whenever its field
    exists (``gold`` is accepted for symmetry with :func:`iaa_label_studio.write.ensure_tabs`)."""
    numeric = [field] + ([f"{field}_{c}" for c in controls] if len(controls) > 1 else [])
    display = {f"tasks:data.{k}": "Number" for k in numeric}
    base: dict[str, Any] = {
        "type": "list",
        "target": "tasks",
        "ordering": [f"tasks:data.{field}"],
        "hiddenColumns": {"explore": list(_HIDDEN), "labeling": list(_HIDDEN)},
        "columnsWidth": {},
        "columnsDisplayType": display,
        "gridWidth": 4,
    }
    review = {
        "filter": f"filter:tasks:data.{REVIEW_FIELD}",
        "operator": "equal",
        "type": "String",
        "value": "yes",
    }
    disagree = {**review, "filter": f"filter:tasks:data.{NEEDS_REVIEW}"}
    return [
        {**base, "title": AGREEMENT_TAB, "filters": {"conjunction": "and", "items": []}},
        {**base, "title": REVIEW_TAB, "filters": {"conjunction": "and", "items": [review]}},
        {**base, "title": DISAGREEMENT_TAB, "filters": {"conjunction": "and", "items": [disagree]}},
    ]
