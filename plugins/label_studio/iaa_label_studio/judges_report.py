"""Can an ML backend replace an annotator? The model versions of a project's predictions as judges, per control tag.

``iaa label-studio report --judges``: every model version whose predictions are in the project (or those named by
``--models``) is read against the humans' annotations of each control tag, with the core's judge functions only:

* the Alternative Annotator Test (:func:`iaa_engine.alt_test`: Calderon, Reichart & Dror 2025): the verdict, the
  winning rate ω and the advantage probability ρ;
* its agreement with a human drawn at random beside the humans' agreement with each other
  (:func:`iaa_engine.model_agreement`);
* its human-likeness z among the humans' pairwise kappas (:func:`iaa_engine.human_likeness`, Judge's Verdict);
* for a binary tag (single Choices with two values), its judged rate of the positive label on the tasks no human
  annotated, corrected for its errors on the tasks people did (:func:`iaa_engine.judge_accuracy`, Rogan–Gladen with
  Lee et al.'s interval).

The connector's own model versions (its gold and agreement predictions, :mod:`iaa_label_studio.names`) are never
judges. Nothing is written: the numbers are computed from the tasks :func:`iaa_label_studio.read.pull` read.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

import iaa_engine as ie

from .analyse import Analysis
from .convert import Control
from .names import GOLD_VERSION, SCORE_VERSION
from .quality import check_models, model_tables

__all__ = ["DEFAULT_EPSILON", "EPSILON_ADVICE", "judge_versions", "judges", "render"]

#: ε when none is given: the authors' margin for skilled annotators (students, trained workers), the usual
#: annotators of a Label Studio project (Calderon, Reichart & Dror 2025; docs/guides/judges.md)
DEFAULT_EPSILON = 0.15
#: what the output says about ε when it is the default
EPSILON_ADVICE = (
    "the default, for skilled annotators; the authors advise 0.2 for experts, 0.1 for crowd workers, and less when "
    "the humans agree little: --epsilon"
)
#: the fewest items two annotators (or a model and a human) share for their kappa to count in human-likeness
MIN_SHARED = 20
_OWN = (GOLD_VERSION, SCORE_VERSION)


def judge_versions(tasks: Iterable[Mapping[str, Any]], own: Iterable[str] = _OWN) -> list[str]:
    """The model versions of the tasks' predictions, in order of first appearance, without the connector's own."""
    own = set(own)
    seen: dict[str, None] = {}
    for t in tasks:
        for p in t.get("predictions") or []:
            v = p.get("model_version") if isinstance(p, dict) else None
            if v not in (None, "") and str(v) not in own:
                seen.setdefault(str(v), None)
    return list(seen)


def _scoring(control: Control) -> str:
    """The alignment score of the tag: minus the RMSE for numbers and ratings, exact match otherwise."""
    return "neg_rmse" if control.kind in ("rating", "number") else "accuracy"


def _binary(control: Control) -> bool:
    return control.kind == "choices" and not control.multiple and len(dict.fromkeys(control.values)) == 2


def _plain(v: Any) -> Any:
    """JSON-ready: NaN and infinities None, numpy scalars Python ones, recursively."""
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _test(
    humans: pd.DataFrame,
    models: pd.DataFrame,
    *,
    scoring: str,
    epsilon: float,
    q: float,
    min_items: int,
    positive: Any,
    confidence: float,
) -> tuple[pd.DataFrame, dict]:
    """The core's judge functions on one set of humans and models: the summary rows and the full results."""
    from iaa_engine.reporting._judges_page import summary

    alt = ie.alt_test(humans, models, epsilon=epsilon, scoring=scoring, q=q, min_items=min_items)
    with warnings.catch_warnings():  # an undefined humans' agreement is shown "undefined"
        warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        agreement = ie.model_agreement(humans, models, confidence=confidence, progress=False)
        likeness = ie.human_likeness(humans, models, min_items=MIN_SHARED, agreement=agreement)
    accuracy = None
    if positive is not None:
        accuracy = ie.judge_accuracy(humans, models, positive=positive, confidence=confidence)
    rows = summary(alt, agreement, likeness, accuracy)
    rows["likeness_reason"] = likeness.table.set_index("model")["reason"].reindex(rows["model"]).to_numpy()
    if accuracy is not None:
        rows["reason"] = accuracy.table.set_index("model")["reason"].reindex(rows["model"]).to_numpy()
    full = {"alt_test": alt.to_dict(), "agreement": agreement.to_dict(), "human_likeness": likeness.to_dict()}
    if accuracy is not None:
        full["judge_accuracy"] = accuracy.to_dict()
    return rows, full


