"""The annotator scorecard (issue 17, item 2) against the plain report, on the same file, in one process run.

Data: the user-shaped sparse crowd table of ``_sparse_crowd.py`` (text ids, 500 annotators with Zipf-like activity,
5 labels, 1-8 annotations per item, rows shuffled), written once as CSV (untimed). Variants, each timed ``--repeat``
times round-robin (run i of every variant before run i + 1 of any, so a slow spell of the shared machine falls on
all alike), median reported:

* the ``iaa report FILE`` path: ``ie.report(ie.read(FILE))`` (reading, encoding, every metric);
* the ``iaa annotators FILE`` path: ``ie.annotator_report(ie.read(FILE))`` (every column: agreement and kappa with
  the pooled others, accuracy against majority gold, alpha without each annotator, the label-distribution test,
  MACE's EM; 500 annotators is above the pairwise tests' automatic limit of 100, as for the report's matrices);
* the same two commands as a user runs them (``iaa report FILE`` and ``iaa annotators FILE`` as subprocesses:
  imports, reading, computing, printing);
* for information, on ``Annotations`` already built (a fresh one per run, built untimed): ``ie.report(data)``
  against ``ie.annotator_report(data)``, against ``ie.annotator_report(data, competence=False)`` (what the HTML page
  computes: every column and the flags' tests without MACE's EM), and MACE's EM alone.

Target (issue 17: "the scorecard on 10**6 annotations, within 2x of the plain report"): the ``iaa annotators`` path
over the ``iaa report`` path, in process and as commands, at 10**6 annotations.

Usage::

    python benchmarks/bench_scorecard.py [--sizes 1000000] [--repeat 3] [--json OUT] [--quick]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _benchlib as bl

bl.use_working_tree()

import iaa_engine as ie  # noqa: E402
from iaa_engine.analysis._scorecard import _mace  # noqa: E402

TARGET = 2.0
TARGET_SIZE = 1_000_000
IAA = [sys.executable, "-m", "iaa_engine"]


def _cli(*args: str) -> Callable[[], Any]:
    def run() -> int:
        out = subprocess.run([*IAA, *args], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        return len(out.stdout)

    return run


def run_size(n: int, path: Path, bench: bl.Bench, repeat: int) -> dict[str, Any]:
    bl.say(f"\n--- {n:_} annotations ({path.stat().st_size / bl.MB:.1f} MB CSV)")
    file_variants: dict[str, tuple[str, Callable[[], Any]]] = {
        "report_file": ("iaa report path: report(read(FILE))", lambda: ie.report(ie.read(path))),
        "card_file": (
            "iaa annotators path: annotator_report(read(FILE))",
            lambda: ie.annotator_report(ie.read(path), progress=False),
        ),
        "report_cli": ("command: iaa report FILE", _cli("report", str(path))),
        "card_cli": ("command: iaa annotators FILE", _cli("annotators", str(path))),
    }
    built_variants: dict[str, tuple[str, Callable[[Any], Any]]] = {
        "report_built": ("built data: report(data)", lambda d: ie.report(d)),
        "card_built": ("built data: annotator_report(data)", lambda d: ie.annotator_report(d, progress=False)),
        "flags_built": (
            "built data: annotator_report(data, competence=False) (the page's)",
            lambda d: ie.annotator_report(d, competence=False, progress=False),
        ),
        "mace_built": ("built data: MACE's EM alone", lambda d: _mace(d, 100, 1e-3, False)),
    }
    times: dict[str, list[float]] = {k: [] for k in [*file_variants, *built_variants]}
    for _ in range(repeat):
        for key, (_, fn) in file_variants.items():
            t0 = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - t0)
        for key, (_, fn) in built_variants.items():
            data = ie.read(path)  # untimed: a fresh Annotations, nothing cached
            t0 = time.perf_counter()
            fn(data)
            times[key].append(time.perf_counter() - t0)
            del data
    med = {k: statistics.median(v) for k, v in times.items()}
    labels = {k: v[0] for k, v in {**file_variants, **built_variants}.items()}
    for key, label in labels.items():
        bl.say(f"  {label:<66} {bl.fmt_s(med[key]):>11}   (runs: {', '.join(f'{t:.2f}' for t in times[key])})")
        bench.steps[f"{key}@{n}"] = {"key": f"{key}@{n}", "label": label, "seconds": med[key], "repeat": repeat}
    target = ("<=", TARGET) if n >= TARGET_SIZE else None
    for ours, ref, note in (
        ("card_file", "report_file", "the iaa annotators path over the iaa report path"),
        ("card_cli", "report_cli", "the two commands as a user runs them"),
        ("card_built", "report_built", "on built data (information: no reading in either)"),
        ("flags_built", "report_built", "the HTML page's scorecard, without MACE's EM (information)"),
        ("mace_built", "report_built", "MACE's EM alone on built data (information)"),
    ):
        bench.compare(
            f"{labels[ours]} / {labels[ref]} @ {n:_}",
            ours=(labels[ours], med[ours]),
            reference=(labels[ref], med[ref]),
            kind="plain report",
            ratio_def="ours/reference",
            target=target if not ours.endswith("_built") else None,
            note=note,
        )
        bl.say(f"  ratio {ours} / {ref}: {med[ours] / med[ref]:.2f}" + (f" (target <= {TARGET})" if target else ""))
    return {"n": n, "median_seconds": med, "runs": times}


def _warm_up() -> None:
    warm = ie.read(Path(ie.__file__).parent / "examples" / "crowd.csv")
    ie.report(warm)
    ie.annotator_report(warm, progress=False)


def main(argv: list[str] | None = None) -> int:
    return bl.crowd_main("bench_scorecard", __doc__, _warm_up, run_size, argv)


if __name__ == "__main__":
    sys.exit(main())
