"""After the number: gold questions, model raters, the annotator scorecard and what to adjudicate, per control tag.

Every statistic comes from the core; this module only chooses the data and presents the results:

* **Gold questions.** Annotations marked *ground truth* in Label Studio give the known labels of their items
  (:func:`known_labels`). They stay in the humans' data (the humans' agreement is computed as before); the core's
  :func:`iaa_engine.gold_standard` reports its agreement with them (``known=``) and
  :func:`iaa_engine.gold_accuracy` scores every annotator on them, each annotator's answers on the gold questions
  being their *other* annotations of those items (a ground-truth annotation is not its own author's answer).
* **Model raters.** The predictions of the model versions an admin names (:func:`model_tables`) become the second
  set of :func:`iaa_engine.model_agreement`: each model against each annotator, the pooled humans and the
  humans' majority gold; with ground truth, also the known labels (``(ground truth)`` rows). The humans' data never
  includes them. The connector's own model versions are never raters. On a region tag each model's regions are
  matched with the humans' regions of the same tasks into joint units (one model at a time, and only a model that
  marked a region of that tag somewhere), so its extra and its missed regions count against it.
* **The scorecard.** :func:`iaa_engine.annotator_report` on the humans' data (gold: majority).
* **What to adjudicate.** :func:`iaa_engine.disagreements` (without Dawid-Skene: the ranking's first keys are the
  item agreement and the tie); per task :func:`review_values` gives the Data Manager fields :data:`NEEDS_REVIEW`
  (``yes`` when an item of the task has annotations that do not all agree) and :data:`CONFUSED` (the most confused
  label pair, by the core's chance-normalised ratio, among the pairs that met on the task).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie

from .convert import NO_REGION, convert
from .names import CONFUSED, NEEDS_REVIEW

__all__ = [
    "Quality",
    "known_labels",
    "model_tables",
    "check_models",
    "control_quality",
    "review_values",
    "render",
    "NEEDS_REVIEW",
    "CONFUSED",
    "GROUND_TRUTH_REF",
    "MODEL_PREFIX",
]

#: the reference name of a model's rows against the ground-truth (known) labels
GROUND_TRUTH_REF = "(ground truth)"
#: the prefix of a model's annotator key in the conversion (never a Label Studio user id)
_MODEL = MODEL_PREFIX = "model:"


@dataclass
class Quality:
    """What the core says about one control tag beyond its agreement."""

    known: pd.Series  # item -> known label (ground truth)
    n_known_conflicts: int = 0
    gold_known: ie.GoldStandard | None = None
    gold_accuracy: ie.GoldAccuracy | None = None
    scorecard: ie.AnnotatorReport | None = None
    models: ie.ModelAgreement | None = None
    model_notes: list[str] = field(default_factory=list)
    disagreements: ie.Disagreements | None = None
    #: task id -> {"needs_review": bool, "confused": str | None}
    tasks: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"n_known": int(len(self.known)), "n_known_conflicts": self.n_known_conflicts}
        if self.gold_known is not None:
            out["gold_vs_known"] = _finite(self.gold_known.known_agreement)
            kt = self.gold_known.known
            out["gold_vs_known_ties"] = int(kt["tie"].sum()) if kt is not None and "tie" in kt else 0
        out["gold_accuracy"] = self.gold_accuracy.to_dict() if self.gold_accuracy is not None else None
        out["annotators"] = self.scorecard.to_dict() if self.scorecard is not None else None
        out["models"] = self.models.to_dict() if self.models is not None else None
        if self.model_notes:
            out["model_notes"] = list(self.model_notes)
        if self.notes:
            out["notes"] = list(self.notes)
        d = self.disagreements
        if d is not None:
            pairs = d.pairs.head(20)
            out["disagreements"] = {
                "n_pairable": int(d.n_pairable),
                "n_disagreeing": int(d.n_disagreeing),
                "n_tasks_to_review": sum(1 for v in self.tasks.values() if v["needs_review"]),
                "confused_pairs": [
                    {k: (_finite(v) if isinstance(v, float) else _plain(v)) for k, v in r.items()}
                    for r in pairs.to_dict(orient="records")
                ],
            }
        else:
            out["disagreements"] = None
        return out


def _finite(v: Any) -> float | None:
    return float(v) if v is not None and math.isfinite(float(v)) else None


def _plain(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        return v.item()
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def known_labels(table: pd.DataFrame) -> tuple[pd.Series, int]:
    """Item -> known label from the ground-truth rows of a control's table; items whose ground-truth annotations
    disagree are left out (their number is returned). None when every annotation is ground truth (Label Studio
    marks imported annotations so unless told otherwise)."""
    empty = pd.Series(dtype=object)
    if table.empty or not table["ground_truth"].any() or table["ground_truth"].all():
        return empty, 0
    gt = table.loc[table["ground_truth"].to_numpy(dtype=bool), ["item", "label"]]
    n_labels = gt.groupby("item", sort=False)["label"].agg(lambda s: len(set(s)))
    conflicts = n_labels.index[n_labels.to_numpy() > 1]
    gt = gt[~gt["item"].isin(conflicts)].drop_duplicates("item")
    return pd.Series(gt["label"].to_numpy(dtype=object), index=gt["item"].to_numpy()), int(len(conflicts))


def check_models(tasks: Iterable[Mapping[str, Any]], models: Sequence[str], exclude: Iterable[str]) -> list[str]:
    """The named model versions, checked: none of the connector's own, each with predictions in the project."""
    names = [str(m).strip() for m in models if str(m).strip()]
    if not names:
        raise ValueError("--models needs at least one model version (comma-separated)")
    own = sorted(set(names) & set(exclude))
    if own:
        raise ValueError(
            f"--models: {', '.join(own)} is the connector's own model version (its gold or scores), never a rater"
        )
    have = {str(p.get("model_version")) for t in tasks for p in t.get("predictions") or [] if isinstance(p, dict)}
    missing = [m for m in names if m not in have]
    if missing:
        usable = sorted(have - set(exclude))
        raise ValueError(
            f"--models: no prediction of model version {', '.join(map(repr, missing))} in the project; its "
            f"model versions: {', '.join(map(repr, usable)) or 'none'}"
        )
    return list(dict.fromkeys(names))