def judges(
    analysis: Analysis,
    *,
    models: Sequence[str] | None = None,
    epsilon: float | None = None,
    q: float = 0.05,
    min_items: int = 30,
    positive: str | None = None,
    confidence: float = 0.95,
    iou_threshold: float | None = None,
) -> dict:
    """Per control tag with annotations: can each model version replace the annotators?

    ``models``: the model versions to judge (default: every version with predictions in the project, the
    connector's own excepted); ``epsilon``: the Alternative Annotator Test's margin (default
    :data:`DEFAULT_EPSILON`, said so in the result); ``q``: its false discovery rate; ``min_items``: the fewest items
    a human needs to be tested; ``positive``: the label whose rate is corrected on binary tags (default: the tag's
    first choice in the label config). Returns ``{"epsilon", "epsilon_note", "q", "min_items", "min_shared",
    "models", "tags": {tag: {...}}, "notes"}``, JSON-ready (undefined values None). Raises ValueError for a model
    version that is the connector's own or has no prediction in the project.
    """
    project = analysis.project
    default = epsilon is None
    epsilon = DEFAULT_EPSILON if default else float(epsilon)
    names = check_models(project.tasks, list(models), _OWN) if models else judge_versions(project.tasks)
    out: dict[str, Any] = {
        "epsilon": epsilon,
        "epsilon_note": EPSILON_ADVICE if default else "given with --epsilon",
        "q": q,
        "min_items": min_items,
        "min_shared": MIN_SHARED,
        "models": names,
        "tags": {},
        "notes": [],
    }
    if not names:
        out["notes"].append("no model version has predictions in the project (the connector's own are not judges)")
        return out
    exclude = [project.plugin_user] if project.plugin_user is not None else []
    tables, notes = model_tables(
        project.tasks,
        project.controls,
        names,
        exclude_users=exclude,
        annotator_names=project.users,
        iou_threshold=iou_threshold,
    )
    out["notes"] += notes
    for name, r in analysis.controls.items():
        if r.data is None:
            continue
        c = r.control
        scoring = _scoring(c)
        tag: dict[str, Any] = {"scoring": scoring, "positive": None, "rows": [], "tests": [], "notes": []}
        out["tags"][name] = tag
        m = tables.get(name)
        if m is None or not len(m):
            tag["notes"].append("no prediction of the model versions in this tag")
            continue
        pos = None
        if _binary(c):
            values = list(dict.fromkeys(c.values))
            if positive is None:
                pos = values[0]
            elif positive in values:
                pos = positive
            else:
                tag["notes"].append(f"--positive {positive!r} is not a choice of this tag ({', '.join(values)})")
        tag["positive"] = pos
        if "frame" in m.columns:  # a region tag: each model's regions matched with the humans' into its own units
            tag["notes"].append(
                "each model's regions are matched with the humans' into units of its own (a region only the model "
                "marked is a unit where the humans say (no region)): each model is tested on its own units"
            )
            parts = [
                (sub.loc[~sub["model"].to_numpy(dtype=bool)], sub.loc[sub["model"].to_numpy(dtype=bool)])
                for _, sub in m.groupby("frame", sort=False)
            ]
        else:
            table = r.converted.table
            table = table.loc[~table.duplicated(["item", "annotator"], keep="first").to_numpy()]
            parts = [(table, m)]
        frames = []
        for humans, preds in parts:
            try:
                rows, full = _test(
                    humans[["item", "annotator", "label"]],
                    preds[["item", "annotator", "label"]],
                    scoring=scoring,
                    epsilon=epsilon,
                    q=q,
                    min_items=min_items,
                    positive=pos,
                    confidence=confidence,
                )
            except ValueError as exc:  # e.g. a rating that is not a number: the rest of the report stands
                tag["notes"].append(f"not tested: {exc}")
                continue
            frames.append(rows)
            tag["tests"].append({"models": [str(v) for v in preds["annotator"].unique()], **full})
            said = [f"Alternative Annotator Test: {n}" for n in full["alt_test"]["notes"]]
            tag["notes"] += [n for n in said if n not in tag["notes"]]
            left = full["alt_test"]["left_out"]
            if left:
                tag["notes"].append(
                    f"{len(left)} (model, human) pair(s) with fewer than {min_items} items untested: "
                    + ", ".join(f"{x['human']} ({x['items']})" for x in left[:5])
                    + (", ..." if len(left) > 5 else "")
                )
        if frames:
            rows = pd.concat(frames, ignore_index=True)
            rows["model"] = rows["model"].astype(str)
            order = {v: k for k, v in enumerate(names)}
            rows = rows.iloc[sorted(range(len(rows)), key=lambda k: order.get(rows["model"].iat[k], len(order)))]
            tag["rows"] = rows.to_dict(orient="records")
    return _plain(out)


