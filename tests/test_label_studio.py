"""The Label Studio plugin against a REAL Label Studio server (installed in its own cached venv, loopback only).

Conversion is tested on recorded JSON first; then `iaa label-studio report` and `sync` run as a user runs them
(the installed console script) and the server's state is checked through the API.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

iaa_label_studio = pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api, Connection  # noqa: E402
from iaa_label_studio.convert import NO_REGION, convert, parse_config, span_units  # noqa: E402

IAA = shutil.which("iaa", path=str(Path(sys.executable).parent)) or shutil.which("iaa")
TOKEN = lst.TOKEN


def run(
    *args: str, env: dict | None = None, timeout: float = 300, process: bool = False
) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``: in this process (the command line's own main, lst.run_cli), or with ``process``
    as a new process of the console script (what a user's terminal shows, start-up included)."""
    if not process:
        return lst.run_cli("label-studio", *args, env=env)
    base = {k: v for k, v in os.environ.items() if k not in lst.NOT_INHERITED}
    return subprocess.run(
        [IAA, "label-studio", *args], capture_output=True, text=True, env={**base, **(env or {})}, timeout=timeout
    )


# --------------------------------------------------------------------------- conversion on recorded JSON

CONFIG = """
<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices>
  <Choices name="topics" toName="text" choice="multiple"><Choice value="a"/><Choice value="b"/><Choice value="c"/></Choices>
  <Rating name="stars" toName="text" maxRating="5"/>
  <Number name="score" toName="text" min="0" max="100"/>
  <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/><Label value="LOC"/></Labels>
  <Taxonomy name="tax" toName="text">
    <Choice value="Animals"><Choice value="Mammals"/><Choice value="Birds"/></Choice>
    <Choice value="Plants"><Choice value="Trees"/><Choice value="Flowers"/></Choice>
  </Taxonomy>
  <TextArea name="comment" toName="text"/>
  <RectangleLabels name="box" toName="text"><Label value="x"/></RectangleLabels>
</View>
"""  # noqa: E501


def r(name: str, kind: str, value: dict) -> dict:
    return {"from_name": name, "to_name": "text", "type": kind, "value": value}


def test_parse_config_reads_every_control():
    controls = {c.name: c for c in parse_config(CONFIG)}
    assert controls["sentiment"].values == ["pos", "neg", "neu"] and not controls["sentiment"].multiple
    assert controls["topics"].multiple
    assert controls["stars"].max_rating == 5 and controls["stars"].level == "ordinal"
    assert (controls["score"].minimum, controls["score"].maximum) == (0, 100) and controls["score"].level == "interval"
    assert ("Animals", "Mammals") in controls["tax"].paths
    assert not controls["box"].supported
    with pytest.raises(ValueError, match="not valid XML"):
        parse_config("<View>")


def test_convert_sets_aside_results_that_do_not_fit_and_skips_cancelled_and_plugin_annotations():
    tasks = [
        {
            "id": 1,
            "annotations": [
                {
                    "id": 1,
                    "completed_by": 1,
                    "result": [
                        r("sentiment", "choices", {"choices": ["pos"]}),
                        r("stars", "rating", {"rating": 9}),  # outside 0..5
                        r("score", "number", {"number": "x"}),  # wrong shape
                        r("nope", "choices", {"choices": ["pos"]}),  # unknown control
                        r("sentiment", "labels", {"labels": ["PER"]}),  # wrong type
                        r("tax", "taxonomy", {"taxonomy": [["Animals", "Fish"]]}),
                    ],
                },
                {
                    "id": 2,
                    "completed_by": 2,
                    "result": [
                        r("sentiment", "choices", {"choices": ["meh"]}),  # unknown label
                        r("topics", "choices", {"choices": ["b", "a"]}),
                    ],
                },
                {
                    "id": 3,
                    "completed_by": 3,
                    "was_cancelled": True,
                    "result": [r("sentiment", "choices", {"choices": ["neg"]})],
                },
                {
                    "id": 4,
                    "completed_by": 99,
                    "result": [r("sentiment", "choices", {"choices": ["neg"]})],
                },  # the plugin
            ],
        }
    ]
    conv = convert(tasks, parse_config(CONFIG), exclude_users=[99], annotator_names={1: "u1", 2: "u2"})
    s = conv.controls["sentiment"]
    assert list(s.table["annotator"]) == ["u1"] and list(s.table["label"]) == ["pos"]
    assert s.invalid == {"unknown label 'meh'": 1, "result type 'labels' does not match the Choices tag": 1}
    assert conv.controls["stars"].invalid == {"rating 9 outside 0..5": 1}
    assert conv.controls["score"].n_invalid == 1 and conv.controls["tax"].invalid == {
        "unknown taxonomy path 'Animals/Fish'": 1
    }
    assert list(conv.controls["topics"].table["label"]) == [("a", "b")]  # a set, in config order
    assert conv.unknown == {"nope": 1}
    assert any("RectangleLabels" in n for n in conv.notes)
    assert "comment" in conv.controls and "edit distance" in conv.controls["comment"].notes[0]


def test_span_units_exact_and_iou():
    spans = [("a", 0, 10, "PER"), ("b", 0, 10, "PER"), ("c", 1, 10, "ORG"), ("a", 20, 30, "LOC"), ("b", 21, 30, "LOC")]
    exact = span_units(spans, None)
    assert sorted({u for u, _, _ in exact}) == [0, 1, 2, 3]  # (0,10), (1,10), (20,30), (21,30)
    loose = span_units(spans, 0.8)
    units = {}
    for u, who, lab in loose:
        units.setdefault(u, []).append((who, lab))
    assert sorted(map(sorted, units.values())) == [
        [("a", "LOC"), ("b", "LOC")],
        [("a", "PER"), ("b", "PER"), ("c", "ORG")],
    ]
    # the same annotator never has two spans in one unit
    assert len(span_units([("a", 0, 10, "PER"), ("a", 0, 9, "PER")], 0.5)) == 2
    assert {u for u, _, _ in span_units([("a", 0, 10, "PER"), ("a", 0, 9, "PER")], 0.5)} == {0, 1}


def test_seed_002_spans_give_the_datasaur_alpha():
    """Seed 002 (Datasaur): Labeler A vs Reviewer on 8 spans, singletons dropped -> alpha = 0.56 (their rounding)."""
    a = [
        ("The Tragedy of Hamlet", "EVE"),
        ("Prince of Denmark", "PER"),
        ("Hamlet", "PER"),
        ("William Shakespeare", "PER"),
        ("1599", "YEAR"),
        ("1601", "YEAR"),
        ("Shakespeare", "ORG"),
    ]
    rv = [
        ("The Tragedy of Hamlet", "TITLE"),
        ("Hamlet", "PER"),
        ("William Shakespeare", "PER"),
        ("1599", "YEAR"),
        ("1601", "YEAR"),
        ("Shakespeare", "PER"),
        ("30557", "QTY"),
    ]
    pos = {t: (10 * i, 10 * i + len(t)) for i, t in enumerate(dict.fromkeys([x for x, _ in a + rv]))}
    config = (
        '<View><Text name="text" value="$text"/><Labels name="ner" toName="text">'
        + "".join(f'<Label value="{v}"/>' for v in ("EVE", "TITLE", "PER", "ORG", "YEAR", "QTY"))
        + "</Labels></View>"
    )
    task = {
        "id": 7,
        "annotations": [
            {
                "id": i + 1,
                "completed_by": who,
                "result": [
                    r("ner", "labels", {"start": pos[t][0], "end": pos[t][1], "text": t, "labels": [lab]})
                    for t, lab in spans
                ],
            }
            for i, (who, spans) in enumerate([(1, a), (2, rv)])
        ],
    }
    conv = convert([task], parse_config(config), annotator_names={1: "A", 2: "Reviewer"})
    table = conv.controls["ner"].table
    # Datasaur's convention leaves out what only one annotator marked: the '(no region)' values the connector adds
    datasaur = ie.Annotations.from_long(table[table["label"] != NO_REGION])
    assert datasaur.n_items == 8 and int(np.sum(datasaur.counts.n_i >= 2)) == 6
    assert ie.krippendorff_alpha(datasaur) == pytest.approx(0.56, abs=0.005)
    # the connector counts the two spans each marked alone as disagreements: lower
    data = ie.Annotations.from_long(table)
    assert int(np.sum(data.counts.n_i >= 2)) == 8 and ie.krippendorff_alpha(data) < 0.56 - 0.05