def model_tables(
    tasks: Iterable[Mapping[str, Any]],
    controls: list,
    models: Sequence[str],
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
    iou_threshold: float | None = None,
    spans: dict | None = None,
) -> tuple[dict, list]:
    """Per control: the predictions of ``models`` as a long table ``item, annotator, label`` (the annotator is the
    model version), converted exactly as the humans' annotations are (:func:`iaa_label_studio.convert.convert`); a
    task's first prediction of a version is used. Returns ``(tables, notes)``.

    A region tag's predictions are matched together with the humans' annotations of the same tasks
    (``exclude_users``, ``annotator_names`` and ``iou_threshold`` as the humans' conversion): its table holds the
    humans' rows too, on those joint units, with a boolean column ``model``. So a region that only a model marked
    is a unit where the humans say "(no region)" (a false positive of the model), and one it missed is a unit
    where the model says "(no region)".

    ``spans``, when given, is filled per span control with each model version's joint unitizing input (the
    humans' and that model's spans, :class:`iaa_label_studio.convert.SpanTable`; the model's annotator is
    :data:`MODEL_PREFIX` + its version), for Krippendorff's unitizing alpha with the model as one more rater.
    """
    tasks = list(tasks)  # read twice: the models alone, then each model with the humans
    wanted = set(models)
    pseudo, extra = [], 0
    by_version: list[dict[str, dict]] = []  # per task: version -> its pseudo-annotation
    for t in tasks:
        anns, seen = [], set()
        for p in t.get("predictions") or []:
            v = p.get("model_version") if isinstance(p, dict) else None
            if v not in wanted:
                continue
            if v in seen:
                extra += 1
                continue
            seen.add(v)
            anns.append({"id": p.get("id"), "completed_by": _MODEL + v, "result": p.get("result") or []})
        pseudo.append({"id": t["id"], "data": t.get("data"), "annotations": anns})
        by_version.append({a["completed_by"][len(_MODEL) :]: a for a in anns})
    usable = [c for c in controls if c.supported]
    conv = convert(pseudo, usable, annotator_names={_MODEL + m: m for m in models}, iou_threshold=iou_threshold)
    notes = [f"{extra} more prediction(s) of the same model version on a task: the first one is used"] if extra else []
    tables: dict[str, pd.DataFrame] = {}
    marked: dict[str, set] = {}  # region tag -> the versions that marked at least one region of it
    for name, cd in conv.controls.items():
        if cd.n_invalid:
            notes.append(f"{name}: {cd.n_invalid} prediction result(s) do not fit the label config: not used")
        if cd.control.region is None:
            tables[name] = cd.table[["item", "annotator", "label"]]
        else:
            t = cd.table
            marked[name] = set(t.loc[t["label"].astype(object) != NO_REGION, "annotator"].astype(str))
    frames: dict[str, list[pd.DataFrame]] = {}
    for m in models:  # each version alone with the humans: one model's regions never make units for another
        tags = [c for c in usable if c.region is not None and m in marked.get(c.name, set())]
        if not tags:
            continue
        joint = [
            {
                "id": t["id"],
                "data": t.get("data"),
                "annotations": list(t.get("annotations") or []) + ([v[m]] if m in v else []),
            }
            for t, v in zip(tasks, by_version)
        ]
        names = {**(annotator_names or {}), _MODEL + m: _MODEL + m}
        both = convert(joint, tags, exclude_users=exclude_users, annotator_names=names, iou_threshold=iou_threshold)
        for name, cd in both.controls.items():
            if spans is not None and cd.unitizing is not None:
                spans.setdefault(name, {})[m] = cd.unitizing
            t = cd.table
            is_model = (t["annotator"].astype(str) == _MODEL + m).to_numpy()
            out = t[["item", "annotator", "label", "ground_truth"]].assign(model=is_model, frame=m)
            out.loc[is_model, "annotator"] = m
            frames.setdefault(name, []).append(out.drop_duplicates(["item", "annotator", "model"]))
    for name, parts in frames.items():
        tables[name] = pd.concat(parts, ignore_index=True)
    return tables, notes


