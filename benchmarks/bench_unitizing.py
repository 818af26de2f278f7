"""Krippendorff's unitizing alpha (``ie.unitizing_alpha``) at scale: many documents, and one long continuum.

Cases (each timed from a CSV file: read with pandas, then the coefficient; medians of ``--repeat`` runs):

* ``docs``: 10⁵ spans over 10⁴ documents (1,000 characters each), 3 and 5 annotators, 5 labels: every annotator
  marks most of each document's entities, with shifted boundaries and now and then another label;
* ``long``: one continuum of 10⁷ positions with 10⁵ units (4 annotators × 25,000), and 10⁴ units on the same
  design, to show the growth is not quadratic (DKPro Agreement's expected disagreement visits every unit × gap:
  10⁵ units × ~10⁵ gaps per category).

Peers: pygamma-agreement computes gamma, not α_U (and needs cvxpy with a MILP solver): not timed here. DKPro
Agreement is Java (not on PyPI). ``krippendorff-unitized-alpha`` (PyPI, 0.1.0) computes the 2016 uα, a different
coefficient, with pure-Python loops over segment pairs; with ``--peer-python PATH`` (a Python where it is
installed, e.g. ``python -m venv /tmp/peer && /tmp/peer/bin/pip install krippendorff-unitized-alpha``) its time on
the small long-continuum case is printed beside ours, for scale only.

The command line (``--cli``): ``iaa spans FILE --continuum BEGIN,LENGTH --format json`` timed as a whole process
(interpreter start, imports, reading, α_U, output) on the same files, beside the floor: a process that imports
pandas and reads the CSV (``pandas.read_csv``), nothing else.

The 2016 family (``ie.unitizing_family``: uα, |uα, cuα, (k)uα) is timed from the file on the same designs; with
``--peer-python`` the peer's uα is printed beside ours on the peer's case (the same coefficient: the values agree).

A crowd (``--crowd``, issue 33): 10⁵ spans over 10⁴ documents of 1,000 characters, 50 workers with 5 per document
(each document's five drawn at random; one of them marks nothing in one document of ten), with a participants file
(document, worker): ``iaa spans FILE --participants P --continuum 0,1000 --format json`` as a whole process beside
the floor, and in process from the two files (pandas reads them) to the result, with and without
``per_annotator=True`` (α_U without each worker, by leave-one-out sums).

Run: ``python benchmarks/bench_unitizing.py [--repeat 3] [--cli] [--crowd] [--peer-python /tmp/peer/bin/python]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import iaa_engine as ie


def documents(n_docs: int, n_raters: int, per_doc: int, doc_length: int, seed: int = 0) -> pd.DataFrame:
    """Entities at regular slots of each document; each annotator marks one with probability 0.9, boundaries
    shifted by up to 2, the label changed with probability 0.1 (units of one annotator never overlap)."""
    rng = np.random.default_rng(seed)
    slot = doc_length // per_doc
    doc = np.repeat(np.arange(n_docs), per_doc)
    start = np.tile(np.arange(per_doc) * slot, n_docs) + rng.integers(3, slot // 4, doc.size)
    length = rng.integers(6, slot // 2, doc.size)
    label = rng.integers(0, 5, doc.size)
    frames = []
    for r in range(n_raters):
        keep = rng.random(doc.size) < 0.9
        s = start + rng.integers(-2, 3, doc.size)
        e = start + length + rng.integers(-2, 3, doc.size)
        lab = np.where(rng.random(doc.size) < 0.1, rng.integers(0, 5, doc.size), label)
        frames.append(
            pd.DataFrame(
                {"document": doc[keep], "annotator": f"a{r}", "start": s[keep], "end": e[keep], "label": lab[keep]}
            )
        )
    return pd.concat(frames, ignore_index=True).assign(label=lambda f: "L" + f["label"].astype(str))


def timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def from_file(path: Path, continuum):
    frame = pd.read_csv(path)
    return ie.unitizing_alpha(frame, continuum=continuum)


def family_cases(tmpdir: Path, repeat: int) -> None:
    """The 2016 family (``ie.unitizing_family``: uα, |uα, cuα, (k)uα) from the file, on the same designs."""
    print("\n2016 family (uα, |uα, cuα)                 spans   seconds (file→family)   uα       cuα")
    for n_raters in (3, 5):
        frame = documents(10_000, n_raters, max(1, round(100_000 / (10_000 * n_raters * 0.9))), 1000)
        path = tmpdir / f"family{n_raters}.csv"
        frame.to_csv(path, index=False)
        seconds, res = timed(lambda: ie.unitizing_family(pd.read_csv(path), continuum=(0, 1000)), repeat)  # noqa: B023
        print(
            f"10^4 documents, {n_raters} annotators     {len(frame):>8}   {seconds:>8.3f}"
            f"                {res.estimate:.4f}   {res.coding:.4f}"
        )
    per_rater = round(100_000 / (4 * 0.9))
    frame = documents(1, 4, per_rater, 100 * per_rater).drop(columns="document")
    path = tmpdir / "family_long.csv"
    frame.to_csv(path, index=False)
    seconds, res = timed(lambda: ie.unitizing_family(pd.read_csv(path), continuum=(0, 100 * per_rater)), repeat)
    print(
        f"one continuum, 4 annotators            {len(frame):>8}   {seconds:>8.3f}"
        f"                {res.estimate:.4f}   {res.coding:.4f}"
    )


PEER = """
import csv, sys, time
from collections import defaultdict
from krippendorff_unitized_alpha.krippendorffs_unitized_alpha import KrippendorffUnitizedAlpha, Segment, EMPTY_TAG
L = int(sys.argv[2])
t = time.perf_counter()
rows = defaultdict(list)
with open(sys.argv[1]) as fh:
    for row in csv.DictReader(fh):
        rows[row["annotator"]].append((int(row["start"]), int(row["end"]), row["label"]))
