"""Judgments of model outputs in Label Studio: ``Pairwise`` preferences, ``Ranker`` rankings (with ``Bucket``\\ s)
and ``Relations`` between regions, each turned into the core's table and measured by the core.

================  ==========================================================  ======================================
tag               one annotation's result -> the core's row                    the core
================  ==========================================================  ======================================
Pairwise          ``{"selected": "left"|"right"}`` on the objects of its       :func:`iaa_engine.preference_agreement`
                  ``toName`` (left = the first): ``item`` the prompt (the
                  data of the config's first other object, else the task),
                  ``response_a``/``response_b`` the two objects' data (shown
                  left / right), ``label`` ``A`` (left better) or ``B``
Ranker            ``{"ranker": {"<name>": [ids]}}`` (no buckets: best first),  :func:`iaa_engine.ranking_agreement`
                  or ``{"ranker": {"<bucket>": [ids], ...}}``: each bucket
                  one place, in the config's order (the first the best);
                  ids left in the list (``"_"``) are not ranked (a top-k list)
relation          ``{"type": "relation", "from_id", "to_id", "direction",      :func:`iaa_engine.relation_agreement`
                  "labels"}`` between two regions of one region tag: on the
                  tag's region matching (:mod:`iaa_label_studio.convert`)
================  ==========================================================  ======================================

As for every tag, the judges are the users who completed the task (the connector's own user excluded, a
cancelled annotation ignored), and an annotator's second annotation of a task is set aside (the first is kept).
Label Studio's ``Pairwise`` records no tie. Nothing here writes to Label Studio.
"""

from __future__ import annotations

import json
import warnings
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie

from .convert import JUDGMENT_TAGS, Control, Converted, human_annotations, user_id

__all__ = [
    "JUDGMENT_TAGS",
    "Judgment",
    "PairwiseConfig",
    "RankerConfig",
    "judgment_configs",
    "pairwise_table",
    "ranker_table",
    "relation_tables",
    "judgments",
    "render",
]

#: Pairwise's ``selected`` -> the core's preference label (the left object is shown first)
PAIRWISE_LABELS = {"left": "A", "right": "B"}
#: the key of the ids a Ranker with buckets leaves in the list (Label Studio's internal column): not ranked
UNRANKED = "_"
#: the relation label of a relation drawn without one
NO_LABEL = "(no label)"
_SECOND = "another annotation by the same annotator on the task (first kept)"


@dataclass
class PairwiseConfig:
    """A Pairwise tag: its name, the data keys of its two objects (left, right) and of the prompt object."""

    name: str
    left: str
    right: str
    prompt: str | None


@dataclass
class RankerConfig:
    """A Ranker tag: its name, the List it orders, and its buckets in config order (empty: a plain ranking)."""

    name: str
    to_name: str
    buckets: list[str] = field(default_factory=list)


def _data_key(el: ET.Element | None) -> str | None:
    v = (el.get("value") or "") if el is not None else ""
    return v[1:] if v.startswith("$") else None


def judgment_configs(xml: str) -> tuple[dict[str, PairwiseConfig], dict[str, RankerConfig]]:
    """The Pairwise and Ranker tags of a label config (already checked by :func:`convert.parse_config`)."""
    root = ET.fromstring(xml)
    named = {el.get("name"): el for el in root.iter() if el.get("name")}
    # objects: a named tag showing task data (``value="$key"``) and controlling nothing (no toName)
    objects = [el for el in root.iter() if el.get("name") and el.get("toName") is None and _data_key(el)]
    pairwise: dict[str, PairwiseConfig] = {}
    ranker: dict[str, RankerConfig] = {}
    for el in root.iter():
        name = el.get("name")
        if not name:
            continue
        targets = [t.strip() for t in (el.get("toName") or "").split(",") if t.strip()]
        if el.tag == "Pairwise" and len(targets) == 2:
            left, right = (_data_key(named.get(t)) for t in targets)
            if left is None or right is None:
                continue
            prompt = next((_data_key(o) for o in objects if o.get("name") not in targets), None)
            pairwise[name] = PairwiseConfig(name, left, right, prompt)
        elif el.tag == "Ranker":
            buckets = [b.get("name") or "" for b in el.iter("Bucket")]
            ranker[name] = RankerConfig(name, targets[0] if targets else "", [b for b in buckets if b])
    return pairwise, ranker


