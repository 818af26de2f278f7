"""Saved Data Manager tabs that show the connector's data fields (created once, never changed afterwards).

* ``IAA: agreement``: every task, lowest agreement first (sorted as numbers: the tab declares the agreement
  columns numeric, which is what makes the Data Manager sort them numerically), with the gold status and the
  "needs adjudication" flag as columns;
* ``IAA: needs adjudication``: the same columns, filtered on ``iaa_needs_adjudication = yes`` (tasks where a tie
  left a gold label undecided);
* ``IAA: to review``: the tasks whose annotations do not all agree (``iaa_needs_review = yes``, from the core's
  :func:`iaa_engine.disagreements`), lowest agreement first (the list's first key), with the most confused label
  pair (``iaa_confused``) as a column.

A tab with the same title is left as it is (an admin may have changed its columns or filters); deleting it
makes the next sync create it again.
"""

from __future__ import annotations

from typing import Any

from .api import Api

__all__ = ["ensure_tabs", "tab_definitions", "AGREEMENT_TAB", "REVIEW_TAB", "DISAGREEMENT_TAB"]

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
    exists (``gold`` is accepted for symmetry with :func:`ensure_tabs`)."""
    from .sync import REVIEW_FIELD

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
    from .quality import NEEDS_REVIEW

    disagree = {**review, "filter": f"filter:tasks:data.{NEEDS_REVIEW}"}
    return [
        {**base, "title": AGREEMENT_TAB, "filters": {"conjunction": "and", "items": []}},
        {**base, "title": REVIEW_TAB, "filters": {"conjunction": "and", "items": [review]}},
        {**base, "title": DISAGREEMENT_TAB, "filters": {"conjunction": "and", "items": [disagree]}},
    ]


def ensure_tabs(api: Api, project_id: int, analysis: Any, *, field: str, gold: bool = True) -> dict:
    """Create the tabs that are missing; returns ``{"created": [titles], "kept": [titles]}``."""
    controls = [n for n, r in analysis.controls.items() if r.data is not None]
    have = {str((v.get("data") or {}).get("title")) for v in api.views(project_id)}
    out: dict[str, list[str]] = {"created": [], "kept": []}
    for data in tab_definitions(field, controls, gold=gold):
        if data["title"] in have:
            out["kept"].append(data["title"])
        else:
            api.create_view(project_id, data)
            out["created"].append(data["title"])
    return out
