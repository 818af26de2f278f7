"""Label Studio JSON -> the core's data model (pure conversion: no network, no statistics).

A project's label config names its control tags; each supported tag becomes one
long table ``item, annotator, label`` that :meth:`iaa_engine.Annotations.from_long`
reads. Results that do not fit the config are counted with a reason and never used.

==========  ==============================================================  =========
tag         label of one annotation                                          level
==========  ==============================================================  =========
Choices     the chosen value (single) or the sorted tuple of values          nominal
            (``choice="multiple"``: exact match of the set)
Rating      the number of stars                                              ordinal
Number      the number                                                       interval
Labels      per span unit (spans matched across annotators, exact            nominal
            boundaries or IoU >= threshold) the span's label(s)
Taxonomy    the selected path (a tuple), or the sorted tuple of paths        nominal
TextArea    the text (lines joined, surrounding white space trimmed): exact  nominal
==========  ==============================================================  =========
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = [
    "Control",
    "ControlData",
    "Converted",
    "parse_config",
    "convert",
    "human_annotations",
    "SUPPORTED",
    "span_units",
]

#: result type (lower case) -> the tag that writes it
SUPPORTED = {
    "choices": "Choices",
    "labels": "Labels",
    "rating": "Rating",
    "number": "Number",
    "taxonomy": "Taxonomy",
    "textarea": "TextArea",
}
COLUMNS = ["task", "item", "annotator", "label", "ground_truth", "annotation", "start", "end", "text"]
_NOT_SUPPORTED_NOTE = "agreement for {tag} is not supported (no matching rule for this tag); its results are ignored"


@dataclass
class Control:
    """One control tag of a label config."""

    name: str
    tag: str  # as in the XML, e.g. "Choices"
    to_name: str
    multiple: bool = False
    values: list[str] = field(default_factory=list)  # Choices / Labels values in config order
    max_rating: int = 5
    minimum: float | None = None
    maximum: float | None = None
    paths: set[tuple] | None = None  # Taxonomy paths (and their prefixes) in the config, None if open

    @property
    def kind(self) -> str:
        return self.tag.lower()

    @property
    def supported(self) -> bool:
        return self.kind in SUPPORTED

    @property
    def level(self) -> str:
        return {"rating": "ordinal", "number": "interval"}.get(self.kind, "nominal")


def _taxonomy_paths(node: ET.Element, prefix: tuple = ()) -> set[tuple]:
    out: set[tuple] = set()
    for child in node:
        if child.tag == "Choice":
            value = child.get("value") or child.get("alias") or ""
            path = prefix + (value,)
            out.add(path)
            out |= _taxonomy_paths(child, path)
    return out


def parse_config(xml: str) -> list[Control]:
    """Every control tag of a label config, in document order (supported or not)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ValueError(f"the project's label config is not valid XML: {exc}") from None
    controls: list[Control] = []
    known = {
        "choices",
        "labels",
        "rating",
        "number",
        "taxonomy",
        "textarea",
        "rectanglelabels",
        "polygonlabels",
        "keypointlabels",
        "brushlabels",
        "ellipselabels",
        "hypertextlabels",
        "paragraphlabels",
        "timeserieslabels",
        "rectangle",
        "polygon",
        "keypoint",
        "brush",
        "ellipse",
        "pairwise",
        "ranker",
        "relations",
        "datetime",
        "magicwand",
        "videorectangle",
    }
    for el in root.iter():
        name = el.get("name")
        if el.tag.lower() not in known or not name:
            continue
        c = Control(name=name, tag=el.tag, to_name=el.get("toName", ""))
        if c.kind in ("choices", "labels"):
            c.values = [ch.get("value") or ch.get("alias") or "" for ch in el if ch.tag in ("Choice", "Label")]
            c.multiple = c.kind == "choices" and el.get("choice", "single") == "multiple"
        elif c.kind == "rating":
            c.max_rating = int(float(el.get("maxRating", "5")))
        elif c.kind == "number":
            c.minimum = float(el.get("min")) if el.get("min") not in (None, "") else None
            c.maximum = float(el.get("max")) if el.get("max") not in (None, "") else None
        elif c.kind == "taxonomy":
            paths = _taxonomy_paths(el)
            c.paths = paths or None  # a taxonomy loaded from an API has no paths in the XML: accept any
            c.multiple = True
        controls.append(c)
    return controls


def human_annotations(task: Mapping[str, Any], exclude_users: Iterable[int] = ()) -> list[dict]:
    """The task's annotations that count: not cancelled, not written by the plugin (``exclude_users``)."""
    skip = set(exclude_users)
    return [
        a
        for a in task.get("annotations") or []
        if not a.get("was_cancelled") and user_id(a.get("completed_by")) not in skip
    ]


def user_id(value: Any) -> Any:
    """A ``completed_by`` value as the user id (some endpoints give the user object)."""
    return value.get("id") if isinstance(value, dict) else value


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return v


