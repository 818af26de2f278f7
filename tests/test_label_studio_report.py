"""The report an admin reads (issue 36, items 3 and 4), against a real Label Studio server (one per module).

* a small project (30 tasks, 3 of 5 annotators, 18 items each, under the scorecard's 20) says in the text why no
  annotator is judged;
* a three-way tie broken by a ground-truth annotation neither counts as the majority agreeing with it nor fails the
  two annotators who chose otherwise on that one item;
* spans whose boundaries one annotator shifts by a character: with exact boundaries the report names the near
  misses and suggests ``--iou``; with ``--iou 0.5`` she matches, and the Data Manager's review flags follow;
* a project of Pairwise judgments only: a sync creates no Data Manager tab.

Numbers are compared with the core (:mod:`iaa_engine`) on tables built here by hand.
"""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest

import iaa_engine as ie

pytest.importorskip("iaa_label_studio", reason="the plugin is not installed (make test does it)")

from iaa_label_studio import testing as lst  # noqa: E402
from iaa_label_studio.api import Api  # noqa: E402

CHOICES = """<View><Text name="text" value="$text"/>
<Choices name="sent" toName="text"><Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>"""
NER = """<View><Text name="text" value="$text"/>
<Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels></View>"""
PW_CONFIG = """<View><Text name="prompt" value="$prompt"/><Pairwise name="pw" toName="left,right"/>
<Text name="left" value="$left"/><Text name="right" value="$right"/></View>"""
FIVE = [f"r{i}@example.com" for i in range(5)]


def run(*args: str) -> subprocess.CompletedProcess:
    """``iaa label-studio *args``, run by the command line's own main in this process (lst.run_cli)."""
    return lst.run_cli("label-studio", *args)


