"""The disagreement list (issue 17, item 1) against the plain report, on the same file, in one process run.

Data: the user-shaped sparse crowd table of ``_sparse_crowd.py`` (text ids, 500 annotators with Zipf-like activity,
5 labels, 1-8 annotations per item, rows shuffled), written once as CSV (untimed). Variants, each timed ``--repeat``
times round-robin (run i of every variant before run i + 1 of any, so a slow spell of the shared machine falls on
all alike), median reported:

* the ``iaa report FILE`` path: ``ie.report(ie.read(FILE))`` (reading, encoding, every metric);
* the ``iaa disagreements FILE`` path: ``ie.disagreements(ie.read(FILE), top=20, items_per_pair=20)`` (its
  defaults), and the whole list (``top=None``, every item behind every pair); both with the Dawid-Skene posterior
  (the default), and the command's path without it (``--no-dawid-skene``);
* the same two commands as a user runs them (``iaa report FILE`` and ``iaa disagreements FILE`` as subprocesses:
  imports, reading, computing, printing);
* for information, on ``Annotations`` already built (a fresh one per run, built untimed): ``ie.report(data)``
  against ``ie.disagreements(data)`` with and without Dawid-Skene (its EM dominates the list's cost).

Target (issue 17: "the disagreement list ... on 10**6 annotations, within 2x of the plain report"): the
``iaa disagreements`` path over the ``iaa report`` path, in process and as commands, at 10**6 annotations.

Every variant is timed twice: wall clock, and CPU time (``time.process_time`` in process; the children's user +
system time from ``getrusage`` for the commands). On a machine shared with other jobs the wall clock swings
several-fold from run to run; the CPU time is what the work itself costs, so the ratios are given on both.

Usage::

    python benchmarks/bench_disagreements.py [--sizes 1000000] [--repeat 3] [--json OUT] [--quick]
"""

from __future__ import annotations

import resource
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
        "dis_file_top": (
            "iaa disagreements path: disagreements(read(FILE), top=20, items_per_pair=20)",
            lambda: ie.disagreements(ie.read(path), top=20, items_per_pair=20, progress=False),
        ),
        "dis_file_nods": (
            "the same, dawid_skene=False (--no-dawid-skene)",
            lambda: ie.disagreements(ie.read(path), top=20, items_per_pair=20, dawid_skene=False),
        ),
        "dis_file_all": (
            "disagreements(read(FILE)), the whole list",
            lambda: ie.disagreements(ie.read(path), progress=False),
        ),
        "report_cli": ("command: iaa report FILE", _cli("report", str(path))),
        "dis_cli": ("command: iaa disagreements FILE", _cli("disagreements", str(path))),
    }
    built_variants: dict[str, tuple[str, Callable[[Any], Any]]] = {
        "report_built": ("built data: report(data)", lambda d: ie.report(d)),
        "dis_built": ("built data: disagreements(data)", lambda d: ie.disagreements(d, progress=False)),
        "dis_built_nods": (
            "built data: disagreements(data, dawid_skene=False)",
            lambda d: ie.disagreements(d, dawid_skene=False),
        ),
    }
    times: dict[str, list[float]] = {k: [] for k in [*file_variants, *built_variants]}
    cpu: dict[str, list[float]] = {k: [] for k in times}

    def clocks() -> tuple[float, float]:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter(), time.process_time() + kids.ru_utime + kids.ru_stime

    for _ in range(repeat):
        for key, (_, fn) in file_variants.items():
            w0, c0 = clocks()
            fn()
            w1, c1 = clocks()
            times[key].append(w1 - w0)
            cpu[key].append(c1 - c0)
        for key, (_, fn) in built_variants.items():
            data = ie.read(path)  # untimed: a fresh Annotations, nothing cached
            w0, c0 = clocks()
            fn(data)
            w1, c1 = clocks()
            times[key].append(w1 - w0)
            cpu[key].append(c1 - c0)
            del data
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    labels = {k: v[0] for k, v in {**file_variants, **built_variants}.items()}
    bl.say(f"  {'median of ' + str(repeat) + ' runs':<66} {'wall':>11} {'CPU':>11}")
    for key, label in labels.items():
        bl.say(
            f"  {label:<66} {bl.fmt_s(med[key]):>11} {bl.fmt_s(med_cpu[key]):>11}   "
            f"(wall runs: {', '.join(f'{t:.2f}' for t in times[key])})"
        )
        bench.steps[f"{key}@{n}"] = {
            "key": f"{key}@{n}",
            "label": label,
            "seconds": med[key],
            "cpu_seconds": med_cpu[key],
            "repeat": repeat,
        }
    target = ("<=", TARGET) if n >= TARGET_SIZE else None
    for ours, ref, note in (
        ("dis_file_top", "report_file", "the iaa disagreements path (top 20) over the iaa report path"),
        ("dis_file_all", "report_file", "the whole list over the iaa report path"),
        ("dis_file_nods", "report_file", "the iaa disagreements path without Dawid-Skene"),
        ("dis_cli", "report_cli", "the two commands as a user runs them"),
        ("dis_built", "report_built", "on built data (information: Dawid-Skene's EM against the metrics alone)"),
        ("dis_built_nods", "report_built", "on built data, without Dawid-Skene (information)"),
    ):
        for clock, m in (("wall", med), ("CPU", med_cpu)):
            bench.compare(
                f"{labels[ours]} / {labels[ref]} @ {n:_} ({clock})",
                ours=(labels[ours], m[ours]),
                reference=(labels[ref], m[ref]),
                kind="plain report",
                ratio_def="ours/reference",
                target=target if not ours.startswith("dis_built") else None,
                note=note,
            )
        bl.say(
            f"  ratio {ours} / {ref}: wall {med[ours] / med[ref]:.2f}, CPU {med_cpu[ours] / med_cpu[ref]:.2f}"
            + (f" (target <= {TARGET})" if target else "")
        )
    return {"n": n, "median_seconds": med, "median_cpu_seconds": med_cpu, "runs": times, "cpu_runs": cpu}


def _warm_up() -> None:
    warm = ie.read(Path(ie.__file__).parent / "examples" / "crowd.csv")
    ie.report(warm)
    ie.disagreements(warm, progress=False)


def main(argv: list[str] | None = None) -> int:
    return bl.crowd_main("bench_disagreements", __doc__, _warm_up, run_size, argv)


if __name__ == "__main__":
    sys.exit(main())
