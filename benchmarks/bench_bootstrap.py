"""Bootstrap intervals of the count-based report: 1,000 replicates on 1 M items vs one point estimate.

Target (issue "Gold labels, confidence intervals, ..."): 1,000 bootstrap replicates of the count-based report on
1 M items (5 annotations per item) in at most 20x the time of one point estimate. Also times a naive bootstrap
(resample the items, rebuild the data, recompute the report) for a few replicates, extrapolated to 1,000, as the
baseline the vectorised path replaces.

    python benchmarks/bench_bootstrap.py [--items 1000000] [--boot 1000] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import _benchlib as bl
import numpy as np

bl.use_working_tree()

import iaa_engine as ie  # noqa: E402


def make_counts(n_items: int, per_item: int, n_labels: int, seed: int) -> np.ndarray:
    """Items × labels counts: a true label per item, each of the per_item annotations correct with p = 0.8."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, size=n_items)
    correct = rng.random((n_items, per_item)) < 0.8
    labels = np.where(correct, truth[:, None], rng.integers(0, n_labels, size=(n_items, per_item)))
    counts = np.zeros((n_items, n_labels), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(n_items), per_item), labels.ravel()), 1)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--per-item", type=int, default=5)
    ap.add_argument("--labels", type=int, default=5)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--naive", type=int, default=3, help="replicates of the naive bootstrap to time")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="100,000 items")
    args = ap.parse_args(argv)
    if args.quick:
        args.items = 100_000
    t_wall = time.perf_counter()
    machine = bl.machine_info()
    bl.say(
        f"bootstrap benchmark: {args.items:_} items × {args.per_item} annotations, {args.labels} labels, "
        f"{args.boot} replicates"
    )
    counts = make_counts(args.items, args.per_item, args.labels, args.seed)
    bench = bl.Bench(repeat=args.repeat)

    def point(_=None):
        return ie.report(ie.Annotations.from_counts(counts), pairwise=False)

    def boot(_=None):
        return ie.bootstrap(ie.Annotations.from_counts(counts), n_boot=args.boot, seed=args.seed)

    rep = bench.step(
        "point",
        "point estimate: count table -> report (count-based metrics)",
        point,
        value=lambda r: r.values["fleiss_kappa"],
    )
    res = bench.step(
        "boot",
        f"bootstrap: count table -> {args.boot} replicates of every count metric",
        boot,
        repeat=1,
        value=lambda r: float(r.table.loc["fleiss_kappa", "se"]),
    )
    rng = np.random.default_rng(args.seed)

    def naive(_=None):
        for _ in range(args.naive):  # the loop the vectorised bootstrap replaces
            pick = rng.integers(0, args.items, size=args.items)
            ie.report(ie.Annotations.from_counts(counts[pick]), pairwise=False)

    bench.step("naive", f"naive bootstrap: {args.naive} replicates (resample, rebuild, recompute)", naive, repeat=1)
    naive_1000 = bench.steps["naive"]["seconds"] / args.naive * args.boot
    bl.say(f"  naive bootstrap extrapolated to {args.boot} replicates: {bl.fmt_s(naive_1000)}")
    bench.compare(
        f"{args.boot} bootstrap replicates / one point estimate",
        ours=("bootstrap", bench.seconds("boot")),
        reference=("point estimate", bench.seconds("point")),
        kind="baseline",
        ratio_def="ours/reference",
        target=("<=", 20.0),
    )
    bench.compare(
        f"naive bootstrap (extrapolated to {args.boot}) / vectorised bootstrap  [info]",
        ours=("vectorised", bench.seconds("boot")),
        reference=("naive, extrapolated", naive_1000),
        kind="peer",
        ratio_def="reference/ours",
    )
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    table = res.table
    bl.say("\n  intervals (95 %; BCa or basic, see ie.bootstrap):")
    for name in ("fleiss_kappa", "krippendorff_alpha", "spa[annotations_m1]", "spa_kappa"):
        row = table.loc[name]
        bl.say(
            f"    {name:<22} {row['estimate']:.6f}  [{row['lower']:.6f}, {row['upper']:.6f}] ({row['method']})  "
            f"se {row['se']:.6f}"
        )
    wall = time.perf_counter() - t_wall
    bl.say(f"\n  peak RSS of the process {bl.fmt_bytes(bl.ru_maxrss_bytes())}; wall time {wall:.1f} s")
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "bootstrap",
                "script": "benchmarks/bench_bootstrap.py",
                "title": "Bootstrap intervals of the count-based report: 1,000 replicates vs one point estimate",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {
                    "items": args.items,
                    "annotations_per_item": args.per_item,
                    "labels": args.labels,
                    "replicates": args.boot,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "quick": args.quick,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "report_values": {k: v for k, v in rep.values.items()},
                "memory": {"ru_maxrss_bytes": bl.ru_maxrss_bytes()},
                "machine": machine,
                "wall_seconds": wall,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