def test_plan_touches_only_the_plugins_own_writes_and_never_writes_an_annotation():
    """Recorded JSON, no server: the plan never names a human annotation and never creates or updates an
    annotation (Label Studio counts every annotation toward a task's overlap: issue 36); the gold annotations of
    earlier versions go, and a second plan on the written state is empty."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.plan import plan
    from iaa_label_studio.read import Project

    bot = 99
    config = (
        '<View><Text name="text" value="$text"/><Choices name="s" toName="text"><Choice value="a"/>'
        '<Choice value="b"/></Choices></View>'
    )

    def ann(i, who, label, **kw):
        return {"id": i, "completed_by": who, "result": [r("s", "choices", {"choices": [label]})], **kw}

    tasks = [
        {
            "id": 1,
            "data": {"text": "x", "own": 1},
            "predictions": [],
            # two gold annotations of an earlier version, written through the API (no time in the editor)
            "annotations": [
                ann(1, 1, "a"),
                ann(2, 2, "a"),
                ann(3, 3, "b"),
                ann(4, bot, "b", updated_by=bot),
                ann(5, bot, "a", updated_by=1),
            ],
        },
        {
            "id": 2,
            "data": {"text": "y"},
            "predictions": [{"id": 7, "model_version": "iaa-engine-agreement", "score": 0.5}],
            "annotations": [ann(6, 1, "a")],
        },
        {"id": 3, "data": {"text": "z"}, "predictions": [], "annotations": []},
    ]
    project = Project(1, "t", config, parse_config(config), tasks, {1: "u1", 2: "u2", 3: "u3"}, bot, {})
    changes = plan(analyse(project), bot_id=bot)
    human = {1, 2, 3, 6}
    assert not [c for c in changes if c.kind.endswith("annotation") and c.target in human]
    kinds = sorted((c.kind, c.task, c.target) for c in changes)
    assert kinds == [
        ("create_prediction", 1, None),  # the gold, as a prediction (iaa-engine-gold)
        ("create_prediction", 1, None),  # the agreement score
        ("delete_annotation", 1, 4),  # the earlier versions' gold annotations
        ("delete_annotation", 1, 5),
        ("delete_prediction", 2, 7),
        ("update_data", 1, None),
    ]
    assert not [c for c in changes if c.kind == "update_project"]  # the project's model_version is left alone
    lean = plan(analyse(project), bot_id=bot, gold=False, field=None)  # --no-gold --no-field: scores only
    assert sorted(c.kind for c in lean) == [
        "create_prediction",
        "delete_annotation",
        "delete_annotation",
        "delete_prediction",
    ]
    asked = plan(analyse(project), bot_id=bot, set_model_version=True)
    assert [c.body for c in asked if c.kind == "update_project"] == [{"model_version": "iaa-engine-agreement"}]
    upd = next(c for c in changes if c.kind == "update_data")
    # only the connector's fields: rounded to 3 decimals, the gold's state, the review flag
    assert upd.body == {
        "iaa_agreement": 0.333,
        "iaa_gold": "final",  # the overlap (1) is reached: the gold is final (and still only a prediction)
        "iaa_needs_adjudication": "no",
        "iaa_needs_review": "yes",  # its annotations do not all agree (quality.py)
        "iaa_confused": "a / b",
    }
    gold_pred = next(
        c.body for c in changes if c.kind == "create_prediction" and c.body["model_version"] != "iaa-engine-agreement"
    )
    assert gold_pred["model_version"] == "iaa-engine-gold" and gold_pred["result"][0]["value"] == {"choices": ["a"]}
    # the state after these writes plans nothing
    tasks[0]["annotations"] = tasks[0]["annotations"][:3]
    tasks[0]["data"].update(upd.body)
    tasks[0]["predictions"] = [
        {"id": 8, "model_version": "iaa-engine-agreement", "score": 0.333},
        {"id": 9, "model_version": "iaa-engine-gold", "score": None, "result": gold_pred["result"]},
    ]
    tasks[1]["predictions"] = []
    project = Project(1, "t", config, parse_config(config), tasks, {1: "u1", 2: "u2", 3: "u3"}, bot, {})
    assert plan(analyse(project), bot_id=bot) == []


def test_an_adjudication_is_the_gold_a_known_label_and_never_written():
    """Issue 36, item 2, recorded JSON: an admin's annotation copied from the gold prediction (Label Studio's editor
    records ``parent_prediction``), or an earlier version's gold annotation she saved in the editor (``lead_time``
    set, ``updated_by`` her), is her adjudication: the task's gold and known label, not one more rater, never
    written or deleted; the vote and a pre-labelling project (model_version = the gold) do not make one."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.plan import plan
    from iaa_label_studio.read import Project

    bot, admin = 99, 7
    config = (
        '<View><Text name="text" value="$text"/><Choices name="s" toName="text"><Choice value="a"/>'
        '<Choice value="b"/><Choice value="c"/></Choices></View>'
    )

    def ann(i, who, label, **kw):
        return {"id": i, "completed_by": who, "result": [r("s", "choices", {"choices": [label]})], **kw}

    def gold(i, label):
        return {"id": i, "model_version": "iaa-engine-gold", "result": [r("s", "choices", {"choices": [label]})]}

    tasks = [
        {  # a tie, adjudicated by copying the gold prediction: "c", a label nobody chose
            "id": 1,
            "data": {"text": "x"},
            "predictions": [gold(11, "a")],
            "annotations": [ann(1, 1, "a"), ann(2, 2, "b"), ann(3, admin, "c", parent_prediction=11, lead_time=4.0)],
        },
        {  # an earlier version's gold annotation, saved by the admin in the editor: "b" against the majority "a";
            # an older duplicate she had saved too is hers as well (kept), the latest is the adjudication
            "id": 2,
            "data": {"text": "y"},
            "predictions": [gold(12, "a")],
            "annotations": [
                ann(4, 1, "a"),
                ann(5, 2, "a"),
                ann(6, bot, "b", updated_by=admin, lead_time=2.5, updated_at="2026-01-02T00:00:00Z"),
                ann(10, bot, "c", updated_by=admin, lead_time=1.0, updated_at="2026-01-01T00:00:00Z"),
            ],
        },
        {  # an annotation copied from someone else's prediction is no adjudication
            "id": 3,
            "data": {"text": "z"},
            "predictions": [{"id": 13, "model_version": "theirs", "result": []}],
            "annotations": [ann(7, 1, "a"), ann(8, 2, "a"), ann(9, admin, "b", parent_prediction=13, lead_time=1.0)],
        },
    ]
    users = {1: "u1", 2: "u2", admin: "admin@example.org"}
    project = Project(1, "t", config, parse_config(config), tasks, users, bot, {"maximum_annotations": 2})
    a = analyse(project)
    assert {t: (x["form"], x["by"], x["annotation"]) for t, x in a.adjudications.items()} == {
        1: ("copy", admin, 3),
        2: ("edited", admin, 6),
    }
    assert a.adjudicated_by() == {"admin@example.org": 2} and a.to_json()["adjudicated"]["n_tasks"] == 2
    s = a.controls["s"]
    # the adjudicator is not a rater on the task she adjudicated (task 3: an ordinary third annotation)
    assert sorted(s.converted.table.loc[s.converted.table["task"] == 1, "annotator"]) == ["u1", "u2"]
    assert "admin@example.org" in set(s.converted.table.loc[s.converted.table["task"] == 3, "annotator"])
    # her label is the gold (the tie is decided: nothing to adjudicate there) and a known label
    assert s.gold[1][0]["value"] == {"choices": ["c"]} and s.gold[2][0]["value"] == {"choices": ["b"]}
    assert 1 not in s.gold.tied and s.ties == 0
    assert s.quality.known.to_dict() == {1: "c", 2: "b"}
    acc = s.quality.gold_accuracy.table.set_index("annotator")
    # the gold questions: u1 said a, a and u2 b, a where she decided c, b: wrong twice each
    assert acc.loc[["u1", "u2"], ["n_gold", "n_correct"]].to_numpy().tolist() == [[2, 0], [2, 0]]
    # the scorecard's accuracy uses her label where she adjudicated (task 2: b), the majority elsewhere (task 3: a);
    # c, which no annotator chose, is not one of the data's categories: the gold questions only (a note says so)
    card = s.quality.scorecard.table.set_index("annotator")
    assert card.loc["u1", "n_gold"] == 2 and card.loc["u1", "accuracy"] == pytest.approx(1 / 2)
    assert any("no annotator chose" in n for n in s.quality.notes)
    changes = plan(a, bot_id=bot)
    # never written, never deleted: her annotations; the gold prediction follows her label
    assert not [c for c in changes if c.target in (3, 6, 10) and c.kind.endswith("annotation")]
    assert not [c for c in changes if c.kind in ("create_annotation", "update_annotation")]
    upd = {c.task: c.body for c in changes if c.kind == "update_prediction"}
    assert upd[1]["result"][0]["value"] == {"choices": ["c"]} and upd[2]["result"][0]["value"] == {"choices": ["b"]}
    data = {c.task: c.body for c in changes if c.kind == "update_data"}
    assert data[1]["iaa_gold"] == data[2]["iaa_gold"] == "adjudicated" and data[1]["iaa_needs_adjudication"] == "no"
    # a project that pre-labels with the gold itself: every annotation starts from it, none is an adjudication
    pre = Project(1, "t", config, parse_config(config), tasks, users, bot, {"model_version": "iaa-engine-gold"})
    assert list(analyse(pre).adjudications) == [2]


# --------------------------------------------------------------------------- the real server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


ANNOTATORS = ["ann1@example.com", "ann2@example.com", "ann3@example.com"]