data = {}
for a, spans in rows.items():
    segs, pos = [], 0
    for s, e, lab in sorted(spans):
        if s > pos:
            segs.append(Segment(EMPTY_TAG, pos, s))
        segs.append(Segment(lab, s, e))
        pos = e
    if L > pos:
        segs.append(Segment(EMPTY_TAG, pos, L))
    data[a] = segs
value = KrippendorffUnitizedAlpha(data).result
print(time.perf_counter() - t, value)
"""


IAA = Path(sys.executable).with_name("iaa")
FLOOR = "import sys, pandas; pandas.read_csv(sys.argv[1])"


def process_seconds(command: list[str], repeat: int) -> tuple[float, float]:
    """Medians of the wall time and of the CPU time (user + system) of a whole process; it must succeed. The CPU
    time is the steadier figure on a machine shared with other jobs."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def cli_cases(tmpdir: Path, repeat: int) -> None:
    """``iaa spans FILE`` from the file, whole process, beside reading the CSV with pandas (whole process)."""
    print(
        "\niaa spans FILE, whole process (wall s / CPU s)    spans   iaa spans        floor: pandas.read_csv   "
        "ratio (wall, CPU)"
    )
    cases = [
        (f"10^4 documents, {r} annotators", documents(10_000, r, round(100_000 / (10_000 * r * 0.9)), 1000), 1000)
        for r in (3, 5)
    ]
    per_rater = round(100_000 / (4 * 0.9))
    cases.append(
        (
            "one continuum, 10^5 units",
            documents(1, 4, per_rater, 100 * per_rater).drop(columns="document"),
            100 * per_rater,
        )
    )
    for k, (name, frame, length) in enumerate(cases):
        path = tmpdir / f"cli{k}.csv"
        frame.to_csv(path, index=False)
        ours = process_seconds([str(IAA), "spans", str(path), "--continuum", f"0,{length}", "--format", "json"], repeat)
        floor = process_seconds([sys.executable, "-c", FLOOR, str(path)], repeat)
        print(
            f"{name:<44} {len(frame):>8}   {ours[0]:6.3f} / {ours[1]:5.3f}   {floor[0]:6.3f} / {floor[1]:5.3f}         "
            f"{ours[0] / floor[0]:4.2f}x, {ours[1] / floor[1]:4.2f}x"
        )