def _value_id(v: Any) -> str | None:
    """A response's id: its data value (text or URL), other data as JSON."""
    if v is None:
        return None
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)


def _annotations(
    tasks: Iterable[Mapping[str, Any]], exclude_users: Iterable[int], names: Mapping[Any, str], invalid: Counter
):
    """Each task's counted annotations, one per annotator (the first): ``(task, annotator, annotation)``."""
    for task in tasks:
        seen: set = set()
        for ann in human_annotations(task, exclude_users):
            uid = user_id(ann.get("completed_by"))
            who = names.get(uid, f"user {uid}")
            if who in seen:
                invalid[_SECOND] += 1
                continue
            seen.add(who)
            yield task, who, ann


def _results(ann: Mapping[str, Any], name: str, rtype: str, invalid: Counter) -> list[dict]:
    out = []
    for res in ann.get("result") or []:
        if not isinstance(res, dict) or res.get("from_name") != name:
            continue
        if str(res.get("type", "")).lower() != rtype or not isinstance(res.get("value"), dict):
            invalid[f"result type {res.get('type')!r} does not match the tag"] += 1
            continue
        out.append(res["value"])
    if len(out) > 1:
        invalid["more than one result for the tag in one annotation"] += len(out) - 1
    return out[:1]


PAIRWISE_COLUMNS = ["task", "item", "response_a", "response_b", "annotator", "label"]


def pairwise_table(
    tasks: Iterable[Mapping[str, Any]],
    pw: PairwiseConfig,
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
) -> tuple[pd.DataFrame, Counter]:
    """One row per Pairwise judgment (:data:`PAIRWISE_COLUMNS`): the prompt (the prompt object's data, else the
    task id), the responses shown left (``response_a``) and right, the judge and ``A`` / ``B``; and what was set
    aside (reason -> results)."""
    invalid: Counter = Counter()
    rows = []
    for task, who, ann in _annotations(tasks, exclude_users, dict(annotator_names or {}), invalid):
        for value in _results(ann, pw.name, "pairwise", invalid):
            label = PAIRWISE_LABELS.get(str(value.get("selected", "")).strip().lower())
            if label is None:
                invalid["selected is not 'left' or 'right'"] += 1
                continue
            data = task.get("data") or {}
            a, b = _value_id(data.get(pw.left)), _value_id(data.get(pw.right))
            if a is None or b is None or a == b:
                invalid["the task's data has no two different responses to compare"] += 1
                continue
            item = _value_id(data.get(pw.prompt)) if pw.prompt else None
            rows.append((task["id"], str(task["id"]) if item is None else item, a, b, who, label))
    table = pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)
    # a judge judges a pair of a prompt once (the core's rule): the same pair in another task, in either order,
    # is set aside (first kept)
    lo = np.where(table["response_a"] < table["response_b"], table["response_a"], table["response_b"])
    hi = np.where(table["response_a"] < table["response_b"], table["response_b"], table["response_a"])
    again = pd.DataFrame({"i": table["item"], "j": table["annotator"], "lo": lo, "hi": hi}).duplicated().to_numpy()
    if again.any():
        invalid["the same pair of the same prompt judged again by the judge (first kept)"] += int(again.sum())
        table = table.loc[~again].reset_index(drop=True)
    return table, invalid


RANKING_COLUMNS = ["task", "item", "annotator", "label"]


