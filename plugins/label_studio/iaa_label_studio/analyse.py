"""The agreement of a project, per control tag: every number comes from the core (:mod:`iaa_engine`).

:func:`analyse` turns the tasks :func:`iaa_label_studio.read.pull` read into one :class:`iaa_engine.Annotations`
per control tag (:mod:`iaa_label_studio.convert`) and asks the core for the report, the agreement of every task,
the gold labels, the agreement of each annotator with the others and with the ground truth, and what
:mod:`iaa_label_studio.quality` adds (scorecard, gold questions, model raters, disagreements). No HTTP, no writes.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie

from .convert import NO_REGION, Control, ControlData, Converted, adjudication, convert, result_label
from .judgments import judgments
from .names import GOLD_VERSION, SCORE_VERSION
from .quality import MODEL_PREFIX, Quality, check_models, control_quality, known_labels, model_tables
from .read import Project

__all__ = [
    "ControlResult",
    "Analysis",
    "GoldLabels",
    "analyse",
    "fmt",
    "GROUND_TRUTH",
    "ByControl",
    "agreement_over",
    "html_inputs",
    "annotators_per_task",
    "near_misses",
    "near_miss_text",
]

GROUND_TRUTH = "ground truth"


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
    #: span controls: Krippendorff's unitizing alpha, pooled and per category (:func:`unitizing`), else None
    unitizing: dict | None = None

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
                "unitizing_alpha": self.unitizing,
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
    out = {k: d[k] for k in ("kind", "threshold", "n_regions", "n_units", "n_missed", "f1_overall", "pairs")}
    near = near_misses(cd)
    if near is not None:
        out["near_misses"] = near
    return out


#: the IoU at which spans that exact boundaries leave unmatched are counted as near misses (and suggested)
NEAR_MISS_IOU = 0.5


def near_misses(cd: ControlData) -> dict | None:
    """Spans matched by exact boundaries: how many of the regions left unmatched between annotator pairs would
    match with IoU >= :data:`NEAR_MISS_IOU` (the core's :func:`iaa_engine.match_regions` on the same regions), or
    None (other regions, another threshold, no regions).

    Over every annotator pair, ``unmatched`` is Σ (regions of a + regions of b - 2 matched) with exact boundaries
    and ``near`` is 2 Σ (matched at the IoU - matched exactly): the unmatched regions that are near misses.
    ``dominant`` when they are at least half of the unmatched ones: then the disagreements (and a ``random`` flag
    beside them) are mostly about boundaries, and the report suggests ``--iou``."""
    m = cd.matching
    if m is None or m.kind != "span" or m.threshold < 1.0 or cd.regions is None or not len(cd.regions):
        return None
    p = m.pairs
    exact = int(p["n_matched"].sum()) if len(p) else 0
    unmatched = int((p["n_regions_a"] + p["n_regions_b"]).sum() - 2 * exact) if len(p) else 0
    if unmatched <= 0:
        return {"iou": NEAR_MISS_IOU, "near": 0, "unmatched": 0, "share": None, "dominant": False}
    frame = cd.regions.rename(columns={"task": "item"}).drop(columns=["value"], errors="ignore")
    loose = ie.match_regions(frame, kind="span", threshold=NEAR_MISS_IOU, no_region=NO_REGION).pairs
    near = 2 * max(int(loose["n_matched"].sum()) - exact, 0) if len(loose) else 0
    share = near / unmatched
    return {"iou": NEAR_MISS_IOU, "near": near, "unmatched": unmatched, "share": share, "dominant": share >= 0.5}


@dataclass
class Analysis:
    project: Project
    controls: dict[str, ControlResult]
    converted: Converted
    primary: str | None  # the control whose task agreement is the task's score
    #: agreement by group or over time per control tag (:func:`agreement_over`), when asked
    by: dict = field(default_factory=dict)
    #: Pairwise, Ranker and relations (:func:`iaa_label_studio.judgments.judgments`), by tag
    judgments: dict = field(default_factory=dict)
    #: task id -> its adjudication (:func:`iaa_label_studio.convert.adjudication`): the task's gold, never written
    adjudications: dict = field(default_factory=dict)

    def adjudicated_by(self) -> dict[str, int]:
        """The number of adjudicated gold labels (tasks) per adjudicator (e-mail address, else ``user <id>``)."""
        out = Counter(self.project.users.get(a["by"], f"user {a['by']}") for a in self.adjudications.values())
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

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
            "set_aside": dict(self.converted.set_aside),
            "notes": list(self.converted.notes),
            **({"by": {n: b.to_dict() for n, b in self.by.items()}} if self.by else {}),
            **({"judgments": {n: j.to_dict() for n, j in self.judgments.items()}} if self.judgments else {}),
            "adjudicated": {"n_tasks": len(self.adjudications), "by": self.adjudicated_by()},
            **({"pooled_projects": list(self.project.pooled)} if self.project.pooled else {}),
            **({"selected": self.project.pull_info["selected"]} if "selected" in self.project.pull_info else {}),
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


def _analyse_control(
    cd: ControlData, *, hierarchy: bool, models: pd.DataFrame | None = None, adjudicated: dict | None = None
) -> ControlResult:
    """``adjudicated``: task id -> the results of this control in the task's adjudication (:func:`adjudications`):
    that task's gold, and (for a control without regions) its known label."""
    c = cd.control
    adjudicated = adjudicated or {}
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
    gold, ties = _gold(c, data, table, adjudicated)
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
        control_quality(c, data, table, models, adjudicated=_adjudicated_labels(c, adjudicated, table)),
    )