def _num(v: Any, fmt: str = ".3f") -> str:
    return "undefined" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, fmt)


def render(d: Mapping[str, Any] | None) -> list[str]:
    """Text lines of :func:`judges`' result: per tag and model version the verdict, ω and ρ, agreement beside the
    humans', human-likeness and, on binary tags, the corrected rate."""
    if not d:
        return []
    lines = [
        "Can the model versions replace the annotators? (the Alternative Annotator Test, Calderon et al. 2025)",
        f"  epsilon {d['epsilon']:g} ({d['epsilon_note']}); Benjamini-Yekutieli q {d['q']:g}; humans tested with "
        f"at least {d['min_items']} items beside the model",
    ]
    if not d["tags"]:
        lines += [f"  note: {n}" for n in d["notes"]] + [""]
        return lines
    for name, t in d["tags"].items():
        lines.append(f"== {name}: scoring {t['scoring']} ==")
        for r in t["rows"]:
            head = f"  {r['model']}: {r['verdict']}"
            if "omega" in r:
                if r["verdict"] == "undefined":
                    head += f" (no human with at least {d['min_items']} items beside it)"
                else:
                    head += f"  winning rate {_num(r['omega'], '.2f')} of {r['humans_tested']} humans"
                    head += f", advantage probability {_num(r['rho'], '.2f')}"
            lines.append(head)
            like = (
                f"z {_num(r['z'], '+.2f')}: {r['human_likeness']}"
                if r.get("human_likeness")
                else f"human-likeness undefined ({r.get('likeness_reason') or 'no z'})"
            )
            lines.append(
                f"      agreement with a human {_num(r['agreement'])} (humans among themselves "
                f"{_num(r['human_agreement'])}); mean kappa {_num(r['kappa'])}, {like}"
            )
            if t["positive"] is not None and "corrected" in r:
                why = r.get("reason") or ""
                lines.append(
                    f"      rate of {t['positive']!r} on the tasks no human annotated: judged {_num(r['raw'])}, "
                    + (f"corrected undefined ({why})" if why else
                       f"corrected {_num(r['corrected'])} [{_num(r['lower'])}, {_num(r['upper'])}]")
                )  # fmt: skip
        lines += [f"  note: {n}" for n in t["notes"]]
    lines += [f"  note: {n}" for n in d["notes"]]
    return lines + [""]