def control_quality(
    control: Any,
    data: ie.Annotations,
    table: pd.DataFrame,
    models: pd.DataFrame | None,
    *,
    adjudicated: pd.Series | None = None,
) -> Quality:
    """The scorecard, the gold questions, the model raters and the disagreements of one control (the humans'
    long ``table`` as analysed, one row per item and annotator).

    ``adjudicated``: item -> the label an admin adjudicated (:func:`iaa_label_studio.convert.adjudication`): a
    known label (it replaces the ground truth's on its item), the gold of the scorecard's accuracy on its item."""
    known, conflicts = known_labels(table)
    adj = pd.Series(dtype=object) if adjudicated is None else adjudicated
    if len(adj):
        known = pd.concat([known[~known.index.isin(adj.index)], adj])
    q = Quality(known, conflicts)
    cats = set(data.categories) if data.categories is not None else set()
    # the core's gold functions take known labels among the data's categories; one nobody chose is an answer key
    # for the gold questions only (below)
    in_data = known[[k in cats for k in known.to_numpy()]] if len(known) else known
    if len(in_data) < len(known):
        q.notes.append(
            f"{len(known) - len(in_data)} known label(s) that no annotator chose: used for the gold questions only"
        )
    quiet = warnings.catch_warnings()
    with quiet:
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        if len(in_data):
            q.gold_known = ie.gold_standard(data, rule="majority", known=in_data)
        if len(known):
            # the ground-truth annotations become one pseudo-annotator (so that every category stays one, even a
            # known label nobody else chose), whose row is dropped: a ground-truth annotation is not its author's
            # answer to the gold question
            gt = table["ground_truth"].to_numpy(dtype=bool)
            answers = table[["item", "annotator", "label"]].copy()
            answers.loc[gt, "annotator"] = GROUND_TRUTH_REF
            if len(adj):  # the adjudications: answers of the pseudo-annotator too (never scored)
                extra = pd.DataFrame({"item": adj.index, "annotator": GROUND_TRUTH_REF, "label": adj.to_numpy()})
                answers = pd.concat([answers[~(gt & answers["item"].isin(adj.index).to_numpy())], extra])
            answered = ie.Annotations.from_long(answers, duplicates="first")
            acc = ie.gold_accuracy(answered, known)
            rows = acc.table[acc.table["annotator"].astype(object) != GROUND_TRUTH_REF].reset_index(drop=True)
            q.gold_accuracy = dataclasses.replace(acc, table=rows)
        if data.annotators is not None and len(data.annotators) >= 2:
            # bounded memory whatever the number of labels (a TextArea's every text is one): the core skips what
            # would not fit and says so in the scorecard's notes
            gold = None
            if len(adj) and q.gold_known is not None:  # the majority, but the admin's label where she adjudicated
                voted = q.gold_known.labels
                voted = pd.Series(voted["label"].to_numpy(dtype=object), index=voted["item"].to_numpy())[
                    ~voted["tie"].to_numpy(dtype=bool)
                ]
                adj_in = adj[adj.index.isin(in_data.index)]
                gold = pd.concat([voted[~voted.index.isin(adj_in.index)], adj_in])
            q.scorecard = ie.annotator_report(data, progress=False, **({} if gold is None else {"gold": gold}))
        if models is not None:
            if "frame" in models.columns:  # a region tag: each model matched with the humans into joint units
                parts = [_model_rows(sub) for _, sub in models.groupby("frame", sort=False)]
                res = dataclasses.replace(
                    parts[0],
                    table=pd.concat([r.table for r in parts], ignore_index=True),
                    human_agreement=float(ie.joint_probability(data, replace_undefined_by=np.nan)),
                    notes=list(dict.fromkeys(n for r in parts for n in r.notes)),
                )
                q.models = res
                q.model_notes.append(
                    "each model's regions are matched with the humans' into units (a region only the model marked is "
                    "a unit where the humans say (no region), one it missed a unit where it does); the humans' own "
                    "agreement beside them is the report's"
                )
            elif len(models):
                res = _model_rows(table[["item", "annotator", "label", "ground_truth"]], models, known)
                q.models = res
            else:
                q.model_notes.append("no prediction of the named model versions fits this tag")
        q.disagreements = ie.disagreements(data, dawid_skene=False)
        q.tasks = _per_task(control, q.disagreements, table)
    return q


