"""Label Studio after the number (issue 17): ground truth as gold questions, model versions as raters, the
annotator scorecard in the summary, and what to adjudicate as Data Manager fields and a saved tab.

Against a real Label Studio server (the module's fixture starts one); every number is compared with the core
(``iaa_engine``) computed in the test from the tasks' JSON as the server returns them, and with hand-worked values.
"""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest

import iaa_engine as ie

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import PLUGIN_EMAIL, Api  # noqa: E402
from iaa_label_studio.names import CONFUSED, NEEDS_REVIEW  # noqa: E402
from iaa_label_studio.plan import DISAGREEMENT_TAB  # noqa: E402

CONFIG = """<View><Text name="text" value="$text"/>
<Choices name="sent" toName="text"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>"""
PEOPLE = ["qa@example.com", "qb@example.com", "qc@example.com", "qd@example.com"]


def run(*args: str) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``, run by the command line's own main in this process (lst.run_cli)."""
    return lst.run_cli("label-studio", *args)


def res(label: str) -> list[dict]:
    return [{"from_name": "sent", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


# --------------------------------------------------------------------------- without a server


def span(s: int, e: int, lab: str) -> dict:
    """A Labels result of the tag ``ner`` on characters s-e."""
    return {"from_name": "ner", "to_name": "text", "type": "labels", "value": {"start": s, "end": e, "labels": [lab]}}


def _project(config: str, tasks: list[dict]):
    from iaa_label_studio.convert import parse_config
    from iaa_label_studio.read import Project

    return Project(1, "t", config, parse_config(config), tasks, {1: "a", 2: "b", 3: "c"}, None)


def test_spans_missed_by_an_annotator_are_a_confusion_with_no_region():
    """NER, by hand: task 1, a marks PER at 0-5 and ORG at 10-15, b marks PER at 0-5 only: the unit 10-15 is
    (ORG, "(no region)"); task 2 agrees. So task 1 needs review, confused "(no region) / ORG"; task 2 does not."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.quality import review_values

    config = """<View><Text name="text" value="$text"/>
    <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels></View>"""

    tasks = [
        {"id": 1, "annotations": [
            {"id": 11, "completed_by": 1, "result": [span(0, 5, "PER"), span(10, 15, "ORG")]},
            {"id": 12, "completed_by": 2, "result": [span(0, 5, "PER")]},
        ]},
        {"id": 2, "annotations": [
            {"id": 21, "completed_by": 1, "result": [span(0, 5, "ORG")]},
            {"id": 22, "completed_by": 2, "result": [span(0, 5, "ORG")]},
        ]},
    ]  # fmt: skip
    a = analyse(_project(config, tasks))
    # the pair's labels in the core's category order
    assert review_values(a, 1, True) == {NEEDS_REVIEW: "yes", CONFUSED: "(no region) / ORG"}
    assert review_values(a, 2, True) == {NEEDS_REVIEW: "no", CONFUSED: None}
    assert review_values(a, 2, False) == {NEEDS_REVIEW: None, CONFUSED: None}  # no agreement: no field
    with pytest.raises(ValueError, match="no prediction of model version 'v1'"):
        analyse(_project(config, tasks), models=["v1"])


def test_a_model_on_spans_is_matched_with_the_humans_so_its_misses_and_extra_spans_count():
    """By hand (exact boundaries): task 1, a marks PER 0-5 and ORG 10-15, b marks PER 0-5, model v1 marks PER 0-5
    and LOC 20-25; task 2, all three mark ORG 0-5. Joint units: (0-5: PER PER PER), (10-15: ORG, none, none),
    (20-25: none, none, LOC), (task 2 0-5: ORG ORG ORG). v1 agrees with a on 2 of 4 units, with b on 3 of 4."""
    from iaa_label_studio.analyse import analyse

    config = """<View><Text name="text" value="$text"/>
    <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/><Label value="LOC"/></Labels></View>"""

    tasks = [
        {"id": 1, "data": {"text": "x" * 30}, "annotations": [
            {"id": 11, "completed_by": 1, "result": [span(0, 5, "PER"), span(10, 15, "ORG")]},
            {"id": 12, "completed_by": 2, "result": [span(0, 5, "PER")]},
        ], "predictions": [{"id": 101, "model_version": "v1", "result": [span(0, 5, "PER"), span(20, 25, "LOC")]}]},
        {"id": 2, "data": {"text": "x" * 30}, "annotations": [
            {"id": 21, "completed_by": 1, "result": [span(0, 5, "ORG")]},
            {"id": 22, "completed_by": 2, "result": [span(0, 5, "ORG")]},
        ], "predictions": [{"id": 102, "model_version": "v1", "result": [span(0, 5, "ORG")]}]},
    ]  # fmt: skip
    alone = analyse(_project(config, tasks))
    both = analyse(_project(config, tasks), models=["v1"])
    q = both.controls["ner"].quality
    rows = q.models.table.set_index(["model", "reference"])
    assert rows.loc[("v1", "a"), "agreement"] == 0.5 and rows.loc[("v1", "a"), "n"] == 4
    assert rows.loc[("v1", "b"), "agreement"] == 0.75 and rows.loc[("v1", "b"), "n"] == 4
    assert any("matched with the humans'" in n for n in q.model_notes)
    # the humans' own report is the humans-only matching, with and without the model
    assert both.controls["ner"].report.to_dict() == alone.controls["ner"].report.to_dict()
    assert both.to_json()["controls"] == alone.to_json()["controls"]
    assert q.models.human_agreement == pytest.approx(2 / 3)  # the report's: a and b on their 3 units
    # another model's extra spans never change v1's numbers (each model is matched with the humans alone), and a
    # model that marks no span of the tag (a classifier of another tag, say) is not scored on it
    tasks[0]["predictions"].append(
        {"id": 103, "model_version": "v2", "result": [span(12, 14, "LOC"), span(16, 18, "LOC"), span(26, 28, "LOC")]}
    )
    for t in tasks:
        t["predictions"].append({"id": 200 + t["id"], "model_version": "clf", "result": []})
    three = analyse(_project(config, tasks), models=["v1", "v2", "clf"]).controls["ner"].quality
    rows3 = three.models.table.set_index(["model", "reference"])
    assert rows3.loc[("v1", "a"), "agreement"] == 0.5 and rows3.loc[("v1", "a"), "n"] == 4
    assert rows3.loc[("v1", "b"), "agreement"] == 0.75
    assert rows3.loc[("v2", "a"), "agreement"] == 0.0 and rows3.loc[("v2", "a"), "n"] == 5  # 3 false positives
    assert set(three.models.table["model"]) == {"v1", "v2"}
    only_clf = analyse(_project(config, tasks), models=["clf"]).controls["ner"].quality
    assert only_clf.models is None and "no prediction of the named model versions fits this tag" in only_clf.model_notes


def test_a_task_with_ground_truth_has_it_as_its_gold_whatever_the_vote():
    """By hand: task 1, a and b say neg, c's ground truth says pos: the gold is pos (the majority would be neg);
    task 2, three different labels, c's ground truth neg: gold neg, no tie to adjudicate; task 3 (no ground
    truth), pos against neg: a tie, adjudication needed; task 4 (no ground truth): the majority, pos."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.plan import plan

    def ann(i, who, label, gt=False):
        return {"id": i, "completed_by": who, "result": res(label), "ground_truth": gt, "was_cancelled": False}

    tasks = [
        {"id": 1, "data": {"text": "1"}, "predictions": [],
         "annotations": [ann(11, 1, "neg"), ann(12, 2, "neg"), ann(13, 3, "pos", gt=True)]},
        {"id": 2, "data": {"text": "2"}, "predictions": [],
         "annotations": [ann(21, 1, "pos"), ann(22, 2, "neu"), ann(23, 3, "neg", gt=True)]},
        {"id": 3, "data": {"text": "3"}, "predictions": [], "annotations": [ann(31, 1, "pos"), ann(32, 2, "neg")]},
        {"id": 4, "data": {"text": "4"}, "predictions": [],
         "annotations": [ann(41, 1, "pos"), ann(42, 2, "pos"), ann(43, 3, "neg")]},
    ]  # fmt: skip
    a = analyse(_project(CONFIG, tasks))
    gold = a.controls["sent"].gold
    assert {t: gold[t][0]["value"]["choices"] for t in gold} == {1: ["pos"], 2: ["neg"], 4: ["pos"]}
    assert a.controls["sent"].ties == 1 and gold.tied == frozenset({3})
    data = {c.task: c.body for c in plan(a, bot_id=None) if c.kind == "update_data"}
    assert [data[t]["iaa_needs_adjudication"] for t in (1, 2, 3, 4)] == ["no", "no", "yes", "no"]
    # the scorecard's gold questions are the same known labels
    assert dict(a.controls["sent"].quality.known) == {1: "pos", 2: "neg"}


def test_free_text_with_a_label_per_text_gets_its_scorecard_and_review_fields():
    """A TextArea whose every text is its own label (6000 labels): the scorecard and the disagreement list are
    computed in memory bounded by the data (the core's large-label paths; tests/test_memory.py runs the same shape
    under a 3 GiB ceiling), and every task, where one of three annotators wrote another text, needs review."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.quality import review_values

    config = """<View><Text name="text" value="$text"/><TextArea name="note" toName="text"/></View>"""
    tasks = [
        {
            "id": t,
            "annotations": [
                {
                    "id": 10 * t + u,
                    "completed_by": u,
                    "result": [
                        {
                            "from_name": "note",
                            "to_name": "text",
                            "type": "textarea",
                            "value": {"text": [f"t{t} {u % 2}"]},
                        }
                    ],  # fmt: skip
                }
                for u in (1, 2, 3)
            ],
        }
        for t in range(1, 3001)
    ]
    a = analyse(_project(config, tasks))
    q = a.controls["note"].details()["quality"]
    assert len(q["annotators"]["annotators"]) == 3
    assert q["disagreements"]["n_disagreeing"] == 3000  # every task: "t 1", "t 0", "t 1"
    assert review_values(a, 1, True) == {NEEDS_REVIEW: "yes", CONFUSED: "t1 0 / t1 1"}


# --------------------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-quality"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


#: per task: the labels of qa, qb, qc ("" = did not annotate), qd's ground-truth label ("" = none), and the
#: predictions of the two model versions (v1 copies qa; v2 always says "pos")
ROWS = [
    ("pos", "pos", "pos", "pos"),
    ("pos", "pos", "neg", "pos"),
    ("neg", "neg", "neg", "neg"),
    ("neg", "pos", "neg", "neg"),
    ("neu", "neu", "pos", ""),
    ("pos", "neg", "", ""),
    ("neu", "neu", "neu", ""),
    ("pos", "neu", "neg", ""),
    ("neg", "neg", "", ""),
    ("pos", "", "", ""),
]


def _tasks(users: dict[str, int]) -> list[dict]:
    out = []
    for i, (a, b, c, gt) in enumerate(ROWS):
        anns = [
            {"completed_by": users[who], "result": res(lab), "ground_truth": False}
            for who, lab in zip(PEOPLE, (a, b, c))
            if lab
        ]
        if gt:
            anns.append({"completed_by": users[PEOPLE[3]], "result": res(gt), "ground_truth": True})
        preds = [
            {"model_version": "v1", "result": res(a)},
            {"model_version": "v2", "result": res("pos")},
            {"model_version": "iaa-engine-agreement", "result": [], "score": 0.5},  # the connector's own
        ]
        out.append({"data": {"text": f"q{i}"}, "annotations": anns, "predictions": preds})
    return out


@pytest.fixture(scope="module")
def project(api):
    users = lst.make_users(api, PEOPLE)
    return lst.make_project(api, "quality", CONFIG, _tasks(users))


def _frames(api, pid: int) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """From the tasks' JSON as the server gives them: the humans (item, annotator e-mail, label, ground truth)
    and the predictions of v1 and v2 (item, model version, label)."""
    emails = {u["id"]: u["email"] for u in api.users()}
    humans, models = [], []
    for t in api.tasks(pid):
        for a in t["annotations"]:
            who = a["completed_by"]["id"] if isinstance(a["completed_by"], dict) else a["completed_by"]
            humans.append((t["id"], emails[who], a["result"][0]["value"]["choices"][0], bool(a["ground_truth"])))
        for p in t["predictions"]:
            if p["model_version"] in ("v1", "v2"):
                models.append((t["id"], p["model_version"], p["result"][0]["value"]["choices"][0]))
    h = pd.DataFrame(humans, columns=["item", "annotator", "label", "ground_truth"])
    m = pd.DataFrame(models, columns=["item", "annotator", "label"])
    known = dict(h.loc[h["ground_truth"], ["item", "label"]].itertuples(index=False))
    return h, m, known


def _report(server, pid, *extra) -> dict:
    out = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--json", "--no-state", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _close(a: dict, b: dict) -> None:
    """Two JSON records equal: the same keys, numbers to 1e-12, the rest exactly."""
    assert set(a) == set(b), (a, b)
    for k, v in b.items():
        if isinstance(v, float) and isinstance(a[k], (int, float)):
            assert a[k] == pytest.approx(v, abs=1e-12), (k, a, b)
        else:
            assert a[k] == v, (k, a, b)


@pytest.mark.slow  # a real server (tens of seconds)
def test_models_beside_humans_leave_the_humans_agreement_unchanged(server, api, project):
    pid = project
    alone = _report(server, pid)
    both = _report(server, pid, "--models", "v1,v2")
    # the humans' agreement: every number identical with and without model raters
    assert both["controls"] == alone["controls"]
    for key in ("annotators_vs_others", "ground_truth", "n_results_used", "n_gold_tasks"):
        assert both["details"]["sent"][key] == alone["details"]["sent"][key]
    assert both["details"]["sent"]["quality"]["annotators"] == alone["details"]["sent"]["quality"]["annotators"]
    assert alone["details"]["sent"]["quality"]["models"] is None
    # the model rows: the core on the same data, built here from the tasks' JSON
    h, m, known = _frames(api, pid)
    humans = h[["item", "annotator", "label"]]
    want = ie.model_agreement(humans, m, progress=False).to_dict()
    on_known = ie.model_agreement(humans, m, gold=known, progress=False).to_dict()
    got = both["details"]["sent"]["quality"]["models"]
    gold_rows = [dict(r, reference="(ground truth)") for r in on_known["rows"] if r["kind"] == "gold"]
    assert len(got["rows"]) == len(want["rows"]) + len(gold_rows) == 2 * (4 + 2 + 1)
    for a, b in zip(got["rows"], want["rows"] + gold_rows):
        _close(a, b)
    assert got["human_agreement"] == pytest.approx(want["human_agreement"], abs=1e-12)
    # by hand: v1 copies qa on all 10 tasks; v2 ("pos" everywhere) agrees with qa on 5 of 10 tasks
    rows = {(r["model"], r["reference"]): r for r in got["rows"]}
    assert (rows[("v1", "qa@example.com")]["n"], rows[("v1", "qa@example.com")]["agreement"]) == (10, 1.0)
    assert rows[("v2", "qa@example.com")]["agreement"] == pytest.approx(0.5)
    # against the ground truth (qd, 4 tasks: pos, pos, neg, neg): v1 says pos, pos, neg, neg; v2 pos on all
    assert rows[("v1", "(ground truth)")]["agreement"] == 1.0 and rows[("v1", "(ground truth)")]["n"] == 4
    assert rows[("v2", "(ground truth)")]["agreement"] == 0.5
    # the connector's own versions are never raters; an unknown version is named with the ones there are
    own = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--models", "iaa-engine-agreement")
    assert own.returncode == 2 and "connector's own model version" in own.stderr
    bad = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--models", "v3")
    assert bad.returncode == 2 and "'v3'" in bad.stderr and "'v1', 'v2'" in bad.stderr
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--models", "v1,v2").stdout
    assert "Models beside the humans" in text and "v2                   vs (gold)" in text


@pytest.mark.slow  # a real server (tens of seconds)
def test_ground_truth_becomes_the_gold_questions(server, api, project):
    got = _report(server, project)["details"]["sent"]["quality"]
    h, _, known = _frames(api, project)
    assert got["n_known"] == 4 and len(known) == 4
    acc = {r["annotator"]: r for r in got["gold_accuracy"]["annotators"]}
    # by hand, on the 4 ground-truth tasks (pos, pos, neg, neg): qa 4/4; qb pos pos neg pos: 3/4;
    # qc pos neg neg neg: 3/4; qd wrote the ground truth and answered nothing
    assert (acc["qa@example.com"]["n_correct"], acc["qa@example.com"]["n_gold"]) == (4, 4)
    assert (acc["qb@example.com"]["n_correct"], acc["qb@example.com"]["n_gold"]) == (3, 4)
    assert (acc["qc@example.com"]["n_correct"], acc["qc@example.com"]["n_gold"]) == (3, 4)
    assert "qd@example.com" not in acc
    # Wilson's 95 % interval for 3/4: (0.3006, 0.9544)
    assert (acc["qb@example.com"]["lower"], acc["qb@example.com"]["upper"]) == pytest.approx(
        (0.30064, 0.95440), abs=1e-4
    )
    # the same as the core on the annotations that answer the gold questions
    answers = h.loc[~h["ground_truth"], ["item", "annotator", "label"]]
    core = ie.gold_accuracy(answers, known).table.set_index("annotator")
    for who, r in acc.items():
        assert r["accuracy"] == pytest.approx(core.loc[who, "accuracy"], abs=1e-12)
        assert r["lower"] == pytest.approx(core.loc[who, "lower"], abs=1e-12)
    # the majority gold (written to the project) against the known labels: the core's gold_standard(known=)
    gs = ie.gold_standard(h[["item", "annotator", "label"]], known=known)
    assert got["gold_vs_known"] == pytest.approx(gs.known_agreement, abs=1e-12)


@pytest.mark.slow  # a real server (tens of seconds)
def test_the_scorecard_is_in_the_summary_text_and_files(server, api, project, tmp_path):
    out = run(
        "sync", "--url", server.url, "--token", lst.TOKEN, "-p", str(project), "--summary", str(tmp_path),
        "--no-state", "--models", "v1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    saved = json.loads((tmp_path / f"iaa-ls-{project}.json").read_text())
    card = saved["agreement"]["details"]["sent"]["quality"]["annotators"]
    h, _, _ = _frames(api, project)
    h = h[h["annotator"] != PLUGIN_EMAIL]  # the connector's gold annotations are never counted
    want = ie.annotator_report(h[["item", "annotator", "label"]], progress=False).to_dict()
    mine = {r["annotator"]: r for r in card["annotators"]}
    assert set(mine) == set(PEOPLE)
    for b in want["annotators"]:
        _close(mine[b["annotator"]], b)
    assert saved["model_raters"] == ["v1"] and saved["agreement"]["details"]["sent"]["quality"]["models"]["rows"]
    # the HTML summary: the core's report of the tag, with its scorecard table naming the same annotators
    page = (tmp_path / f"iaa-ls-{project}.html").read_text()
    assert '<h2 id="annotators">Annotators' in page and all(who in page for who in PEOPLE)
    text = out.stdout
    assert "Annotators (scorecard" in text
    for who in PEOPLE:
        assert who in text  # named as everywhere else in the report: their e-mail addresses


@pytest.mark.slow  # a real server (tens of seconds)
def test_tasks_to_adjudicate_are_flagged_and_a_resync_writes_nothing(server, api, tmp_path):
    users = lst.make_users(api, PEOPLE[:3])
    u = [users[e] for e in PEOPLE[:3]]
    seeded = [
        ("pos", "pos", "pos"),  # unanimous: no
        ("pos", "pos", "neg"),  # 2 : 1: yes, pos / neg
        ("pos", "neg", ""),  # a tie: yes, pos / neg
        ("neu", "neu", "neg"),  # yes, neg / neu
        ("pos", "", ""),  # one annotation: no agreement, no field
        ("neg", "neg", ""),  # no
        ("neu", "pos", "neu"),  # yes, pos / neu
    ]
    tasks = [
        {
            "data": {"text": f"r{i}", "own": i},
            "annotations": [
                {"completed_by": who, "result": res(lab), "ground_truth": False} for who, lab in zip(u, row) if lab
            ],
        }
        for i, row in enumerate(seeded)
    ]
    pid = lst.make_project(api, "adjudicate", CONFIG, tasks)
    args = ["--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-html", "--json"]
    first = run("sync", *args, "--summary", str(tmp_path))
    assert first.returncode == 0, first.stderr
    got = {t["data"]["own"]: t["data"] for t in api.tasks(pid)}
    assert {i: d.get(NEEDS_REVIEW) for i, d in got.items()} == {
        0: "no", 1: "yes", 2: "yes", 3: "yes", 4: None, 5: "no", 6: "yes"
    }  # fmt: skip
    # each disagreeing task here has one pair of labels: that pair, by hand
    pairs = {i: frozenset(d[CONFUSED].split(" / ")) if d.get(CONFUSED) else None for i, d in got.items()}
    assert pairs == {
        0: None, 1: {"pos", "neg"}, 2: {"pos", "neg"}, 3: {"neg", "neu"}, 4: None, 5: None, 6: {"pos", "neu"}
    }  # fmt: skip
    assert all(d["text"] == f"r{i}" and d["own"] == i for i, d in got.items())  # the task's own data kept
    # the pairs' order is the core's (labels in category order, as ie.disagreements gives them)
    long = [(i, who, lab) for i, row in enumerate(seeded) for who, lab in zip("abc", row) if lab]
    d = ie.disagreements(pd.DataFrame(long, columns=["item", "annotator", "label"]), dawid_skene=False)
    assert set(d.items["item"]) == {i for i, v in got.items() if v.get(NEEDS_REVIEW) == "yes"}
    # a second sync, with and without the saved state: nothing to write
    for extra in ([], ["--no-state"]):
        again = run("sync", *args, *extra, "--summary", str(tmp_path))
        assert again.returncode == 0, again.stderr
        s = json.loads(again.stdout)
        assert s["planned"] == {} and s["done"] == {}, s["planned"]
    # the saved tab: exactly the tasks to review, lowest agreement first, with the confused pair
    views = {v["data"]["title"]: v for v in api.views(pid)}
    listed = api.request("GET", "api/tasks", params={"project": pid, "view": views[DISAGREEMENT_TAB]["id"]})["tasks"]
    assert {t["data"]["own"] for t in listed} == {1, 2, 3, 6}
    agreement = [t["data"]["iaa_agreement"] for t in listed]
    assert agreement == sorted(agreement) and agreement[0] == 0.0  # the tie first (1 : 1 has agreement 0)


# --------------------------------------------------------------------------- judgments: Pairwise, Ranker, relations
# (issue 28). Each test builds the core's table by hand from the design of its tasks and compares the connector's
# numbers with the core's on it.

PW_CONFIG = """<View><Text name="prompt" value="$prompt"/><Pairwise name="pw" toName="left,right"/>
<Text name="left" value="$left"/><Text name="right" value="$right"/></View>"""
RK_CONFIG = """<View><List name="results" value="$items" title="Results"/>
<Ranker name="rank" toName="results"><Bucket name="top" title="Top"/><Bucket name="mid" title="Middle"/>
<Bucket name="low" title="Low"/></Ranker></View>"""
RK_PLAIN = """<View><List name="results" value="$items"/><Ranker name="rank" toName="results"/></View>"""
REL_CONFIG = """<View><Text name="text" value="$text"/>
<Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels>
<Relations><Relation value="works_for"/><Relation value="knows"/></Relations></View>"""


def pw(selected: str) -> list[dict]:
    return [{"from_name": "pw", "to_name": "pw", "type": "pairwise", "value": {"selected": selected}}]


def rk(ranking: dict) -> list[dict]:
    return [{"from_name": "rank", "to_name": "results", "type": "ranker", "value": {"ranker": ranking}}]


def ner(rid: str, s: int, e: int, lab: str) -> dict:
    return {"id": rid, **span(s, e, lab)}


def rel(a: str, b: str, lab: str | None, direction: str = "right") -> dict:
    return {"type": "relation", "from_id": a, "to_id": b, "direction": direction, "labels": [lab] if lab else []}


#: pairwise design: two prompts, four responses each (r1 best, r4 worst), five pairs per prompt; the better
#: response is on the left in every other task. Judge 0 always picks the left one (position bias); judge 1 always
#: the better; judge 2 the better except in task 3.
PW_PAIRS = [(1, 2), (1, 3), (2, 3), (2, 4), (3, 4)]


def _pw_design() -> list[tuple[str, str, str, list[str]]]:
    """Per task: prompt, left response, right response, the three judges' ``left``/``right``."""
    out = []
    for i in range(10):
        p = f"p{i // 5}"
        good, bad = (f"{p} answer r{k}" for k in PW_PAIRS[i % 5])
        left, right = (good, bad) if i % 2 == 0 else (bad, good)
        better = "left" if i % 2 == 0 else "right"
        worse = "right" if better == "left" else "left"
        out.append((p, left, right, ["left", better, worse if i == 3 else better]))
    return out


def test_pairwise_results_become_the_cores_preference_table():
    """Pairwise by hand: left is shown first (``A``), the prompt is the prompt object's data; a judge's second
    judgment of a pair (in another task, swapped) and a ``selected`` that is not left/right are set aside; the
    connector's numbers are ie.preference_agreement's on the hand-built table."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.judgments import judgment_configs, pairwise_table

    design = _pw_design()
    tasks = [
        {"id": i + 1, "data": {"prompt": p, "left": a, "right": b}, "annotations": [
            {"id": 10 * i + k, "completed_by": k + 1, "result": pw(s)} for k, s in enumerate(sel)
        ]}
        for i, (p, a, b, sel) in enumerate(design)
    ]  # fmt: skip
    tasks.append({"id": 11, "data": {"prompt": "p0", "left": "p0 answer r2", "right": "p0 answer r1"}, "annotations": [
        {"id": 111, "completed_by": 1, "result": pw("left")},  # task 1's pair swapped: judged again by a
        {"id": 112, "completed_by": 2, "result": pw("middle")},  # not a Pairwise answer
    ]})  # fmt: skip
    cfg = judgment_configs(PW_CONFIG)[0]["pw"]
    assert (cfg.left, cfg.right, cfg.prompt) == ("left", "right", "prompt")
    table, invalid = pairwise_table(tasks, cfg, annotator_names={1: "a", 2: "b", 3: "c"})
    assert dict(invalid) == {
        "the same pair of the same prompt judged again by the judge (first kept)": 1,
        "selected is not 'left' or 'right'": 1,
    }
    hand = pd.DataFrame(
        [(p, a, b, who, "A" if s == "left" else "B") for p, a, b, sel in design for who, s in zip("abc", sel)],
        columns=["item", "response_a", "response_b", "annotator", "label"],
    )
    pd.testing.assert_frame_equal(table.drop(columns="task"), hand)
    a = analyse(_project(PW_CONFIG, tasks))
    assert not any("not supported" in n for n in a.converted.notes) and a.controls == {}
    got = a.to_json()["judgments"]["pw"]
    assert got["result"] == ie.preference_agreement(hand).to_dict()
    judges = {j["judge"]: j for j in got["result"]["judges"]}
    assert judges["a"]["first_share"] == 1.0 and judges["a"]["position_bias"] is True
    assert judges["b"]["first_share"] == 0.5 and judges["b"]["position_bias"] is False
    # Holm across three judges: a's exact two-sided p of 10 of 10, 2 / 2^10, times 3
    assert judges["a"]["p_holm"] == pytest.approx(3 * 2 / 1024, abs=1e-15)


def test_ranker_buckets_become_places_in_config_order():
    """Ranker by hand: with buckets, each non-empty bucket is one place in the config's order and the ids left in
    the list (``_``) are not ranked; without buckets the one list is the ranking, best first. Unknown buckets and
    ids ranked twice are set aside."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.judgments import judgment_configs, ranker_table

    assert judgment_configs(RK_CONFIG)[1]["rank"].buckets == ["top", "mid", "low"]
    assert judgment_configs(RK_PLAIN)[1]["rank"].buckets == []
    tasks = [
        {"id": 1, "data": {}, "annotations": [
            {"id": 1, "completed_by": 1, "result": rk({"low": ["z"], "top": ["w"], "mid": ["x", "y"]})},
            {"id": 2, "completed_by": 2, "result": rk({"top": ["w", "x"], "mid": [], "low": ["y", "z"]})},
            {"id": 3, "completed_by": 3, "result": rk({"top": ["x"], "mid": ["w"], "_": ["y", "z"]})},
        ]},
        {"id": 2, "data": {}, "annotations": [
            {"id": 4, "completed_by": 1, "result": rk({"top": ["z"], "nope": ["y"]})},  # not a bucket
            {"id": 5, "completed_by": 2, "result": rk({"top": ["z"], "low": ["z"]})},  # z twice
            {"id": 6, "completed_by": 3, "result": rk({"top": ["z", "y"], "low": ["x", "w"]})},
        ]},
    ]  # fmt: skip
    table, invalid = ranker_table(tasks, judgment_configs(RK_CONFIG)[1]["rank"])
    assert dict(invalid) == {"a bucket that is not in the label config": 1, "an id ranked twice": 1}
    assert table["label"].tolist() == [
        [["w"], ["x", "y"], ["z"]], [["w", "x"], ["y", "z"]], [["x"], ["w"]], [["z", "y"], ["x", "w"]]
    ]  # fmt: skip
    hand = pd.DataFrame(
        {"item": ["1", "1", "1", "2"], "annotator": ["a", "b", "c", "c"],
         "label": ["w > x = y > z", "w = x > y = z", "x > w", "y = z > w = x"]}
    )  # fmt: skip
    a = analyse(_project(RK_CONFIG, tasks))
    assert a.to_json()["judgments"]["rank"]["result"] == ie.ranking_agreement(hand).to_dict()
    plain = [{"id": 1, "annotations": [{"id": 1, "completed_by": 1, "result": rk({"rank": ["b", "a", "c"]})}]}]
    table, _ = ranker_table(plain, judgment_configs(RK_PLAIN)[1]["rank"])
    assert table["label"].tolist() == [["b", "a", "c"]]


#: relations design: per task, three annotators mark PER 0-5, ORG 10-15, PER 20-25 (annotator 2 not the last in
#: task 0); relations: 0 -> 1 works_for (annotator 2 draws it the other way round, ``left``), 0 -> 2 knows
#: (annotator 1 misses it in task 1), and annotator 0 alone adds 2 -> 1 works_for in task 2
def _rel_design(n: int = 3) -> list[list[list[tuple]]]:
    """Per task, per annotator: spans (id, start, end, label) and relations (from, to, label, direction)."""
    out = []
    for t in range(n):
        anns = []
        for k in range(3):
            spans = [(f"t{t}a{k}r0", 0, 5, "PER"), (f"t{t}a{k}r1", 10, 15, "ORG")]
            if not (t == 0 and k == 2):
                spans.append((f"t{t}a{k}r2", 20, 25, "PER"))
            r = [(0, 1, "works_for", "right")] if k != 2 else [(1, 0, "works_for", "left")]
            if len(spans) == 3 and not (t == 1 and k == 1):
                r.append((0, 2, "knows", "right"))
            if t == 2 and k == 0:
                r.append((2, 1, "works_for", "right"))
            anns.append([spans, r])
        out.append(anns)
    return out


def _rel_tasks(design, users: list[int]) -> list[dict]:
    out = []
    for t, anns in enumerate(design):
        annotations = []
        for k, (spans, rels) in enumerate(anns):
            result = [ner(*s) for s in spans]
            result += [rel(spans[i][0], spans[j][0], lab, d) for i, j, lab, d in rels]
            annotations.append({"completed_by": users[k], "result": result, "ground_truth": False})
        out.append({"data": {"text": "x" * 30, "own": t}, "annotations": annotations})
    return out


def _rel_core(design, names: list[str], items: list) -> ie.RelationAgreement:
    """The core on the hand-built regions and relations (relations name regions by row position)."""
    regions, relations = [], []
    for t, anns in zip(items, design):
        for who, (spans, rels) in zip(names, anns):
            first = len(regions)
            regions += [(t, who, lab, s, e) for _, s, e, lab in spans]
            relations += [(who, first + i, first + j, lab, d) for i, j, lab, d in rels]
    m = ie.match_regions(
        pd.DataFrame(regions, columns=["item", "annotator", "label", "start", "end"]), kind="span", threshold=1.0
    )
    table = pd.DataFrame(relations, columns=["annotator", "from_id", "to_id", "label", "direction"])
    return ie.relation_agreement(m, table, direction="direction")


def test_relations_become_relation_units_on_the_region_matching(tmp_path):
    """Relations by hand: relation results are not counted as unknown controls; the connector's numbers are
    ie.relation_agreement's on the hand-built regions and relations; a relation naming a region that is not
    kept is set aside with a note. --html: the core's report of the spans, then the relations."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.cli import _write_html

    design = _rel_design()
    tasks = _rel_tasks(design, [1, 2, 3])
    for i, t in enumerate(tasks):
        t["id"] = i + 1
        for k, a in enumerate(t["annotations"]):
            a["id"] = 10 * i + k
    tasks[0]["annotations"][0]["result"].append(rel("t0a0r0", "nowhere", "knows"))
    a = analyse(_project(REL_CONFIG, tasks))
    assert a.converted.unknown == {}
    assert any("1 relation(s) set aside" in n for n in a.converted.notes)
    got = a.to_json()["judgments"]["ner relations"]["result"]
    want = _rel_core(design, ["a", "b", "c"], [1, 2, 3]).to_dict()
    assert got["alpha"] == pytest.approx(want["alpha"], abs=1e-12)
    # by hand: 9 works_for, 7 knows (c has no region 20-25 in task 0, b misses knows in task 1), 1 extra;
    # relation units: works_for and knows in each task, and a's extra one in task 2
    assert (got["n_relations"], got["n_units"]) == (want["n_relations"], want["n_units"]) == (17, 7)
    assert got["per_label"] == want["per_label"] and got["pairs"] == want["pairs"]
    pairs = {(p["annotator_a"], p["annotator_b"]): p for p in got["pairs"]}
    # b and c: b draws 2 + 1 + 2, c 1 + 2 + 2 (c's works_for drawn the other way round, direction left, is the
    # same relation); they share works_for in every task and knows in task 2: F1 = 2 * 4 / 10
    assert (pairs[("b", "c")]["n_relations_a"], pairs[("b", "c")]["n_relations_b"]) == (5, 5)
    assert (pairs[("b", "c")]["n_matched"], pairs[("b", "c")]["f1"]) == (4, 0.8)
    _write_html(a, str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    assert page.index('<h2 id="annotators">') < page.index('<section id="judgments">') < page.rindex("</body>")
    assert f"Krippendorff&#x27;s alpha {want['alpha']:.4f}" in page


@pytest.mark.slow  # a real server (tens of seconds)
def test_a_pairwise_project_shows_agreement_and_the_judge_with_position_bias(server, api, tmp_path):
    """On the server: the pairwise design (judge 0 always prefers the left response). The report's numbers are
    ie.preference_agreement's on the hand-built table; the text flags the biased judge; an LLM judge (model
    version ``llm``: judge 1's choices except in tasks 0 and 5) is compared with the humans as
    ie.preference_model_agreement compares them, the humans' numbers unchanged; a sync writes nothing and leaves
    every annotation as it was."""
    users = lst.make_users(api, PEOPLE[:3])
    design = _pw_design()
    flip = {"left": "right", "right": "left"}
    llm = [flip[sel[1]] if i in (0, 5) else sel[1] for i, (_, _, _, sel) in enumerate(design)]
    tasks = [
        {"data": {"prompt": p, "left": a, "right": b}, "annotations": [
            {"completed_by": users[who], "result": pw(s), "ground_truth": False} for who, s in zip(PEOPLE, sel)
        ], "predictions": [{"model_version": "llm", "result": pw(m)}]}
        for (p, a, b, sel), m in zip(design, llm)
    ]  # fmt: skip
    pid = lst.make_project(api, "pairwise", PW_CONFIG, tasks)
    got = _report(server, pid)
    assert got["controls"] == {} and not [n for n in got["notes"] if "not supported" in n]
    hand = pd.DataFrame(
        [(p, a, b, who, "A" if s == "left" else "B") for p, a, b, sel in design for who, s in zip(PEOPLE, sel)],
        columns=["item", "response_a", "response_b", "annotator", "label"],
    )
    want = ie.preference_agreement(hand)
    mine = got["judgments"]["pw"]["result"]
    assert mine == json.loads(json.dumps(want.to_dict()))
    judges = {j["judge"]: j for j in mine["judges"]}
    assert [judges[w]["position_bias"] for w in PEOPLE[:3]] == [True, False, False]
    assert judges[PEOPLE[0]]["first_wins"] == 10 and judges[PEOPLE[1]]["first_share"] == 0.5
    assert got["judgments"]["pw"]["models"] is None
    with_llm = _report(server, pid, "--models", "llm")["judgments"]["pw"]
    assert with_llm["result"] == mine
    llm_hand = pd.DataFrame(
        [(p, a, b, "llm", "A" if m == "left" else "B") for (p, a, b, _), m in zip(design, llm)],
        columns=hand.columns,
    )
    assert with_llm["models"] == json.loads(json.dumps(ie.preference_model_agreement(hand, llm_hand).to_dict()))
    rows = {r["reference"]: r for r in with_llm["models"]["rows"]}
    assert rows[PEOPLE[1]]["agreement"] == 0.8 and rows[PEOPLE[1]]["n"] == 10  # by hand: 8 of 10 pairs
    # the LLM's own position bias: left wins in 5 of 10 (judge 1's five, one taken away in task 0, one added in 5)
    bias = with_llm["model_position_bias"]
    want_bias = ie.preference_agreement(llm_hand).judges
    assert [(b["judge"], b["first_wins"], b["n_decided"], b["position_bias"]) for b in bias] == [("llm", 5, 10, False)]
    assert bias[0]["p_holm"] == pytest.approx(want_bias["p_holm"].iloc[0], abs=1e-15) == 1.0
    # Bradley-Terry per prompt (five pairs each): judge 1's choices follow r1 > r2 > r3 > r4, so the scores do
    s = pd.DataFrame(mine["scores"]).sort_values(["item", "score"], ascending=[True, False])
    assert [r.split()[-1] for r in s.loc[s["item"] == "p1", "response"]] == ["r1", "r2", "r3", "r4"]
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-state").stdout
    line = next(x for x in text.splitlines() if PEOPLE[0] in x and "first wins" in x)
    assert "first wins 10 of 10" in line and "POSITION BIAS" in line
    assert "POSITION BIAS" not in next(x for x in text.splitlines() if PEOPLE[1] in x and "first wins" in x)
    assert f"{want.coefficients['krippendorff_alpha[ordinal]']:.4f}" in text and "Bradley-Terry scores" in text
    html = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--html", str(tmp_path / "p.html"))
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "p.html").read_text()
    assert (
        f"<strong>    {PEOPLE[0]}" in page and "POSITION BIAS</strong>" not in page.split(PEOPLE[1])[1].split("\n")[0]
    )
    before = {t["id"]: t["annotations"] for t in api.tasks(pid)}
    out = run("sync", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-html", "--json",
              "--summary", str(tmp_path))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["done"] == {}
    after = {t["id"]: t["annotations"] for t in api.tasks(pid)}
    assert after == before


@pytest.mark.slow  # a real server (tens of seconds)
def test_a_ranker_project_with_buckets_shows_ranking_agreement(server, api):
    """On the server: six tasks ranking the same four responses into three buckets; one judge leaves ids in the
    list. The report's numbers are ie.ranking_agreement's on the hand-built rankings (text syntax)."""
    users = lst.make_users(api, PEOPLE[:3])
    items = [{"id": x, "title": f"response {x}"} for x in "wxyz"]
    # per task, per judge: top, mid, low (ids; "_" what stays in the list)
    seeded = [
        [{"top": ["w"], "mid": ["x", "y"], "low": ["z"]}, {"top": ["w", "x"], "mid": ["y"], "low": ["z"]},
         {"top": ["w"], "mid": ["x"], "_": ["y", "z"]}],
        [{"top": ["x"], "mid": ["w"], "low": ["y", "z"]}, {"top": ["x"], "mid": ["w", "y"], "low": ["z"]},
         {"top": ["w"], "mid": ["x"], "low": ["z", "y"]}],
        [{"top": ["z"], "mid": ["y"], "low": ["w", "x"]}, {"top": ["z", "y"], "low": ["w", "x"]},
         {"top": ["z"], "mid": ["w"], "low": ["x", "y"]}],
        [{"top": ["y"], "mid": ["z", "w"], "low": ["x"]}, {"top": ["y"], "mid": ["z"], "low": ["w", "x"]},
         {"top": ["y", "z"], "_": ["w", "x"]}],
    ]  # fmt: skip
    tasks = [
        {"data": {"items": items, "own": i}, "annotations": [
            {"completed_by": users[who], "result": rk(r), "ground_truth": False} for who, r in zip(PEOPLE, row)
        ]}
        for i, row in enumerate(seeded)
    ]  # fmt: skip
    pid = lst.make_project(api, "ranker", RK_CONFIG, tasks)
    ids = {t["data"]["own"]: t["id"] for t in api.tasks(pid)}
    hand = pd.DataFrame(
        [
            (str(ids[i]), who, " > ".join(" = ".join(r[b]) for b in ("top", "mid", "low") if r.get(b)))
            for i, row in enumerate(seeded)
            for who, r in zip(PEOPLE, row)
        ],
        columns=["item", "annotator", "label"],
    )
    assert hand["label"].iloc[0] == "w > x = y > z"
    want = ie.ranking_agreement(hand)
    got = _report(server, pid)["judgments"]["rank"]
    assert got["result"] == json.loads(json.dumps(want.to_dict())) and got["n_invalid"] == 0
    assert got["result"]["per_item"][0]["complete"] is False  # the judge's partial list
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-state").stdout
    assert f"Krippendorff's alpha [kendall_tau] {want.alpha:.4f}" in text
    assert f"Kendall's W, mean over prompts {want.mean_w:.4f}" in text


@pytest.mark.slow  # a real server (tens of seconds)
def test_a_relations_project_counts_a_missed_relation(server, api):
    """On the server: NER spans with relations, one annotator misses a relation (and one draws one the others do
    not). The report's numbers are ie.relation_agreement's on the hand-built regions and relations."""
    users = lst.make_users(api, PEOPLE[:3])
    design = _rel_design()
    pid = lst.make_project(api, "relations", REL_CONFIG, _rel_tasks(design, [users[w] for w in PEOPLE[:3]]))
    ids = {t["data"]["own"]: t["id"] for t in api.tasks(pid)}
    got = _report(server, pid)
    assert got["unknown_controls"] == {}
    mine = got["judgments"]["ner relations"]["result"]
    want = _rel_core(design, PEOPLE[:3], [ids[i] for i in range(len(design))]).to_dict()
    assert mine["alpha"] == pytest.approx(want["alpha"], abs=1e-12)
    assert mine["per_label"] == want["per_label"] and mine["pairs"] == want["pairs"]
    per_label = {r["label"]: r for r in mine["per_label"]}
    assert set(per_label) == {"works_for", "knows"}
    text = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-state").stdout
    assert "== ner relations (relations) ==" in text and f"Krippendorff's alpha {want['alpha']:.4f}" in text


def test_a_self_relation_and_a_second_relation_between_the_same_regions_are_set_aside():
    """issue 32: the core refuses a relation from a region to itself and a second row of one annotator for one
    relation; the connector sets both aside (counted in the notes, never used), so the rest of the report stands
    and equals the core's numbers on the design without them."""
    from iaa_label_studio.analyse import analyse

    design = _rel_design()
    tasks = _rel_tasks(design, [1, 2, 3])
    for i, t in enumerate(tasks):
        t["id"] = i + 1
        for k, a in enumerate(t["annotations"]):
            a["id"] = 10 * i + k
    tasks[1]["annotations"][0]["result"].append(rel("t1a0r0", "t1a0r0", "knows"))
    tasks[1]["annotations"][0]["result"].append(rel("t1a0r0", "t1a0r1", "knows"))  # works_for drawn already
    tasks[2]["annotations"][2]["result"].append(rel("t2a2r0", "t2a2r1", "works_for", "left"))  # 1 -> 0: a new one
    tasks[2]["annotations"][2]["result"].append(rel("t2a2r1", "t2a2r0", "works_for", "right"))  # ... twice
    a = analyse(_project(REL_CONFIG, tasks))
    note = next(n for n in a.converted.notes if "relation(s) set aside" in n)
    assert "3 relation(s) set aside" in note
    assert "1 × a relation from a region to itself" in note
    assert "2 × a second relation of one annotation between the same two regions (the first kept)" in note
    got = a.to_json()["judgments"]["ner relations"]
    assert got["result"] is not None
    design[2][2][1].append((0, 1, "works_for", "left"))  # the one of the pair that was kept
    want = _rel_core(design, ["a", "b", "c"], [1, 2, 3]).to_dict()
    assert got["result"]["alpha"] == pytest.approx(want["alpha"], abs=1e-12)
    assert got["result"]["pairs"] == want["pairs"]