def _rng_project(api, seed: int = 3, n_tasks: int = 24):
    """A project with every supported tag, three annotators (with gaps), a cancelled annotation, a ground-truth
    annotation, results that do not fit, a task with one annotation and one with none. Returns (pid, expected),
    expected being the long tables per control as the test itself wrote them."""
    users = lst.make_users(api, ANNOTATORS)
    rng = np.random.default_rng(seed)
    expected = {k: [] for k in ("sentiment", "topics", "stars", "score", "tax", "comment", "ner")}
    tasks = []
    paths = [["Animals", "Mammals"], ["Animals", "Birds"], ["Plants", "Trees"], ["Plants", "Flowers"]]
    for t in range(n_tasks):
        n_ann = 0 if t == 0 else 1 if t == 1 else (2 if t % 5 == 0 else 3)
        anns = []
        base_sent = rng.choice(["pos", "neg", "neu"])
        for a, email in enumerate(ANNOTATORS[:n_ann]):
            sent = base_sent if rng.random() < 0.7 else rng.choice(["pos", "neg", "neu"])
            topics = sorted(set(rng.choice(["a", "b", "c"], size=int(rng.integers(1, 3)), replace=False)))
            stars = int(rng.integers(1, 6))
            score = int(rng.integers(0, 101))
            path = paths[int(rng.integers(0, 4))] if rng.random() < 0.5 else paths[t % 4]
            comment = "ok" if rng.random() < 0.6 else "bad"
            spans = [(0, 5 if a < 2 else 6, "PER" if rng.random() < 0.8 else "ORG")]  # the third is off by one
            if rng.random() < 0.5:
                spans.append((10, 15, "LOC"))
            res = [
                r("sentiment", "choices", {"choices": [str(sent)]}),
                r("topics", "choices", {"choices": [str(x) for x in topics]}),
                r("stars", "rating", {"rating": stars}),
                r("score", "number", {"number": score}),
                r("tax", "taxonomy", {"taxonomy": [path]}),
                r("comment", "textarea", {"text": [comment]}),
            ]
            res += [
                r("ner", "labels", {"start": s, "end": e, "text": "x" * (e - s), "labels": [lab]})
                for s, e, lab in spans
            ]
            gt = a == 0 and 4 <= t < 12  # the first annotator's work on tasks 4-11 is marked ground truth
            anns.append({"result": res, "completed_by": users[email], "ground_truth": gt})
            row = dict(task=t, annotator=email, gt=gt)
            expected["sentiment"].append({**row, "label": str(sent)})
            expected["topics"].append({**row, "label": tuple(str(x) for x in topics)})
            expected["stars"].append({**row, "label": stars})
            expected["score"].append({**row, "label": score})
            expected["tax"].append({**row, "label": tuple(path)})
            expected["comment"].append({**row, "label": comment})
            expected["ner"] += [{**row, "span": (s, e), "label": lab} for s, e, lab in spans]
        if t == 2:  # a cancelled annotation and results that do not fit the config: never used
            anns.append(
                {
                    "result": [r("sentiment", "choices", {"choices": ["neg"]})],
                    "completed_by": users[ANNOTATORS[0]],
                    "was_cancelled": True,
                }
            )
        tasks.append({"data": {"text": f"task {t}", "keep": {"nested": [t, "x"]}}, "annotations": anns})
    # results that do not fit: an extra annotator with an unknown label, a wrong shape, an unknown control
    bad = lst.make_users(api, ["odd@example.com"])["odd@example.com"]
    tasks[3]["annotations"].append(
        {
            "completed_by": bad,
            "result": [
                r("sentiment", "choices", {"choices": ["maybe"]}),
                r("stars", "rating", {"stars": 3}),
                r("ghost", "choices", {"choices": ["pos"]}),
            ],
        }
    )
    # who annotated each task (the spans' units give every one of them a value): the odd annotator is one
    expected["present"] = [{"task": x["task"], "annotator": x["annotator"]} for x in expected["sentiment"]]
    expected["present"].append({"task": 3, "annotator": "odd@example.com"})
    pid = lst.make_project(api, f"every tag {seed}", CONFIG, tasks)
    ids = sorted(t["id"] for t in api.tasks(pid))
    frames = {}
    for k, rows in expected.items():
        f = pd.DataFrame(rows)
        f["task"] = [ids[t] for t in f["task"]]
        frames[k] = f
    return pid, frames


def _ner_units(frames) -> pd.DataFrame:
    """Spans, exact boundaries: a unit per (task, start, end); every annotator of the task who did not mark it gets
    '(no region)' (a missed span is a disagreement)."""
    ner = frames["ner"].assign(span=frames["ner"]["span"].astype(str))
    grid = ner[["task", "span"]].drop_duplicates().merge(frames["present"].drop_duplicates(), on="task")
    f = grid.merge(ner[["task", "span", "annotator", "label"]], on=["task", "span", "annotator"], how="left")
    f["label"] = f["label"].astype(object).where(f["label"].notna(), NO_REGION)
    return f.assign(item=[f"{t}#{s}" for t, s in zip(f["task"], f["span"])])


@pytest.fixture(scope="module")
def every_tag(api):
    return _rng_project(api)


def test_report_json_equals_iaa_engine_for_every_tag(server, every_tag):
    pid, frames = every_tag
    out = run("report", "--url", server.url, "--token", TOKEN, "--project", str(pid), "--json")
    assert out.returncode == 0, out.stderr
    assert TOKEN not in out.stdout + out.stderr
    got = json.loads(out.stdout)
    levels = {"stars": "ordinal", "score": "interval"}
    for name in ("sentiment", "topics", "stars", "score", "comment"):
        f = frames[name].rename(columns={"task": "item"}).drop(columns="gt")
        want = ie.report(ie.Annotations.from_long(f, level=levels.get(name, "nominal"))).to_dict()
        assert got["controls"][name] == json.loads(json.dumps(want)), name
    tax = ie.report(
        ie.Annotations.from_long(frames["tax"].rename(columns={"task": "item"}).drop(columns="gt")), hierarchy="/"
    )
    assert got["controls"]["tax"] == json.loads(json.dumps(tax.to_dict()))
    assert got["controls"]["tax"]["hierarchy"]["alpha_parent"] is not None
    # spans, exact boundaries: a unit per (task, start, end)
    ner = _ner_units(frames)
    want = ie.report(ie.Annotations.from_long(ner[["item", "annotator", "label"]])).to_dict()
    for key in ("n_annotations", "n_annotators", "krippendorff_alpha", "fleiss_kappa", "spa"):
        assert got["controls"]["ner"][key] == json.loads(json.dumps(want[key])), key
    # each annotator against the ground-truth annotations: the core's pairwise matrices, ground truth as a rater
    f = frames["sentiment"].rename(columns={"task": "item"})
    f.loc[f["gt"], "annotator"] = "ground truth"
    gt_data = ie.Annotations.from_long(f.drop(columns="gt"))
    pa, ck = ie.percent_agreement_matrix(gt_data), ie.cohen_kappa_matrix(gt_data)
    g = list(pa.annotators).index("ground truth")
    vs = got["details"]["sentiment"]["ground_truth"]
    assert set(vs) == set(pa.annotators) - {"ground truth"}
    for a, name in enumerate(pa.annotators):
        if name != "ground truth":
            want_pa = pa.values[g, a]
            assert vs[name]["n_shared"] == pa.n_shared[g, a]
            assert vs[name]["percent_agreement"] == (None if not np.isfinite(want_pa) else pytest.approx(want_pa))
            assert (vs[name]["cohen_kappa"] is None) == (not np.isfinite(ck.values[g, a]))
    assert vs["ann2@example.com"]["n_shared"] == 8
    # each annotator against the pooled others: the core's annotator_agreement, for a plain tag and for spans
    for name, f in (
        ("sentiment", frames["sentiment"].rename(columns={"task": "item"}).drop(columns="gt")),
        ("ner", ner[["item", "annotator", "label"]]),
    ):
        want = ie.annotator_agreement(ie.Annotations.from_long(f))
        others = got["details"][name]["annotators_vs_others"]
        assert set(others) == set(want.index[want["n_items"] > 0]), name
        for who, v in others.items():
            assert v["n_pairs"] == want.loc[who, "n_pairs"] and v["n_items"] == want.loc[who, "n_items"]
            assert v["agreement"] == pytest.approx(want.loc[who, "agreement"], abs=1e-12)
            k = want.loc[who, "kappa"]
            assert v["kappa"] is None if not np.isfinite(k) else v["kappa"] == pytest.approx(k, abs=1e-12)
    # what did not fit is counted, never used
    d = got["details"]
    assert d["sentiment"]["invalid"] == {"unknown label 'maybe'": 1}
    assert d["stars"]["invalid"] == {"wrong shape (expected an integer 'rating')": 1}
    assert got["unknown_controls"] == {"ghost": 1}
    assert d["comment"]["notes"] and "edit distance" in d["comment"]["notes"][0]

    # partial credit: MASI between sets of choices and of taxonomy paths, the edit distance between texts
    def long(name, wrap=lambda v: v):
        f = frames[name].rename(columns={"task": "item"}).drop(columns="gt")
        return ie.Annotations.from_long(f.assign(label=[wrap(v) for v in f["label"]]))

    for name, distance, wrap in (
        ("topics", "masi", lambda v: v),
        ("tax", "masi", lambda v: (v,)),
        ("comment", "levenshtein", lambda v: v),
    ):
        want = ie.krippendorff_alpha(long(name, wrap), distance=distance)
        assert d[name]["partial_credit"] == {"distance": distance, "krippendorff_alpha": pytest.approx(want, abs=1e-12)}
    assert d["sentiment"]["partial_credit"] is None and d["stars"]["partial_credit"] is None
    assert any("RectangleLabels" in n for n in got["notes"])


def test_report_text_and_iou_and_environment(server, every_tag):
    pid, frames = every_tag
    env = {"LABEL_STUDIO_URL": server.url, "LABEL_STUDIO_API_KEY": TOKEN}
    out = run("report", "--project", str(pid), env=env)
    assert out.returncode == 0, out.stderr
    assert "== sentiment (Choices, nominal) ==" in out.stdout and "unknown label 'maybe'" in out.stdout
    assert TOKEN not in out.stdout + out.stderr
    exact = json.loads(run("report", "--project", str(pid), "--json", env=env).stdout)
    loose = json.loads(run("report", "--project", str(pid), "--json", "--iou", "0.5", env=env).stdout)
    # the third annotator's span ends one character later: a unit of its own with exact boundaries (where the other
    # two have '(no region)'), matched with IoU
    assert loose["controls"]["ner"]["n_items"] < exact["controls"]["ner"]["n_items"]
    assert loose["controls"]["ner"]["n_annotations"] < exact["controls"]["ner"]["n_annotations"]
    assert loose["controls"]["ner"]["krippendorff_alpha"] > exact["controls"]["ner"]["krippendorff_alpha"]
    rm_exact, rm_loose = exact["details"]["ner"]["region_matching"], loose["details"]["ner"]["region_matching"]
    assert rm_loose["f1_overall"] > rm_exact["f1_overall"] and rm_exact["threshold"] == 1.0
    assert "IoU >= 0.5" in loose["details"]["ner"]["notes"][0]