def _adjudicated_labels(c: Control, adjudicated: dict, table: pd.DataFrame) -> pd.Series | None:
    """Item -> the adjudicated label of a control without regions (its item is the task), or None."""
    if c.region is not None or not adjudicated:
        return None
    out = {}
    for tid, results in adjudicated.items():
        label = result_label(c, results[0]) if len(results) == 1 else None
        if label is not None:
            out[tid] = label
    s = pd.Series(out, dtype=object)
    return s[s.index.isin(table["item"])]


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
    #: task id -> its number of tied items
    tied_items: Counter = Counter()


def _gold(c: Control, data: ie.Annotations, table: pd.DataFrame, adjudicated: dict | None = None) -> tuple[dict, int]:
    """Majority gold label per task (per span unit for Labels); ties are not written and are counted. A task
    with ground truth (its ground-truth annotations agree; :func:`iaa_label_studio.quality.known_labels`) has
    that label as its gold, majority or tie: the admin's answer is never overruled by a vote. A task with an
    adjudication (``adjudicated``: task id -> its results of this control) has those results as its gold, as the
    admin saved them, whatever the vote or the ground truth."""
    gold, ties = _voted_gold(c, data, table)
    if not adjudicated:
        return gold, ties
    for tid, results in adjudicated.items():
        gold[int(tid)] = [dict(r) for r in results]
    ties -= sum(n for t, n in gold.tied_items.items() if t in adjudicated)
    gold.tied = frozenset(t for t in gold.tied if t not in adjudicated)
    return gold, ties


def _voted_gold(c: Control, data: ie.Annotations, table: pd.DataFrame) -> tuple[dict, int]:
    """:func:`_gold` without adjudications."""
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
    gold.tied_items = Counter(int(t) for t in item_task.reindex(tied_items.to_numpy()).dropna())
    gold.tied = frozenset(gold.tied_items)
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
    gamma: bool = False,
) -> Analysis:
    """Convert every task and compute the agreement of every supported control tag.

    ``models``: prediction model versions that join as model raters (:func:`iaa_engine.model_agreement` per tag,
    beside the humans, whose own agreement never includes them); ``own_versions``: the connector's model versions,
    never accepted as raters (default: its gold and agreement versions). ``gamma``: span tags also get Mathet et
    al.'s γ beside their unitizing alpha (:func:`unitizing`; an integer program per document and sampled continuum,
    so on request).
    """
    exclude = [project.plugin_user] if project.plugin_user is not None else []
    adjudications, tasks = adjudications_of(project)
    conv = convert(
        tasks,
        project.controls,
        exclude_users=exclude,
        annotator_names=project.users,
        iou_threshold=iou_threshold,
    )
    tables: dict = {}
    joint_spans: dict = {}  # span control -> model version -> the humans' and the model's spans (unitizing alpha)
    if models is not None:
        if own_versions is None:
            own_versions = (GOLD_VERSION, SCORE_VERSION)
        names = check_models(tasks, list(models), own_versions)
        tables, more = model_tables(
            tasks,
            project.controls,
            names,
            exclude_users=exclude,
            annotator_names=project.users,
            iou_threshold=iou_threshold,
            spans=joint_spans,
        )
        conv.notes += [f"model raters: {n}" for n in more]
        empty = pd.DataFrame(columns=["item", "annotator", "label"])
    results = {
        name: _analyse_control(
            cd,
            hierarchy=hierarchy,
            models=None if models is None else tables.get(name, empty),
            adjudicated=_of_control(adjudications, name),
        )
        for name, cd in conv.controls.items()
    }
    for name, r in results.items():
        try:
            r.unitizing = unitizing(r.converted, gamma=gamma)
        except ValueError as exc:  # not expected (the span tables are checked); the rest of the report stands
            r.unitizing = {"estimate": None, "n_tasks": 0, "notes": [f"alpha_U not computed: {exc}"]}
        if models is not None and r.unitizing is not None:
            r.unitizing["models"] = model_unitizing(r.converted, r.unitizing, joint_spans.get(name, {}))
    if primary is not None and primary not in results:
        raise ValueError(
            f"--score-control must name a supported control tag of the project: "
            f"{', '.join(results) or 'none'}; got {primary!r}"
        )
    if primary is None:
        primary = next((n for n, r in results.items() if r.data is not None), next(iter(results), None))
    found = judgments(
        tasks,
        project.label_config,
        project.controls,
        conv,
        exclude_users=exclude,
        annotator_names=project.users,
        models=None if models is None else names,
    )
    return Analysis(project, results, conv, primary, judgments=found, adjudications=adjudications)