def ranker_table(
    tasks: Iterable[Mapping[str, Any]],
    rk: RankerConfig,
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
) -> tuple[pd.DataFrame, Counter]:
    """One row per ranking (:data:`RANKING_COLUMNS`): the item is the task, the label a list of places best first
    (without buckets one id per place; with buckets each non-empty bucket is one place, in the config's order);
    and what was set aside (reason -> results)."""
    invalid: Counter = Counter()
    rows = []
    for task, who, ann in _annotations(tasks, exclude_users, dict(annotator_names or {}), invalid):
        for value in _results(ann, rk.name, "ranker", invalid):
            got = value.get("ranker")
            if not isinstance(got, dict) or not all(
                isinstance(v, list) and all(isinstance(x, (str, int)) for x in v) for v in got.values()
            ):
                invalid["ranker is not a mapping of lists of ids"] += 1
                continue
            if rk.buckets:
                unknown = set(got) - set(rk.buckets) - {UNRANKED}
                if unknown:
                    invalid["a bucket that is not in the label config"] += 1
                    continue
                places: list = [[str(x) for x in got[b]] for b in rk.buckets if got.get(b)]
            else:
                lists = [v for k, v in got.items() if k != UNRANKED]
                if len(lists) != 1:
                    invalid["a ranking without buckets has one list of ids"] += 1
                    continue
                places = [str(x) for x in lists[0]]
            flat = [x for p in places for x in (p if isinstance(p, list) else [p])]
            if len(set(flat)) != len(flat):
                invalid["an id ranked twice"] += 1
                continue
            if not flat:
                invalid["nothing ranked"] += 1
                continue
            rows.append((task["id"], str(task["id"]), who, places))
    return pd.DataFrame(rows, columns=RANKING_COLUMNS), invalid


RELATION_COLUMNS = ["task", "annotator", "from_id", "to_id", "direction", "label"]


def relation_tables(
    tasks: Iterable[Mapping[str, Any]],
    converted: Converted,
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
) -> tuple[dict[str, pd.DataFrame], Counter]:
    """Per region tag, its relations (:data:`RELATION_COLUMNS`) with ``from_id``/``to_id`` the row positions of
    the two regions in the table the tag's regions were matched from (:attr:`convert.ControlData.regions`); and
    the relations set aside (reason -> relations): between regions of two tags, naming a region that was not
    kept (of the wrong shape, or of an annotator's second annotation)."""
    where: dict[str, tuple[str, int]] = {}  # "annotation id/region id" -> (tag, row position)
    for name, cd in converted.controls.items():
        if cd.regions is None or cd.matching is None or "region_id" not in cd.regions.columns:
            continue
        for pos, rid in enumerate(cd.regions["region_id"].to_numpy()):
            where.setdefault(rid, (name, pos))
    invalid: Counter = Counter()
    rows: dict[str, list[tuple]] = {}
    for task, who, ann in _annotations(tasks, exclude_users, dict(annotator_names or {}), Counter()):
        for res in ann.get("result") or []:
            if not isinstance(res, dict) or str(res.get("type", "")).lower() != "relation":
                continue
            a = where.get(f"{ann.get('id')}/{res.get('from_id')}")
            b = where.get(f"{ann.get('id')}/{res.get('to_id')}")
            if a is None or b is None:
                invalid["a relation names a region that is not among the matched regions"] += 1
                continue
            if a[0] != b[0]:
                invalid["a relation between regions of two tags"] += 1
                continue
            labels = res.get("labels") or []
            labels = [str(x) for x in labels] if isinstance(labels, list) else [str(labels)]
            direction = str(res.get("direction") or "right").lower()
            if direction not in ("right", "left", "bi"):
                invalid["a direction other than right, left or bi"] += 1
                continue
            if a[1] == b[1]:
                invalid["a relation from a region to itself"] += 1
                continue
            label = "+".join(sorted(set(labels))) if labels else NO_LABEL
            rows.setdefault(a[0], []).append((task["id"], who, a[1], b[1], direction, label))
    tables = {}
    for k, v in rows.items():
        table = pd.DataFrame(v, columns=RELATION_COLUMNS)
        # one relation per annotator and pair of regions: 'left' is 'right' turned round, 'bi' either way
        left, bi = table["direction"] == "left", table["direction"] == "bi"
        lo = np.where(left | (bi & (table["to_id"] < table["from_id"])), table["to_id"], table["from_id"])
        hi = np.where(left | (bi & (table["to_id"] < table["from_id"])), table["from_id"], table["to_id"])
        again = (
            pd.DataFrame({"t": table["task"], "a": table["annotator"], "lo": lo, "hi": hi, "bi": bi})
            .duplicated()
            .to_numpy()
        )
        if again.any():
            invalid["a second relation of one annotation between the same two regions (the first kept)"] += int(
                again.sum()
            )
            table = table[~again].reset_index(drop=True)
        tables[k] = table
    return tables, invalid