def test_errors_are_one_line_and_never_show_the_token(server, every_tag):
    pid, _ = every_tag
    cases = {
        "token": run("report", "--url", server.url, "--token", "wrong-token-123456", "-p", str(pid), process=True),
        "project": run("report", "--url", server.url, "--token", TOKEN, "-p", "987654", process=True),
        "unreachable": run(
            "report", "--url", f"http://127.0.0.1:{lst.free_port()}", "--token", TOKEN, "-p", "1", process=True
        ),
        "no url": run("report", "--token", TOKEN, "-p", "1", process=True),
    }
    for what, out in cases.items():
        assert out.returncode != 0, what
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("iaa: error: "), (what, out.stderr)
        assert TOKEN not in out.stderr + out.stdout and "wrong-token-123456" not in out.stderr, what
    assert "refused the API token" in cases["token"].stderr
    assert "project 987654 does not exist" in cases["project"].stderr
    assert "cannot reach Label Studio" in cases["unreachable"].stderr
    assert "LABEL_STUDIO_URL" in cases["no url"].stderr


def test_a_personal_access_token_is_exchanged_through_the_sdks_public_client(server, api, every_tag):
    """Issue 13, item 7: a personal access token (a JWT refresh token) works: the SDK's public client
    (``client.tokens.refresh``) gets the access token; a legacy token is sent as it is. No private attribute."""
    from iaa_label_studio.api import Connection

    pid, _ = every_tag
    pat = api.request("POST", "api/token/")["token"]
    assert pat.count(".") == 2  # a JWT
    jwt_api = Api(Connection(server.url, pat))
    assert jwt_api.whoami()["email"] == lst.USER and jwt_api._authorization().startswith("Bearer ")
    assert api._authorization() == f"Token {TOKEN}"
    out = run("report", "--url", server.url, "--token", pat, "-p", str(pid), "--json")
    assert out.returncode == 0, out.stderr
    assert pat not in out.stdout + out.stderr and json.loads(out.stdout)["controls"]["sentiment"]["n_items"] > 0
    bad = run("report", "--url", server.url, "--token", pat[:-4] + "abcd", "-p", str(pid))
    assert bad.returncode != 0 and "refused" in bad.stderr and pat[:-4] not in bad.stderr


# --------------------------------------------------------------------------- sync


def _state(api, pid):
    tasks = list(api.tasks(pid))
    bot = api.plugin_user(create=False)
    bot_id = bot["id"] if bot else None
    human = {
        a["id"]: {k: v for k, v in a.items() if k != "created_ago"}
        for t in tasks
        for a in t["annotations"]
        if a["completed_by"] != bot_id
    }
    return tasks, bot_id, human


