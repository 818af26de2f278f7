"""Label Studio JSON -> the core's data model (pure conversion: no network, no statistics).

The project's label config is read with the SDK's :class:`label_studio_sdk.label_interface.LabelInterface`; each
supported control tag becomes one long table ``item, annotator, label`` that
:meth:`iaa_engine.Annotations.from_long` reads. Results that do not fit the config are counted with a reason and
never used.

================  ===========================================================================  =========
tag               label of one annotation                                                        level
================  ===========================================================================  =========
Choices           the chosen value (single) or the sorted tuple of values                        nominal
                  (``choice="multiple"``: exact match of the set)
Rating            the number of stars                                                            ordinal
Number            the number                                                                     interval
Taxonomy          the selected path (a tuple), or the sorted tuple of paths                      nominal
TextArea          the text (lines joined, surrounding white space trimmed): exact                nominal
Labels, regions   per *unit* (regions of the task's annotators matched by the core's             nominal
                  :func:`iaa_engine.match_regions`) the region's label(s), and
                  ``"(no region)"`` for every annotator of the task who did not mark it
================  ===========================================================================  =========

Regions (each tag's result ``value`` -> the geometry the core matches):

* ``Labels`` on ``Text``: character offsets ``start, end`` (interval IoU; exact boundaries by default);
* ``ParagraphLabels`` on ``Paragraphs``: characters of the task's paragraphs laid end to end (as text spans);
* ``Labels`` on ``Audio``: seconds ``start, end``; ``TimeSeriesLabels``: ``start, end`` (numbers, or times read as
  seconds; ``instant`` regions have ``start == end``); interval IoU;
* ``Labels`` on ``Video`` (``{"sequence": [...], "labels"}``): the frames from the first to the last keyframe of the
  sequence, end inclusive (interval IoU on frames; the boxes inside are not compared); ``TimelineLabels``: each of
  its ``ranges`` (frames, end inclusive);
* ``RectangleLabels`` ``x, y, width, height, rotation`` (percent of the image, degrees about the top-left corner),
  ``EllipseLabels`` ``x, y, radiusX, radiusY, rotation`` (about the centre), ``PolygonLabels`` ``points``: in pixels
  when the result carries ``original_width``/``original_height`` (so that rotations are right), else in percent;
* ``KeyPointLabels`` ``x, y``: distance as a share of the image diagonal (default 2 %);
* ``BrushLabels`` ``{"format": "rle", "rle": [...]}``: decoded with the SDK's ``decode_rle`` (mask IoU).

Span tags also give the input of Krippendorff's unitizing alpha (:func:`span_table`): each task's spans, its
annotators and its continuum (the text's length, the paragraphs', the audio's or video's length in the results,
an inline time series' range; else the spans' extent).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

import iaa_engine as ie

__all__ = [
    "Control",
    "ControlData",
    "Converted",
    "parse_config",
    "convert",
    "human_annotations",
    "adjudication",
    "saved_by_a_person",
    "result_label",
    "SUPPORTED",
    "REGION_TAGS",
    "NO_REGION",
    "span_units",
    "SpanTable",
    "span_table",
    "TIME_FIELDS",
    "BY_COLUMNS",
    "parse_time",
    "annotation_times",
    "parse_groups",
    "annotator_groups",
    "with_column",
]

#: result type (lower case) -> the tag that writes it (every tag whose agreement is computed)
SUPPORTED = {
    "choices": "Choices",
    "labels": "Labels",
    "rating": "Rating",
    "number": "Number",
    "taxonomy": "Taxonomy",
    "textarea": "TextArea",
    "rectanglelabels": "RectangleLabels",
    "polygonlabels": "PolygonLabels",
    "ellipselabels": "EllipseLabels",
    "keypointlabels": "KeyPointLabels",
    "brushlabels": "BrushLabels",
    "timeserieslabels": "TimeSeriesLabels",
    "timelinelabels": "TimelineLabels",
    "paragraphlabels": "ParagraphLabels",
}
#: region tags -> the core's kind of region (``labels`` depends on the object: text, audio or video)
REGION_TAGS = {
    "labels": "span",
    "timeserieslabels": "span",
    "timelinelabels": "span",
    "rectanglelabels": "box",
    "polygonlabels": "polygon",
    "ellipselabels": "ellipse",
    "keypointlabels": "keypoint",
    "brushlabels": "mask",
    "paragraphlabels": "span",
}
#: objects ``Labels`` can mark regions on
_LABELS_OBJECTS = {"text": "text", "audio": "audio", "audioplus": "audio", "video": "video"}
#: the object tags (lower case) each other region tag is matched on
_REGION_OBJECTS = {
    "rectanglelabels": {"image"},
    "polygonlabels": {"image"},
    "ellipselabels": {"image"},
    "keypointlabels": {"image"},
    "brushlabels": {"image"},
    "timeserieslabels": {"timeseries"},
    "timelinelabels": {"video"},
    "paragraphlabels": {"paragraphs"},
}
NO_REGION = "(no region)"
#: tags measured as judgments (:mod:`iaa_label_studio.judgments`), not as a label per item
JUDGMENT_TAGS = ("pairwise", "ranker", "relations")
COLUMNS = ["task", "item", "annotator", "label", "ground_truth", "annotation", "start", "end", "text", "value"]
_NOT_SUPPORTED_NOTE = "agreement for {tag} is not supported (no matching rule for this tag); its results are ignored"
#: the default IoU for regions other than text spans (text spans: exact boundaries unless a threshold is given)
REGION_IOU = 0.5
#: the default largest distance between two matching key points, as a share of the image diagonal
KEYPOINT_DISTANCE = 0.02


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
    object_tag: str = ""  # the tag of the object it labels ("Text", "Image", "Audio", ...)
    object_value: str = ""  # the task data key the object shows (its ``value="$key"``)
    object_attr: dict = field(default_factory=dict)  # the object's attributes (valueType, timeColumn, textKey, ...)

    @property
    def kind(self) -> str:
        return self.tag.lower()

    @property
    def region(self) -> str | None:
        """The core's kind of region for a region tag, else None."""
        if self.kind == "labels":
            return "span" if _LABELS_OBJECTS.get(self.object_tag.lower()) else None
        if self.kind in _REGION_OBJECTS and self.object_tag.lower() not in _REGION_OBJECTS[self.kind]:
            return None
        return REGION_TAGS.get(self.kind)

    @property
    def supported(self) -> bool:
        if self.kind == "labels" or self.kind in _REGION_OBJECTS:
            return self.region is not None
        return self.kind in SUPPORTED

    @property
    def level(self) -> str:
        return {"rating": "ordinal", "number": "interval"}.get(self.kind, "nominal")