def choice(label: str) -> list[dict]:
    return [{"from_name": "sent", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


def spans(rows: list[tuple[int, int, str]]) -> list[dict]:
    return [
        {"from_name": "ner", "to_name": "text", "type": "labels", "value": {"start": s, "end": e, "labels": [lab]}}
        for s, e, lab in rows
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = lst.server_or_skip(tmp_path_factory.mktemp("label-studio-report"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def api(server):
    return Api(server.client())


def _report(server, pid: int, *extra: str, as_json: bool = True):
    out = run("report", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--no-state",
              *(("--json",) if as_json else ()), *extra)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if as_json else out.stdout


#: the small project's labels: task i is annotated by r(i), r(i+1), r(i+2) (mod 5): 18 tasks each; task 0 is a
#: three-way tie that r2's ground-truth annotation settles as "neg"
def _small_tasks(users: dict[str, int]) -> list[dict]:
    cycle = ["pos", "neg", "neu", "pos", "pos", "neg"]
    tasks = []
    for i in range(30):
        who = [FIVE[(i + k) % 5] for k in range(3)]
        if i == 0:
            labels, gt = ["pos", "neu", "neg"], [False, False, True]
        else:
            base = cycle[i % len(cycle)]
            labels = [base, base, cycle[(i + 1) % len(cycle)] if i % 4 == 0 else base]
            gt = [False] * 3
        tasks.append(
            {
                "data": {"text": f"t{i}"},
                "annotations": [
                    {"completed_by": users[w], "result": choice(lab), "ground_truth": g}
                    for w, lab, g in zip(who, labels, gt)
                ],
            }
        )
    return tasks


@pytest.mark.slow  # a real server (tens of seconds)
def test_a_small_project_says_why_no_annotator_is_judged_and_reads_a_tie_against_ground_truth(server, api):
    users = lst.make_users(api, FIVE)
    pid = lst.make_project(api, "small", CHOICES, _small_tasks(users))
    got = _report(server, pid)["details"]["sent"]["quality"]
    card = {r["annotator"]: r for r in got["annotators"]["annotators"]}
    assert {r["n_pairable"] for r in card.values()} == {18} and all(not r["flag"] for r in card.values())
    text = _report(server, pid, as_json=False)
    rows = [line for line in text.splitlines() if any(line.strip().startswith(w) for w in FIVE)]
    scorecard = [line for line in rows if line.rstrip().endswith("(needs 20)")]
    assert len(scorecard) == 5 and all("not judged: 18 shared items (needs 20)" in line for line in scorecard)
    # the tie: r0 pos, r1 neu, r2 neg (ground truth). The majority left a tie: it does not agree with the known
    # label (it did before: "agrees with 100%"); r0 and r1 answered one gold question wrong: undecided, not failed
    assert got["n_known"] == 1 and got["gold_vs_known"] == 0.0 and got["gold_vs_known_ties"] == 1
    table = pd.DataFrame(
        [(t, who, lab) for t in range(1) for who, lab in zip(FIVE[:3], ["pos", "neu", "neg"])],
        columns=["item", "annotator", "label"],
    )
    assert ie.gold_standard(table, known={0: "neg"}).known_agreement == got["gold_vs_known"]
    acc = {r["annotator"]: r for r in got["gold_accuracy"]["annotators"]}
    assert (acc[FIVE[0]]["n_gold"], acc[FIVE[0]]["n_correct"], acc[FIVE[0]]["status"]) == (1, 0, "undecided")
    assert acc[FIVE[1]]["status"] == "undecided" and acc[FIVE[2]]["n_gold"] == 0  # the author is not scored
    assert "agrees with 0% of them (1 a tie the majority left undecided: not counted as agreeing)" in text
    assert " fail" not in text


#: 24 tasks of 40 characters: r0 and r1 mark the same two entities, r2 the same ones shifted by one character
def _ner_tasks(users: dict[str, int]) -> list[dict]:
    tasks = []
    for i in range(24):
        a, b = 2 + i % 5, 20 + i % 7
        exact = [(a, a + 6, "PER"), (b, b + 8, "ORG" if i % 3 else "PER")]
        shifted = [(s + 1, e + 1, lab) for s, e, lab in exact]
        tasks.append(
            {
                "data": {"text": "x" * 40},
                "annotations": [
                    {"completed_by": users[w], "result": spans(r), "ground_truth": False}
                    for w, r in zip(FIVE[:3], (exact, exact, shifted))
                ],
            }
        )
    return tasks


@pytest.mark.slow  # a real server (tens of seconds)
def test_near_misses_of_exact_span_boundaries_are_named_and_iou_matches_them(server, api, tmp_path):
    users = lst.make_users(api, FIVE[:3])
    pid = lst.make_project(api, "near misses", NER, _ner_tasks(users))
    exact = _report(server, pid)["details"]["ner"]
    near = exact["region_matching"]["near_misses"]
    # by hand: per task r2's 2 spans match neither r0's nor r1's exactly: pairs (r0,r2) and (r1,r2) leave 4 + 4
    # spans unmatched per task, (r0,r1) none; at IoU >= 0.5 (5/7 and 7/9) all of them match
    assert (near["unmatched"], near["near"], near["dominant"]) == (24 * 8, 24 * 8, True)
    card = {r["annotator"]: r for r in exact["quality"]["annotators"]["annotators"]}
    assert card[FIVE[2]]["kappa"] < 0 and card[FIVE[2]]["accuracy"] == 0.0
    assert exact["quality"]["disagreements"]["n_tasks_to_review"] == 24
    text = _report(server, pid, as_json=False)
    line = next(x for x in text.splitlines() if x.startswith("  Near misses:"))
    assert "192 of the 192 spans left unmatched" in line and "--iou 0.5" in line
    # the sync summary says it too (what an admin who only syncs reads)
    dry = run("sync", "--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--dry-run", "--no-state",
              "--no-html", "--summary", str(tmp_path))  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    assert "ner: Near misses: 192 of the 192 spans left unmatched" in dry.stdout
    loose = _report(server, pid, "--iou", "0.5")["details"]["ner"]
    assert "near_misses" not in loose["region_matching"]  # matched by IoU: nothing to suggest
    card = {r["annotator"]: r for r in loose["quality"]["annotators"]["annotators"]}
    assert card[FIVE[2]]["accuracy"] == 1.0 and not card[FIVE[2]]["flag"]
    # the review flags follow the same matching: nobody disagrees on any task any more
    assert loose["quality"]["disagreements"]["n_tasks_to_review"] == 0
    assert "Near misses" not in _report(server, pid, "--iou", "0.5", as_json=False)


@pytest.mark.slow  # a real server (tens of seconds)
def test_a_pairwise_only_project_gets_no_tab_and_a_choices_project_keeps_a_default_tab(server, api, tmp_path):
    users = lst.make_users(api, FIVE[:3])
    tasks = [
        {"data": {"prompt": f"p{i}", "left": f"a{i}", "right": f"b{i}"}, "annotations": [
            {"completed_by": users[w], "result": [{"from_name": "pw", "to_name": "pw", "type": "pairwise",
                                                   "value": {"selected": "left" if (i + k) % 3 else "right"}}]}
            for k, w in enumerate(FIVE[:3])
        ]}
        for i in range(6)
    ]  # fmt: skip
    pid = lst.make_project(api, "pairwise only", PW_CONFIG, tasks)
    args = ["--url", server.url, "--token", lst.TOKEN, "--summary", str(tmp_path), "--no-html", "--no-state", "--json"]
    out = run("sync", "-p", str(pid), *args)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["done"] == {} and api.views(pid) == []  # nothing to change, and no tab either
    # a project whose Data Manager was never opened (no tab): the connector's tabs come with a Default one
    small = lst.make_project(api, "tabs", CHOICES, _small_tasks(lst.make_users(api, FIVE))[:6])
    assert api.views(small) == []
    out = run("sync", "-p", str(small), *args)
    assert out.returncode == 0, out.stderr
    titles = [v["data"]["title"] for v in api.views(small)]
    assert titles[0] == "Default" and sorted(titles[1:]) == ["IAA: agreement", "IAA: needs adjudication",
                                                              "IAA: to review"]  # fmt: skip
    out = run("sync", "-p", str(small), *args)  # a second sync creates nothing more
    assert [v["data"]["title"] for v in api.views(small)] == titles


# --------------------------------------------------------------------------- participants of span tasks (issue 33)

SIX = [f"s{i}@example.com" for i in range(6)]
TEXT = "Alice met Bob at Acme in Paris on Monday."  # 41 characters


def _participant_tasks(users: dict[str, int]) -> tuple[list[dict], dict]:
    """12 tasks, 3 of 6 annotators each (overlap 3): task i by s(i), s(i+1), s(i+3) (mod 6). s5 submits every
    task of hers without a span (a participant who marked nothing); task 10's s4 skipped it (cancelled: not a
    participant, so the task has 2); task 11 has one annotator left (the others skipped): no alpha_U there."""
    marks = {
        0: [(0, 5, "PER"), (10, 13, "PER"), (17, 21, "ORG")],
        1: [(0, 5, "PER"), (10, 13, "PER"), (17, 21, "ORG"), (25, 30, "PER")],
        2: [(0, 5, "PER"), (9, 13, "PER")],
        3: [(0, 5, "PER"), (17, 21, "PER"), (25, 30, "ORG")],
        4: [(1, 5, "PER"), (10, 13, "PER"), (17, 21, "ORG")],
        5: [],
    }
    tasks, who_took_part = [], {}
    for i in range(12):
        who = [(i + k) % 6 for k in (0, 1, 3)]
        anns = []
        for k, w in enumerate(who):
            skipped = (i == 10 and w == 4) or (i == 11 and k > 0)
            shift = i % 3  # the annotators' spans move a little from task to task
            rows = [(s + shift * (j % 2), e + shift * (j % 2), lab) for j, (s, e, lab) in enumerate(marks[w])]
            anns.append(
                {"completed_by": users[SIX[w]], "result": [] if skipped else spans(rows), "was_cancelled": skipped}
            )
        tasks.append({"data": {"text": TEXT}, "annotations": anns})
    return tasks, who_took_part


@pytest.mark.slow  # a real server (tens of seconds)
def test_span_participants_come_from_each_tasks_annotations_and_alpha_u_is_written_per_task(server, api, tmp_path):
    users = lst.make_users(api, SIX)
    tasks, _ = _participant_tasks(users)
    pid = lst.make_project(api, "participants", NER, tasks)
    api.update_project(pid, {"maximum_annotations": 3})
    # the core on the tasks as the server returns them: a participant is a user with a submitted (not cancelled)
    # annotation of the task, spans or none
    emails = {u["id"]: u["email"] for u in api.users()}
    rows, part = [], []
    for t in api.tasks(pid):
        for a in t["annotations"]:
            if a["was_cancelled"]:
                continue
            who = emails[a["completed_by"]["id"] if isinstance(a["completed_by"], dict) else a["completed_by"]]
            part.append((t["id"], who))
            rows += [
                (t["id"], who, r["value"]["start"], r["value"]["end"], r["value"]["labels"][0]) for r in a["result"]
            ]
    part = pd.DataFrame(part, columns=["document", "annotator"])
    n = part.groupby("document").size()
    assert sorted(n.value_counts().items()) == [(1, 1), (2, 1), (3, 10)]
    assert (part["annotator"] == SIX[5]).sum() == 6 and not any(r[1] == SIX[5] for r in rows)  # s5: empty, yet there
    keep = n.index[n >= 2]
    spans_ = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    want = ie.unitizing_alpha(
        spans_[spans_["document"].isin(keep)],
        continuum=pd.DataFrame({"document": keep, "length": len(TEXT)}),
        participants=part[part["document"].isin(keep)],
    )
    got = _report(server, pid)["details"]["ner"]["unitizing_alpha"]
    assert got["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert (got["n_tasks"], got["annotators_per_task"], got["other_groups"]) == (11, {"2": 1, "3": 10}, [])
    per_doc = dict(zip(want.per_document["document"], want.per_document["alpha"]))
    assert {int(k): v for k, v in got["per_task"].items()} == pytest.approx(per_doc, abs=1e-12)
    # the task with 2 participants: its alpha_U among those two, as the document alone with its two annotators
    ten = int(n.index[n == 2][0])
    alone = ie.unitizing_alpha(
        spans_[spans_["document"] == ten],
        continuum=len(TEXT),
        annotators=list(part.loc[part["document"] == ten, "annotator"]),
    )
    assert per_doc[ten] == pytest.approx(alone.estimate, abs=1e-12)
    text = _report(server, pid, as_json=False)
    assert f"Krippendorff's unitizing alpha (α_U): {want.estimate:.4f}  (11 tasks with 2 to 3 annotators" in text
    # sync: each task with 2+ participants gets its alpha_U as task data (rounded as every field); the task with one
    # gets none; a second sync writes nothing
    args = ["--url", server.url, "--token", lst.TOKEN, "-p", str(pid), "--summary", str(tmp_path), "--no-html",
            "--no-state", "--json"]  # fmt: skip
    out = run("sync", *args)
    assert out.returncode == 0, out.stderr
    data = {t["id"]: t["data"] for t in api.tasks(pid)}
    for tid, d in data.items():
        if n[tid] >= 2 and per_doc[tid] == per_doc[tid]:
            assert d["iaa_alpha_u"] == round(per_doc[tid], 3), tid
        else:
            assert "iaa_alpha_u" not in d, tid
    again = json.loads(run("sync", *args).stdout)
    assert again["done"] == {}
