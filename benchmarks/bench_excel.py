"""Excel add-in: worksheet functions on a 1,000 × 50 range, called through xlwings's Office.js call path.

Each call runs ``xlwings.server.custom_functions_call`` with the payload Excel sends (the range as a 2-D list of
floats with nulls for blank cells), so the timing includes the argument conversion, the add-in's range-to-data
conversion, the core computation and the result conversion. The reference is the core on the same 2-D list
(``Annotations.from_wide`` + the metric, in Python): the ratio is the cost of the Excel surface.

The range: 1,000 items (rows) × 50 annotators (columns, ``layout="columns"``), 5 categories, 20 % blank.
``XLWINGS_LICENSE_KEY=noncommercial`` (PolyForm Noncommercial terms of ``xlwings.server``) is set for this
benchmark only.

    python benchmarks/bench_excel.py [--items 1000] [--annotators 50] [--json OUT] [--quick] [--addin PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path

import _benchlib as bl
import numpy as np

bl.use_working_tree()
os.environ["XLWINGS_ON_SERVER"] = "true"
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")

import xlwings as xw  # noqa: E402
import xlwings.server as server  # noqa: E402

import iaa_engine as ie  # noqa: E402


def load_addin(path: Path):
    spec = importlib.util.spec_from_file_location("iaa_functions", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_range(n_items: int, n_ann: int, n_cat: int, blank: float, seed: int) -> list[list]:
    """Items × annotators labels 1..n_cat (a true label, right with p = 0.7), ``blank`` share missing (None)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, n_cat + 1, size=(n_items, 1))
    labels = np.where(rng.random((n_items, n_ann)) < 0.7, truth, rng.integers(1, n_cat + 1, size=(n_items, n_ann)))
    out = labels.astype(float).astype(object)
    out[rng.random((n_items, n_ann)) < blank] = None
    return out.tolist()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--categories", type=int, default=5)
    ap.add_argument("--blank", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument(
        "--addin",
        type=Path,
        default=bl.ROOT / "excel_addin" / "iaa_functions.py",
        help="the worksheet-function module to time (default: the add-in; an older copy for a before/after)",
    )
    ap.add_argument("--quick", action="store_true", help="the same 1,000 × 50 range, 2 repetitions")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat = 2
    t_wall = time.perf_counter()
    machine = bl.machine_info()
    addin = load_addin(args.addin)
    rng_values = make_range(args.items, args.annotators, args.categories, args.blank, args.seed)
    bl.say(
        f"Excel add-in benchmark: a {args.items:,} × {args.annotators} range (items × annotators), "
        f"{args.categories} categories, {args.blank:.0%} blank; xlwings {xw.__version__}"
    )

    def fresh():  # a new Annotations each time: the core caches its statistics on the object
        return ie.Annotations.from_wide(rng_values, annotators_as="columns")

    bench = bl.Bench(repeat=args.repeat)

    def call(func: str, *extra):
        payload = {
            "func_name": func,
            "args": [rng_values, *[[[e]] for e in extra]],
            "caller_address": "Sheet1!A1",
            "version": xw.__version__,
            "runtime": "1.4",
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return asyncio.run(server.custom_functions_call(payload, addin))

    cases = [
        ("FLEISS", ("columns",), lambda: ie.fleiss_kappa(fresh()), "Fleiss' kappa"),
        ("SPA", ("inv_var_class", "columns"), lambda: ie.spa(fresh(), weights="inv_var_class"), "SPA [inv_var_class]"),
        ("KALPHA", ("nominal", "columns"), lambda: ie.krippendorff_alpha(fresh()), "Krippendorff's alpha"),
        ("KAPPA_MATRIX", ("columns",), lambda: ie.cohen_kappa_matrix(fresh()), "Cohen's kappa matrix (spills 51 × 51)"),
        ("IAA_REPORT", ("columns",), lambda: ie.report(fresh(), pairwise=False), "IAA_REPORT (spills every metric)"),
    ]
    for func, extra, core_fn, label in cases:
        out = bench.step(
            f"excel_{func}",
            f"=={func}(range) through custom_functions_call: {label}",
            lambda f=func, e=extra: call(f, *e),
            value=lambda r: r[0][0] if isinstance(r[0][0], float) else None,
        )
        core_out = bench.step(
            f"core_{func}",
            f"   iaa_engine from the same 2-D list: {label}",
            core_fn,
            value=lambda r: r if isinstance(r, float) else None,
        )
        ours, ref = bench.seconds(f"excel_{func}"), bench.seconds(f"core_{func}")
        vals = (out[0][0], core_out) if isinstance(core_out, float) else None
        bench.compare(
            f"={func} on a {args.items:,} × {args.annotators} range via the Office.js call path / core",
            ours=(f"={func} (call path)", ours),
            reference=("core from the list", ref),
            kind="baseline",
            ratio_def="ours/reference",
            values=vals,
            tolerance=1e-12,
            note="the Excel surface's cost: payload conversion, range reading, result shaping",
        )
    worst = max(bench.seconds(f"excel_{f}") for f, *_ in cases)
    bench.compare(
        f"slowest worksheet function on the {args.items:,} × {args.annotators} range / 1 s budget",
        ours=("slowest call", worst),
        reference=("1 s", 1.0),
        kind="baseline",
        ratio_def="ours/reference",
        target=("<=", 1.0),
        note="a recalculation should feel instant",
    )
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    bl.say(f"\n  slowest function call on the {args.items:,} × {args.annotators} range: {bl.fmt_s(worst)}")
    wall = time.perf_counter() - t_wall
    bl.say(f"  peak RSS of the process {bl.fmt_bytes(bl.ru_maxrss_bytes())}; wall time {wall:.1f} s")
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "excel",
                "script": "benchmarks/bench_excel.py",
                "title": "Excel add-in: worksheet functions on a 1,000 × 50 range through xlwings's call path",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {
                    "items": args.items,
                    "annotators": args.annotators,
                    "categories": args.categories,
                    "blank": args.blank,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "quick": args.quick,
                    "xlwings": xw.__version__,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "memory": {"ru_maxrss_bytes": bl.ru_maxrss_bytes()},
                "machine": machine,
                "wall_seconds": wall,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