def _taxonomy_paths(node: ET.Element, prefix: tuple = ()) -> set[tuple]:
    out: set[tuple] = set()
    for child in node:
        if child.tag == "Choice":
            value = child.get("alias") or child.get("value") or ""
            path = prefix + (value,)
            out.add(path)
            out |= _taxonomy_paths(child, path)
    return out


def parse_config(xml: str) -> list[Control]:
    """Every control tag of a label config, in document order (supported or not), read with the SDK's
    ``LabelInterface`` (names, targets, labels with their aliases, attributes, object tags). Only a Taxonomy's
    nested paths are read from the XML itself: the SDK lists a taxonomy's choices flat."""
    from label_studio_sdk.label_interface import LabelInterface

    try:
        li = LabelInterface(xml)
    except Exception as exc:  # the SDK raises its own XML and config errors
        raise ValueError(f"the project's label config is not valid XML: {exc}") from None
    controls: list[Control] = []
    taxonomy_nodes: dict[str, ET.Element] = {}
    for tag in li.controls:
        name = tag.name
        if not name:
            continue
        to_name = ",".join(tag.to_name or [])
        obj, obj_value, obj_attr = "", "", {}
        if tag.to_name:
            try:
                target = li.get_object(tag.to_name[0])
                obj, obj_attr = target.tag or "", dict(target.attr or {})
                obj_value = str(obj_attr.get("value") or "").lstrip("$")
            except Exception:  # a toName that names no object: the tag cannot be read
                obj = ""
        c = Control(
            name=name, tag=tag.tag, to_name=to_name, object_tag=obj, object_value=obj_value, object_attr=obj_attr
        )
        attr = tag.attr or {}
        if c.kind == "choices" or c.region is not None:
            c.values = list(tag.labels or [])
            # results store a label's alias when it has one; its value is accepted too
            for lab in (tag.labels_attrs or {}).values():
                v = (getattr(lab, "attr", None) or {}).get("value")
                if v and v not in c.values:
                    c.values.append(v)
            c.multiple = c.kind == "choices" and attr.get("choice", "single") == "multiple"
        elif c.kind == "rating":
            c.max_rating = int(float(attr.get("maxRating", "5")))
        elif c.kind == "number":
            c.minimum = float(attr["min"]) if attr.get("min") not in (None, "") else None
            c.maximum = float(attr["max"]) if attr.get("max") not in (None, "") else None
        elif c.kind == "taxonomy":
            if not taxonomy_nodes:
                taxonomy_nodes = {el.get("name", ""): el for el in ET.fromstring(xml).iter("Taxonomy")}
            paths = _taxonomy_paths(taxonomy_nodes[name]) if name in taxonomy_nodes else set()
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


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def saved_by_a_person(annotation: Mapping[str, Any], bot_id: int | None) -> bool:
    """Whether a person saved this annotation in Label Studio's editor: it carries the time spent there
    (``lead_time``, which the editor always sends and the connector never does) and the last user to save it
    (``updated_by``) is not the connector's user ``bot_id``."""
    editor = user_id(annotation.get("updated_by"))
    return annotation.get("lead_time") is not None and _whole(editor) and editor != bot_id


def adjudication(
    task: Mapping[str, Any], *, bot_id: int | None, gold_version: str, prelabels: str | None = None
) -> dict | None:
    """The human adjudication of the task's gold, or None: ``{"annotation", "by", "result", "form"}``.

    An adjudication is an annotation a person made of the connector's gold (the latest saved when several):

    * ``"copy"``: an annotation, not cancelled, by someone other than the connector's user, copied from the task's
      gold prediction (model version ``gold_version``): Label Studio's editor records the prediction it was made
      from (``parent_prediction``). Not when the project pre-labels with the gold itself (``prelabels`` is
      ``gold_version``): every annotation then starts from it;
    * ``"edited"``: an annotation of the connector's user (``bot_id``; earlier versions wrote the gold so)
      saved in the editor by someone (``lead_time`` set: the editor always sends it, the connector never does).
    """
    golds = {
        p.get("id")
        for p in task.get("predictions") or []
        if isinstance(p, dict) and p.get("model_version") == gold_version and _whole(p.get("id"))
    }
    found = []
    for a in task.get("annotations") or []:
        if not isinstance(a, dict) or a.get("was_cancelled") or not _whole(a.get("id")):
            continue
        who = user_id(a.get("completed_by"))
        if bot_id is not None and who == bot_id:
            if saved_by_a_person(a, bot_id):
                found.append((str(a.get("updated_at") or ""), a["id"], user_id(a.get("updated_by")), a, "edited"))
        elif prelabels != gold_version and a.get("parent_prediction") in golds and _whole(who):
            found.append((str(a.get("updated_at") or ""), a["id"], who, a, "copy"))
    if not found:
        return None
    _, aid, by, a, form = max(found, key=lambda f: (f[0], f[1]))
    result = [r for r in a.get("result") or [] if isinstance(r, dict)]
    return {"annotation": aid, "by": by, "result": result, "form": form}


