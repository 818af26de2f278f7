"""Label Studio model versions as judges (issue 34, item 5): ``iaa label-studio report --judges`` answers "can this
ML backend replace an annotator?" per tag.

Against a real Label Studio server (the module's fixture starts one). A project of 60 tasks, each annotated by 3 of 5
people (36 tasks each: the test's ``min_items`` of 30 is kept), 20 more tasks that only the models labelled, and
two model versions' predictions: ``majority`` copies the human majority (on the unannotated tasks: the truth),
``random`` labels at random. The connector's own gold and agreement predictions are there too and are never judges.
Every number is compared with the core (``iaa_engine``) computed in the test from the tasks' JSON as the server
returns them; nothing the report reads is changed (every annotation and the project's settings before and after).
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api  # noqa: E402
from iaa_label_studio.names import GOLD_VERSION, SCORE_VERSION  # noqa: E402

CONFIG = """<View><Text name="text" value="$text"/>
<Choices name="sent" toName="text"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices>
<Choices name="ok" toName="text"><Choice value="yes"/><Choice value="no"/></Choices></View>"""
PEOPLE = [f"judge{k}@example.com" for k in range(5)]
SENT, OK = ["pos", "neg", "neu"], ["yes", "no"]
N_HUMAN, N_MODEL_ONLY = 60, 20


def run(*args: str) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``, run by the command line's own main in this process (lst.run_cli)."""
    return lst.run_cli("label-studio", *args)


def res(sent: str, ok: str) -> list[dict]:
    return [
        {"from_name": "sent", "to_name": "text", "type": "choices", "value": {"choices": [sent]}},
        {"from_name": "ok", "to_name": "text", "type": "choices", "value": {"choices": [ok]}},
    ]


def design(seed: int = 7) -> list[tuple[dict, tuple, tuple]]:
    """Per task: each annotator's (sent, ok), the majority model's and the random model's. People are right with
    probability 0.85; task i is annotated by people i, i+1, i+2 (mod 5); the last 20 tasks by nobody."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(N_HUMAN + N_MODEL_ONLY):
        truth = (SENT[rng.integers(3)], OK[int(rng.random() < 0.6)])
        labels = {}
        for who in [PEOPLE[(i + k) % 5] for k in range(3)] if i < N_HUMAN else []:
            s = truth[0] if rng.random() < 0.85 else SENT[rng.integers(3)]
            o = truth[1] if rng.random() < 0.85 else OK[rng.integers(2)]
            labels[who] = (s, o)
        majority = (
            tuple(Counter(v[k] for v in labels.values()).most_common(1)[0][0] for k in range(2)) if labels else truth
        )
        rows.append((labels, majority, (SENT[rng.integers(3)], OK[rng.integers(2)])))
    return rows


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-judges"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


@pytest.fixture(scope="module")
def project(api):
    users = lst.make_users(api, PEOPLE)
    tasks = []
    for i, (labels, majority, rnd) in enumerate(design()):
        preds = [
            {"model_version": "majority", "result": res(*majority)},
            {"model_version": "random", "result": res(*rnd)},
            {"model_version": GOLD_VERSION, "result": res(*majority)},  # the connector's own: never a judge
            {"model_version": SCORE_VERSION, "result": [], "score": 0.5},
        ]
        anns = [{"completed_by": users[who], "result": res(*v), "ground_truth": False} for who, v in labels.items()]
        tasks.append({"data": {"text": f"t{i}"}, "annotations": anns, "predictions": preds})
    return lst.make_project(api, "judges", CONFIG, tasks)


def _frames(api, pid: int, tag: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """From the tasks' JSON as the server gives them: the humans (item, annotator e-mail, label) and the
    predictions of the two judges (item, model version, label) of one tag."""
    emails = {u["id"]: u["email"] for u in api.users()}

    def label(result: list) -> str:
        return next(r["value"]["choices"][0] for r in result if r["from_name"] == tag)

    humans, models = [], []
    for t in api.tasks(pid):
        for a in t["annotations"]:
            who = a["completed_by"]["id"] if isinstance(a["completed_by"], dict) else a["completed_by"]
            humans.append((t["id"], emails[who], label(a["result"])))
        for p in t["predictions"]:
            if p["model_version"] in ("majority", "random"):
                models.append((t["id"], p["model_version"], label(p["result"])))
    return (
        pd.DataFrame(humans, columns=["item", "annotator", "label"]),
        pd.DataFrame(models, columns=["item", "annotator", "label"]),
    )


def _what_people_made(api, pid: int) -> tuple[dict, list]:
    """The project's settings and every annotation of every task (with its id, result and authorship)."""
    settings = api.project(pid)
    annotations = sorted(
        (json.dumps(a, sort_keys=True) for t in api.tasks(pid) for a in t["annotations"]),
    )
    return settings, annotations


