"""Regions in the Label Studio connector (issue 13, items 2, 3 and the LabelInterface part of 7).

A missed region is a disagreement (an explicit '(no region)' for every annotator of the task who did not mark a
unit), for text spans and for every region tag; precision / recall / F1 per annotator pair next to alpha. The
label config is read with the SDK's LabelInterface. Conversion is checked on recorded JSON, then on a REAL Label
Studio server (an NER project and an image project) through `iaa label-studio report`, as a user runs it.
"""

from __future__ import annotations

import json
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from label_studio_sdk.converter.brush import mask2rle  # noqa: E402

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api  # noqa: E402
from iaa_label_studio.convert import NO_REGION, convert, parse_config  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``, run by the command line's own main in this process (lst.run_cli)."""
    return lst.run_cli("label-studio", *args)


def res(name: str, kind: str, value: dict, to: str = "text", **extra) -> dict:
    return {"from_name": name, "to_name": to, "type": kind, "value": value, **extra}


NER = """<View><Text name="text" value="$text"/>
<Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/><Label value="LOC"/></Labels></View>"""

#: the issue's case: A marks 4 entities, B marks 1 of them
A_SPANS = [(0, 5, "PER"), (10, 15, "ORG"), (20, 25, "LOC"), (30, 35, "PER")]
B_SPANS = [(0, 5, "PER")]


def _ner_task(tid, marks):
    return {
        "id": tid,
        "annotations": [
            {
                "id": 10 * tid + k,
                "completed_by": who,
                "result": [res("ner", "labels", {"start": s, "end": e, "labels": [lab]}) for s, e, lab in spans],
            }
            for k, (who, spans) in enumerate(marks)
        ],
    }


def _old_alpha(table: pd.DataFrame) -> float:
    """The connector before: units only one annotator marked left out (no '(no region)' values)."""
    kept = table[table["label"] != NO_REGION]
    kept = kept[kept.groupby("item")["annotator"].transform("size") >= 2]
    return ie.percent_agreement(ie.Annotations.from_long(kept[["item", "annotator", "label"]]))


# --------------------------------------------------------------------------- recorded JSON


def test_the_issues_case_missed_spans_lower_the_score():
    """A: PER[0,5) ORG[10,15) LOC[20,25) PER[30,35); B: PER[0,5). Four units: (PER, PER), (ORG, none),
    (LOC, none), (PER, none). Coincidences: o_PER,PER = 2; each of the three other units adds one ordered pair each
    way between its label and 'none': n = 8, n_PER = 3, n_ORG = n_LOC = 1, n_none = 3.
    D_o = 6 / 8; D_e = (n² - Σ n_c²) / (n (n - 1)) = (64 - 9 - 1 - 1 - 9) / 56 = 44 / 56;
    alpha = 1 - (6/8) / (44/56) = 1 - 42/44 = 1/22 = 0.04545...
    Before, only the unit both marked counted: percent agreement 1.0 (alpha undefined: one category)."""
    conv = convert([_ner_task(1, [(1, A_SPANS), (2, B_SPANS)])], parse_config(NER), annotator_names={1: "A", 2: "B"})
    cd = conv.controls["ner"]
    data = ie.Annotations.from_long(cd.table[["item", "annotator", "label"]])
    assert data.n_items == 4 and len(cd.table) == 8 and (cd.table["label"] == NO_REGION).sum() == 3
    assert ie.krippendorff_alpha(data) == pytest.approx(1 / 22, abs=1e-12)
    assert _old_alpha(cd.table) == 1.0
    p = cd.matching.pairs.iloc[0]
    assert (p.annotator_a, p.annotator_b, p.n_matched, p.precision, p.recall, p.f1) == ("A", "B", 1, 1.0, 0.25, 0.4)
    assert "exact boundaries" in cd.notes[0] and NO_REGION in cd.notes[0]


def test_parse_config_with_the_sdks_label_interface():
    config = """<View><Text name="text" value="$text"/><Image name="img" value="$image"/>
      <Labels name="ner" toName="text"><Label value="Person" alias="PER"/><Label value="ORG"/></Labels>
      <Choices name="c" toName="text" choice="multiple"><Choice value="a"/><Choice value="b"/></Choices>
      <Taxonomy name="tax" toName="text"><Choice value="A"><Choice value="A1"/></Choice></Taxonomy>
      <RectangleLabels name="box" toName="img"><Label value="Car"/></RectangleLabels>
      <RectangleLabels name="wrong" toName="text"><Label value="Car"/></RectangleLabels>
      <HyperText name="h" value="$html"/><HyperTextLabels name="hl" toName="h"><Label value="X"/></HyperTextLabels>
      <VideoRectangle name="vr" toName="img"/></View>"""
    cs = {c.name: c for c in parse_config(config)}
    assert cs["ner"].values == ["PER", "ORG", "Person"] and cs["ner"].region == "span"  # alias first, value accepted
    assert cs["c"].multiple and cs["tax"].paths == {("A",), ("A", "A1")}
    assert cs["box"].region == "box" and cs["box"].object_tag == "Image"
    assert not cs["wrong"].supported and not cs["hl"].supported and not cs["vr"].supported
    conv = convert([], list(cs.values()))
    notes = " | ".join(conv.notes)
    assert "wrong (RectangleLabels): agreement for RectangleLabels on Text is not supported" in notes
    assert "hl (HyperTextLabels)" in notes and "vr (VideoRectangle)" in notes
    with pytest.raises(ValueError, match="not valid XML"):
        parse_config("<View><Text")


TIME = """<View>
  <Audio name="audio" value="$audio"/><Labels name="speech" toName="audio"><Label value="Speech"/></Labels>
  <TimeSeries name="ts" value="$csv" timeColumn="t"><Channel column="y"/></TimeSeries>
  <TimeSeriesLabels name="tsl" toName="ts"><Label value="Up"/></TimeSeriesLabels>
  <Video name="video" value="$video"/><Labels name="vl" toName="video"><Label value="Car"/></Labels>
  <TimelineLabels name="tl" toName="video"><Label value="Run"/></TimelineLabels>
</View>"""