def result_label(control: Control, res: Mapping[str, Any]) -> Any:
    """The label of one result of a control without regions (as the conversion reads it), or None when it does
    not fit the control."""
    value = res.get("value") if isinstance(res, Mapping) else None
    if (
        control.region is not None
        or not isinstance(value, Mapping)
        or res.get("from_name") != control.name
        or str(res.get("type", "")).lower() != control.kind
    ):
        return None
    label, why = _value(control, value)
    return None if why else label


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
    raise AssertionError(kind)  # pragma: no cover - regions are handled by _region


# --------------------------------------------------------------------------- regions


def _labels_of(control: Control, value: Mapping[str, Any]) -> tuple[Any, str | None]:
    labels = value.get(control.kind)
    if labels is None:
        labels = value.get("labels")
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        return None, f"wrong shape (expected a non-empty '{control.kind}' list of strings)"
    bad = [x for x in labels if control.values and x not in control.values]
    if bad:
        return None, f"unknown label {bad[0]!r}"
    return (labels[0] if len(labels) == 1 else tuple(sorted(set(labels)))), None


def _seconds(v: Any) -> float | None:
    """A time-series or audio position: a number, or a date/time text read as seconds since the epoch."""
    x = _number(v)
    if x is not None:
        return float(x)
    if isinstance(v, str) and v.strip():
        try:
            t = pd.Timestamp(v)
        except (ValueError, TypeError):
            return None
        if t is pd.NaT:
            return None
        return t.value / 1e9
    return None


def _scale(res: Mapping[str, Any]) -> tuple[float, float]:
    """Percent -> pixels factors from the result's original image size (1, 1 when absent)."""
    w, h = _number(res.get("original_width")), _number(res.get("original_height"))
    if w and h and w > 0 and h > 0:
        return w / 100.0, h / 100.0
    return 1.0, 1.0


def _region(
    control: Control, res: Mapping[str, Any], value: Mapping[str, Any], paragraphs: np.ndarray | None = None
) -> tuple[list[dict], str | None]:
    """The geometry of one region result as rows for :func:`iaa_engine.match_regions` (a TimelineLabels result
    may hold several ranges), or ``([], reason)``. ``paragraphs``: the task's paragraph starts
    (:func:`_paragraph_starts`), for ParagraphLabels."""
    kind, region = control.kind, control.region
    if kind == "paragraphlabels":
        return _paragraph_span(value, paragraphs)
    if region == "span" and kind == "labels" and _LABELS_OBJECTS.get(control.object_tag.lower()) == "video":
        seq = value.get("sequence")
        frames = [_number(k.get("frame")) for k in seq if isinstance(k, dict)] if isinstance(seq, list) else []
        frames = [f for f in frames if f is not None]
        if not frames:
            return [], "wrong shape (expected a 'sequence' of keyframes with 'frame')"
        return [{"start": float(min(frames)), "end": float(max(frames)) + 1.0}], None
    if kind == "timelinelabels":
        ranges = value.get("ranges")
        out = []
        for r in ranges if isinstance(ranges, list) else []:
            s, e = (_number(r.get("start")), _number(r.get("end"))) if isinstance(r, dict) else (None, None)
            if s is None or e is None or e < s:
                return [], "wrong shape (expected 'ranges' of frames with 'start' <= 'end')"
            out.append({"start": float(s), "end": float(e) + 1.0})
        return (out, None) if out else ([], "wrong shape (expected 'ranges' of frames with 'start' <= 'end')")
    if region == "span":
        conv = _seconds if kind == "timeserieslabels" else _number
        s, e = conv(value.get("start")), conv(value.get("end"))
        if kind == "timeserieslabels" and value.get("instant") and s is not None:
            e = s
        if s is None or e is None or e < s:
            return [], "wrong shape (a span needs numeric 'start' <= 'end')"
        return [{"start": s, "end": e}], None
    sx, sy = _scale(res)
    if region == "box":
        g = [_number(value.get(k)) for k in ("x", "y", "width", "height")]
        rot = _number(value.get("rotation", 0)) if value.get("rotation") is not None else 0.0
        if any(v is None for v in g) or rot is None or g[2] < 0 or g[3] < 0:
            return [], "wrong shape (a box needs numeric 'x', 'y' and non-negative 'width', 'height')"
        return [{"x": g[0] * sx, "y": g[1] * sy, "width": g[2] * sx, "height": g[3] * sy, "rotation": rot}], None
    if region == "ellipse":
        g = [_number(value.get(k)) for k in ("x", "y", "radiusX", "radiusY")]
        rot = _number(value.get("rotation", 0)) if value.get("rotation") is not None else 0.0
        if any(v is None for v in g) or rot is None or g[2] < 0 or g[3] < 0:
            return [], "wrong shape (an ellipse needs numeric 'x', 'y' and non-negative 'radiusX', 'radiusY')"
        return [{"x": g[0] * sx, "y": g[1] * sy, "radius_x": g[2] * sx, "radius_y": g[3] * sy, "rotation": rot}], None
    if region == "polygon":
        pts = value.get("points")
        ok = isinstance(pts, list) and len(pts) >= 3
        ok = ok and all(isinstance(p, list) and len(p) == 2 and all(_number(v) is not None for v in p) for p in pts)
        if not ok:
            return [], "wrong shape (a polygon needs at least 3 'points' [x, y])"
        return [{"points": [[p[0] * sx, p[1] * sy] for p in pts]}], None
    if region == "keypoint":
        x, y = _number(value.get("x")), _number(value.get("y"))
        if x is None or y is None:
            return [], "wrong shape (a key point needs numeric 'x', 'y')"
        diag = math.hypot(100.0 * sx, 100.0 * sy)  # distances as a share of the image diagonal
        return [{"x": x * sx / diag, "y": y * sy / diag}], None
    if region == "mask":
        if value.get("format", "rle") != "rle" or not isinstance(value.get("rle"), list) or not value["rle"]:
            return [], "wrong shape (expected a brush mask with 'format': 'rle' and an 'rle' list)"
        from label_studio_sdk.converter.brush import decode_rle

        try:
            pixels = decode_rle(value["rle"])
        except Exception:
            return [], "brush mask: the RLE could not be decoded"
        return [{"mask": np.asarray(pixels)[3::4] > 0}], None  # the alpha channel of the RGBA image
    raise AssertionError(kind)  # pragma: no cover