@dataclass
class Judgment:
    """One tag's judgments: the core's input table, its result (None when there is nothing to measure), what was
    set aside and notes."""

    name: str
    kind: str  # "pairwise", "ranking" or "relations"
    table: pd.DataFrame
    result: Any = None
    invalid: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    #: Pairwise with ``--models``: the model versions' judgments beside the humans'
    #: (:func:`iaa_engine.preference_model_agreement`), else None
    models: Any = None
    #: ... and each model version's position bias (the judges table of :func:`iaa_engine.preference_agreement` on
    #: the models' judgments alone: Holm across the model versions), else None
    model_bias: pd.DataFrame | None = None

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "n_used": len(self.table),
            "n_invalid": sum(self.invalid.values()),
            "invalid": dict(self.invalid),
            "result": self.result.to_dict() if self.result is not None else None,
            "models": self.models.to_dict() if self.models is not None else None,
            "model_position_bias": None
            if self.model_bias is None
            else [{k: _plain(v) for k, v in r.items()} for r in self.model_bias.to_dict(orient="records")],
            "notes": list(self.notes),
        }


def _measure(j: Judgment, fn: Any, *args: Any, **kwargs: Any) -> Judgment:
    if len(j.table) == 0:
        j.notes.append("no valid judgments for this tag")
        return j
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
            j.result = fn(*args, **kwargs)
    except ValueError as exc:  # e.g. a single judge: the rest of the report stands
        j.notes.append(f"not computed: {exc}")
    return j


def judgments(
    tasks: list[dict],
    label_config: str,
    controls: list[Control],
    converted: Converted,
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
    models: Iterable[str] | None = None,
) -> dict[str, Judgment]:
    """Every Pairwise and Ranker tag of the project and the relations of every region tag, measured by the core:
    keyed by the tag's name (relations by the name of the region tag their regions belong to). ``models``:
    prediction model versions whose Pairwise predictions join as LLM judges beside the humans (never among
    them)."""
    kinds = {c.kind for c in controls}
    out: dict[str, Judgment] = {}
    if not kinds & {"pairwise", "ranker"} and not any(
        str(r.get("type", "")).lower() == "relation"
        for t in tasks
        for a in t.get("annotations") or []
        for r in a.get("result") or []
        if isinstance(r, dict)
    ):
        return out
    opts: dict[str, Any] = {"exclude_users": list(exclude_users), "annotator_names": annotator_names}
    pairwise, ranker = judgment_configs(label_config) if kinds & {"pairwise", "ranker"} else ({}, {})
    for c in controls:
        if c.kind == "pairwise" and c.name not in pairwise:
            out[c.name] = Judgment(c.name, "pairwise", pd.DataFrame(columns=PAIRWISE_COLUMNS))
            out[c.name].notes.append("the Pairwise tag does not name two objects that show task data: not measured")
    for name, pw in pairwise.items():
        table, invalid = pairwise_table(tasks, pw, **opts)
        j = Judgment(name, "pairwise", table, invalid=invalid)
        if pw.prompt is None:
            j.notes.append("no prompt object in the config: each task is its own prompt")
        j.notes.append(
            "the left object is the response shown first: the position bias is meaningful only when the tasks "
            "put the responses left and right at random"
        )
        out[name] = _measure(j, ie.preference_agreement, table)
        if models is not None and j.result is not None:
            _model_judges(j, tasks, pw, list(models))
    for name, rk in ranker.items():
        table, invalid = ranker_table(tasks, rk, **opts)
        j = Judgment(name, "ranking", table, invalid=invalid)
        if rk.buckets:
            j.notes.append(
                f"buckets {', '.join(rk.buckets)} are places in this order (the first the best; the ids of a bucket "
                "share its place); ids left in the list are not ranked"
            )
        out[name] = _measure(j, ie.ranking_agreement, table)
    rel, invalid = relation_tables(tasks, converted, **opts)
    for name, table in rel.items():
        j = Judgment(name, "relations", table)
        j.notes.append(f"relations between the regions of {name}, on its region matching")
        out[f"{name} relations"] = _measure(
            j, ie.relation_agreement, converted.controls[name].matching, table, direction="direction"
        )
    if invalid:
        converted.notes.append(
            f"{sum(invalid.values())} relation(s) set aside (never used): "
            + "; ".join(f"{n} × {why}" for why, n in sorted(invalid.items()))
        )
    return out