def _model_rows(humans: pd.DataFrame, raters: pd.DataFrame | None = None, known: pd.Series | None = None) -> Any:
    """:func:`iaa_engine.model_agreement` of ``raters`` against ``humans`` (item, annotator, label, ground_truth),
    with ``(ground truth)`` rows against the known labels. Without ``raters``, ``humans`` is one joint frame of a
    region tag (a boolean column ``model`` tells the model's rows) and its known labels are its own."""
    if raters is None:
        is_model = humans["model"].to_numpy(dtype=bool)
        raters = humans.loc[is_model, ["item", "annotator", "label"]]
        humans = humans.loc[~is_model]
        known = known_labels(humans)[0]
    people = humans[["item", "annotator", "label"]]
    res = ie.model_agreement(people, raters, progress=False)
    if known is not None and len(known):
        on_known = ie.model_agreement(people, raters, gold=known, progress=False).table
        on_known = on_known[on_known["kind"] == "gold"].assign(reference=GROUND_TRUTH_REF)
        res = dataclasses.replace(res, table=pd.concat([res.table, on_known], ignore_index=True))
    return res


def _label_text(control: Any, v: Any) -> str:
    if isinstance(v, tuple):
        if v and all(isinstance(x, str) for x in v):
            return "/".join(v) if control.kind == "taxonomy" else "+".join(v)
        return ", ".join(_label_text(control, x) for x in v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _per_task(control: Any, d: ie.Disagreements, table: pd.DataFrame) -> dict:
    """Task id -> needs review (an item of the task is listed) and its most confused pair (lowest pair rank)."""
    item_task = table.drop_duplicates("item").set_index("item")["task"]
    tasks = {int(t): {"needs_review": False, "confused": None} for t in item_task.unique()}
    flagged = item_task.reindex(d.items["item"].to_numpy()).dropna()
    for t in flagged.unique():
        tasks[int(t)]["needs_review"] = True
    if len(d.pair_items):
        pi = d.pair_items.assign(task=item_task.reindex(d.pair_items["item"].to_numpy()).to_numpy())
        best = pi.dropna(subset=["task"]).sort_values("pair", kind="stable").drop_duplicates("task")
        pairs = d.pairs.set_index("rank")
        for t, rank in zip(best["task"], best["pair"]):
            a, b = pairs.loc[rank, "label_a"], pairs.loc[rank, "label_b"]
            tasks[int(t)]["confused"] = f"{_label_text(control, a)} / {_label_text(control, b)}"
    return tasks


def review_values(analysis: Any, task_id: int, agreed: bool) -> dict:
    """The task's review fields for :func:`iaa_label_studio.plan.plan`: ``{NEEDS_REVIEW: 'yes'|'no', CONFUSED:
    text or None}``; both None for a task without agreement (``agreed`` False)."""
    qs = [
        (n, r.quality)
        for n, r in analysis.controls.items()
        if getattr(r, "quality", None) is not None and r.quality.disagreements is not None
    ]
    if not agreed or not qs:  # no agreement, or no disagreement list computed (too many distinct labels)
        return {NEEDS_REVIEW: None, CONFUSED: None}
    needs, confused = False, []
    for name, q in qs:
        v = q.tasks.get(int(task_id))
        if v is None:
            continue
        needs = needs or v["needs_review"]
        if v["confused"]:
            confused.append(f"{name}: {v['confused']}" if len(qs) > 1 else v["confused"])
    return {NEEDS_REVIEW: "yes" if needs else "no", CONFUSED: "; ".join(confused) or None}


def _f(v: Any, digits: int = 3) -> str:
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.{digits}f}"