def adjudications_of(project: Project) -> tuple[dict, list[dict]]:
    """``(adjudications, tasks)``: each task's adjudication (:func:`iaa_label_studio.convert.adjudication`) by task
    id, and the tasks without the annotations that are adjudications (an adjudicator is not one more rater: she saw
    the others' work and the gold)."""
    found: dict[int, dict] = {}
    prelabels = project.raw.get("model_version") if isinstance(project.raw, dict) else None
    for t in project.tasks:
        a = adjudication(t, bot_id=project.plugin_user, gold_version=GOLD_VERSION, prelabels=prelabels)
        if a is not None:
            found[int(t["id"])] = a
    drop = {a["annotation"] for a in found.values() if a["form"] == "copy"}
    if not drop:
        return found, project.tasks
    tasks = [
        {
            **t,
            "annotations": [a for a in t.get("annotations") or [] if not (isinstance(a, dict) and a.get("id") in drop)],
        }
        if int(t["id"]) in found
        else t
        for t in project.tasks
    ]
    return found, tasks


def _of_control(adjudications: dict, name: str) -> dict:
    """Task id -> the results of control ``name`` in the task's adjudication (tasks where it has some)."""
    out = {}
    for tid, a in adjudications.items():
        results = [r for r in a["result"] if r.get("from_name") == name]
        if results:
            out[tid] = results
    return out


# --------------------------------------------------------------------------- unitizing alpha (issue 26)


def unitizing(cd: ControlData, *, gamma: bool = False) -> dict | None:
    """Krippendorff's unitizing alpha (:func:`iaa_engine.unitizing_alpha`) of a span control, beside its
    unit-matched numbers; None for other controls.

    Each task is one document, its continuum from :func:`iaa_label_studio.convert.span_table`; its participants
    are the users who submitted an annotation of it (one who drew no span marked nothing there; a skipped, i.e.
    cancelled, annotation makes nobody a participant). Every task with two or more participants is pooled into the
    headline, each among its own participants (the core's ``participants=``, :func:`_unitizing_participants`: the
    coincidence form, so tasks with different numbers of annotators make one value; with one number everywhere it
    is the value of any study in which R raters unitized those tasks). A rater's overlapping spans of one label are
    merged (``overlaps='merge'``), counted in a note. ``per_task``: each task's α_U on its own continuum among its
    participants (``sync`` writes it as task data). ``gamma``: also Mathet, Widlöcher and Métivier's γ
    (:func:`gamma`) of the tasks with the most common number of annotators, their annotators as raters #1..#R.
    """
    st = cd.unitizing
    if st is None:
        return None
    notes = list(st.notes)
    who = st.annotators[st.annotators["task"].isin(st.continuum["task"])]
    size = who.groupby("task")["annotator"].size()
    size = size[size >= 2]
    out: dict[str, Any] = {"positions": st.positions, "estimate": None, "n_tasks": 0, "notes": notes}
    if size.empty:
        notes.append("no task has two or more annotators: alpha_U is undefined")
        return out
    counts = size.value_counts()
    r = int(max(counts.index, key=lambda k: (counts[k], k)))
    n_overlap = _overlapping(st.spans)
    if n_overlap:
        notes.append(
            f"{n_overlap} span(s) overlap an earlier span of the same annotator and label: merged into their union "
            "for alpha_U (a rater's units of one category must not overlap)"
        )
    return _unitizing_participants(st, size, r, out, notes, gamma)