def crowd(n_docs: int = 10_000, workers: int = 50, per_doc: int = 5, spans: int = 100_000, seed: int = 0):
    """(spans, participants): each document seen by ``per_doc`` of ``workers`` (drawn without replacement per
    document), each marking about ``spans / (n_docs * per_doc)`` entities with boundaries shifted by up to 2 and now
    and then another label; in one document of ten one participant marks nothing."""
    rng = np.random.default_rng(seed)
    per = max(1, round(spans / (n_docs * per_doc)))
    who = np.argsort(rng.random((n_docs, workers)), axis=1)[:, :per_doc]  # per_doc distinct workers per document
    part = pd.DataFrame({"document": np.repeat(np.arange(n_docs), per_doc), "annotator": who.ravel()})
    slot = 1000 // per
    base = rng.integers(3, slot // 4, (n_docs, per)) + np.arange(per) * slot
    length = rng.integers(6, slot // 2, (n_docs, per))
    doc = np.repeat(np.arange(n_docs), per_doc * per)
    rater = np.repeat(who.ravel(), per)
    start = np.repeat(base, per_doc, axis=0).ravel() + rng.integers(-2, 3, doc.size)
    end = start + np.repeat(length, per_doc, axis=0).ravel() + rng.integers(-2, 3, doc.size)
    silent = (rng.random(n_docs) < 0.1)[doc] & (rater == who[doc, 0])
    label = np.repeat(rng.integers(0, 5, (n_docs, per)), per_doc, axis=0).ravel()
    label = np.where(rng.random(doc.size) < 0.1, rng.integers(0, 5, doc.size), label)  # now and then another label
    frame = pd.DataFrame({"document": doc, "annotator": rater, "start": start, "end": end, "label": label})[~silent]
    frame = frame.assign(
        document="d" + frame["document"].astype(str).str.zfill(5),
        annotator="w" + frame["annotator"].astype(str).str.zfill(2),
        label="L" + frame["label"].astype(str),
    )
    part = part.assign(
        document="d" + part["document"].astype(str).str.zfill(5),
        annotator="w" + part["annotator"].astype(str).str.zfill(2),
    )
    return frame, part


def crowd_cases(tmpdir: Path, repeat: int) -> None:
    """A crowd with a participants file: whole process and in process, from the files."""
    frame, part = crowd()
    path, ppath = tmpdir / "crowd.csv", tmpdir / "participants.csv"
    frame.to_csv(path, index=False)
    part.to_csv(ppath, index=False)
    command = [str(IAA), "spans", str(path), "--participants", str(ppath), "--continuum", "0,1000", "--format", "json"]
    ours = process_seconds(command, repeat)
    floor = process_seconds([sys.executable, "-c", FLOOR, str(path)], repeat)
    print(
        f"\ncrowd: {len(frame):,} spans over 10^4 documents, 50 workers, 5 per document, with participants "
        "(wall s / CPU s)"
    )
    print(
        f"  iaa spans FILE --participants P, whole process   {ours[0]:6.3f} / {ours[1]:5.3f}   floor (pandas.read_csv) "
        f"{floor[0]:6.3f} / {floor[1]:5.3f}   ratio {ours[0] / floor[0]:4.2f}x, {ours[1] / floor[1]:4.2f}x"
    )

    def from_files(**options):
        spans = pd.read_csv(path, dtype={"document": str, "annotator": str})
        who = pd.read_csv(ppath, dtype=str)
        return ie.unitizing_alpha(spans, continuum=(0, 1000), participants=who, **options)

    seconds, res = timed(from_files, repeat)
    print(f"  in process, from the two files                  {seconds:6.3f} s      α_U {res.estimate:.4f}")
    seconds, res = timed(lambda: from_files(per_annotator=True), repeat)
    print(f"  ... with per_annotator=True (50 workers)         {seconds:6.3f} s")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = ie.unitizing_alpha(pd.read_csv(path, dtype=str).astype({"start": int, "end": int}), continuum=(0, 1000))
    print(
        f"  without participants (every worker in every document): α_U {plain.estimate:.4f} "
        f"(INCEpTION's concatenation {plain.estimate_inception:.4f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-python", default=None)
    parser.add_argument(
        "--cli", action="store_true", help="only the iaa spans command, whole process, beside the floor"
    )
    parser.add_argument("--crowd", action="store_true", help="only the crowd with participants (issue 33)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        if args.cli:
            cli_cases(tmpdir, args.repeat)
            return
        if args.crowd:
            crowd_cases(tmpdir, args.repeat)
            return
        print("case                                       spans   seconds (file→α_U)   coefficient only   α_U")
        for n_raters in (3, 5):
            per_doc = max(1, round(100_000 / (10_000 * n_raters * 0.9)))
            frame = documents(10_000, n_raters, per_doc, 1000)
            path = tmpdir / f"docs{n_raters}.csv"
            frame.to_csv(path, index=False)
            cont = (0, 1000)
            t_file, res = timed(lambda: from_file(path, cont), args.repeat)  # noqa: B023
            t_coef, _ = timed(lambda: ie.unitizing_alpha(frame, continuum=cont), args.repeat)  # noqa: B023
            print(
                f"10^4 documents, {n_raters} annotators     {len(frame):>8}   {t_file:>8.3f}"
                f"             {t_coef:>8.3f}          {res.estimate:.4f}"
            )
        for n_units in (10_000, 100_000):
            per_rater = round(n_units / (4 * 0.9))
            length = 100 * per_rater
            frame = documents(1, 4, per_rater, length).drop(columns="document")
            path = tmpdir / f"long{n_units}.csv"
            frame.to_csv(path, index=False)
            cont = (0, length)
            t_file, res = timed(lambda: from_file(path, cont), args.repeat)  # noqa: B023
            t_coef, _ = timed(lambda: ie.unitizing_alpha(frame, continuum=cont), args.repeat)  # noqa: B023
            print(
                f"one continuum of {length:.0e}, 4 annotators {len(frame):>8}   {t_file:>8.3f}"
                f"             {t_coef:>8.3f}          {res.estimate:.4f}"
            )
        family_cases(tmpdir, args.repeat)
        if args.peer_python:
            frame = documents(1, 4, 500, 50_000).drop(columns="document")
            path = tmpdir / "peer.csv"
            frame.to_csv(path, index=False)
            ours, _ = timed(lambda: from_file(path, (0, 50_000)), args.repeat)
            fam, fres = timed(lambda: ie.unitizing_family(pd.read_csv(path), continuum=(0, 50_000)), args.repeat)
            run = subprocess.run(
                [args.peer_python, "-c", PEER, str(path), "50000"], capture_output=True, text=True, timeout=3600
            )
            if run.returncode:
                print("krippendorff-unitized-alpha failed:", run.stderr.strip().splitlines()[-1:])
            else:
                seconds, value = run.stdout.split()
                print(
                    f"{len(frame)} units, one continuum: ours (α_U) {ours:.3f} s; krippendorff-unitized-alpha "
                    f"(2016 uα, a different coefficient: {float(value):.4f}) {float(seconds):.3f} s, "
                    f"{float(seconds) / ours:.0f}× ours"
                )
                print(
                    f"  the same coefficient: ours (ie.unitizing_family) uα {fres.estimate:.10f} in {fam:.3f} s, "
                    f"krippendorff-unitized-alpha {float(value):.10f}: {float(seconds) / fam:.0f}× ours"
                )


if __name__ == "__main__":
    sys.exit(main())