def _pct(v: Any) -> str:
    return "-" if v is None or not math.isfinite(v) else f"{v:.0%}"


def _flag_text(r: Mapping[str, Any], need: Any) -> str:
    """The scorecard's flag column: the flag, or why an annotator was not judged (too few shared items) in the
    text itself, not only in the JSON's ``flag_reason``."""
    if r.get("flag"):
        return str(r["flag"])
    reason = str(r.get("flag_reason") or "")
    if not reason.startswith("not judged"):
        return ""
    n = int(r.get("n_pairable") or 0)
    if not n:
        return "not judged: shares no item with another annotator"
    if need and n >= need:  # enough items, but no kappa to test (e.g. one label everywhere)
        return reason
    return f"not judged: {n} shared item{'s' if n != 1 else ''}" + (f" (needs {need})" if need else "")


def render(d: Mapping[str, Any] | None) -> list[str]:
    """Text lines (indented) for the ``quality`` part of a control's details: the scorecard, the gold
    questions, the model raters and the most confused pairs."""
    if not d:
        return []
    lines: list[str] = []
    card = d.get("annotators")
    if card and card.get("annotators"):
        lines.append(
            "  Annotators (scorecard: agreement and kappa with the pooled others, accuracy against the majority gold, "
            "change in alpha without them, flag)"
        )
        lines.append(f"    {'annotator':<32} {'items':>6} {'agree':>6} {'kappa':>6} {'acc':>6} {'d_alpha':>7}  flag")
        need = (card.get("settings") or {}).get("min_items")
        for r in card["annotators"]:
            lines.append(
                f"    {str(r['annotator']):<32} {r['n_items']:>6} {_f(r.get('agreement')):>6} {_f(r.get('kappa')):>6} "
                f"{_f(r.get('accuracy')):>6} {_f(r.get('alpha_change')):>7}  {_flag_text(r, need)}"
            )
    ga = d.get("gold_accuracy")
    if ga and ga.get("annotators"):
        lines.append(
            f"  Gold questions ({d['n_known']} ground-truth items; threshold {ga['threshold']:g}, "
            f"{ga['confidence']:.0%} Wilson interval)"
            + (
                f"; the majority gold agrees with {_pct(d.get('gold_vs_known'))} of them"
                + (
                    f" ({d['gold_vs_known_ties']} a tie the majority left undecided: not counted as agreeing)"
                    if d.get("gold_vs_known_ties")
                    else ""
                )
                if "gold_vs_known" in d
                else ""
            )
        )
        for r in ga["annotators"]:
            if not r["n_gold"]:  # answered no gold question (e.g. the author of the ground truth)
                continue
            lines.append(
                f"    {str(r['annotator']):<32} {r['n_correct']}/{r['n_gold']} = {_f(r['accuracy'])} "
                f"[{_f(r['lower'])}, {_f(r['upper'])}] {r['status']}"
            )
    m = d.get("models")
    if m and m.get("rows"):
        lines.append(f"  Models beside the humans (humans among themselves: agreement {_f(m.get('human_agreement'))})")
        order = list(dict.fromkeys(r["model"] for r in m["rows"]))
        for r in sorted(m["rows"], key=lambda r: order.index(r["model"])):  # each model's rows together
            lines.append(
                f"    {str(r['model']):<20} vs {str(r['reference']):<32} agreement {_f(r.get('agreement'))} "
                f"kappa {_f(r.get('kappa'))}  (n {_f(r.get('n'), 0) if r.get('n') is not None else '-'})"
            )
    for n in d.get("model_notes") or []:
        lines.append(f"  note (models): {n}")
    for n in d.get("notes") or []:
        lines.append(f"  note: {n}")
    dis = d.get("disagreements")
    if dis and dis.get("confused_pairs"):
        lines.append(
            f"  To adjudicate: {dis['n_tasks_to_review']} task(s) with disagreeing annotations; most confused label "
            "pairs (observed / chance-expected coincidences)"
        )
        for r in dis["confused_pairs"][:5]:
            lines.append(
                f"    {str(r['label_a'])} / {str(r['label_b'])}: ratio {_f(r.get('ratio'))}, {r['n_items']} item(s)"
            )
    return lines