def test_audio_time_series_and_video_regions_by_interval_iou():
    a = [
        res("speech", "labels", {"start": 1.0, "end": 3.0, "labels": ["Speech"]}, "audio"),
        res("speech", "labels", {"start": 10.0, "end": 11.0, "labels": ["Speech"]}, "audio"),
        res("tsl", "timeserieslabels", {"start": 0, "end": 10, "instant": False, "timeserieslabels": ["Up"]}, "ts"),
        res(
            "vl",
            "videorectangle",
            {"sequence": [{"frame": 1, "x": 1}, {"frame": 10, "x": 2}], "labels": ["Car"]},
            "video",
        ),  # fmt: skip
        res("tl", "timelinelabels", {"ranges": [{"start": 1, "end": 4}], "timelinelabels": ["Run"]}, "video"),
    ]
    b = [
        res("speech", "labels", {"start": 1.5, "end": 3.0, "labels": ["Speech"]}, "audio"),  # IoU 1.5/2 = 0.75
        res("tsl", "timeserieslabels", {"start": 4, "end": 10, "timeserieslabels": ["Up"]}, "ts"),  # IoU 0.6
        res("vl", "videorectangle", {"sequence": [{"frame": 3}, {"frame": 12}], "labels": ["Car"]}, "video"),
        res("tl", "timelinelabels", {"ranges": [{"start": 3, "end": 4}], "timelinelabels": ["Run"]}, "video"),
    ]
    task = {
        "id": 5,
        "annotations": [{"id": 1, "completed_by": 1, "result": a}, {"id": 2, "completed_by": 2, "result": b}],
    }
    conv = convert([task], parse_config(TIME), annotator_names={1: "a", 2: "b"})
    got = {n: cd.matching.pairs.iloc[0] for n, cd in conv.controls.items()}
    # speech: 1 of a's 2 segments matched (IoU 0.75 >= 0.5); the other is a's alone
    assert (got["speech"].n_matched, got["speech"].n_regions_a, got["speech"].n_regions_b) == (1, 2, 1)
    assert conv.controls["speech"].table["label"].tolist().count(NO_REGION) == 1
    assert got["tsl"].n_matched == 1  # [0, 10) and [4, 10): 6 / 10
    # video: frames 1..10 -> [1, 11), 3..12 -> [3, 13): IoU 8 / 12 = 0.667; timeline [1, 5) and [3, 5): 2/4 = 0.5
    assert got["vl"].n_matched == 1 and got["tl"].n_matched == 1
    tight = convert([task], parse_config(TIME), annotator_names={1: "a", 2: "b"}, iou_threshold=0.7)
    m = {n: int(cd.matching.pairs.iloc[0].n_matched) for n, cd in tight.controls.items()}
    assert m == {"speech": 1, "tsl": 0, "vl": 0, "tl": 0}


def test_duplicate_annotations_and_bad_region_results_are_counted():
    task = _ner_task(1, [(1, A_SPANS[:1]), (2, B_SPANS)])
    again = [res("ner", "labels", {"start": 7, "end": 9, "labels": ["PER"]})]
    task["annotations"].append({"id": 99, "completed_by": 1, "result": again})
    task["annotations"][0]["result"] += [
        res("ner", "labels", {"start": 0, "end": 5, "labels": ["PER"]}),  # the same span twice
        res("ner", "labels", {"start": 9, "end": 2, "labels": ["PER"]}),
        res("ner", "labels", {"start": 1, "end": 2, "labels": ["???"]}),
    ]
    cd = convert([task], parse_config(NER), annotator_names={1: "A", 2: "B"}).controls["ner"]
    assert cd.invalid == {
        "another annotation by the same annotator on the task (first kept)": 1,
        "duplicate span (same annotator, same boundaries)": 1,
        "wrong shape (a span needs numeric 'start' <= 'end')": 1,
        "unknown label '???'": 1,
    }
    assert cd.matching.f1_overall == 1.0


# --------------------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-regions"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


def _report(server, pid, *extra) -> dict:
    out = run("report", "--url", server.url, "--token", lst.TOKEN, "--project", str(pid), "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_ner_project_missed_spans_lower_the_score(server, api):
    users = lst.make_users(api, ["a@example.com", "b@example.com", "c@example.com"])
    a, b, c = (users[e] for e in ("a@example.com", "b@example.com", "c@example.com"))

    def ann(uid, spans):
        rs = [
            res("ner", "labels", {"start": s, "end": e, "text": "x" * (e - s), "labels": [lab]}) for s, e, lab in spans
        ]
        return {"completed_by": uid, "result": rs}

    tasks = [
        {"data": {"text": "x" * 40}, "annotations": [ann(a, A_SPANS), ann(b, B_SPANS)]},  # the issue's case
        {
            "data": {"text": "x" * 40},
            "annotations": [ann(a, [(0, 5, "PER")]), ann(b, [(0, 5, "PER")]), ann(c, [])],
        },  # c marked nothing: a miss  # fmt: skip
        {"data": {"text": "x" * 40}, "annotations": [ann(a, [(2, 8, "ORG")]), ann(c, [(2, 8, "LOC")])]},
    ]
    pid = lst.make_project(api, "ner regions", NER, tasks)
    got = _report(server, pid)
    # the units by hand: t1 (PER,PER) (ORG,-) (LOC,-) (PER,-); t2 (PER,PER,-); t3 (ORG,LOC)
    rows = [("1a", "a", "PER"), ("1a", "b", "PER"), ("1b", "a", "ORG"), ("1b", "b", NO_REGION)]
    rows += [("1c", "a", "LOC"), ("1c", "b", NO_REGION), ("1d", "a", "PER"), ("1d", "b", NO_REGION)]
    rows += [("2a", "a", "PER"), ("2a", "b", "PER"), ("2a", "c", NO_REGION), ("3a", "a", "ORG"), ("3a", "c", "LOC")]
    hand = ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    ner = got["controls"]["ner"]
    assert ner["n_items"] == 6 and ner["n_annotations"] == 13
    assert ner["krippendorff_alpha"] == pytest.approx(ie.krippendorff_alpha(hand), abs=1e-12)
    # per pair by hand: a-b on t1, t2: a 5 spans, b 2, 2 matched; a-c on t2, t3: a 2, c 1, 1 matched (t3: same
    # boundaries, another label); b-c on t2: b 1, c 0
    rm = got["details"]["ner"]["region_matching"]
    pairs = {(p["annotator_a"], p["annotator_b"]): p for p in rm["pairs"]}
    ab, ac, bc = (pairs[(f"{x}@example.com", f"{y}@example.com")] for x, y in ("ab", "ac", "bc"))
    assert (ab["n_regions_a"], ab["n_regions_b"], ab["n_matched"], ab["f1"]) == (5, 2, 2, pytest.approx(4 / 7))
    assert (ac["n_regions_a"], ac["n_regions_b"], ac["n_matched"], ac["f1"]) == (2, 1, 1, pytest.approx(2 / 3))
    assert (bc["n_matched"], bc["recall"], bc["precision"]) == (0, 0.0, None)  # c marked nothing: 0/0
    assert rm["f1_overall"] == pytest.approx(2 * 3 / (7 + 3 + 1), abs=1e-12)
    # the old connector on the same data: the spans only one annotator marked were left out
    old = pd.DataFrame([r for r in rows if r[2] != NO_REGION], columns=["item", "annotator", "label"])
    old = old[old.groupby("item")["annotator"].transform("size") >= 2]
    old_alpha = ie.krippendorff_alpha(ie.Annotations.from_long(old))
    assert ner["krippendorff_alpha"] < old_alpha - 0.3
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "--project", str(pid)).stdout
    assert (
        "Region matching: 9 spans grouped into 6 units, 4 times an annotator of a task did not mark a unit the "
        "others marked; F1 0.5455" in text
    )
    # per pair in plain words (issue 36: "(2 of 5 and 2 matched)" said nothing)
    assert "(2 matched; the first marked 5, the second 2)" in text