def test_sync_writes_gold_scores_and_fields_idempotently(server, api, tmp_path):
    pid, frames = _rng_project(api, seed=11, n_tasks=20)
    tasks0, _, human0 = _state(api, pid)
    data0 = {t["id"]: t["data"] for t in tasks0}
    model_version0 = api.project(pid)["model_version"]
    args = ["--url", server.url, "--token", TOKEN, "-p", str(pid), "--summary", str(tmp_path)]
    dry = run("sync", *args, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "dry run: would write" in dry.stdout and "create prediction" in dry.stdout
    assert "create annotation" not in dry.stdout  # the gold is never an annotation (issue 36)
    # a project whose Data Manager was never opened gets its Default tab first (issue 36)
    assert "dry run: would create the Data Manager tab(s) 'Default', 'IAA: agreement', 'IAA: needs adjudication'" in (
        dry.stdout
    )
    assert _state(api, pid)[2] == human0 and api.views(pid) == []  # nothing written
    first = run("sync", *args, "--json")
    assert first.returncode == 0, first.stderr
    s1 = json.loads(first.stdout)
    tasks1, bot_id, human1 = _state(api, pid)
    assert human1 == human0  # every human annotation byte for byte (but the server's "created ago" text)
    assert bot_id is None and s1["plugin_user"]["email"] is None  # no user of its own is created any more
    # the score is the core's item agreement of the primary control (the first: sentiment)
    sent = ie.Annotations.from_long(frames["sentiment"].rename(columns={"task": "item"}))
    want = ie.item_agreement(sent)
    ner = _ner_units(frames)
    gold = ie.gold_standard(sent).labels
    # the first annotator's work on tasks 4-11 is ground truth: there it is the gold, majority or tie
    s0 = frames["sentiment"]
    known = dict(s0.loc[s0["gt"], ["task", "label"]].itertuples(index=False))
    n_gold = n_tied = 0
    for t in tasks1:
        tid = t["id"]
        ours = [a for a in t["annotations"] if a["completed_by"] == bot_id]
        preds = [p for p in t["predictions"] if p["model_version"] == "iaa-engine-agreement"]
        n_human = len([a for a in t["annotations"] if a["completed_by"] != bot_id and not a["was_cancelled"]])
        agreement = want.get(tid, math.nan)
        if np.isfinite(agreement):  # rounded to 3 decimals, stored as a JSON number
            assert len(preds) == 1 and preds[0]["score"] == round(agreement, 3)
            assert type(t["data"]["iaa_agreement"]) is float and t["data"]["iaa_agreement"] == round(agreement, 3)
            assert t["data"]["iaa_agreement_sentiment"] == round(agreement, 3)
        else:
            assert preds == [] and t["data"].get("iaa_agreement") is None
        for k, v in data0[tid].items():
            assert t["data"][k] == v  # read-merge-write kept the task's own data
        # spans: the task's agreement is the joint probability over its span units (brute force: one task at a time)
        units = ner[ner["task"] == tid]
        units = units[units.groupby("item")["annotator"].transform("size") >= 2]
        want_ner = (
            ie.joint_probability(ie.Annotations.from_long(units[["item", "annotator", "label"]]))
            if len(units)
            else None
        )
        assert t["data"].get("iaa_agreement_ner") == (None if want_ner is None else round(want_ner, 3))
        g = gold[(gold["item"] == tid) & ~gold["tie"]]
        label = known.get(tid, g["label"].iloc[0] if len(g) else None)
        gold_preds = [p for p in t["predictions"] if p["model_version"] == "iaa-engine-gold"]
        if n_human >= 2 and label is not None:  # overlap 1: the humans are done, the gold is final (a prediction)
            assert ours == [] and len(gold_preds) == 1 and t["data"]["iaa_gold"] == "final"
            sent_res = [x for x in gold_preds[0]["result"] if x["from_name"] == "sentiment"]
            assert sent_res[0]["value"] == {"choices": [label]}
            n_gold += 1
        elif n_human < 2:
            assert ours == [] and gold_preds == [] and "iaa_gold" not in t["data"]
        tied = bool(gold[gold["item"] == tid]["tie"].any()) and tid not in known
        if n_human >= 2:  # a tie in sentiment (or another control) leaves the gold undecided: flagged for review
            assert t["data"]["iaa_needs_adjudication"] in (["yes"] if tied else ["yes", "no"])
            n_tied += tied
    assert n_gold >= 5 and n_tied >= 1
    assert api.project(pid)["model_version"] == model_version0  # never changed unless asked
    files = [Path(f) for f in s1["files"]]
    assert files[0].exists() and json.loads(files[0].read_text())["project"] == pid
    assert files[1].suffix == ".html" and "<svg" in files[1].read_text()
    # the plugin's own annotations are excluded: the report is the same after the sync
    before = json.loads(run("report", *args[:-2], "--json").stdout)
    assert before["controls"]["sentiment"] == json.loads(json.dumps(ie.report(sent).to_dict()))
    # second sync: nothing to do, nothing created
    second = run("sync", *args, "--json")
    assert second.returncode == 0, second.stderr
    s2 = json.loads(second.stdout)
    assert s2["planned"] == {} and s2["done"] == {} and s2["unchanged_tasks"] == s2["n_tasks"]
    tasks2, _, human2 = _state(api, pid)
    assert human2 == human0
    assert [len(t["annotations"]) for t in tasks2] == [len(t["annotations"]) for t in tasks1]
    assert [len(t["predictions"]) for t in tasks2] == [len(t["predictions"]) for t in tasks1]


def test_sync_updates_after_a_human_change_and_only_its_own_writes(server, api, tmp_path):
    pid, frames = _rng_project(api, seed=5, n_tasks=8)
    args = ["--url", server.url, "--token", TOKEN, "-p", str(pid), "--summary", str(tmp_path), "--no-html"]
    assert run("sync", *args).returncode == 0
    tasks, bot_id, human = _state(api, pid)

    # a human changes their label on a unanimous task: that task's score, field and gold follow, nothing else changes
    def sentiments(t):
        return [
            x["value"]["choices"][0]
            for a in t["annotations"]
            if a["completed_by"] != bot_id and not a["was_cancelled"]
            for x in a["result"]
            if x["from_name"] == "sentiment"
        ]

    t = next(t for t in tasks if len(sentiments(t)) == 3 and len(set(sentiments(t))) == 1)
    # not a ground-truth annotation: that one is the gold whatever the others say
    a = next(a for a in t["annotations"] if a["completed_by"] != bot_id and not a["ground_truth"])
    other = next(v for v in ("pos", "neg", "neu") if v != sentiments(t)[0])
    new = [x if x["from_name"] != "sentiment" else {**x, "value": {"choices": [other]}} for x in a["result"]]
    api.request("PATCH", f"api/annotations/{a['id']}", json={"result": new})
    human_after_edit = _state(api, pid)[2]
    out = run("sync", *args, "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["done"] == {"update_prediction": 1, "update_data": 1}  # 1/3 agreement; gold stays the majority
    assert s["unchanged_tasks"] == s["n_tasks"] - 1
    after = next(x for x in api.tasks(pid) if x["id"] == t["id"])
    assert after["data"]["iaa_agreement"] == 0.333
    assert _state(api, pid)[2] == human_after_edit


def test_a_re_sync_reads_only_what_changed_and_agrees_with_a_full_read(server, api, tmp_path):
    """The saved state: an unchanged project costs one filtered query; a human edit is read task by task; changes
    that leave updated_at alone (a task deleted from the Data Manager, a bulk import of someone's predictions) are
    caught by the project's counters and read in full; every result equals a full read."""
    from iaa_label_studio.state import StateStore

    pid, _ = _rng_project(api, seed=21, n_tasks=16)
    state_dir = tmp_path / "state"
    args = [
        "--url",
        server.url,
        "--token",
        TOKEN,
        "-p",
        str(pid),
        "--summary",
        str(tmp_path),
        "--no-html",
        "--state-dir",
        str(state_dir),
    ]

    def sync(*extra):
        out = run("sync", *args, "--json", *extra)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def full_report():
        out = run("report", *args[:6], "--json", "--no-state")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    s1 = sync()
    # label-studio start is one process: one export snapshot, never id ranges in parallel
    assert s1["pull"] == {"mode": "full", "read": 16, "reason": "no saved state", "how": "export snapshot"}
    assert s1["done"] and s1["after"]["left"] == {}  # the writes were read back: nothing left to write
    path = StateStore(state_dir).path(server.url, pid)
    assert path.exists() and path.stat().st_mode & 0o777 == 0o600 and state_dir.stat().st_mode & 0o777 == 0o700
    s2 = sync()
    assert s2["pull"]["mode"] == "incremental" and s2["pull"]["read"] == 0
    assert s2["planned"] == {} and s2["agreement"]["controls"] == s1["agreement"]["controls"]
    # a human edit: that task alone is read again, and the result is the full read's
    tasks, bot_id, _ = _state(api, pid)
    t = next(
        t for t in tasks if sum(a["completed_by"] != bot_id and not a["was_cancelled"] for a in t["annotations"]) == 3
    )
    a = next(a for a in t["annotations"] if a["completed_by"] != bot_id)
    new = [
        x if x["from_name"] != "stars" else {**x, "value": {"rating": 1 + x["value"]["rating"] % 5}}
        for x in a["result"]
    ]
    api.update_annotation(a["id"], new)
    s3 = sync()
    assert s3["pull"]["mode"] == "incremental" and s3["pull"]["read"] == 1
    assert s3["agreement"]["controls"] == full_report()["controls"] != s2["agreement"]["controls"]
    # a task deleted in the Data Manager (updated_at cannot tell): the counters differ, everything is read
    gone = tasks[-1]["id"]
    api.request(
        "POST",
        "api/dm/actions",
        params={"id": "delete_tasks", "project": pid},
        json={"selectedItems": {"all": False, "included": [gone]}},
    )
    s4 = sync()
    assert s4["pull"]["mode"] == "full" and "task_number" in s4["pull"]["reason"], s4["pull"]
    assert s4["n_tasks"] == 15 and s4["agreement"]["controls"] == full_report()["controls"]
    # predictions imported in bulk by someone else leave updated_at alone too
    api.import_predictions(pid, [{"task": tasks[2]["id"], "result": [], "score": 0.5, "model_version": "other"}])
    s5 = sync()
    assert s5["pull"]["mode"] == "full" and "total_predictions_number" in s5["pull"]["reason"], s5["pull"]
    assert s5["planned"] == {}
    # a damaged state file is read around, with the reason in the summary
    path.write_bytes(b"not gzip")
    s6 = sync()
    assert s6["pull"]["mode"] == "full" and s6["pull"]["read"] == 15 and s6["planned"] == {}, s6["pull"]
    assert s6["pull"]["reason"].startswith("saved state ignored: ") and "not a valid gzip file" in s6["pull"]["reason"]
    # --full reads everything; --no-state keeps nothing
    assert sync("--full")["pull"]["reason"] == "--full"
    other = tmp_path / "never"
    assert run("report", *args[:6], "--no-state", "--state-dir", str(other)).returncode == 0 and not other.exists()


SENT = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text"><Choice value="pos"/>'
    '<Choice value="neg"/></Choices></View>'
)


def _sent(label: str) -> list:
    return [r("sentiment", "choices", {"choices": [label]})]


#: the project card's counters (GET /api/projects/{id}) and each task's (is_labeled, total_annotations,
#: cancelled_annotations, completed_at: the Data Manager's "Completed" column)
CARD = (
    "task_number",
    "finished_task_number",
    "total_annotations_number",
    "useful_annotation_number",
    "skipped_annotations_number",
    "ground_truth_number",
)  # not num_tasks_with_annotations: a COUNT over a DISTINCT subquery that gives 2 for 5 annotated tasks here
# (label_studio/projects/functions/__init__.py, annotate_num_tasks_with_annotations: "do we really need this counter?")


def _counters(api, pid):
    p = api.project(pid)
    tasks = {
        t["id"]: (t["is_labeled"], t["total_annotations"], t["cancelled_annotations"], t.get("completed_at"))
        for t in api.request("GET", "api/tasks", params={"project": pid, "fields": "all", "page_size": 100})["tasks"]
    }
    return {k: p.get(k) for k in CARD}, tasks


@pytest.mark.slow
def test_gold_never_counts_toward_the_overlap_and_an_adjudication_is_kept(server, api, tmp_path):
    """Issue 36 on the real server, with no sync between the changes and what they must do. After a sync:
    the project card's counters, every task's annotation counts, labelled state and "Completed" time are what they
    were (the gold is a prediction, which Label Studio does not count); raising the overlap makes an annotator's
    /next serve a task; deleting a human annotation leaves its task unlabelled; an admin who copies the gold
    prediction in the editor and changes it adjudicates: the next sync keeps her annotation, makes her label the
    gold, counts it as adjudicated. A gold annotation of an earlier version is deleted, one she saved in the editor
    kept (hers). The project's model_version, someone else's prediction and the tasks' own data stay."""
    emails = ANNOTATORS + ["ann4@example.com"]
    u = list(lst.make_users(api, emails).values())
    three = [{"completed_by": x, "result": _sent("pos")} for x in u[:3]]
    tie = [{"completed_by": u[0], "result": _sent("pos")}, {"completed_by": u[1], "result": _sent("neg")}]
    pid = lst.make_project(
        api,
        "overlap",
        SENT,
        [
            {"data": {"text": "done", "own": [1]}, "annotations": three},
            {"data": {"text": "done too", "own": [2]}, "annotations": three},
            {"data": {"text": "a tie", "own": [3]}, "annotations": tie},
            {"data": {"text": "old gold"}, "annotations": three},
            {"data": {"text": "old gold, edited"}, "annotations": three},
        ],
    )
    api.update_project(pid, {"maximum_annotations": 3})
    t_done, t_done2, t_tie, t_old, t_edited = sorted(t["id"] for t in api.tasks(pid))
    api.import_predictions(
        pid, [{"task": t_tie, "result": _sent("neg"), "score": 0.25, "model_version": "their-model"}]
    )
    api.update_project(pid, {"model_version": "their-model"})  # the admin's own pre-labelling model
    # gold annotations as an earlier version wrote them (by the connector's user, through the API) ...
    bot = api.plugin_user(create=True)["id"]
    old = api.create_annotation(t_old, _sent("pos"), bot)
    edited = api.create_annotation(t_edited, _sent("pos"), bot)
    # ... and one the admin changed in the editor (which sends the time spent with it, lead_time)
    api.request("PATCH", f"api/annotations/{edited['id']}", json={"result": _sent("neg"), "lead_time": 6.5})
    tasks0, _, human0 = _state(api, pid)
    counts0 = _counters(api, pid)
    args = ["--url", server.url, "--token", TOKEN, "-p", str(pid), "--summary", str(tmp_path), "--no-html"]
    dry = run("sync", *args, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "create annotation" not in dry.stdout and "delete annotation (task" in dry.stdout
    assert "would create the Data Manager tab(s) 'Default', 'IAA: agreement'" in dry.stdout
    assert [v["title"] for v in api.views(pid)] == [] and _counters(api, pid) == counts0  # a dry run creates nothing
    out = run("sync", *args, "--json")
    assert out.returncode == 0, out.stderr
    s1 = json.loads(out.stdout)
    assert s1["overlap"] == 3 and "create_annotation" not in s1["done"]
    assert s1["done"]["delete_annotation"] == 1  # the old gold annotation; the edited one is the admin's
    assert s1["adjudicated"] == {"n_tasks": 1, "by": {"admin@example.com": 1}}, s1["adjudicated"]
    tasks, _, human = _state(api, pid)
    assert human == {k: v for k, v in human0.items() if k != old["id"]}  # every human annotation as it was
    assert api.request("GET", f"api/annotations/{edited['id']}")["result"] == _sent("neg")
    by_id = {t["id"]: t for t in tasks}
    assert by_id[t_edited]["data"]["iaa_gold"] == "adjudicated"
    assert [p["result"] for p in by_id[t_edited]["predictions"] if p["model_version"] == "iaa-engine-gold"] == [
        _sent("neg")
    ]
    # Label Studio's own counters: the card's and every task's are unchanged, but for the deleted old gold
    card0, per_task0 = counts0
    card, per_task = _counters(api, pid)
    assert card == {
        **card0,
        "total_annotations_number": card0["total_annotations_number"] - 1,
        "useful_annotation_number": card0["useful_annotation_number"] - 1,
    }
    assert per_task == {**per_task0, t_old: (True, 3, 0, per_task[t_old][3])}  # the old gold no longer counts
    for t in (t_done, t_done2):
        assert by_id[t]["data"]["iaa_gold"] == "final" and by_id[t]["is_labeled"] is True
        assert [p["model_version"] for p in by_id[t]["predictions"]] == ["iaa-engine-gold", "iaa-engine-agreement"]
    assert by_id[t_tie]["data"]["iaa_gold"] == "none" and by_id[t_tie]["is_labeled"] is False
    project = api.project(pid)
    assert project["model_version"] == "their-model" and project["maximum_annotations"] == 3
    # the overlap raised to 4, no sync: the tasks are unlabelled again and a fourth annotator is served one
    annotator = Api(Connection(server.url, server.service_account(emails[3], "an-annotators-password-1")))
    assert annotator.request("GET", f"api/projects/{pid}/next").get("id") == t_tie  # the one unfinished task
    annotator.request("POST", f"api/tasks/{t_tie}/annotations", json={"result": _sent("pos"), "lead_time": 3.0})
    assert annotator.request("GET", f"api/projects/{pid}/next", ok404=True) is None  # "There are no tasks"
    api.update_project(pid, {"maximum_annotations": 4})
    # (the old gold annotation the admin edited is hers now, and Label Studio counts it: 4 on that task)
    assert [t for t, x in _counters(api, pid)[1].items() if x[0]] == [t_edited]
    served = annotator.request("GET", f"api/projects/{pid}/next", ok404=True)
    assert served is not None and served["id"] in {t_done, t_done2, t_old}, served  # (an earlier version: none)
    # back to 3, a human annotation deleted, no sync: that task is unlabelled, its count the humans'
    api.update_project(pid, {"maximum_annotations": 3})
    api.delete_annotation(next(a["id"] for a in by_id[t_done2]["annotations"] if a["completed_by"] == u[2]))
    after = api.task(t_done2)
    assert after["is_labeled"] is False and after["total_annotations"] == 2
    # the admin adjudicates in the editor: she copies the task's gold prediction, changes it and submits (the editor
    # sends parent_prediction and lead_time with the result)
    gold_pred = next(p for p in by_id[t_done]["predictions"] if p["model_version"] == "iaa-engine-gold")
    mine = api.request(
        "POST",
        f"api/tasks/{t_done}/annotations",
        json={"result": _sent("neg"), "parent_prediction": gold_pred["id"], "lead_time": 12.0},
    )
    out = run("sync", *args, "--json")
    assert out.returncode == 0, out.stderr
    s2 = json.loads(out.stdout)
    assert s2["adjudicated"] == {"n_tasks": 2, "by": {"admin@example.com": 2}}, s2["adjudicated"]
    assert "create_annotation" not in s2["done"] and "delete_annotation" not in s2["done"]
    assert s2["done"]["update_prediction"] >= 1
    assert api.request("GET", f"api/annotations/{mine['id']}")["result"] == _sent("neg")
    t = api.task(t_done)
    assert t["data"]["iaa_gold"] == "adjudicated" and t["data"]["iaa_agreement"] == 1.0  # she is not a rater
    assert [p["result"] for p in t["predictions"] if p["model_version"] == "iaa-engine-gold"] == [_sent("neg")]
    assert api.task(t_done2)["data"]["iaa_gold"] == "provisional"  # 2 of 3: not done; still unlabelled
    assert api.task(t_done2)["is_labeled"] is False
    text = run("sync", *args)
    assert "2 gold labels adjudicated by admin@example.com" in text.stdout and "nothing to change" in text.stdout
    theirs = [p for t in _state(api, pid)[0] for p in t["predictions"] if p["model_version"] == "their-model"]
    assert theirs == [p for t in tasks0 for p in t["predictions"] if p["model_version"] == "their-model"]


@pytest.mark.slow
def test_task_data_is_written_from_the_servers_current_data_never_from_the_saved_state(server, api, tmp_path):
    """Issue 13, item 1: the saved state holds each task's data as read; an edit the state cannot see (the Data
    Manager's add_data_field leaves updated_at and the counters alone) must survive a sync that writes the
    connector's fields into the same tasks, request by request (read-modify-write) and in bulk."""
    u = list(lst.make_users(api, ANNOTATORS).values())
    labels = [("pos", "pos", "pos" if i % 2 else "neg") for i in range(10)]  # agreement 1.0 or 1/3
    tasks = [
        {
            "data": {"text": f"t{i}"},
            "annotations": [{"completed_by": x, "result": _sent(lab)} for x, lab in zip(u, labs)],
        }
        for i, labs in enumerate(labels)
    ]
    for bulk in (False, True):
        pid = lst.make_project(api, f"rmw {bulk}", SENT, tasks)
        args = [
            "--url",
            server.url,
            "--token",
            TOKEN,
            "-p",
            str(pid),
            "--summary",
            str(tmp_path),
            "--no-html",
            "--state-dir",
            str(tmp_path / f"state{bulk}"),
        ]
        first = run("sync", *args, "--no-field", "--json")
        assert first.returncode == 0, first.stderr
        ids = [t["id"] for t in api.tasks(pid)]
        api.request(
            "POST",
            "api/dm/actions",
            params={"id": "add_data_field", "project": pid},
            json={
                "selectedItems": {"all": False, "included": ids},
                "value_name": "reviewer_note",
                "value_type": "String",
                "value": "edited after the state was saved",
            },
        )
        second = run("sync", *args, "--json", *([] if bulk else ["--no-bulk"]))
        assert second.returncode == 0, second.stderr
        s2 = json.loads(second.stdout)
        assert s2["pull"]["mode"] == "incremental" and s2["pull"]["read"] == 0  # the state did not see the edit
        assert s2["done"] == {"update_data": 10}
        assert s2["writes"]["data"].startswith("add_data_field" if bulk else "per task")
        for t in api.tasks(pid):
            assert t["data"]["reviewer_note"] == "edited after the state was saved", t["data"]
            assert t["data"]["iaa_agreement"] in (1.0, 0.333) and t["data"]["text"].startswith("t")


#: tasks of the project whose server is stopped under a running sync: tens are enough for the sync to be stopped
#: well inside its writes (after 10 tasks' data) with most of them still to write
N_CRASH = 60


def _with_agreement(api, pid: int) -> int:
    """How many of the project's tasks have the connector's score in their data (one light page: ids and data)."""
    page = api.request("GET", "api/tasks", params={"project": pid, "include": "id,data", "page_size": N_CRASH})
    assert page["total"] == len(page["tasks"]) == N_CRASH
    return sum("iaa_agreement" in t["data"] for t in page["tasks"])


def test_server_stopped_mid_sync_then_restarted_a_new_sync_completes_without_duplicates(server, api, tmp_path):
    """Runs last in this module: it stops and restarts the module's server. The second sync starts from the saved
    state of the interrupted one: what the interrupted run wrote must be read again, not assumed."""
    users = lst.make_users(api, ANNOTATORS)
    rng = np.random.default_rng(1)
    tasks = [
        {
            "data": {"text": f"t{i}"},
            "annotations": [
                {
                    "completed_by": users[e],
                    "result": [r("sentiment", "choices", {"choices": [str(rng.choice(["pos", "neg"]))]})],
                }
                for e in ANNOTATORS
            ],
        }
        for i in range(N_CRASH)
    ]
    pid = lst.make_project(api, "crash", CONFIG, tasks)
    _, _, human0 = _state(api, pid)
    args = ["--url", server.url, "--token", TOKEN, "-p", str(pid), "--summary", str(tmp_path), "--no-html"]
    env = {k: v for k, v in os.environ.items() if k not in ("IAA_DEBUG",)}
    err = tmp_path / "stderr.txt"
    with open(err, "w") as fh:
        proc = subprocess.Popen(
            [IAA, "label-studio", "sync", *args, "--workers", "2", "--progress", "--no-bulk"],
            stdout=subprocess.PIPE,
            stderr=fh,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait until the writes are well under way, then pull the plug
            # the predictions go in one import first, then (--no-bulk) the task data one task at a time: stop once 10
            # tasks have theirs; the progress bar's refresh is too coarse to time this
            if _with_agreement(api, pid) >= 10 or proc.poll() is not None:
                break
            time.sleep(0.1)
        server.stop()
        proc.wait(timeout=120)
    assert proc.returncode != 0, "the sync should have failed with the server gone"
    last = err.read_text().replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("iaa: error: ") and TOKEN not in err.read_text()
    server.run()
    partial = _with_agreement(api, pid)
    assert 0 < partial < N_CRASH  # it really stopped in the middle
    again = run("sync", *args, "--json")
    assert again.returncode == 0, again.stderr
    tasks_after, bot_id, human_after = _state(api, pid)
    assert human_after == human0
    for t in tasks_after:
        gold = [p for p in t["predictions"] if p["model_version"] == "iaa-engine-gold"]
        preds = [p for p in t["predictions"] if p["model_version"] == "iaa-engine-agreement"]
        assert len(gold) == 1 and len(preds) == 1, t["id"]  # 3 annotators, 2 labels: always a majority
        assert len(t["annotations"]) == 3  # no annotation of the connector's
        assert "iaa_agreement" in t["data"]
    third = json.loads(run("sync", *args, "--json").stdout)
    assert third["planned"] == {}


def test_label_studio_start_is_read_with_one_snapshot_even_when_large(server, api, monkeypatch):
    """Django's development server (``label-studio start``) is one process: parallel id ranges would only add
    requests, so a full read stays one export snapshot whatever the size (tests/test_label_studio_parallel.py
    reads a multi-process server)."""
    import iaa_label_studio.read as read_mod

    pid, _ = _rng_project(api, seed=5, n_tasks=6)
    monkeypatch.setattr(read_mod, "PARALLEL_MIN_TASKS", 0)
    got = read_mod.pull(api, pid, workers=4)
    assert api.server_software.startswith("WSGIServer/") and api.single_process
    assert got.pull_info["how"] == "export snapshot" and len(got.tasks) == 6


# --------------------------------------------------------------------------- by week, by group, tabs, pooled (issue 27)

from iaa_label_studio.convert import (  # noqa: E402
    annotation_times,
    annotator_groups,
    parse_groups,
    parse_time,
    with_column,
)


def test_parse_time_reads_label_studios_timestamps_in_utc():
    assert parse_time("2026-11-26T10:07:07.798211Z") == "2026-11-26T10:07:07.798211+00:00"
    assert parse_time("2025-03-03T10:00:00+02:00") == "2025-03-03T08:00:00+00:00"  # another offset: in UTC
    assert parse_time("2025-03-03 10:00:00") == "2025-03-03T10:00:00+00:00"  # no offset: taken as UTC
    assert parse_time("2025-03-09") == "2025-03-09T00:00:00+00:00"
    for bad in (None, "", "  ", "03/05/2025", "yesterday", 1741000000, ["2025-03-03"]):
        assert parse_time(bad) is None
    tasks = [{"id": 1, "annotations": [{"id": 5, "created_at": "2025-03-03T10:00:00Z"}, {"id": 6, "created_at": "x"},
                                       {"id": 7}]}]  # fmt: skip
    times, bad = annotation_times(tasks, "created_at")
    assert times == {5: "2025-03-03T10:00:00+00:00", 6: None, 7: None} and bad == 1  # a missing one is not "bad"


def test_parse_groups_csv_json_header_ids_and_errors():
    csv_text = "# annotator groups\nannotator,group\nAnn1@Example.com,A\n\n7, B \n"
    assert parse_groups(csv_text) == {"ann1@example.com": "A", "7": "B"}
    assert parse_groups("ann1@example.com\tA\nann2@example.com\tB") == {
        "ann1@example.com": "A",
        "ann2@example.com": "B",
    }
    assert parse_groups("a@x;G1\nb@x;G2") == {"a@x": "G1", "b@x": "G2"}
    assert parse_groups('{"a@x": "G1", "12": 3}') == {"a@x": "G1", "12": "3"}
    with pytest.raises(ValueError, match="line 2: expected two columns"):
        parse_groups("a@x,G1\nb@x\n")
    with pytest.raises(ValueError, match=r"line 2: 'A@X' is given two groups \('G1' and 'G2'\)"):
        parse_groups("a@x,G1\nA@X,G2")
    with pytest.raises(ValueError, match="expected a group name"):
        parse_groups('{"a@x": null}')
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_groups("{oops")
    users = {1: "ann1@example.com", 7: "ann2@example.com", 9: "ann3@example.com"}
    mapping, unknown = annotator_groups(parse_groups(csv_text + "ghost@x,C\n"), users)
    assert mapping == {"ann1@example.com": "A", "ann2@example.com": "B"} and unknown == ["ghost@x"]
    with pytest.raises(ValueError, match="two groups by e-mail and by id"):
        annotator_groups({"ann1@example.com": "A", "1": "B"}, users)
    table = pd.DataFrame({"task": [1, 1], "annotator": ["ann1@example.com", "ann3@example.com"], "annotation": [5, 6]})
    out, notes = with_column(table, [{"id": 1, "data": {}, "annotations": []}], "group", groups=mapping)
    assert list(out["group"]) == ["A", None] and "1 annotator(s) have no group" in notes[0]
    with pytest.raises(ValueError, match="as the column"):
        with_column(table, [], "lead_time")


def test_pooling_compares_the_controls_not_the_layout_and_restrict_names_unknown_tasks():
    from iaa_label_studio.read import Project, control_signature, restrict

    sig = control_signature(parse_config(TIMED_CONFIG))
    assert control_signature(parse_config(TIMED_CONFIG_B)) == sig  # a header more: the same controls
    assert control_signature(parse_config(TIMED_CONFIG_C)) != sig  # another choice
    multiple = TIMED_CONFIG.replace('name="sentiment"', 'name="sentiment" choice="multiple"')
    assert control_signature(parse_config(multiple)) != sig
    tasks = [{"id": i, "data": {}, "annotations": []} for i in (3, 5, 8)]
    p = Project(1, "p", "", [], tasks, {}, None)
    assert [t["id"] for t in restrict(p, [8, 3], "--tasks").tasks] == [3, 8]
    assert restrict(p, [5], "tab 2").pull_info["selected"] == {"tasks": 1, "of": 3, "by": "tab 2"}
    with pytest.raises(ValueError, match=r"2 task\(s\) of --tasks are not tasks of project 1: 4, 9"):
        restrict(p, [3, 4, 9], "--tasks")
    # a tab whose filters select no task: a plain message, not a TypeError from ie.compare later (issue 36)
    with pytest.raises(ValueError, match=r"^tab 8 selects no task of project 1: nothing to report or compare"):
        restrict(p, [], "tab 8")


TIMED_CONFIG = """
<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices>
</View>
"""
#: the same controls laid out otherwise: poolable
TIMED_CONFIG_B = TIMED_CONFIG.replace("<View>", '<View>\n  <Header value="Sentiment of the text"/>')
#: another set of choices: not poolable
TIMED_CONFIG_C = TIMED_CONFIG.replace('<Choice value="neu"/>', '<Choice value="mixed"/>')
MONDAY = pd.Timestamp("2025-03-03T09:00:00Z")  # a Monday


def _timed_project(api, server, title: str, config: str, seed: int, n_tasks: int = 30) -> tuple[int, pd.DataFrame]:
    """Tasks in three weeks, labelled by the three annotators with less agreement each week, and each annotation's
    created_at set to its week. Label Studio 1.23.2 ignores created_at on import, on POST and on PATCH of an
    annotation (checked on the server), so the test backdates them in the server's own SQLite database (the
    ``task_completion`` table), as a project that ran for weeks would hold them. Returns (project id, the long
    table the test wrote: task index, task id, annotator, label, created_at, batch)."""
    import sqlite3

    users = lst.make_users(api, ANNOTATORS)
    rng = np.random.default_rng(seed)
    rows, tasks = [], []
    for t in range(n_tasks):
        week = t % 3
        n_ann = 2 if t % 7 == 0 else 3
        truth = str(rng.choice(["pos", "neg", "neu"]))
        anns = []
        for a, email in enumerate(ANNOTATORS[:n_ann]):
            label = truth if rng.random() < (0.9, 0.7, 0.5)[week] else str(rng.choice(["pos", "neg", "neu"]))
            # task 4's second annotation comes a week after its first: the task stays in its first week
            shift = pd.Timedelta(days=7) if (t == 4 and a == 1) else pd.Timedelta(0)
            when = MONDAY + pd.Timedelta(days=7 * week + t % 5, hours=a) + shift
            anns.append({"result": [r("sentiment", "choices", {"choices": [label]})], "completed_by": users[email]})
            rows.append({"t": t, "annotator": email, "label": label, "created_at": when, "batch": f"b{t % 2}"})
        tasks.append({"data": {"text": f"text {t}", "batch": f"b{t % 2}"}, "annotations": anns})
    pid = lst.make_project(api, title, config, tasks)
    listed = sorted(api.tasks(pid), key=lambda x: x["id"])
    ids = [x["id"] for x in listed]
    table = pd.DataFrame(rows)
    table["task"] = [ids[t] for t in table["t"]]
    ann_id = {(x["id"], a["completed_by"]): a["id"] for x in listed for a in x["annotations"]}
    db = sqlite3.connect(server.base / "data" / "label_studio.sqlite3", timeout=30)
    with db:
        db.executemany(
            "UPDATE task_completion SET created_at = ? WHERE id = ?",
            [
                (w.tz_convert(None).strftime("%Y-%m-%d %H:%M:%S.%f"), ann_id[(task, users[who])])
                for task, who, w in zip(table["task"], table["annotator"], table["created_at"])
            ],
        )
    db.close()
    return pid, table


@pytest.fixture(scope="module")
def timed(api, server):
    a = _timed_project(api, server, "timed A", TIMED_CONFIG, seed=21)
    b = _timed_project(api, server, "timed B", TIMED_CONFIG_B, seed=22, n_tasks=12)
    return a, b


def _expected_by(table: pd.DataFrame, **kw) -> ie.AgreementBy:
    keep = [c for c in ("created_at", "group", "project", "batch") if c in table]
    return ie.agreement_by(ie.Annotations.from_long(table, keep=keep), **kw)


def _same_by(got: dict, want: ie.AgreementBy) -> None:
    g = pd.DataFrame(got["groups"])
    w = want.table
    assert list(g["group"].astype(str)) == list(w["group"].astype(str)) and list(g["metric"]) == list(w["metric"])
    for col in ("estimate", "se", "lower", "upper", "p_value"):
        np.testing.assert_allclose(g[col].astype(float), w[col].astype(float), rtol=1e-12, atol=1e-14, err_msg=col)
    assert list(g["n_items"]) == list(w["n_items"]) and list(g["n_annotations"]) == list(w["n_annotations"])
    t = pd.DataFrame(got["tests"])
    np.testing.assert_allclose(t["p_adjusted"].astype(float), want.tests["p_adjusted"], rtol=1e-12)


def test_report_by_week_equals_agreement_by_on_the_long_table(server, timed, tmp_path):
    (pid, table), _ = timed
    out = run("report", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--by-week", "--json",
              "--html", str(tmp_path / "week.html"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["by"]["sentiment"]
    long = table.assign(item=table["task"])[["item", "annotator", "label", "created_at"]]
    want = _expected_by(long, time="created_at", freq="W")
    assert list(want.table["group"].unique()) == ["2025-03-03", "2025-03-10", "2025-03-17"]
    _same_by(got["agreement"], want)
    assert got["column"] == "created_at" and got["agreement"]["freq"] == "W"
    # each annotator per week: the scorecard's drift on the same table
    drift = ie.annotator_report(ie.Annotations.from_long(long, keep=["created_at"]), time="created_at").drift
    gd = pd.DataFrame(got["drift"]).sort_values(["annotator", "window"]).reset_index(drop=True)
    wd = drift.sort_values(["annotator", "window"]).reset_index(drop=True)
    assert list(gd["window"]) == list(wd["window"]) and list(gd["n_pairable"]) == list(wd["n_pairable"])
    np.testing.assert_allclose(gd["agreement"], wd["agreement"], rtol=1e-12)
    page = (tmp_path / "week.html").read_text(encoding="utf-8")
    assert "Agreement by group and over time" in page and "2025-03-10" in page
    assert (tmp_path / "week.html").stat().st_mode & 0o777 == 0o600
    # the text report: the core's table per week and the drift lines
    text = run("report", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--time", "created_at",
               "--freq", "M")  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert "per calendar month of 'created_at'" in text.stdout and "2025-03 " in text.stdout
    assert "Each annotator's agreement with the others per window" in text.stdout


def test_sync_summary_carries_the_weeks_and_its_page_the_trend(server, api, tmp_path):
    pid, table = _timed_project(api, server, "timed sync", TIMED_CONFIG, seed=24, n_tasks=12)
    out = run("sync", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--by-week", "--json",
              "--summary", str(tmp_path), "--no-field", "--no-tabs", "--no-gold")  # fmt: skip
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["agreement"]["by"]["sentiment"]
    long = table.assign(item=table["task"])[["item", "annotator", "label", "created_at"]]
    _same_by(got["agreement"], _expected_by(long, time="created_at", freq="W"))
    page = (tmp_path / f"iaa-ls-{pid}.html").read_text(encoding="utf-8")
    assert "Agreement by group and over time" in page and "2025-03-17" in page
    assert (
        json.loads((tmp_path / f"iaa-ls-{pid}.json").read_text())["agreement"]["by"]
        == json.loads(out.stdout)["agreement"]["by"]
    )


def test_report_by_group_from_a_groups_file(server, api, timed, tmp_path):
    (pid, table), _ = timed
    ids = lst.make_users(api, ANNOTATORS)
    groups = tmp_path / "groups.csv"  # by e-mail and by id
    groups.write_text(f"annotator,group\n{ANNOTATORS[0]},night\n{ids[ANNOTATORS[1]]},day\n{ANNOTATORS[2]},day\n")
    out = run("report", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--by", "group",
              "--groups", str(groups), "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    long = table.assign(
        item=table["task"], group=table["annotator"].map(dict(zip(ANNOTATORS, ["night", "day", "day"])))
    )
    _same_by(
        json.loads(out.stdout)["by"]["sentiment"]["agreement"],
        _expected_by(long[["item", "annotator", "label", "group"]], by="group"),
    )
    # a task data field: the tasks' batch
    out = run("report", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--by", "data.batch",
              "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    long = table.assign(item=table["task"])[["item", "annotator", "label", "batch"]]
    _same_by(json.loads(out.stdout)["by"]["sentiment"]["agreement"], _expected_by(long, by="batch"))


def test_by_options_are_checked_before_connecting(tmp_path):
    """One line, exit 2, and no server asked (no --url given)."""
    cases = [
        (["--freq", "D"], "--freq needs --time created_at|updated_at (or --by-week)"),
        (["--by-week", "--freq", "M"], "--by-week is --time created_at --freq W; got --freq M"),
        (["--by-week", "--by", "group"], "give --time (or --by-week) or --by, not both"),
        (["--by", "group"], "--by group needs --groups FILE"),
        (["--by", "annotator"], "--by must be group, project or data.FIELD"),
        (["--by", "project"], "--by project needs several projects"),
        (["--groups", "g.csv"], "--groups FILE names the annotators' groups for --by group"),
        (["--by", "group", "--groups", str(tmp_path / "none.csv")], "cannot read --groups"),
        (["--projects", "1,x"], "--projects: expected task or project ids (whole numbers); got 'x'"),
    ]
    out = run("report")
    assert out.returncode == 2 and "give --project ID (or --projects ID,ID to pool projects)" in out.stderr
    for extra, message in cases:
        out = run("report", "-p", "1", *extra)
        assert out.returncode == 2 and message in out.stderr, (extra, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    (tmp_path / "g.csv").write_text("a@x,A\nb@x\n")
    out = run("report", "-p", "1", "--by", "group", "--groups", str(tmp_path / "g.csv"))
    assert out.returncode == 2 and "line 2: expected two columns" in out.stderr


def test_an_in_process_run_sees_what_a_new_process_would(monkeypatch):
    """lst.run_cli, which most of these tests use: a developer's LABEL_STUDIO_URL is not inherited (as with the
    console script), ``env`` is, a usage error is status 2 on standard error, and the test's own environment and
    warning filters are as they were afterwards."""
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    filters = list(warnings.filters)
    out = lst.run_cli("label-studio", "report", "-p", "1")
    assert out.returncode == 2 and "LABEL_STUDIO_URL" in out.stderr and out.stdout == "", out.stderr
    assert process_like(out) == process_like(run("report", "-p", "1", process=True))
    given = lst.run_cli("label-studio", "report", "-p", "1", "--by", "annotator", env={"LABEL_STUDIO_API_KEY": "k"})
    assert given.returncode == 2 and "--by must be group, project or data.FIELD" in given.stderr
    assert lst.run_cli("label-studio", "--no-such-option").returncode == 2
    assert os.environ["LABEL_STUDIO_URL"] == "http://127.0.0.1:9" and "LABEL_STUDIO_API_KEY" not in os.environ
    assert warnings.filters == filters


def process_like(out: subprocess.CompletedProcess) -> tuple:
    return out.returncode, out.stdout, out.stderr


def test_report_of_a_tab_or_a_task_list_is_the_report_of_those_tasks(server, api, timed, tmp_path):
    (pid, table), _ = timed
    flt = {"conjunction": "and", "items": [{"filter": "filter:tasks:data.batch", "operator": "equal", "type": "String",
                                            "value": "b1"}]}  # fmt: skip
    view = api.create_view(pid, {"title": "batch b1", "filters": flt})
    sub = table[table["batch"] == "b1"]
    args = ["report", "--url", server.url, "--token", TOKEN, "-p", str(pid), "--no-state", "--by-week", "--json"]
    out = run(*args, "--view", str(view["id"]))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["selected"] == {"tasks": sub["task"].nunique(), "of": table["task"].nunique(), "by": f"tab {view['id']}"}
    long = sub.assign(item=sub["task"])[["item", "annotator", "label", "created_at"]]
    _same_by(got["by"]["sentiment"]["agreement"], _expected_by(long, time="created_at", freq="W"))
    # the tag's report too is the core's report of those tasks alone
    want = ie.report(ie.Annotations.from_long(long[["item", "annotator", "label"]]))
    assert got["controls"]["sentiment"] == json.loads(json.dumps(want.to_dict()))
    # in Python (docs/guides/label-studio.md): the tab against the other tasks, through the core's compare
    from iaa_label_studio.analyse import agreement_over, analyse
    from iaa_label_studio.api import Api as _Api
    from iaa_label_studio.read import pull, restrict

    project = pull(_Api(server.client()), pid)
    tab = analyse(restrict(project, api.view_task_ids(pid, view["id"]), f"tab {view['id']}"))
    agreement_over(tab, time="created_at")
    assert json.loads(json.dumps(tab.to_json()["by"], default=str)) == got["by"]
    rest = analyse(restrict(project, sorted(set(table["task"]) - set(sub["task"])), "the other tasks"))
    cmp = ie.compare(tab.controls["sentiment"].data, rest.controls["sentiment"].data, metric="fleiss_kappa")
    others = table[table["batch"] != "b1"].assign(item=lambda f: f["task"])[["item", "annotator", "label"]]
    assert not cmp.paired and cmp.estimate_a == pytest.approx(want.to_dict()["fleiss_kappa"], rel=1e-12)
    assert cmp.estimate_b == pytest.approx(ie.fleiss_kappa(ie.Annotations.from_long(others)), rel=1e-12)
    ids_file = tmp_path / "ids.txt"
    ids_file.write_text("\n".join(map(str, sorted(sub["task"].unique()))))
    listed = json.loads(run(*args, "--tasks", str(ids_file)).stdout)
    assert listed["by"] == got["by"] and listed["controls"] == got["controls"]
    bad = run(*args, "--tasks", "1,x")
    assert bad.returncode == 2 and "expected task or project ids" in bad.stderr
    other = run(*args, "--tasks", "999999")
    assert other.returncode == 2 and f"1 task(s) of --tasks are not tasks of project {pid}: 999999" in other.stderr


def test_two_projects_with_one_config_pool_and_other_configs_are_refused(server, api, timed):
    (pa, ta), (pb, tb) = timed
    pooled = pd.concat([ta.assign(project=pa), tb.assign(project=pb)], ignore_index=True)
    # items are (project, task) pairs, named here without the server's task ids
    pooled["item"] = [f"{p}/{t}" for p, t in zip(pooled["project"], pooled["t"])]
    base = ["report", "--url", server.url, "--token", TOKEN, "--no-state", "--json"]
    out = run(*base, "--project", str(pa), "--project", str(pb), "--by", "project")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["pooled_projects"] == [pa, pb] and got["project"]["n_tasks"] == 42
    want = _expected_by(pooled[["item", "annotator", "label", "project"]], by="project")
    _same_by(got["by"]["sentiment"]["agreement"], want)
    whole = ie.report(ie.Annotations.from_long(pooled[["item", "annotator", "label"]]))
    for key in ("n_items", "n_annotations", "krippendorff_alpha", "fleiss_kappa", "spa"):
        assert got["controls"]["sentiment"][key] == json.loads(json.dumps(whole.to_dict()[key])), key
    weekly = json.loads(run(*base, "--projects", f"{pa},{pb}", "--by-week").stdout)
    _same_by(weekly["by"]["sentiment"]["agreement"],
             _expected_by(pooled[["item", "annotator", "label", "created_at"]], time="created_at"))  # fmt: skip
    pc, _ = _timed_project(api, server, "timed C", TIMED_CONFIG_C, seed=23, n_tasks=3)
    tab = api.create_view(pc, {"title": "c"})
    wrong = run(*base, "--projects", f"{pa},{pb}", "--view", str(tab["id"]))
    assert wrong.returncode == 2 and f"--view {tab['id']} is a tab of project {pc}, not of {pa}, {pb}" in wrong.stderr
    bad = run(*base, "--projects", f"{pa},{pc}")
    assert bad.returncode == 2
    assert (
        f"projects {pa} and {pc} cannot be pooled: their label configs differ in the controls 'sentiment'" in bad.stderr
    )
