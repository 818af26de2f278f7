"""The study planners answer in milliseconds (issue 27, item 3): every closed-form calculator of ``ie.plan`` (median
of ``--repeat`` calls after one warm-up call that pays for SciPy's imports), and ``ie.plan_simulation`` from the
classroom pilot and from stated prevalences (median of 3). Targets: a closed form within 10 ms, a simulation
within 5 s (the issue asks for "seconds at most").

    .venv/bin/python benchmarks/bench_plan.py            # 200 calls each
    .venv/bin/python benchmarks/bench_plan.py --quick    # 20 calls each, the simulations with n_rep=300

With ``--json OUT`` (as ``run_all.py`` calls it) each time is one comparison against its budget (ours / budget,
target <= 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import ROOT, Bench, machine_info, say, use_working_tree, write_json  # noqa: E402

use_working_tree()
import iaa_engine as ie  # noqa: E402

CLOSED = {
    "kappa power, Donner (kappaSize PowerBinary)": dict(coefficient="kappa", null=0.4, expected=0.6, prevalence=0.3),
    "kappa power, Donner, 5 categories, 6 raters": dict(
        coefficient="kappa", null=0.4, expected=0.6, prevalence=[0.3, 0.2, 0.1, 0.3, 0.1], raters=6
    ),
    "kappa power, Cantor (irr N.cohen.kappa)": dict(
        coefficient="kappa", source="cantor", null=0.7, expected=0.85, prevalence=0.5
    ),
    "kappa power, Flack (irr N2.cohen.kappa, an LP)": dict(
        coefficient="kappa", source="flack", null=0.4, expected=0.6, prevalence=[0.2, 0.25, 0.55]
    ),
    "kappa width, Donner (kappaSize CI4Cats)": dict(
        coefficient="kappa", method="width", expected=0.4, lower=0.3, upper=0.5, prevalence=[0.3, 0.2, 0.2, 0.3]
    ),
    "kappa fixed n, Donner (kappaSize FixedN3Cats)": dict(
        coefficient="kappa", method="fixed_n", expected=0.7, n_items=80, prevalence=[0.33, 0.34, 0.33], raters=5
    ),
    "kappa width, Bloch-Kraemer": dict(
        coefficient="kappa", method="width", source="bloch_kraemer", expected=0.6, prevalence=0.3, width=0.2
    ),
    "ICC power, Walter et al.": dict(coefficient="icc", null=0.6, expected=0.8),
    "ICC width, Bonett": dict(coefficient="icc", method="width", expected=0.85, raters=4, width=0.2),
    "alpha minimum, Krippendorff": dict(coefficient="alpha", method="minimum", null=0.8, prevalence=0.25),
}


def timed(fn, repeat: int) -> tuple[float, object]:
    result = fn()  # warm-up: imports
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200, help="calls per closed form (median; default 200)")
    ap.add_argument("--quick", action="store_true", help="20 calls each; simulations with n_rep=300")
    ap.add_argument("--json", metavar="OUT", default=None, help="write the results as JSON to OUT")
    args = ap.parse_args()
    repeat = 20 if args.quick else args.repeat
    n_rep = 300 if args.quick else 1000
    rows = []
    bench = Bench()
    say(f"{'calculator':<48} {'median':>10}  {'n':>6}  target")
    for name, kw in CLOSED.items():
        kw = dict(kw)
        coefficient = kw.pop("coefficient")
        sec, res = timed(lambda: ie.plan(coefficient, **kw), repeat)
        ok = sec <= 0.010
        rows.append({"name": name, "seconds": sec, "n": res.n, "target": 0.010, "pass": ok})
        bench.compare(name, ours=("ie.plan", sec), reference=("budget", 0.010), kind="budget",
                      ratio_def="ours/reference", target=("<=", 1.0), note=f"n = {res.n}")  # fmt: skip
        say(f"{name:<48} {sec * 1e3:8.3f} ms  {res.n:>6}  <= 10 ms: {'pass' if ok else 'MISS'}")
    pilot = ie.read(ROOT / "iaa_engine" / "examples" / "classroom.csv")
    sims = {
        f"simulation, classroom pilot, alpha, n_rep={n_rep}": lambda: ie.plan_simulation(
            pilot, width=0.2, n_rep=n_rep, seed=0, progress=False
        ),
        f"simulation, pilot, 2 annotators/item, n_rep={n_rep}": lambda: ie.plan_simulation(
            pilot, width=0.2, annotators=2, n_rep=n_rep, seed=0, progress=False
        ),
        f"simulation, 5 categories, 3 raters, AC1, n_rep={n_rep}": lambda: ie.plan_simulation(
            prevalence=[0.3, 0.2, 0.1, 0.3, 0.1],
            kappa=0.5,
            annotators=3,
            metric="gwet_ac1",
            width=0.1,
            n_rep=n_rep,
            seed=0,
            progress=False,
        ),  # fmt: skip
    }
    for name, fn in sims.items():
        sec, res = timed(fn, 3)
        ok = sec <= 5.0
        rows.append({"name": name, "seconds": sec, "n": res.n, "target": 5.0, "pass": ok})
        bench.compare(name, ours=("ie.plan_simulation", sec), reference=("budget", 5.0), kind="budget",
                      ratio_def="ours/reference", target=("<=", 1.0), note=f"n = {res.n}")  # fmt: skip
        say(f"{name:<48} {sec * 1e3:8.1f} ms  {res.n:>6}  <= 5 s: {'pass' if ok else 'MISS'}")
    if args.json:
        write_json(
            args.json,
            {
                "benchmark": "plan",
                "machine": machine_info(),
                "comparisons": bench.comparisons,
                "steps": [{"label": r["name"], "seconds": r["seconds"], "value": r["n"]} for r in rows],
            },
        )


if __name__ == "__main__":
    main()