def _unitizing_participants(
    st: Any, size: pd.Series, r: int, out: dict[str, Any], notes: list[str], gamma: bool
) -> dict[str, Any]:
    """α_U of every task with two or more annotators, each task's annotators its participants (the core's
    ``participants=``): a document's α_U among its own participants, pooled in Krippendorff's coincidence form, so
    tasks with different numbers of annotators pool into one value (no ``other_groups``); it equals the slot-recoded
    value when every task has the same number. ``n_annotators`` is the most common number per task (the tasks γ
    and the model rows use), ``annotators_per_task`` how many tasks have each number."""
    tasks = size.index
    part = st.annotators[st.annotators["task"].isin(tasks)]
    participants = pd.DataFrame({"document": part["task"].to_numpy(), "annotator": part["annotator"].to_numpy()})
    spans = st.spans[st.spans["task"].isin(tasks)]
    spans = pd.DataFrame(
        {
            "document": spans["task"].to_numpy(),
            "annotator": spans["annotator"].to_numpy(),
            "start": spans["start"].to_numpy(),
            "end": spans["end"].to_numpy(),
            "label": spans["label"].to_numpy(),
        }
    )
    c = st.continuum[st.continuum["task"].isin(tasks)]
    cont = pd.DataFrame({"document": c["task"], "begin": c["begin"], "length": c["length"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ie.UndefinedMetricWarning)
        head = ie.unitizing_alpha(spans, continuum=cont, participants=participants, overlaps="merge")
    notes += [f"alpha_U: {w.message}" for w in caught if issubclass(w.category, ie.UndefinedMetricWarning)]
    out.update({k: getattr(head, k) for k in ("estimate", "d_o", "d_e", "n_units", "n_categories", "length")})
    out["per_category"] = [
        {"category": c, "n_units": int(n), "d_o": float(o), "d_e": float(e), "alpha": float(a)}
        for c, n, o, e, a in head.per_category[["category", "n_units", "d_o", "d_e", "alpha"]].itertuples(index=False)
    ]
    counts = size.value_counts()
    out["n_annotators"], out["n_tasks"] = r, int(len(tasks))
    out["annotators_per_task"] = {int(k): int(counts[k]) for k in sorted(counts.index)}
    out["n_participants"] = int(len(participants))
    out["per_task"] = {
        int(t): _nan_to_none(float(a)) for t, a in zip(head.per_document["document"], head.per_document["alpha"])
    }
    out["other_groups"] = []
    if len(counts) > 1:
        notes.append(
            f"alpha_U pools the {len(tasks)} tasks with {min(counts.index)} to {max(counts.index)} annotators, each "
            "task among its own annotators (its participants; Krippendorff's coincidence form: a task's pairs "
            "weighed 1/(R - 1))"
        )
    out["n_spans"] = int(len(spans))
    if gamma:  # γ on the tasks with the most common number of annotators, raters #1..#r
        g_spans, g_cont = _alpha_u(st, tasks[size.to_numpy() == r], r, [])[1:]
        out["gamma"] = _gamma(g_spans, g_cont, r, notes)
    out["notes"] = notes
    return _nan_to_none(out)


def _gamma(spans: pd.DataFrame, cont: pd.DataFrame, r: int, notes: list[str]) -> dict | None:
    """Mathet, Widlöcher and Métivier's γ (:func:`iaa_engine.gamma_agreement`, default parameters, seed 0) of the
    span table α_U was computed on (raters #1..#r; γ too depends on the raters only through their number per
    document); spans of length 0 are left out (γ cannot place them). None, with a note, where the core refuses."""
    zero = (spans["end"] <= spans["start"]).to_numpy()
    if zero.any():
        notes.append(f"gamma: {int(zero.sum())} span(s) of length 0 left out (their positional dissimilarity is 0/0)")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ie.UndefinedMetricWarning)
            g = ie.gamma_agreement(spans.loc[~zero], continuum=cont, annotators=[f"#{k}" for k in range(1, r + 1)])
    except ValueError as exc:  # too many candidate alignments: the core says how many and the ways out
        notes.append(f"gamma not computed: {exc}")
        return None
    notes += [f"gamma: {w.message}" for w in caught if issubclass(w.category, ie.UndefinedMetricWarning)]
    keys = ("estimate", "se", "gamma_cat", "gamma_cat_se", "observed_disorder", "expected_disorder", "expected_se")
    return {**{k: float(getattr(g, k)) for k in keys}, "n_samples": int(g.n_samples), "n_units": int(g.n_units)}


def model_unitizing(cd: ControlData, head: dict, joint: dict) -> list[dict]:
    """Each model version beside the humans in unitizing alpha: on the tasks of the headline (R annotators) that the
    model predicted, α_U with the model as one more rater (R + 1) and α_U of the humans alone on those same tasks
    and continua; ``joint``: version -> the joint span table (:func:`iaa_label_studio.quality.model_tables`). A
    model that marked no span of the control anywhere has no row."""
    r, rows = head.get("n_annotators"), []
    if not r or cd.unitizing is None:
        return rows
    for version, st in joint.items():
        who = st.annotators
        size = who.groupby("task")["annotator"].size()
        by_model = who.loc[who["annotator"] == MODEL_PREFIX + version, "task"]
        humans = cd.unitizing.annotators.groupby("task")["annotator"].size()
        tasks = size.index[
            (size == r + 1)
            & size.index.isin(by_model)
            & size.index.isin(humans.index[humans == r])
            & size.index.isin(st.continuum["task"])
        ]
        row: dict[str, Any] = {"model": version, "n_tasks": int(len(tasks)), "with_model": None, "humans": None}
        if len(tasks):
            alone = dataclasses.replace(cd.unitizing, continuum=st.continuum)  # the same continua for both
            row["with_model"] = _alpha_u(st, tasks, r + 1, [])[0].estimate
            row["humans"] = _alpha_u(alone, tasks, r, [])[0].estimate
        rows.append(_nan_to_none(row))
    return rows


def _overlapping(spans: pd.DataFrame) -> int:
    """How many spans start before an earlier span of the same task, annotator and label ends."""
    key = ["task", "annotator", "label"]
    s = spans.sort_values([*key, "start", "end"], kind="stable")
    same = s[key].eq(s[key].shift()).all(axis=1)
    reach = s.groupby(key, sort=False)["end"].cummax().shift()
    return int((same & (s["start"] < reach)).sum())


def _alpha_u(st: Any, tasks: pd.Index, r: int, notes: list[str]) -> tuple[ie.UnitizingAlpha, pd.DataFrame, Any]:
    """α_U of ``tasks`` (each with ``r`` annotators), every task's annotators as raters #1..#r; returns the core's
    result, the span table (``document``, ``annotator``, ``start``, ``end``, ``label``) and the continua it was
    given."""
    w = st.annotators[st.annotators["task"].isin(tasks)].sort_values(["task", "annotator"], kind="stable")
    w = w.assign(rater="#" + (w.groupby("task").cumcount() + 1).astype(str))
    spans = st.spans.merge(w, on=["task", "annotator"], how="inner")
    spans = spans[["task", "rater", "start", "end", "label"]].set_axis(
        ["document", "annotator", "start", "end", "label"], axis=1
    )
    cont = st.continuum[st.continuum["task"].isin(tasks)]
    cont = pd.DataFrame({"document": cont["task"], "begin": cont["begin"], "length": cont["length"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ie.UndefinedMetricWarning)
        res = ie.unitizing_alpha(spans, continuum=cont, annotators=[f"#{k}" for k in range(1, r + 1)], overlaps="merge")
    notes += [f"alpha_U: {w.message}" for w in caught if issubclass(w.category, ie.UndefinedMetricWarning)]
    return res, spans, cont


def annotators_per_task(u: dict) -> str:
    """``3 annotators``, or ``2 to 4 annotators`` when the tasks pooled have different numbers (participants)."""
    per = u.get("annotators_per_task") or {}
    if len(per) > 1:
        return f"{min(map(int, per))} to {max(map(int, per))} annotators"
    return f"{u['n_annotators']} annotators"


def near_miss_text(rm: dict | None) -> str | None:
    """The report's sentence about near misses of exact span boundaries (``region_matching.near_misses``) when they
    dominate, with the suggestion of ``--iou``; None otherwise."""
    near = (rm or {}).get("near_misses")
    if not near or not near.get("dominant"):
        return None
    return (
        f"Near misses: {near['near']} of the {near['unmatched']} spans left unmatched between annotator pairs "
        f"overlap another annotator's with IoU >= {near['iou']:g}: the disagreements here (and any flag in the "
        f"scorecard) are mostly about boundaries. To count those as the same span, run again with --iou "
        f"{near['iou']:g} (it also sets which tasks are 'to review')."
    )


def fmt(v: Any) -> str:
    return "undefined" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.4f}"


# ------------------------------------------------------------------- agreement by group and over time (issue 27)


@dataclass
class ByControl:
    """One control tag's agreement per group or time window (the core's :func:`iaa_engine.report` with ``by=`` or
    ``time=``: its :func:`iaa_engine.agreement_by`) and, over time, each annotator's agreement per window (the
    scorecard's ``drift``)."""

    column: str  # created_at, updated_at, group, project or data.<field>
    data: ie.Annotations | None  # the tag's annotations with ``column`` kept (None: nothing to group)
    result: ie.AgreementBy | None
    drift: pd.DataFrame | None
    notes: list[str] = field(default_factory=list)
    #: the core's report of ``data`` that holds ``result`` (``report.by``): the HTML page draws it
    report: ie.Report | None = None

    def to_dict(self) -> dict:
        return _nan_to_none(
            {
                "column": self.column,
                "agreement": self.result.to_dict() if self.result is not None else None,
                "drift": self.drift.astype({"start": str}).to_dict(orient="records")
                if self.drift is not None
                else None,
                "notes": list(self.notes),
            }
        )


def agreement_over(
    analysis: Analysis,
    *,
    time: str | None = None,
    by: str | None = None,
    freq: str = "W",
    groups: dict[str, str] | None = None,
) -> dict[str, ByControl]:
    """Per supported control tag with annotations: the agreement per time window of an annotation timestamp
    (``time``: ``created_at`` or ``updated_at``; ``freq`` ``'D'``, ``'W'`` or ``'M'``) or per value of ``by``
    (``group``: the annotator's group in ``groups``, a groups file read by
    :func:`iaa_label_studio.convert.parse_groups`; ``project``: pooled projects; ``data.<field>``: a task data
    field). The numbers are those of ``iaa report --by/--time`` on the tag's long table (an annotator's first
    annotation of a task) with that column: :func:`iaa_engine.report`'s ``by`` (:func:`iaa_engine.agreement_by`,
    with the report's kappa weights for the tag's level) and, over time, :func:`iaa_engine.annotator_report`'s
    ``drift``. Sets ``analysis.by`` and returns it. Raises ValueError for a column the tasks cannot give, or
    timestamps that cannot be read."""
    from .convert import annotator_groups, with_column

    column = time if time is not None else by
    if column is None or (time is None) == (by is None):
        raise ValueError("agreement_over needs exactly one of time= and by=")
    named: dict[str, str] = {}
    unknown: list[str] = []
    if groups is not None:
        named, unknown = annotator_groups(groups, analysis.project.users)
    out: dict[str, ByControl] = {}
    for name, r in analysis.controls.items():
        if r.data is None:
            continue
        table = r.converted.table
        table = table.loc[~table.duplicated(["item", "annotator"], keep="first").to_numpy()]
        table, notes = with_column(table, analysis.project.tasks, column, groups=named)
        if unknown:
            shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
            notes.append(f"{len(unknown)} entries of the groups file name no user of the project: {shown}")
        if table[column].isna().all():
            out[name] = ByControl(column, None, None, None, notes + [f"no annotation has a value of {column}"])
            continue
        data = ie.Annotations.from_long(
            table[["item", "annotator", "label", column]], level=r.control.level, keep=[column]
        )
        rep = ie.report(data, by=by, time=time, freq=freq)
        drift = ie.annotator_report(data, time=time, freq=freq).drift if time is not None else None
        out[name] = ByControl(column, data, rep.by, drift, notes, rep)
    analysis.by = out
    return out


def html_inputs(analysis: Analysis) -> tuple[ie.Annotations | None, dict]:
    """What the HTML page of the score control draws: its annotations and, after :func:`agreement_over`, the
    options (``by`` or ``time``, ``freq``) of :func:`iaa_engine.report` that add the agreement by group or over
    time (the page then adds its trend and drift section); ``(None, {})`` when the control has no annotations."""
    name = analysis.primary
    if name is None or analysis.controls[name].data is None:
        return None, {}
    b = analysis.by.get(name)
    if b is None or b.result is None:
        return analysis.controls[name].data, {}
    key = "time" if b.result.kind == "time" else "by"
    return b.data, {key: b.column, "freq": b.result.freq or "W"}