def _region_threshold(control: Control, iou_threshold: float | None, keypoint_threshold: float) -> float:
    if control.region == "keypoint":
        return keypoint_threshold
    if iou_threshold is not None:
        return iou_threshold
    return 1.0 if _is_text(control) else REGION_IOU


# --------------------------------------------------------------------------- spans on a continuum (issue 26)
#
# Krippendorff's unitizing alpha needs each task's spans as positions on one continuum, and the continuum's length:
# text spans in characters (the task text's length), ParagraphLabels as characters of the task's paragraphs laid
# end to end, audio in milliseconds, video in frames, time series in the units of their time column.


def _is_text(control: Control) -> bool:
    """Character spans: Labels on Text, ParagraphLabels on Paragraphs."""
    return control.kind == "paragraphlabels" or (control.kind == "labels" and control.object_tag.lower() == "text")


def _js_length(text: str) -> int:
    """A text's length as Label Studio counts its offsets (JavaScript strings: UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _paragraph_starts(control: Control, data: Any) -> np.ndarray | None:
    """Where each of the task's paragraphs starts when they are laid end to end (characters; one more entry, the
    total length), or None when the paragraphs are not in the task data (``valueType="url"``)."""
    items = data.get(control.object_value) if isinstance(data, Mapping) else None
    if not isinstance(items, list):
        return None
    key = control.object_attr.get("textKey") or "text"
    lengths = [_js_length(p[key]) if isinstance(p, dict) and isinstance(p.get(key), str) else 0 for p in items]
    return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)


def _index(v: Any) -> int | None:
    """A paragraph index: a whole number, or its digits as text (Label Studio writes both)."""
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)
    x = _number(v)
    return int(x) if x is not None and x == int(x) else None


def _paragraph_span(value: Mapping[str, Any], starts: np.ndarray | None) -> tuple[list[dict], str | None]:
    """A ParagraphLabels result (paragraphs ``start``..``end``, inclusive, with ``startOffset`` in the first and
    ``endOffset`` in the last, exclusive) as character positions on the task's paragraphs laid end to end; without
    offsets, the whole paragraphs."""
    if starts is None:
        return [], "ParagraphLabels: the task's paragraphs are not in its data (a url?): positions unknown"
    p0, p1, n = _index(value.get("start")), _index(value.get("end")), len(starts) - 1
    if p0 is None or p1 is None or not 0 <= p0 <= p1 < n:
        return [], f"wrong shape (paragraph 'start' <= 'end' must be indices of the task's {n} paragraphs)"
    so, eo = value.get("startOffset"), value.get("endOffset")
    if so is None and eo is None:
        return [{"start": int(starts[p0]), "end": int(starts[p1 + 1])}], None
    so, eo = _index(so), _index(eo)
    if so is None or eo is None or so > starts[p0 + 1] - starts[p0] or eo > starts[p1 + 1] - starts[p1]:
        return [], "wrong shape ('startOffset', 'endOffset' must be offsets inside their paragraphs)"
    s, e = int(starts[p0] + so), int(starts[p1] + eo)
    if e < s:
        return [], "wrong shape (a span needs 'start' <= 'end')"
    return [{"start": s, "end": e}], None


#: what one position of a span control's continuum counts, and the factor from the result's numbers to it
_POSITIONS = {"text": ("characters", 1.0), "audio": ("milliseconds", 1000.0), "video": ("frames", 1.0)}


def _positions(control: Control) -> tuple[str, float]:
    """(what a position counts, factor from the region's numbers): α_U counts discrete positions, so audio seconds
    become milliseconds; time series keep the units of their time column (row numbers without one)."""
    if _is_text(control):
        return _POSITIONS["text"]
    if control.kind == "timeserieslabels":
        return ("time-series units (its time column, or row numbers)", 1.0)
    return _POSITIONS.get(_LABELS_OBJECTS.get(control.object_tag.lower(), "video"), _POSITIONS["video"])


def _media_continuum(control: Control, data: Any, starts: np.ndarray | None) -> tuple[float, float] | None:
    """A task's continuum ``(begin, length)`` from its data, in the control's positions, or None when the data
    does not hold it: the text's length (``valueType="url"``: unknown), the paragraphs' total length, an inline time
    series' first to last time (or row)."""
    if control.kind == "paragraphlabels":
        return (0.0, float(starts[-1])) if starts is not None else None
    value = data.get(control.object_value) if isinstance(data, Mapping) and control.object_value else None
    if _is_text(control):
        url = str(control.object_attr.get("valueType", "")).lower() == "url"
        return (0.0, float(_js_length(value))) if isinstance(value, str) and not url else None
    if control.kind == "timeserieslabels" and isinstance(value, Mapping):
        column = control.object_attr.get("timeColumn")
        times = value.get(column) if column else next((v for v in value.values() if isinstance(v, list)), None)
        if not isinstance(times, list) or not times:
            return None
        if not column:
            return (0.0, float(len(times) - 1))
        points = [t for t in (_seconds(x) for x in times) if t is not None]
        return (min(points), max(points) - min(points)) if points else None
    return None


def _result_continuum(control: Control, res: Mapping[str, Any], value: Mapping[str, Any]) -> tuple[float, float] | None:
    """A continuum a region result states: the audio's ``original_length`` (seconds), a video's ``framesCount``
    (frames numbered from 1, as Label Studio numbers them)."""
    media = _LABELS_OBJECTS.get(control.object_tag.lower())
    if control.kind == "labels" and media == "audio":
        n = _number(res.get("original_length", value.get("original_length")))
        return (0.0, float(n)) if n is not None and n > 0 else None
    if control.kind in ("labels", "timelinelabels") and media == "video":
        n = _number(value.get("framesCount", res.get("framesCount")))
        return (1.0, float(n)) if n is not None and n > 0 else None
    return None


@dataclass
class SpanTable:
    """One span control's input to Krippendorff's unitizing alpha (:func:`iaa_engine.unitizing_alpha`): each task
    is a document with its continuum, its annotators (who marked nothing included) and their spans."""

    #: one row per span and label: ``task``, ``annotator``, ``start``, ``end`` (exclusive), ``label``
    spans: pd.DataFrame
    #: ``task``, ``annotator``: every annotator of each task, whether they marked a span or not
    annotators: pd.DataFrame
    #: ``task``, ``begin``, ``length``, ``source`` (``data``, ``results`` or ``spans``): only tasks with a continuum
    continuum: pd.DataFrame
    #: what one position counts (characters, milliseconds, frames, ...)
    positions: str
    notes: list[str] = field(default_factory=list)


def span_table(
    control: Control, found: list[dict], presence: pd.DataFrame, media: Mapping[Any, tuple[float, float, str]]
) -> SpanTable:
    """The unitizing input of one span control from its valid regions (``found``, as :func:`convert` collects
    them), who annotated each task (``presence``) and each task's continuum from its data or results (``media``:
    task -> ``(begin, length, source)``). A span with several labels is a unit of each; a second span with the
    same boundaries by the same annotator is left out (as in the matching). A task whose spans reach beyond its
    stated continuum gets a continuum that covers them; a task without a stated one gets its spans' extent (first
    start to last end, the core's fallback) and a note, and one with neither is left out."""
    positions, factor = _positions(control)
    cols = ["task", "annotator", "start", "end", "label"]
    frame = pd.DataFrame(found, columns=cols) if found else pd.DataFrame(columns=cols)
    frame = frame[cols].drop_duplicates(["task", "annotator", "start", "end"], keep="first")
    several = np.fromiter((isinstance(v, tuple) for v in frame["label"]), bool, len(frame))
    if several.any():  # a span with several labels: one row per label
        frame = frame.assign(label=[list(v) if m else v for v, m in zip(frame["label"], several)])
        frame = frame.explode("label", ignore_index=True)
    frame["start"] = frame["start"].astype(float) * factor
    frame["end"] = frame["end"].astype(float) * factor
    who = presence[["task", "annotator"]].drop_duplicates().reset_index(drop=True)
    tasks = pd.Index(who["task"].unique())
    stated = pd.DataFrame(
        [(t, b * factor, n * factor, src) for t, (b, n, src) in media.items() if t in tasks],
        columns=["task", "begin", "length", "source"],
    ).set_index("task")
    extent = frame.groupby("task").agg(first=("start", "min"), last=("end", "max"))
    cont = stated.reindex(tasks)
    notes: list[str] = []
    have = cont["length"].notna() & cont.index.isin(extent.index)
    ext = extent.reindex(cont.index[have])
    lo = np.minimum(cont.loc[have, "begin"].to_numpy(float), ext["first"].to_numpy(float))
    hi = np.maximum((cont.loc[have, "begin"] + cont.loc[have, "length"]).to_numpy(float), ext["last"].to_numpy(float))
    grown = (lo < cont.loc[have, "begin"].to_numpy(float)) | (hi > (cont.loc[have, "begin"] + cont.loc[have, "length"]))
    if grown.any():
        notes.append(
            f"{int(grown.sum())} task(s) have spans beyond the continuum their data or results state: their "
            "continuum is widened to cover the spans"
        )
    cont.loc[have, "begin"], cont.loc[have, "length"] = lo, hi - lo
    missing = cont["length"].isna()
    from_spans = missing & cont.index.isin(extent.index)
    if from_spans.any():
        ext = extent.reindex(cont.index[from_spans])
        cont.loc[from_spans, "begin"] = ext["first"].to_numpy(float)
        cont.loc[from_spans, "length"] = (ext["last"] - ext["first"]).to_numpy(float)
        cont.loc[from_spans, "source"] = "spans"
        notes.append(
            f"{int(from_spans.sum())} task(s) state no {control.object_tag or 'media'} length (in the task data or "
            "the results): their continuum is taken from their spans (first start to last end); alpha_U depends on "
            "it (the unmarked stretches before the first and after the last span are agreement too)"
        )
    dropped = cont["length"].isna()
    if dropped.any():
        notes.append(f"{int(dropped.sum())} task(s) without a span and without a stated length are left out of alpha_U")
    cont = cont[~dropped].rename_axis("task").reset_index()
    return SpanTable(frame, who, cont[["task", "begin", "length", "source"]], positions, notes)


def span_units(spans: list[tuple[Any, float, float, Any]], threshold: float | None) -> list[tuple[int, Any, Any]]:
    """Group one task's spans ``(annotator, start, end, label)`` into units with :func:`iaa_engine.match_regions`
    (``threshold=None``: exact boundaries). Returns ``(unit, annotator, label)`` per span, in the input's order."""
    f = pd.DataFrame(spans, columns=["annotator", "start", "end", "label"]).assign(item=0)
    m = ie.match_regions(f, kind="span", threshold=1.0 if threshold is None else threshold)
    got = m.units[m.units["region"] >= 0].set_index("region")["unit"]
    return [(int(got[i]), who, lab) for i, (who, _, _, lab) in enumerate(spans)]


@dataclass
class ControlData:
    """One control tag's annotations as a long table, with what was set aside."""

    control: Control
    table: pd.DataFrame  # COLUMNS: one row per (item, annotator); start/end/text/value only for regions
    invalid: Counter = field(default_factory=Counter)  # reason -> number of results
    n_tasks: int = 0
    notes: list[str] = field(default_factory=list)
    #: regions: the core's matching (units, precision / recall / F1 per annotator pair), else None
    matching: ie.RegionMatch | None = None
    #: span controls: the input of Krippendorff's unitizing alpha (:func:`span_table`), else None
    unitizing: SpanTable | None = None
    #: regions: the table the matching read (row position = the core's region number; ``region_id`` is
    #: ``"<annotation id>/<result id>"``, what Label Studio's relations name), else None
    regions: pd.DataFrame | None = None

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
    #: annotations and predictions of the wrong shape, set aside when read (reason -> number): never used
    set_aside: Counter = field(default_factory=Counter)


def convert(
    tasks: Iterable[Mapping[str, Any]],
    controls: list[Control],
    *,
    exclude_users: Iterable[int] = (),
    annotator_names: Mapping[Any, str] | None = None,
    iou_threshold: float | None = None,
    keypoint_threshold: float = KEYPOINT_DISTANCE,
) -> Converted:
    """Long tables per supported control; results for unknown controls are counted by ``from_name``.

    Parameters
    ----------
    tasks : tasks as returned by ``/api/tasks?fields=all`` (with their annotations)
    controls : :func:`parse_config`
    exclude_users : user ids whose annotations are ignored (the plugin's own user)
    annotator_names : user id -> display name (default ``"user <id>"``)
    iou_threshold : the IoU two regions need to match; None: exact boundaries for text spans, 0.5 for the others
    keypoint_threshold : the largest distance between matching key points, as a share of the image diagonal
    """
    names = dict(annotator_names or {})
    by_name = {c.name: c for c in controls}
    rows: dict[str, list[tuple]] = {c.name: [] for c in controls if c.supported}
    invalid: dict[str, Counter] = {c.name: Counter() for c in controls if c.supported}
    unknown: Counter = Counter()
    regions: dict[str, list[dict]] = defaultdict(list)
    present: list[tuple] = []  # (task, annotator, ground truth, annotation id): who annotated each task
    span_controls = [c for c in controls if c.supported and c.region == "span"]
    sized = {c.name for c in span_controls if c.kind != "paragraphlabels" and not _is_text(c)}  # audio, video
    media: dict[str, dict] = {c.name: {} for c in span_controls}  # task -> (begin, length, source): the continuum
    set_aside: Counter = Counter()
    n_tasks = 0
    for task in tasks:
        n_tasks += 1
        tid = task["id"]
        for x in task.get("set_aside") or ():  # of the wrong shape (iaa_label_studio.state.slim_task)
            set_aside[x["reason"]] += 1
        starts = _task_continua(task, span_controls, media)
        seen_ann: set = set()
        for ann in human_annotations(task, exclude_users):
            uid = user_id(ann.get("completed_by"))
            who = names.get(uid, f"user {uid}")
            gt = bool(ann.get("ground_truth"))
            first_of_annotator = who not in seen_ann
            if first_of_annotator:
                seen_ann.add(who)
                present.append((tid, who, gt, ann.get("id")))
            seen: set[str] = set()
            for res in ann.get("result") or []:
                fname = res.get("from_name") if isinstance(res, dict) else None
                c = by_name.get(fname)
                if c is None and isinstance(res, dict) and str(res.get("type", "")).lower() == "relation":
                    continue  # between regions: iaa_label_studio.judgments
                if c is None:
                    unknown[str(fname)] += 1
                    continue
                if not c.supported:
                    continue
                rtype = str(res.get("type", "")).lower()
                value = res.get("value")
                allowed = {c.kind, "videorectangle"} if c.region == "span" and c.kind == "labels" else {c.kind}
                if rtype not in allowed or not isinstance(value, dict):
                    invalid[c.name][f"result type {res.get('type')!r} does not match the {c.tag} tag"] += 1
                    continue
                if c.region is not None:
                    if not first_of_annotator:
                        invalid[c.name]["another annotation by the same annotator on the task (first kept)"] += 1
                        continue
                    label, why = _labels_of(c, value)
                    geoms, why = _region(c, res, value, starts.get(c.name)) if why is None else ([], why)
                    if why:
                        invalid[c.name][why] += 1
                        continue
                    if c.name in sized:
                        _result_length(c, tid, res, value, media[c.name])
                    for g in geoms:
                        regions[c.name].append(
                            {
                                "task": tid,
                                "annotator": who,
                                "label": label,
                                "ground_truth": gt,
                                "annotation": ann.get("id"),
                                "region_id": f"{ann.get('id')}/{res.get('id')}",
                                "text": value.get("text") if isinstance(value.get("text"), str) else None,
                                "value": value,
                                **g,
                            }
                        )
                    continue
                if c.name in seen:
                    invalid[c.name]["more than one result for the tag in one annotation"] += 1
                    continue
                label, why = _value(c, value)
                if why:
                    invalid[c.name][why] += 1
                    continue
                seen.add(c.name)
                rows[c.name].append((tid, tid, who, label, gt, ann.get("id"), None, None, None, None))
    presence = pd.DataFrame(present, columns=["task", "annotator", "ground_truth", "annotation"])
    result = Converted(unknown=unknown, n_tasks=n_tasks, set_aside=set_aside)
    for c in controls:
        if c.kind in JUDGMENT_TAGS:
            continue  # measured by iaa_label_studio.judgments
        if not c.supported:
            why = _NOT_SUPPORTED_NOTE.format(tag=c.tag)
            if c.kind == "labels" or c.kind in _REGION_OBJECTS:
                on = sorted(_REGION_OBJECTS.get(c.kind, {"Text", "Audio", "Video"}))
                why = (
                    f"agreement for {c.tag} on {c.object_tag or 'an unknown object'} is not supported (its regions "
                    f"are matched on {', '.join(o if o[0].isupper() else o.title() for o in on)}); its results are "
                    "ignored"
                )
            result.notes.append(f"{c.name} ({c.tag}): " + why)
            continue
        matching = None
        notes: list[str] = []
        if c.region is not None:
            table, matching, more, matched = _region_table(
                c, regions.get(c.name, []), presence, invalid[c.name], iou_threshold, keypoint_threshold
            )
            notes += more
        else:
            table = pd.DataFrame(rows[c.name], columns=COLUMNS)
        cd = ControlData(c, table, invalid[c.name], n_tasks, notes, matching)
        if c.region is not None:
            cd.regions = matched
        if c.region == "span":
            cd.unitizing = span_table(c, regions.get(c.name, []), presence, media[c.name])
        if c.kind == "textarea":
            cd.notes.append(
                "TextArea is compared by exact match of the text (white space trimmed); the "
                "partial-credit alpha uses the normalised edit distance"
            )
        result.controls[c.name] = cd
    if set_aside:
        result.notes.append(
            f"{sum(set_aside.values())} annotation(s) or prediction(s) of the wrong shape set aside (never used): "
            + "; ".join(f"{n} × {why}" for why, n in sorted(set_aside.items()))
        )
    if unknown:
        result.notes.append(
            f"{sum(unknown.values())} result(s) name a control that is not in the label config "
            f"({', '.join(sorted(unknown)[:5])}); not used"
        )
    return result


def _task_continua(task: Mapping[str, Any], controls: list[Control], media: dict[str, dict]) -> dict[str, Any]:
    """Note each span control's continuum that the task's data states (into ``media``); returns the task's
    paragraph starts per ParagraphLabels control."""
    data = task.get("data")
    starts = {c.name: _paragraph_starts(c, data) for c in controls if c.kind == "paragraphlabels"}
    for c in controls:
        got = _media_continuum(c, data, starts.get(c.name))
        if got is not None:
            media[c.name][task["id"]] = (*got, "data")
    return starts


def _result_length(c: Control, tid: Any, res: Mapping[str, Any], value: Mapping[str, Any], media: dict) -> None:
    """Note the continuum a region result states (audio length, frames) unless the task data stated one; the
    longest one a task's results state is kept."""
    got = _result_continuum(c, res, value)
    old = media.get(tid)
    if got is not None and (old is None or (old[2] == "results" and got[1] > old[1])):
        media[tid] = (*got, "results")


def _region_table(
    c: Control,
    found: list[dict],
    presence: pd.DataFrame,
    invalid: Counter,
    iou_threshold: float | None,
    keypoint_threshold: float,
) -> tuple[pd.DataFrame, ie.RegionMatch | None, list[str], pd.DataFrame | None]:
    """The units of one region control (the core's :func:`iaa_engine.match_regions`) as the control's long table:
    one row per (unit, annotator of the task), ``NO_REGION`` for a unit the annotator did not mark; and the
    regions table it matched (None without regions)."""
    threshold = _region_threshold(c, iou_threshold, keypoint_threshold)
    kind = c.region
    assert kind is not None
    if kind == "keypoint":
        rule = f"key points matched within {threshold:g} of the image diagonal"
    elif threshold == 1.0 and kind == "span":
        rule = "spans matched by exact boundaries"
    else:
        rule = f"regions matched with IoU >= {threshold:g}"
    notes = [
        f"{rule} (optimal assignment, annotators in turn); a region an annotator of the task did not mark is a "
        f"disagreement for that annotator ({NO_REGION!r})"
    ]
    if not found:
        return pd.DataFrame(columns=COLUMNS), None, notes, None
    frame = pd.DataFrame(found)
    if kind == "span":  # one span per (annotator, boundaries): a second identical one is set aside
        dup = frame.duplicated(["task", "annotator", "start", "end"], keep="first").to_numpy()
        if dup.any():
            invalid["duplicate span (same annotator, same boundaries)"] += int(dup.sum())
            frame = frame.loc[~dup].reset_index(drop=True)
    if kind == "mask":  # every mask of a task must have the task's image size
        size = frame["mask"].map(len)
        common = size.groupby(frame["task"]).transform(lambda s: s.mode().iloc[0])
        bad = (size != common).to_numpy()
        if bad.any():
            invalid["brush mask of another size than the task's other masks"] += int(bad.sum())
            frame = frame.loc[~bad].reset_index(drop=True)
    pres = presence.rename(columns={"task": "item"})[["item", "annotator"]]
    m = ie.match_regions(
        frame.rename(columns={"task": "item"}).drop(columns=["value"]),
        kind=kind,
        threshold=threshold,
        present=pres,
        no_region=NO_REGION,
    )
    u = m.units
    # only the tasks with at least one region have units; every annotator of such a task has a row per unit
    reg = u["region"].to_numpy()
    got = reg >= 0
    pick = np.where(got, reg, 0)
    who = presence.drop_duplicates(["task", "annotator"]).set_index(["task", "annotator"])
    keys = pd.MultiIndex.from_arrays([u["item"].to_numpy(), u["annotator"].to_numpy()])
    gt = who["ground_truth"].reindex(keys).fillna(False).to_numpy(dtype=bool)
    aid = who["annotation"].reindex(keys).to_numpy(dtype=object)

    def col(name: str) -> np.ndarray:
        if name not in frame.columns:
            return np.full(len(u), None, dtype=object)
        v = frame[name].to_numpy(dtype=object)[pick]
        v[~got] = None
        return v

    start, end = (col("start"), col("end")) if kind == "span" else (np.full(len(u), None), np.full(len(u), None))
    table = pd.DataFrame(
        {
            "task": u["item"].to_numpy(),
            "item": [f"{t}#{k}" for t, k in zip(u["item"], u["unit"])],
            "annotator": u["annotator"].to_numpy(),
            "label": u["label"].to_numpy(dtype=object),
            "ground_truth": gt,
            "annotation": aid,
            "start": start,
            "end": end,
            "text": col("text"),
            "value": col("value"),
        },
        columns=COLUMNS,
    )
    return table, m, notes, frame


# --------------------------------------------------------------------------- when, and in which group (issue 27)

#: the annotation timestamps ``--time`` reads: ``created_at`` (the default: when the annotation was first
#: submitted, i.e. when the task was labelled) or ``updated_at`` (its last save: a later correction moves it).
#: ``lead_time`` (seconds spent in the editor) is a duration, not a time, and is not offered.
TIME_FIELDS = ("created_at", "updated_at")
#: ``--by`` columns besides ``data.<field>`` (a task data field): the annotator's group (``--groups FILE``) and,
#: with several projects pooled, the project
BY_COLUMNS = ("group", "project")


def parse_time(value: Any) -> str | None:
    """A Label Studio timestamp as ISO 8601 text in UTC (``2025-03-03T10:00:00.123456+00:00``), or None when it
    is missing or not an ISO 8601 time. Label Studio writes UTC with a ``Z``; a time with another offset is
    converted to UTC, one without an offset is taken as UTC."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat()


def annotation_times(tasks: Iterable[Mapping[str, Any]], field_name: str) -> tuple[dict[Any, str | None], int]:
    """``(times, n_unreadable)``: annotation id -> its ``field_name`` timestamp (:func:`parse_time`; None when
    missing or unreadable), and how many were present but not a time."""
    times: dict[Any, str | None] = {}
    bad = 0
    for task in tasks:
        for ann in task.get("annotations") or ():
            raw = ann.get(field_name)
            times[ann.get("id")] = when = parse_time(raw)
            bad += when is None and raw not in (None, "")
    return times, bad


def parse_groups(text: str, source: str = "the groups file") -> dict[str, str]:
    """Annotator -> group from a file's text: a JSON object (``{"ann@example.org": "A", "7": "B"}``) or two
    columns, comma, semicolon or tab separated (``annotator,group``; a first row ``annotator,group`` /
    ``email,group`` / ``id,group`` is a header; empty lines and lines starting with ``#`` are skipped). An
    annotator is named by e-mail (case-insensitive) or user id. Keys come back lower-cased.

    Raises ValueError (naming the line) for a row without two non-empty cells, a group that is not text, or one
    annotator given two groups."""
    import csv
    import json

    out: dict[str, str] = {}

    def put(key: Any, group: Any, where: str) -> None:
        if isinstance(key, bool) or not isinstance(key, (str, int)) or not str(key).strip():
            raise ValueError(f"{source}, {where}: expected an annotator e-mail or user id; got {key!r}")
        if isinstance(group, bool) or not isinstance(group, (str, int)) or not str(group).strip():
            raise ValueError(f"{source}, {where}: expected a group name for {key!r}; got {group!r}")
        k, g = str(key).strip().lower(), str(group).strip()
        if out.get(k, g) != g:
            raise ValueError(f"{source}, {where}: {key!r} is given two groups ({out[k]!r} and {g!r})")
        out[k] = g

    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{source} is not valid JSON ({exc})") from None
        for key, group in data.items():
            put(key, group, f"key {key!r}")
        return out
    lines = text.splitlines()
    sample = next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), "")
    delimiter = "\t" if "\t" in sample else ";" if ";" in sample and "," not in sample else ","
    for n, row in enumerate(csv.reader(lines, delimiter=delimiter), start=1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2 or not all(cells):
            raise ValueError(
                f"{source}, line {n}: expected two columns (annotator e-mail or user id, group); got {row!r}"
            )
        if not out and cells[1].lower() == "group" and cells[0].lower() in ("annotator", "email", "id", "user"):
            continue  # the header
        put(cells[0], cells[1], f"line {n}")
    return out


def annotator_groups(groups: Mapping[str, str], users: Mapping[Any, str]) -> tuple[dict[str, str], list[str]]:
    """``(group of each annotator, entries that name no user)``: the display names of :func:`convert`'s tables
    (``users``: user id -> e-mail) mapped to their group by e-mail or by id. Raises ValueError when a user's
    e-mail and id are given different groups."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for uid, name in users.items():
        keys = [k for k in (str(name).lower(), str(uid)) if k in groups]
        found = {groups[k] for k in keys}
        if len(found) > 1:
            raise ValueError(f"user {uid} ({name}) is given two groups by e-mail and by id: {sorted(found)}")
        if found:
            out[str(name)] = found.pop()
            used.update(keys)
    return out, sorted(k for k in groups if k not in used)


def with_column(
    table: pd.DataFrame,
    tasks: Iterable[Mapping[str, Any]],
    column: str,
    *,
    groups: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """``table`` (a control's long table: ``task``, ``annotator``, ``annotation`` columns) with one more column
    ``column`` and notes on what had none: a timestamp of the row's annotation (:data:`TIME_FIELDS`), the
    annotator's ``group`` (``groups``: annotator display name -> group), the task's ``project`` (tasks read by
    pooling projects carry it) or ``data.<field>`` (the task data field's value as text; not a scalar: none)."""
    tasks = list(tasks)
    notes: list[str] = []
    if column in TIME_FIELDS:
        times, bad = annotation_times(tasks, column)
        values = table["annotation"].map(times)
        if bad:
            notes.append(f"{bad} annotation(s) whose {column} is not an ISO 8601 time: left out")
    elif column == "group":
        values = table["annotator"].map(dict(groups or {}))
        missing = sorted(set(table["annotator"][values.isna()]))
        if missing:
            shown_names = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
            notes.append(f"{len(missing)} annotator(s) have no group in the groups file ({shown_names}): left out")
    elif column == "project":
        values = table["task"].map({t["id"]: t.get("project") for t in tasks})
    elif column.startswith("data.") and len(column) > 5:
        key = column[5:]

        def scalar(v: Any) -> str | None:
            return str(v) if isinstance(v, (str, int, float, bool)) and str(v) != "" else None

        values = table["task"].map({t["id"]: scalar((t.get("data") or {}).get(key)) for t in tasks})
        n_none = int(values.isna().sum())
        if n_none:
            notes.append(f"{n_none} annotation(s) on tasks without a value of {column}: left out")
    else:
        raise ValueError(
            f"expected one of {', '.join(TIME_FIELDS + BY_COLUMNS)} or data.<field> as the column; got {column!r}"
        )
    return table.assign(**{column: values.astype(object).where(values.notna(), None)}), notes