@pytest.mark.slow  # a real server (tens of seconds)
def test_the_majority_model_passes_the_random_one_fails_and_nothing_is_written(server, api, project):
    pid = project
    before = _what_people_made(api, pid)
    base = ["report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-state"]
    out = run(*base, "--judges", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    got = doc["judges"]
    # every version with predictions is a judge, except the connector's own
    assert got["models"] == ["majority", "random"]
    assert got["epsilon"] == 0.15 and "default" in got["epsilon_note"] and got["min_items"] == 30
    for tag in ("sent", "ok"):
        t = got["tags"][tag]
        rows = {r["model"]: r for r in t["rows"]}
        assert set(rows) == {"majority", "random"}
        assert rows["majority"]["verdict"] == "PASSED" and rows["random"]["verdict"] == "FAILED"
        assert rows["majority"]["humans_tested"] == rows["random"]["humans_tested"] == 5  # 36 tasks each
        # the core on the same data, built here from the tasks' JSON
        h, m = _frames(api, pid, tag)
        alt = ie.alt_test(h, m, epsilon=0.15)
        agreement = ie.model_agreement(h, m, progress=False)
        likeness = ie.human_likeness(h, m, agreement=agreement)
        for r in alt.models.to_dict(orient="records"):
            mine = rows[r["model"]]
            assert mine["omega"] == pytest.approx(r["omega"], abs=1e-12)
            assert mine["rho"] == pytest.approx(r["rho"], abs=1e-12)
            assert (mine["verdict"] == "PASSED") == bool(r["passed"])
        assert t["tests"][0]["alt_test"]["humans"] == json.loads(json.dumps(alt.to_dict()["humans"]))
        pooled = agreement.table[agreement.table["kind"] == "humans"].set_index("model")["agreement"]
        z = likeness.table.set_index("model")["z"]
        for name in ("majority", "random"):
            assert rows[name]["agreement"] == pytest.approx(pooled[name], abs=1e-12)
            assert rows[name]["human_agreement"] == pytest.approx(agreement.human_agreement, abs=1e-12)
            assert rows[name]["z"] == pytest.approx(z[name], abs=1e-12)
        assert rows["random"]["human_likeness"] == "below humans"
        # the corrected rate on the binary tag only: the 20 tasks nobody annotated are the ones corrected
        if tag == "ok":
            assert t["positive"] == "yes"  # the first choice of the label config
            acc = ie.judge_accuracy(h, m, positive="yes").table.set_index("model")
            assert acc.loc["majority", "n_test"] == N_MODEL_ONLY
            for c in ("raw", "corrected", "lower", "upper"):
                assert rows["majority"][c] == pytest.approx(acc.loc["majority", c], abs=1e-12)
            assert rows["random"]["corrected"] is None and "no better than chance" in rows["random"]["reason"]
        else:
            assert t["positive"] is None and "corrected" not in rows["majority"]
    # the humans' report is the one without --judges
    alone = run(*base, "--json")
    assert json.loads(alone.stdout)["controls"] == doc["controls"]
    # the text: the verdicts and which epsilon, and why
    text = run(*base, "--judges", "--epsilon", "0.1", "--min-items", "36").stdout
    assert "epsilon 0.1 (given with --epsilon)" in text and "at least 36 items beside the model" in text
    assert "majority: PASSED" in text and "random: FAILED" in text
    assert "rate of 'yes' on the tasks no human annotated: judged" in text
    # the connector's own versions are refused as judges; the options need --judges
    own = run(*base, "--judges", "--models", GOLD_VERSION)
    assert own.returncode == 2 and "connector's own model version" in own.stderr
    lone = run(*base, "--epsilon", "0.2")
    assert lone.returncode == 2 and "--epsilon belong to --judges" in lone.stderr
    # nothing that people made was changed: every annotation, and the project's settings
    after = _what_people_made(api, pid)
    assert after[1] == before[1]
    assert after[0] == before[0]


# --------------------------------------------------------------------------- without a server


def test_region_and_rating_tags_judge_each_model_on_its_own_units():
    """Spans: each model's regions matched with the humans' (a region only it marked is a unit where the humans
    say "(no region)"); a Rating is scored by minus the RMSE. A model marking the humans' spans and the middle of
    their stars passes, one marking a span nobody marked and random stars fails; rows in the project's order."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.convert import parse_config
    from iaa_label_studio.judges_report import judges, render
    from iaa_label_studio.read import Project

    config = """<View><Text name="text" value="$text"/>
    <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels>
    <Rating name="stars" toName="text"/></View>"""

    def span(s: int, e: int, lab: str) -> dict:
        return {
            "from_name": "ner",
            "to_name": "text",
            "type": "labels",
            "value": {"start": s, "end": e, "labels": [lab]},
        }

    def star(v: int) -> dict:
        return {"from_name": "stars", "to_name": "text", "type": "rating", "value": {"rating": v}}

    rng = np.random.default_rng(0)
    tasks = []
    for i in range(40):
        truth, stars = [(0, 5, "PER"), (10, 15, "ORG")], int(rng.integers(2, 5))
        anns = []
        for u in (1, 2, 3):
            result = [
                span(s, e, lab if rng.random() < 0.9 else {"PER": "ORG", "ORG": "PER"}[lab]) for s, e, lab in truth
            ]
            anns.append(
                {"id": 10 * i + u, "completed_by": u, "result": [*result, star(stars + int(rng.integers(-1, 2)))]}
            )
        preds = [
            {"model_version": "good", "result": [span(s, e, lab) for s, e, lab in truth] + [star(stars)]},
            {"model_version": "bad", "result": [span(20, 25, "PER"), star(int(rng.integers(1, 6)))]},
            {"model_version": GOLD_VERSION, "result": [span(0, 5, "PER")]},
        ]
        tasks.append({"id": i + 1, "data": {"text": "x" * 30}, "annotations": anns, "predictions": preds})
    project = Project(1, "t", config, parse_config(config), tasks, {1: "a", 2: "b", 3: "c"}, None)
    got = judges(analyse(project), min_items=20)
    assert got["models"] == ["good", "bad"]
    for tag, scoring in (("ner", "accuracy"), ("stars", "neg_rmse")):
        t = got["tags"][tag]
        assert t["scoring"] == scoring and t["positive"] is None
        assert [(r["model"], r["verdict"]) for r in t["rows"]] == [("good", "PASSED"), ("bad", "FAILED")]
    assert len(got["tags"]["ner"]["tests"]) == 2  # one test per model: its own joint units
    assert "matched with the humans' into units of its own" in " ".join(got["tags"]["ner"]["notes"])
    text = "\n".join(render(got))
    assert "== stars: scoring neg_rmse ==" in text and "good: PASSED" in text and "bad: FAILED" in text


def test_sets_paths_texts_and_numbers_are_judged_and_an_undefined_likeness_says_why():
    """Multiple choices (the set), Taxonomy (the path), TextArea (the text) and Number (minus the RMSE): a model
    giving the humans' answer passes, one giving another fails; where every human pair agrees alike the
    human-likeness is undefined and the text says why."""
    from iaa_label_studio.analyse import analyse
    from iaa_label_studio.convert import parse_config
    from iaa_label_studio.judges_report import judges, render
    from iaa_label_studio.read import Project

    config = """<View><Text name="text" value="$text"/>
    <Choices name="multi" toName="text" choice="multiple"><Choice value="a"/><Choice value="b"/><Choice value="c"/>
    </Choices>
    <Taxonomy name="tax" toName="text"><Choice value="A"><Choice value="A1"/></Choice><Choice value="B"/></Taxonomy>
    <TextArea name="note" toName="text"/><Number name="num" toName="text"/></View>"""

    def r(name: str, kind: str, value: dict) -> dict:
        return {"from_name": name, "to_name": "text", "type": kind, "value": value}

    def answer(multi: list, tax: list, note: str, num: int) -> list[dict]:
        return [
            r("multi", "choices", {"choices": multi}),
            r("tax", "taxonomy", {"taxonomy": tax}),
            r("note", "textarea", {"text": [note]}),
            r("num", "number", {"number": num}),
        ]

    rng = np.random.default_rng(0)
    tasks = []
    for i in range(40):
        multi, tax = sorted(set(rng.choice(list("abc"), 2))), [["A", "A1"]] if rng.random() < 0.5 else [["B"]]
        note, num = ["x", "y"][rng.integers(2)], int(rng.integers(0, 10))
        anns = [
            {
                "id": 10 * i + u,
                "completed_by": u,
                "result": answer(multi if rng.random() < 0.85 else ["c"], tax, note, num + int(rng.integers(-1, 2))),
            }
            for u in (1, 2, 3)
        ]
        preds = [
            {"model_version": "good", "result": answer(multi, tax, note, num)},
            {"model_version": "bad", "result": answer(["a"], [["B"]], "z", int(rng.integers(0, 10)))},
        ]
        tasks.append({"id": i + 1, "data": {"text": "t"}, "annotations": anns, "predictions": preds})
    project = Project(1, "t", config, parse_config(config), tasks, {1: "a", 2: "b", 3: "c"}, None)
    got = judges(analyse(project), min_items=20)
    for tag in ("multi", "tax", "note", "num"):
        t = got["tags"][tag]
        assert t["scoring"] == ("neg_rmse" if tag == "num" else "accuracy")
        assert [(r["model"], r["verdict"]) for r in t["rows"]] == [("good", "PASSED"), ("bad", "FAILED")], tag
    # the humans all agree on the taxonomy path: no spread of human-human kappas to place a model in
    assert got["tags"]["tax"]["rows"][0]["z"] is None
    assert "human-likeness undefined (every human pair agrees alike" in "\n".join(render(got))
    json.dumps(got, allow_nan=False)  # JSON-ready: undefined values are null