IMAGE = """<View><Image name="img" value="$image"/>
  <RectangleLabels name="box" toName="img"><Label value="Car"/><Label value="Bus"/></RectangleLabels>
  <PolygonLabels name="poly" toName="img"><Label value="Roof"/></PolygonLabels>
  <KeyPointLabels name="kp" toName="img"><Label value="Eye"/></KeyPointLabels>
  <EllipseLabels name="ell" toName="img"><Label value="Cell"/></EllipseLabels>
  <BrushLabels name="brush" toName="img"><Label value="Sky"/></BrushLabels>
</View>"""


def test_image_project_every_region_tag_against_a_hand_matching(server, api):
    users = lst.make_users(api, ["p@example.com", "q@example.com", "r@example.com"])
    p, q, r = (users[e] for e in ("p@example.com", "q@example.com", "r@example.com"))
    size = {"original_width": 200, "original_height": 100}

    def img(name, kind, value, **extra):
        return res(name, kind, value, "img", **{**size, **extra})

    def box(x, y, w, h, rot=0, lab="Car"):
        return img("box", "rectanglelabels", {"x": x, "y": y, "width": w, "height": h, "rotation": rot,
                                              "rectanglelabels": [lab]})  # fmt: skip

    sky = np.zeros((10, 10), np.uint8)
    sky[0:5] = 255  # 50 pixels
    sky_q = np.zeros((10, 10), np.uint8)
    sky_q[0:4] = 255  # 40 pixels, all inside p's: IoU 0.8

    def brush(mask):
        return res("brush", "brushlabels", {"format": "rle", "rle": mask2rle(mask), "brushlabels": ["Sky"]}, "img",
                   original_width=10, original_height=10)  # fmt: skip

    tri = [[0, 0], [40, 0], [0, 40]]
    square = [[0, 0], [40, 0], [40, 40], [0, 40]]  # in pixels: the triangle is half the square: IoU 0.5
    task1 = [
        # boxes (percent of 200 x 100 px): p [10, 30] x [10, 30] %, q shifted by 5 %: IoU (15·20) / (800 - 300)
        # = 0.6 in percent and in pixels (an axis scaling keeps ratios of areas); r no box
        (p, [box(10, 10, 20, 20), img("poly", "polygonlabels", {"points": tri, "polygonlabels": ["Roof"]}),
             img("kp", "keypointlabels", {"x": 50, "y": 50, "width": 1, "keypointlabels": ["Eye"]}),
             img("ell", "ellipselabels", {"x": 50, "y": 50, "radiusX": 10, "radiusY": 5, "rotation": 0,
                                          "ellipselabels": ["Cell"]}), brush(sky)]),
        (q, [box(15, 10, 20, 20), img("poly", "polygonlabels", {"points": square, "polygonlabels": ["Roof"]}),
             # 1 % of 200 px = 2 px from p's: 2 / 223.6 of the diagonal < 0.02
             img("kp", "keypointlabels", {"x": 51, "y": 50, "width": 1, "keypointlabels": ["Eye"]}),
             img("ell", "ellipselabels", {"x": 50, "y": 50, "radiusX": 10, "radiusY": 5, "rotation": 90,
                                          "ellipselabels": ["Cell"]}), brush(sky_q)]),
        # r: a key point 10 % (20 px, 0.089 of the diagonal) away: no match
        (r, [img("kp", "keypointlabels", {"x": 60, "y": 50, "width": 1, "keypointlabels": ["Eye"]})]),
    ]  # fmt: skip
    # task 2: a box and the same box turned 90 degrees about its top-left corner (in pixels [100, 140] x [10, 30]
    # and [80, 100] x [10, 50]): they only touch, IoU 0: two units, each missed by the other annotator
    task2 = [(p, [box(50, 10, 20, 20)]), (q, [box(50, 10, 20, 20, rot=90)])]

    def kp(x, y):
        return img("kp", "keypointlabels", {"x": x, "y": y, "width": 1, "keypointlabels": ["Eye"]})

    # task 3: key points compared in pixels (200 x 100, diagonal 223.6 px): 3 % down is 3 px, 0.013 of the
    # diagonal: both pairs match (compared in percent, 3 / 141.4 = 0.021 of the diagonal, neither would)
    task3 = [(p, [kp(50, 50), kp(20, 50)]), (q, [kp(50, 53), kp(20, 53)])]
    tasks = [
        {"data": {"image": "https://example.com/1.png"},
         "annotations": [{"completed_by": u, "result": rs} for u, rs in task1]},
        {"data": {"image": "https://example.com/2.png"},
         "annotations": [{"completed_by": u, "result": rs} for u, rs in task2]},
        {"data": {"image": "https://example.com/3.png"},
         "annotations": [{"completed_by": u, "result": rs} for u, rs in task3]},
    ]  # fmt: skip
    pid = lst.make_project(api, "image regions", IMAGE, tasks)
    got = _report(server, pid)
    d = got["details"]
    assert not [n for n in got["notes"] if "not supported" in n]

    def pair(control, x, y):
        rm = d[control]["region_matching"]
        return next(v for v in rm["pairs"] if (v["annotator_a"], v["annotator_b"]) == (f"{x}@example.com",
                                                                                       f"{y}@example.com"))  # fmt: skip

    # boxes: p-q matched on task 1 (IoU 0.6), not on task 2 (IoU 0): 1 of 2 each; p-r and q-r: r marked no box
    assert (pair("box", "p", "q")["n_matched"], pair("box", "p", "q")["f1"]) == (1, 0.5)
    assert pair("box", "p", "r")["recall"] == 0.0 and pair("box", "p", "r")["n_regions_b"] == 0
    want_box = [("1", "p", "Car"), ("1", "q", "Car"), ("1", "r", NO_REGION), ("2a", "p", "Car"), ("2a", "q", NO_REGION)]
    want_box += [("2b", "p", NO_REGION), ("2b", "q", "Car")]
    hand = ie.Annotations.from_long(pd.DataFrame(want_box, columns=["item", "annotator", "label"]))
    assert got["controls"]["box"]["n_items"] == 3
    assert got["controls"]["box"]["krippendorff_alpha"] == pytest.approx(ie.krippendorff_alpha(hand), abs=1e-12)
    # polygon: triangle and square, IoU 0.5 exactly: matched at the default 0.5, not at 0.51
    assert pair("poly", "p", "q")["n_matched"] == 1
    strict = _report(server, pid, "--iou", "0.51")["details"]
    assert next(v for v in strict["poly"]["region_matching"]["pairs"])["n_matched"] == 0
    # key points: p-q 2 px apart match, r 20 px away matches neither
    # key points: on task 1 p-q 2 px apart match, r 20 px away matches neither; on task 3 both pairs match
    kps = [pair("kp", x, y)["n_matched"] for x, y in ("pq", "pr", "qr")]
    assert kps == [3, 0, 0] and (pair("kp", "p", "q")["n_regions_a"], pair("kp", "p", "q")["n_regions_b"]) == (3, 3)
    assert d["kp"]["region_matching"]["n_units"] == 2 + 2
    # ellipse turned 90 degrees about its centre, in pixels radii (20, 5) vs (20, 5) turned: a cross, IoU well below
    # 0.5 (the overlap is about a square of 2·5 x 2·5 inside the ellipses: ~ 0.14)
    assert pair("ell", "p", "q")["n_matched"] == 0
    # brush: IoU 40 / 50 = 0.8
    assert pair("brush", "p", "q")["n_matched"] == 1 and d["brush"]["region_matching"]["n_units"] == 1
    # at IoU 0.85 the masks no longer match
    assert (
        next(iter(_report(server, pid, "--iou", "0.85")["details"]["brush"]["region_matching"]["pairs"]))["n_matched"]
        == 0
    )