def _model_judges(j: Judgment, tasks: list[dict], pw: PairwiseConfig, models: list[str]) -> None:
    """The Pairwise predictions of the model versions (one per task and version, the first) as judges compared
    with the humans: :func:`iaa_engine.preference_model_agreement`."""
    wanted = set(models)
    as_annotations = [
        {
            "id": t["id"],
            "data": t.get("data"),
            "annotations": [
                {"id": p.get("id"), "completed_by": p["model_version"], "result": p.get("result")}
                for p in t.get("predictions") or []
                if p.get("model_version") in wanted
            ],
        }
        for t in tasks
    ]
    table, _ = pairwise_table(as_annotations, pw, annotator_names={m: m for m in wanted})
    if table.empty:
        j.notes.append("no prediction of the named model versions fits this tag")
        return
    try:
        j.models = ie.preference_model_agreement(j.table, table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ie.UndefinedMetricWarning)
            judges = ie.preference_agreement(table).judges
        j.model_bias = judges[["judge", "n_decided", "first_wins", "first_share", "p_value", "p_holm", "position_bias"]]
    except ValueError as exc:
        j.notes.append(f"model judges not compared: {exc}")


# --------------------------------------------------------------------------- text


def _plain(v: Any) -> Any:
    """A JSON value: numpy scalars as Python ones, nan as None."""
    v = v.item() if isinstance(v, np.generic) else v
    return None if isinstance(v, float) and not np.isfinite(v) else v


def _f(v: Any) -> str:
    return "undefined" if v is None or not np.isfinite(v) else f"{v:.4f}"


#: the widest response shown in the text report's Bradley-Terry table (one response per line)
RESPONSE_WIDTH = 200