def _value(control: Control, value: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(label, None) for a result that fits the control, else (None, reason)."""
    kind = control.kind
    if kind == "choices":
        ch = value.get("choices")
        if not isinstance(ch, list) or not ch or not all(isinstance(x, str) for x in ch):
            return None, "wrong shape (expected a non-empty 'choices' list of strings)"
        bad = [x for x in ch if control.values and x not in control.values]
        if bad:
            return None, f"unknown label {bad[0]!r}"
        if control.multiple:
            return tuple(sorted(set(ch), key=control.values.index if control.values else None)), None
        if len(ch) != 1:
            return None, "several choices in a single-choice tag"
        return ch[0], None
    if kind == "rating":
        r = _number(value.get("rating"))
        if r is None or r != int(r):
            return None, "wrong shape (expected an integer 'rating')"
        if not 0 <= r <= control.max_rating:
            return None, f"rating {r} outside 0..{control.max_rating}"
        return int(r), None
    if kind == "number":
        x = _number(value.get("number"))
        if x is None:
            return None, "wrong shape (expected a numeric 'number')"
        if (control.minimum is not None and x < control.minimum) or (
            control.maximum is not None and x > control.maximum
        ):
            return None, f"number {x} outside the config's min/max"
        return x, None
    if kind == "taxonomy":
        tx = value.get("taxonomy")
        if (
            not isinstance(tx, list)
            or not tx
            or not all(isinstance(p, list) and p and all(isinstance(s, str) for s in p) for p in tx)
        ):
            return None, "wrong shape (expected 'taxonomy' as a list of paths)"
        paths = sorted({tuple(p) for p in tx})
        if control.paths is not None:
            bad = [p for p in paths if p not in control.paths]
            if bad:
                return None, f"unknown taxonomy path {'/'.join(bad[0])!r}"
        return (paths[0] if len(paths) == 1 else tuple(paths)), None
    if kind == "textarea":
        tx = value.get("text")
        if isinstance(tx, str):
            tx = [tx]
        if not isinstance(tx, list) or not all(isinstance(s, str) for s in tx):
            return None, "wrong shape (expected 'text' as a list of strings)"
        text = "\n".join(s.strip() for s in tx).strip()
        return (text if text else None), (None if text else "empty text")
    raise AssertionError(kind)  # pragma: no cover - Labels are handled by span_units


def _span(control: Control, value: Mapping[str, Any]) -> tuple[tuple | None, str | None]:
    start, end = _number(value.get("start")), _number(value.get("end"))
    labels = value.get("labels")
    if start is None or end is None or end < start:
        return None, "wrong shape (a span needs numeric 'start' <= 'end')"
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        return None, "wrong shape (expected a non-empty 'labels' list of strings)"
    bad = [x for x in labels if control.values and x not in control.values]
    if bad:
        return None, f"unknown label {bad[0]!r}"
    label = labels[0] if len(labels) == 1 else tuple(sorted(set(labels)))
    return (start, end, label), None


def iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Intersection over union of two intervals (boundary matching is conversion, not a statistic)."""
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return 1.0 if union == 0 and a == b else (inter / union if union > 0 else 0.0)


def span_units(spans: list[tuple[Any, float, float, Any]], threshold: float | None) -> list[tuple[int, Any, Any]]:
    """Group one task's spans ``(annotator, start, end, label)`` into units.

    ``threshold=None``: exact boundaries, a unit is one (start, end). Otherwise
    spans are taken in (start, end, annotator) order and each joins the unit whose
    first span overlaps it best with IoU >= threshold and that has no span of the
    same annotator yet, or starts a new unit. Returns ``(unit, annotator, label)``;
    units are numbered by their first span.
    """
    out: list[tuple[int, Any, Any]] = []
    if threshold is None:
        keys: dict[tuple, int] = {}
        for ann, s, e, lab in sorted(spans, key=lambda x: (x[1], x[2], str(x[0]))):
            out.append((keys.setdefault((s, e), len(keys)), ann, lab))
        return out
    anchors: list[tuple[float, float]] = []
    members: list[set] = []
    for ann, s, e, lab in sorted(spans, key=lambda x: (x[1], x[2], str(x[0]))):
        best, best_iou = -1, -1.0
        for u, anchor in enumerate(anchors):
            if ann in members[u]:
                continue
            v = iou(anchor, (s, e))
            if v >= threshold and v > best_iou:
                best, best_iou = u, v
        if best < 0:
            anchors.append((s, e))
            members.append(set())
            best = len(anchors) - 1
        members[best].add(ann)
        out.append((best, ann, lab))
    return out


@dataclass
class ControlData:
    """One control tag's annotations as a long table, with what was set aside."""

    control: Control
    table: pd.DataFrame  # COLUMNS: one row per (item, annotator); start/end/text only for spans
    invalid: Counter = field(default_factory=Counter)  # reason -> number of results
    n_tasks: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def n_invalid(self) -> int:
        return sum(self.invalid.values())


@dataclass
class Converted:
    """The output of :func:`convert`."""

    controls: dict[str, ControlData] = field(default_factory=dict)
    unknown: Counter = field(default_factory=Counter)  # from_name not in the config -> results
    notes: list[str] = field(default_factory=list)
    n_tasks: int = 0


def convert(
    tasks: Iterable[Mapping[str, Any]],
    controls: list[Control],
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
    iou_threshold: float | None = None,
) -> Converted:
    """Long tables per supported control; results for unknown controls are counted by ``from_name``.

    Parameters
    ----------
    tasks : tasks as returned by ``/api/tasks?fields=all`` (with their annotations)
    controls : :func:`parse_config`
    exclude_users : user ids whose annotations are ignored (the plugin's own user)
    annotator_names : user id -> display name (default ``"user <id>"``)
    iou_threshold : None for exact span boundaries, else the IoU a span needs to join a unit
    """
    names = dict(annotator_names or {})
    by_name = {c.name: c for c in controls}
    rows: dict[str, list[tuple]] = {c.name: [] for c in controls if c.supported}
    invalid: dict[str, Counter] = {c.name: Counter() for c in controls if c.supported}
    unknown: Counter = Counter()
    spans: dict[tuple, list] = defaultdict(list)  # (control, task) -> [(annotator, start, end, label, gt, ann id)]
    n_tasks = 0
    for task in tasks:
        n_tasks += 1
        tid = task["id"]
        for ann in human_annotations(task, exclude_users):
            uid = user_id(ann.get("completed_by"))
            who = names.get(uid, f"user {uid}")
            gt = bool(ann.get("ground_truth"))
            seen: set[str] = set()
            for res in ann.get("result") or []:
                fname = res.get("from_name") if isinstance(res, dict) else None
                c = by_name.get(fname)
                if c is None:
                    unknown[str(fname)] += 1
                    continue
                if not c.supported:
                    continue
                rtype = str(res.get("type", "")).lower()
                value = res.get("value")
                if rtype != c.kind or not isinstance(value, dict):
                    invalid[c.name][f"result type {res.get('type')!r} does not match the {c.tag} tag"] += 1
                    continue
                if c.kind == "labels":
                    span, why = _span(c, value)
                    if why:
                        invalid[c.name][why] += 1
                    else:
                        spans[(c.name, tid)].append((who, *span, gt, ann.get("id"), value.get("text")))
                    continue
                if c.name in seen:
                    invalid[c.name]["more than one result for the tag in one annotation"] += 1
                    continue
                label, why = _value(c, value)
                if why:
                    invalid[c.name][why] += 1
                    continue
                seen.add(c.name)
                rows[c.name].append((tid, tid, who, label, gt, ann.get("id"), None, None, None))
    for (cname, tid), sp in spans.items():
        # one span per (annotator, boundaries): a second identical span of the same annotator is set aside
        kept: dict[tuple, tuple] = {}
        for who, s, e, lab, gt, aid, text in sp:
            if (who, s, e) in kept:
                invalid[cname]["duplicate span (same annotator, same boundaries)"] += 1
                continue
            kept[(who, s, e)] = (lab, gt, aid, text)
        ordered = sorted(kept.items(), key=lambda kv: (kv[0][1], kv[0][2], str(kv[0][0])))
        units = span_units([(who, s, e, lab) for (who, s, e), (lab, _, _, _) in ordered], iou_threshold)
        for (unit, who, lab), ((_, s, e), (_, gt, aid, text)) in zip(units, ordered):
            rows[cname].append((tid, f"{tid}#{unit}", who, lab, gt, aid, s, e, text))
    result = Converted(unknown=unknown, n_tasks=n_tasks)
    for c in controls:
        if not c.supported:
            result.notes.append(f"{c.name} ({c.tag}): " + _NOT_SUPPORTED_NOTE.format(tag=c.tag))
            continue
        table = pd.DataFrame(rows[c.name], columns=COLUMNS)
        cd = ControlData(c, table, invalid[c.name], n_tasks)
        if c.kind == "textarea":
            cd.notes.append(
                "TextArea is compared by exact match of the text (white space trimmed); the "
                "partial-credit alpha uses the normalised edit distance"
            )
        if c.kind == "labels":
            cd.notes.append(
                "spans matched "
                + ("by exact boundaries" if iou_threshold is None else f"with IoU >= {iou_threshold:g}")
                + "; a span no other annotator matched is a unit with one annotation (excluded)"
            )
        result.controls[c.name] = cd
    if unknown:
        result.notes.append(
            f"{sum(unknown.values())} result(s) name a control that is not in the label config "
            f"({', '.join(sorted(unknown)[:5])}); not used"
        )
    return result