BOXES = """<View><Image name="img" value="$image"/>
  <RectangleLabels name="box" toName="img"><Label value="Car"/><Label value="Bus"/></RectangleLabels></View>"""


def test_a_detection_model_beside_the_humans_on_boxes(server, api):
    """By hand (IoU >= 0.5): task 1, p's and q's cars overlap (IoU 0.6), the model has p's car and a bus nobody
    marked; task 2, p marks a bus, q and the model nothing. Joint units: (Car, Car, Car), (-, -, Bus), (Bus, -, -):
    the model agrees with p on 1 of 3, with q on 2 of 3; the humans' own report is unchanged by --models."""
    users = lst.make_users(api, ["p@example.com", "q@example.com"])
    p, q = users["p@example.com"], users["q@example.com"]

    def box(x, y, w, h, lab):
        return res("box", "rectanglelabels", {"x": x, "y": y, "width": w, "height": h, "rotation": 0,
                                              "rectanglelabels": [lab]}, "img",
                   original_width=200, original_height=100)  # fmt: skip

    tasks = [
        {"data": {"image": "https://example.com/1.png"},
         "annotations": [{"completed_by": p, "result": [box(10, 10, 20, 20, "Car")]},
                         {"completed_by": q, "result": [box(15, 10, 20, 20, "Car")]}],
         "predictions": [{"model_version": "det-v1", "score": 0.9,
                          "result": [box(10, 10, 20, 20, "Car"), box(60, 60, 10, 10, "Bus")]}]},
        {"data": {"image": "https://example.com/2.png"},
         "annotations": [{"completed_by": p, "result": [box(50, 50, 20, 20, "Bus")]},
                         {"completed_by": q, "result": []}],
         "predictions": [{"model_version": "det-v1", "score": 0.1, "result": []}]},
    ]  # fmt: skip
    pid = lst.make_project(api, "boxes and a model", BOXES, tasks)
    alone = _report(server, pid)
    both = _report(server, pid, "--models", "det-v1")
    assert both["controls"] == alone["controls"]  # the humans' agreement never includes the model
    assert alone["controls"]["box"]["n_items"] == 2  # humans only: (Car, Car) and (Bus, -)
    models = both["details"]["box"]["quality"]["models"]
    rows = {(r["model"], r["reference"]): r for r in models["rows"]}
    assert (rows[("det-v1", "p@example.com")]["agreement"], rows[("det-v1", "p@example.com")]["n"]) == (
        pytest.approx(1 / 3),
        3,
    )
    assert (rows[("det-v1", "q@example.com")]["agreement"], rows[("det-v1", "q@example.com")]["n"]) == (
        pytest.approx(2 / 3),
        3,
    )
    # the humans beside the model: the report's own agreement (humans-only units: the cars agree, the bus does not)
    assert models["human_agreement"] == pytest.approx(1 / 2)
    assert any("matched with the humans'" in n for n in both["details"]["box"]["quality"]["model_notes"])