def _short(v: Any, n: int = 40) -> str:
    s = " ".join(str(v).split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _render_pairwise(r: Any) -> list[str]:
    lines = [f"  Preferences: {r.n_judgments} judgments of {r.n_pairs} pairs by {r.n_judges} judges"]
    lines += [f"    {k:<30} {_f(v)}" for k, v in r.coefficients.items()]
    lines.append("  Each judge: the first shown (left) wins, exact binomial test, Holm across judges; agreement")
    for j in r.judges.itertuples(index=False):
        flag = "  POSITION BIAS" if j.position_bias else ""
        lines.append(
            f"    {_short(j.judge, 32):<32} first wins {j.first_wins} of {j.n_decided} ({_f(j.first_share)}, p "
            f"{_f(j.p_holm)}){flag}; with the majority {_f(j.agree_majority)}, with Bradley-Terry "
            f"{_f(j.agree_bradley_terry)}"
        )
    several = r.pairs.groupby("item").size()
    several = several[several > 1].index
    if len(several):
        lines.append(
            f"  Bradley-Terry scores of prompts with several pairs (each response on its line, highest first; "
            f"longer than {RESPONSE_WIDTH} characters: cut, whole in the JSON)"
        )
        for item, part in r.scores[r.scores["item"].isin(several)].groupby("item", sort=False):
            lines.append(f"    task {_short(item, 32)}")
            order = np.argsort(-part["score"].to_numpy(dtype=float), kind="stable")
            for x, sc in zip(part["response"].to_numpy()[order], part["score"].to_numpy()[order]):
                lines.append(f"      {sc:7.3f}  {_short(x, RESPONSE_WIDTH)}")
    return lines


def _render_ranking(r: Any) -> list[str]:
    lines = [
        f"  Rankings: {r.n_rankings} rankings of {r.n_items} prompts by {r.n_judges} judges",
        f"    Krippendorff's alpha [{r.distance}] {r.alpha_text()} (D_o {_f(r.d_o)}, D_e {_f(r.d_e)})",
        f"    Kendall's W, mean over prompts {_f(r.mean_w)}",
    ]
    for row in r.per_item.itertuples(index=False):
        gold = r.gold[r.gold["item"] == row.item].sort_values("rank")
        order = " > ".join(_short(x, 16) for x in gold["response"])
        lines.append(f"    task {row.item}: W {_f(row.w)} (p {_f(row.p_value)}); gold {order}")
    lines.append("  Each judge's mean rank distance to the gold ranking")
    lines += [f"    {_short(j.judge, 32):<32} {_f(j.distance_to_gold)}" for j in r.judges.itertuples(index=False)]
    return lines


def _render_relations(r: Any) -> list[str]:
    lines = [f"  Relations: {r.n_relations} drawn, {r.n_units} relation units; Krippendorff's alpha {_f(r.alpha)}"]
    if len(r.per_label):
        lines.append("  Per relation label: alpha of the label or not")
        for lab, row in r.per_label.iterrows():
            lines.append(f"    {_short(lab, 32):<32} {_f(row['alpha'])}  ({int(row['n_pairable'])} pairable)")
    for p in r.pairs.itertuples(index=False):
        lines.append(
            f"    {_short(p.annotator_a, 20)} / {_short(p.annotator_b, 20)}: F1 {_f(p.f1)} ({p.n_matched} matched; "
            f"the first drew {p.n_relations_a}, the second {p.n_relations_b})"
        )
    return lines


def render(found: Mapping[str, Judgment]) -> list[str]:
    """Text lines of the judgments of a project (empty when it has none)."""
    lines: list[str] = []
    for key, j in found.items():
        lines.append(f"== {key} ({j.kind}) ==")
        lines.append(f"  judgments used {len(j.table)}, set aside {sum(j.invalid.values())}")
        lines += [f"    {n} × {why}" for why, n in sorted(j.invalid.items())]
        if j.result is not None:
            draw = {"pairwise": _render_pairwise, "ranking": _render_ranking, "relations": _render_relations}[j.kind]
            lines += draw(j.result)
            lines += [f"  note: {n}" for n in j.result.notes]
        if j.models is not None:
            lines.append(
                f"  Models beside the human judges (humans among themselves: {_f(j.models.human_agreement)}); "
                "agreement, kappa, pairs"
            )
            for r in j.models.table.itertuples(index=False):
                lines.append(
                    f"    {_short(r.model, 20):<20} vs {_short(r.reference, 32):<32} {_f(r.agreement)}  "
                    f"{_f(r.kappa)}  ({r.n:g})"
                )
        if j.model_bias is not None:
            for b in j.model_bias.itertuples(index=False):
                flag = "  POSITION BIAS" if b.position_bias else ""
                lines.append(
                    f"    model {_short(b.judge, 26):<26} first wins {b.first_wins} of {b.n_decided} "
                    f"({_f(b.first_share)}, p {_f(b.p_holm)}, Holm across models){flag}"
                )
        lines += [f"  note: {n}" for n in j.notes]
        lines.append("")
    return lines


# --------------------------------------------------------------------------- HTML


def html_section(found: Mapping[str, Judgment]) -> str:
    """The judgments as an HTML section (the text report's lines, escaped; a position-biased judge in bold)."""
    import html

    from iaa_engine.base._results import printable

    parts = ['<section id="judgments"><h2>Judgments: preferences, rankings, relations</h2>']
    for key, j in found.items():
        lines = render({key: j})
        parts.append(f"<h3>{html.escape(lines[0].strip('= '))}</h3><pre>")
        for line in lines[1:]:
            text = html.escape(printable(line))
            parts.append(f"<strong>{text}</strong>" if "POSITION BIAS" in line else text)
        parts.append("</pre>")
    parts.append("</section>")
    return "\n".join(parts)


def write_html(found: Mapping[str, Judgment], path: Any, title: str | None = None) -> None:
    """Add :func:`html_section` to the HTML report at ``path`` (before ``</body>``), or, with ``title``, write a
    page of the judgments alone there."""
    import html
    from pathlib import Path

    p = Path(path)
    section = html_section(found)
    if title is not None:
        page = (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"</head><body><h1>{html.escape(title)}</h1>\n{section}\n</body></html>\n"
        )
        p.write_text(page, encoding="utf-8")
        return
    page = p.read_text(encoding="utf-8")
    at = page.rfind("</body>")
    p.write_text(page[:at] + section + "\n" + page[at:] if at >= 0 else page + section, encoding="utf-8")