# --------------------------------------------------------------------------- unitizing alpha (issue 26)

#: three sentences with their entities (the third holds an emoji: two UTF-16 code units, one Python character)
SENTENCES = [
    ("Ada Lovelace met Charles Babbage in London.", [("Ada Lovelace", "PER"), ("Charles Babbage", "PER"),
                                                      ("London", "LOC")]),
    ("Alan Turing worked at Bletchley Park.", [("Alan Turing", "PER"), ("Bletchley Park", "LOC")]),
    ("At noon 🙂 Grace Hopper joined the Navy.", [("Grace Hopper", "PER"), ("Navy", "ORG")]),
]  # fmt: skip


def _entity(text: str, words: str) -> tuple[int, int]:
    """Label Studio's offsets of ``words`` in ``text`` (UTF-16 code units, as JavaScript counts them)."""
    i = text.index(words)
    return len(text[:i].encode("utf-16-le")) // 2, len(text[: i + len(words)].encode("utf-16-le")) // 2


@pytest.mark.slow  # six runs of the iaa command against the real server (report, --models, text, two syncs): ~25 s
def test_ner_project_unitizing_alpha_beside_the_unit_matched_numbers(server, api, tmp_path):
    """a marks every entity; b misses some (and marks nothing at all in the second text: an annotation without
    a region, so b counts there as having marked nothing); c shifts boundaries and gives London a wrong label; d
    skipped the first task (a cancelled annotation with a span: never used). Every task has a, b and c, so the
    hand-built study is the core's own case: one call of ie.unitizing_alpha on the span table with
    annotators=[a, b, c] and each text's length (UTF-16) as its continuum."""
    emails = ["ua@example.com", "ub@example.com", "uc@example.com", "ud@example.com"]
    users = lst.make_users(api, emails)
    a, b, c, d = (users[e] for e in emails)
    marks: dict[tuple[int, str], list[tuple[int, int, str]]] = {}
    for k, (text, ents) in enumerate(SENTENCES):
        pos = {w: _entity(text, w) for w, _ in ents}
        marks[(k, "a")] = [(*pos[w], lab) for w, lab in ents]
        marks[(k, "b")] = [(*pos[ents[0][0]], ents[0][1])] if k != 1 else []  # b misses all but the first
        marks[(k, "c")] = [(s + (1 if i == 0 else 0), e - (2 if i == 1 else 0), "ORG" if w == "London" else lab)
                           for i, (w, lab) in enumerate(ents) for s, e in [pos[w]]]  # fmt: skip
    assert marks[(0, "c")][2] == (36, 42, "ORG") and marks[(0, "c")][0] == (1, 12, "PER")

    def ann(uid, spans, **extra):
        rs = [res("ner", "labels", {"start": s, "end": e, "labels": [lab]}) for s, e, lab in spans]
        return {"completed_by": uid, "result": rs, **extra}

    tasks, model = [], {}
    for k, (text, _) in enumerate(SENTENCES):
        anns = [ann(users[f"u{x}@example.com"], marks[(k, x)]) for x in "abc"]
        if k == 0:
            anns.append(ann(d, [(0, 40, "ORG")], was_cancelled=True))
        task = {"data": {"text": text}, "annotations": anns}
        if k != 1:  # a model predicts the first and the last task: a's spans, the last one shifted and a LOC
            *same, (s, e, _) = marks[(k, "a")]
            model[k] = [*same, (s + 1, e, "LOC")]
            task["predictions"] = [{"model_version": "ner-v1", "result": ann(0, model[k])["result"]}]
        tasks.append(task)
    pid = lst.make_project(api, "ner unitizing", NER, tasks)
    got = _report(server, pid)
    u = got["details"]["ner"]["unitizing_alpha"]
    with_model = _report(server, pid, "--models", "ner-v1", "--gamma")["details"]["ner"]["unitizing_alpha"]
    assert {k: v for k, v in with_model.items() if k not in ("models", "gamma")} == u  # never includes the model

    # the hand-built span table, computed by the core directly
    hand = pd.DataFrame(
        [(k, who, s, e, lab) for (k, who), spans in marks.items() for s, e, lab in spans],
        columns=["document", "annotator", "start", "end", "label"],
    )
    lengths = {k: len(text.encode("utf-16-le")) // 2 for k, (text, _) in enumerate(SENTENCES)}
    assert lengths[2] == len(SENTENCES[2][0]) + 1  # the emoji counts twice
    want = ie.unitizing_alpha(hand, continuum=lengths, annotators=["a", "b", "c"])
    assert u["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert 0 < u["estimate"] < 0.9  # the misses, shifts and the wrong label cost agreement
    assert (u["n_tasks"], u["n_annotators"], u["n_units"], u["length"]) == (3, 3, want.n_units, sum(lengths.values()))
    assert u["positions"] == "characters" and u["other_groups"] == [] and u["n_spans"] == len(hand)
    per = {r["category"]: r for r in u["per_category"]}
    for r in want.per_category.itertuples():
        assert per[r.category]["alpha"] == pytest.approx(r.alpha, abs=1e-12)
        assert (per[r.category]["d_o"], per[r.category]["d_e"], per[r.category]["n_units"]) == (
            pytest.approx(r.d_o, abs=1e-15),
            pytest.approx(r.d_e, abs=1e-15),
            r.n_units,
        )
    assert set(per) == {"PER", "LOC", "ORG"}
    ids = sorted(int(t) for t in u["per_task"])  # tasks in import order
    for k, tid in enumerate(ids):
        one = ie.unitizing_alpha(hand[hand["document"] == k], continuum=lengths[k], annotators=["a", "b", "c"])
        assert u["per_task"][str(tid)] == pytest.approx(one.estimate, abs=1e-12)
    # the model as a fourth rater on the two tasks it predicted, beside the humans alone there
    by_model = [(k, "m", s, e, lab) for k, spans in model.items() for s, e, lab in spans]
    both = pd.concat([hand[hand["document"] != 1], pd.DataFrame(by_model, columns=hand.columns)])
    cont = {k: lengths[k] for k in (0, 2)}
    m = with_model["models"]
    assert m == [{"model": "ner-v1", "n_tasks": 2, "with_model": pytest.approx(
        ie.unitizing_alpha(both, continuum=cont, annotators=["a", "b", "c", "m"]).estimate, abs=1e-12),
        "humans": pytest.approx(ie.unitizing_alpha(hand[hand["document"] != 1], continuum=cont,
                                                   annotators=["a", "b", "c"]).estimate, abs=1e-12)}]  # fmt: skip
    # γ on request: the core's on the same span table (raters a, b, c are #1, #2, #3: sorted names)
    g = ie.gamma_agreement(hand, continuum=lengths, annotators=["a", "b", "c"])
    assert "gamma" not in u and with_model["gamma"]["estimate"] == pytest.approx(g.estimate, abs=1e-12)
    assert (with_model["gamma"]["gamma_cat"], with_model["gamma"]["se"]) == (
        pytest.approx(g.gamma_cat, abs=1e-12),
        pytest.approx(g.se, abs=1e-12),
    )
    # the unit-matched numbers stay (exact boundaries: c's shifted spans are units of their own)
    rm = got["details"]["ner"]["region_matching"]
    assert rm["n_regions"] == len(hand) and got["controls"]["ner"]["krippendorff_alpha"] is not None
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "--project", str(pid), "--gamma").stdout
    lines = text.splitlines()
    assert f"gamma (γ) on the same tasks: {g.estimate:.4f} (sampling SE {g.se:.4f}, 30 samples)" in text
    head = next(i for i, line in enumerate(lines) if "Krippendorff's unitizing alpha (α_U):" in line)
    assert f"{want.estimate:.4f}" in lines[head] and "3 tasks with 3 annotators" in lines[head]
    assert f"continuum {sum(lengths.values())} characters" in lines[head]
    for r in want.per_category.itertuples():
        assert any(line.split()[:2] == [r.category, f"{r.alpha:.4f}"] for line in lines[head + 1 : head + 5])
    matched = next(i for i, line in enumerate(lines) if line.startswith("  Region matching: "))
    alpha = next(i for i, line in enumerate(lines) if "Krippendorff's alpha" in line and "unitizing" not in line)
    assert alpha < head < matched  # the unit-matched alpha, alpha_U and the region matching side by side

    # sync: alpha_U in the summary it prints and saves; no human annotation touched; a second sync writes nothing
    def humans():
        return {
            a["id"]: a["result"]
            for t in api.tasks(pid)
            for a in t["annotations"]
            if a["completed_by"] in users.values()
        }

    before = humans()
    args = ["--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--summary", str(tmp_path), "--no-html"]
    first = run("sync", *args, "--no-state")
    assert first.returncode == 0, first.stderr
    assert f"ner: Krippendorff's unitizing alpha (α_U) {want.estimate:.4f}, 3 tasks with 3 annotators" in first.stdout
    saved = json.loads((tmp_path / f"iaa-ls-{pid}.json").read_text())
    assert saved["agreement"]["details"]["ner"]["unitizing_alpha"]["estimate"] == pytest.approx(want.estimate)
    # each task's own alpha_U written back as task data, rounded as every field (issue 33)
    written = {t["id"]: t["data"].get("iaa_alpha_u") for t in api.tasks(pid)}
    for k, tid in enumerate(ids):
        one = ie.unitizing_alpha(hand[hand["document"] == k], continuum=lengths[k], annotators=["a", "b", "c"])
        assert written[tid] == round(one.estimate, 3), tid
    second = json.loads(run("sync", *args, "--no-state", "--json").stdout)
    assert second["planned"] == {} and second["done"] == {}
    assert humans() == before


PARAGRAPHS = """<View><Paragraphs name="dialogue" value="$dialogue" layout="dialogue" textKey="line"/>
<ParagraphLabels name="pl" toName="dialogue"><Label value="Q"/><Label value="A"/></ParagraphLabels></View>"""


def _unitizing_of(tasks, config, names):
    from iaa_label_studio.analyse import unitizing

    conv = convert(tasks, parse_config(config), annotator_names=names)
    return conv, {n: unitizing(cd) for n, cd in conv.controls.items()}


def test_paragraph_labels_are_character_spans_on_the_paragraphs_laid_end_to_end():
    """Paragraphs of 12, 10 (an emoji: two UTF-16 code units) and 5 characters start at 0, 12, 22; total 27.
    A result's paragraph indices come as numbers or digit strings; offsets are inside their paragraphs (the end
    one exclusive); a result without offsets is its whole paragraphs."""
    dialogue = [
        {"author": "x", "line": "How are you?"},
        {"author": "y", "line": "Fine 🙂 ok"},
        {"author": "x", "line": "Good."},
    ]
    assert [len(p["line"].encode("utf-16-le")) // 2 for p in dialogue] == [12, 10, 5]

    def pl(start, end, lab, so=None, eo=None):
        v = {"start": start, "end": end, "paragraphlabels": [lab]}
        if so is not None:
            v |= {"startOffset": so, "endOffset": eo}
        return res("pl", "paragraphlabels", v, "dialogue")

    a = [pl("0", "0", "Q", 0, 12), pl(1, 2, "A", 0, 5)]  # [0, 12) and [12, 27)
    b = [pl(0, 0, "Q"), pl("1", "1", "A", 2, 10)]  # whole paragraph 0: [0, 12); [14, 22)
    bad = [pl(0, 3, "Q"), pl(0, 0, "Q", 0, 13)]  # no paragraph 3; offset 13 beyond a 12-character paragraph
    anns = [{"id": 1, "completed_by": 1, "result": a + bad}, {"id": 2, "completed_by": 2, "result": b}]
    task = {"id": 4, "data": {"dialogue": dialogue}, "annotations": anns}
    url = {"id": 5, "data": {"dialogue": "https://example.com/d.json"},
           "annotations": [{"id": 3, "completed_by": 1, "result": [pl(0, 0, "Q")]}]}  # fmt: skip
    conv, u = _unitizing_of([task, url], PARAGRAPHS, {1: "a", 2: "b"})
    cd = conv.controls["pl"]
    assert cd.control.region == "span" and cd.control.object_value == "dialogue"
    spans = cd.unitizing.spans.sort_values(["annotator", "start"])
    assert spans[["annotator", "start", "end", "label"]].values.tolist() == [
        ["a", 0, 12, "Q"], ["a", 12, 27, "A"], ["b", 0, 12, "Q"], ["b", 14, 22, "A"]]  # fmt: skip
    assert cd.unitizing.continuum.values.tolist() == [[4, 0.0, 27.0, "data"]]
    assert sum(n for why, n in cd.invalid.items() if "paragraph" in why or "offsets" in why) == 3
    assert any("not in its data" in why for why in cd.invalid)
    hand = pd.DataFrame([("a", 0, 12, "Q"), ("a", 12, 27, "A"), ("b", 0, 12, "Q"), ("b", 14, 22, "A")],
                        columns=["annotator", "start", "end", "label"])  # fmt: skip
    want = ie.unitizing_alpha(hand, continuum=27)
    assert u["pl"]["estimate"] == pytest.approx(want.estimate, abs=1e-12) and u["pl"]["n_tasks"] == 1
    # the unit-matched numbers too: the Q spans match exactly, the A spans do not
    assert cd.matching.pairs.iloc[0].n_matched == 1


TIMED = """<View>
  <Audio name="audio" value="$audio"/><Labels name="speech" toName="audio"><Label value="Speech"/></Labels>
  <TimeSeries name="ts" value="$ts" valueType="json" timeColumn="t"><Channel column="y"/></TimeSeries>
  <TimeSeriesLabels name="tsl" toName="ts"><Label value="Up"/></TimeSeriesLabels>
  <TimeSeries name="rows" value="$rows" valueType="json"><Channel column="y"/></TimeSeries>
  <TimeSeriesLabels name="rl" toName="rows"><Label value="Up"/></TimeSeriesLabels>
  <Video name="video" value="$video"/><Labels name="vl" toName="video"><Label value="Car"/></Labels>
  <TimelineLabels name="tl" toName="video"><Label value="Run"/></TimelineLabels>
</View>"""


def test_time_labels_on_their_continua():
    """Audio in milliseconds (α_U counts positions), its length from the results' original_length (seconds); an
    inline time series from its time column's first to last value, or its rows; video in frames, numbered from 1,
    framesCount from the results; no stated length: the spans' extent, with the core's caution as a note."""
    a = [
        res("speech", "labels", {"start": 1.0, "end": 3.5, "labels": ["Speech"]}, "audio", original_length=10.0),
        res("tsl", "timeserieslabels", {"start": 20, "end": 40, "timeserieslabels": ["Up"]}, "ts"),
        res("rl", "timeserieslabels", {"start": 1, "end": 3, "timeserieslabels": ["Up"]}, "rows"),
        res("vl", "videorectangle", {"sequence": [{"frame": 5}, {"frame": 9}], "labels": ["Car"], "framesCount": 50},
            "video"),
        res("tl", "timelinelabels", {"ranges": [{"start": 3, "end": 4}, {"start": 10, "end": 12}],
                                     "timelinelabels": ["Run"]}, "video"),
    ]  # fmt: skip
    b = [
        res("speech", "labels", {"start": 1.5, "end": 3.5, "labels": ["Speech"]}, "audio", original_length=10.0),
        res("tsl", "timeserieslabels", {"start": 25, "end": 40, "timeserieslabels": ["Up"]}, "ts"),
        res("vl", "videorectangle", {"sequence": [{"frame": 6}, {"frame": 9}], "labels": ["Car"], "framesCount": 50},
            "video"),
        res("tl", "timelinelabels", {"ranges": [{"start": 4, "end": 5}], "timelinelabels": ["Run"]}, "video"),
    ]  # fmt: skip
    data = {"ts": {"t": [10, 20, 30, 40, 50, 60], "y": [0, 1, 2, 3, 4, 5]}, "rows": {"y": [0, 1, 2, 3, 4, 5, 6]}}
    anns = [{"id": 1, "completed_by": 1, "result": a}, {"id": 2, "completed_by": 2, "result": b}]
    task = {"id": 7, "data": data, "annotations": anns}
    conv, u = _unitizing_of([task], TIMED, {1: "a", 2: "b"})

    def check(name, rows, continuum, positions):
        st = conv.controls[name].unitizing
        assert st.positions == positions
        got = st.spans.sort_values(["annotator", "start"])[["annotator", "start", "end"]].values.tolist()
        assert got == rows, name
        assert tuple(st.continuum[["begin", "length"]].iloc[0]) == continuum, name
        hand = pd.DataFrame([(w, s, e, "x") for w, s, e in rows], columns=["annotator", "start", "end", "label"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the spans' extent, as the connector takes it
            want = ie.unitizing_alpha(hand, continuum=continuum, annotators=["a", "b"])
        assert u[name]["estimate"] == pytest.approx(want.estimate, abs=1e-12), name

    check("speech", [["a", 1000, 3500], ["b", 1500, 3500]], (0.0, 10000.0), "milliseconds")
    check("tsl", [["a", 20, 40], ["b", 25, 40]], (10.0, 50.0), u["tsl"]["positions"])
    check("rl", [["a", 1, 3]], (0.0, 6.0), u["rl"]["positions"])  # b marked nothing there: one unit of two raters
    check("vl", [["a", 5, 10], ["b", 6, 10]], (1.0, 50.0), "frames")
    check("tl", [["a", 3, 5], ["a", 10, 13], ["b", 4, 6]], (3.0, 10.0), "frames")  # no framesCount: the extent
    assert any("taken from their spans" in n for n in u["tl"]["notes"])
    assert not any("taken from their spans" in n for n in u["vl"]["notes"])
    assert u["rl"]["n_annotators"] == 2  # b completed the task: a rater who marked nothing there


def test_each_tasks_annotators_become_its_raters():
    """α_U depends on the raters only through their number per document, so tasks annotated by different people
    pool as one study of R raters: each task's value equals the core's on the same spans with the annotators
    renamed into one set, either way round. A task with another number of annotators pools with them, each task
    among its own participants (issue 33: the core's participants=, no group apart)."""
    t1 = _ner_task(1, [(1, [(0, 5, "PER"), (9, 14, "ORG")]), (2, [(1, 5, "PER")])])
    t2 = _ner_task(2, [(2, [(3, 8, "LOC")]), (3, [(3, 9, "LOC"), (20, 22, "PER")])])
    t3 = _ner_task(3, [(1, [(0, 4, "PER")]), (2, [(0, 4, "PER")]), (3, [(0, 5, "PER"), (1, 3, "PER")])])
    for t in (t1, t2, t3):
        t["data"] = {"text": "z" * 30}
    conv, u = _unitizing_of([t1, t2, t3], NER, {1: "x", 2: "y", 3: "z"})
    rows = conv.controls["ner"].unitizing.spans
    two = rows[rows["task"] != 3].rename(columns={"task": "document"})
    for rename in ({"y": "x", "z": "y"}, {"y": "y", "z": "x"}):  # task 2's raters as task 1's, both ways
        t = two.assign(annotator=np.where(two["document"] == 2, two["annotator"].map(rename), two["annotator"]))
        want = ie.unitizing_alpha(t, continuum=30, annotators=["x", "y"])
        for tid in (1, 2):  # each task's own alpha_U is the same either way
            assert u["ner"]["per_task"][tid] == pytest.approx(want.per_document.set_index("document").loc[tid, "alpha"])
    three = rows[rows["task"] == 3]
    want3 = ie.unitizing_alpha(three, continuum=30, overlaps="merge")  # z's two PER spans overlap: merged
    # issue 33: every task among its own participants, pooled in the coincidence form (no group apart): the tasks
    # of 2 and the task of 3 make one value; task 3's own alpha_U is in per_task
    every = rows.rename(columns={"task": "document"})
    part = pd.DataFrame([(1, "x"), (1, "y"), (2, "y"), (2, "z"), (3, "x"), (3, "y"), (3, "z")],
                        columns=["document", "annotator"])  # fmt: skip
    want = ie.unitizing_alpha(every, continuum=30, participants=part, overlaps="merge")
    assert u["ner"]["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert (u["ner"]["n_tasks"], u["ner"]["n_annotators"], u["ner"]["other_groups"]) == (3, 2, [])
    assert u["ner"]["annotators_per_task"] == {2: 2, 3: 1}
    assert u["ner"]["per_task"][3] == pytest.approx(want3.estimate, abs=1e-12)
    assert any("each task among its own annotators" in n for n in u["ner"]["notes"])
    assert any("merged into their union" in n for n in u["ner"]["notes"])
    # a span with two labels is a unit of each
    t4 = _ner_task(4, [(1, []), (2, [])])
    t4["annotations"][0]["result"] = [res("ner", "labels", {"start": 0, "end": 3, "labels": ["PER", "ORG"]})]
    t4["data"] = {"text": "abcdef"}
    conv, u = _unitizing_of([t4], NER, {1: "x", 2: "y"})
    assert sorted(conv.controls["ner"].unitizing.spans["label"]) == ["ORG", "PER"] and u["ner"]["n_units"] == 2


def test_gamma_on_request_leaves_out_spans_of_length_zero():
    """An instant time-series region (start == end) is a unit of α_U but has no place in γ (its positional
    dissimilarity is 0/0): γ is the core's on the other spans, with a note; without the request, no γ."""
    from iaa_label_studio.analyse import unitizing

    config = """<View>
      <TimeSeries name="ts" value="$ts" valueType="json" timeColumn="t"><Channel column="y"/></TimeSeries>
      <TimeSeriesLabels name="tsl" toName="ts"><Label value="Up"/><Label value="Down"/></TimeSeriesLabels></View>"""

    def tsl(s, e, lab, **extra):
        return res("tsl", "timeserieslabels", {"start": s, "end": e, "timeserieslabels": [lab], **extra}, "ts")

    a = [tsl(0, 10, "Up"), tsl(20, 20, "Down", instant=True), tsl(25, 35, "Down")]
    b = [tsl(0, 12, "Up"), tsl(26, 35, "Down")]
    anns = [{"id": 1, "completed_by": 1, "result": a}, {"id": 2, "completed_by": 2, "result": b}]
    task = {"id": 3, "data": {"ts": {"t": [0, 10, 20, 30, 40], "y": [1, 2, 3, 4, 5]}}, "annotations": anns}
    cd = convert([task], parse_config(config), annotator_names={1: "a", 2: "b"}).controls["tsl"]
    plain, with_gamma = unitizing(cd), unitizing(cd, gamma=True)
    assert "gamma" not in plain and plain["n_units"] == 5
    rows = [("a", 0, 10, "Up"), ("a", 25, 35, "Down"), ("b", 0, 12, "Up"), ("b", 26, 35, "Down")]
    hand = pd.DataFrame(rows, columns=["annotator", "start", "end", "label"])
    g = ie.gamma_agreement(hand, continuum=(0, 40), annotators=["a", "b"])
    assert with_gamma["gamma"]["estimate"] == pytest.approx(g.estimate, abs=1e-12)
    assert with_gamma["gamma"]["n_units"] == 4 and with_gamma["gamma"]["n_samples"] == 30
    assert any("1 span(s) of length 0 left out" in n for n in with_gamma["notes"])
