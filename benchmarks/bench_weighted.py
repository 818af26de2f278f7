"""Weighted agreement coefficients and their analytic standard errors, against irrCAC.

Data (generated here; ``_sparse_crowd.py`` is nominal with 1-8 annotations per item from 500 annotators, not the
ordinal scale this needs): a long table of ordinal ratings 1..5 with text ids (``item0001234``, ``r042``), 200 raters
with Zipf-like activity, each item rated by 2-6 distinct raters (so every rater misses most items), each item a latent
grade, each rater a bias of their own, a rating the grade + bias + noise rounded and clipped to 1..5; rows shuffled;
10**5 and 10**6 annotations. In this one process run, every variant is timed ``--repeat`` times, interleaved
round-robin (run i of every variant before run i + 1 of any, so that a slow spell of the shared machine falls on all
of them alike), and the median is reported:

* conversion: ``Annotations.from_long(df, level="ordinal", categories=[1..5])`` against irrCAC's input, the items ×
  raters frame with NaN for missing (``df.pivot(index="item", columns="annotator", values="label")``);
* from the built data: our point estimate ``ie.fleiss_kappa(data, weights="quadratic")`` and
  ``ie.estimate(data, "fleiss_kappa", weights="quadratic")`` (value, SE, interval, p-value), against
  ``CAC(wide, weights="quadratic", categories=[1..5]).fleiss()`` (irrCAC 0.4.4, which also computes the value, SE,
  interval and p-value); the same for Gwet's AC2 (``ie.gwet_ac1`` / ``CAC.gwet()``). Every run of ours gets an
  ``Annotations`` freshly built from the long table (untimed), so nothing cached carries over: counting the items ×
  categories table is part of the timed work on both sides. irrCAC runs only up to ``--peer-max`` annotations (it
  counts with pandas over the dense items × raters frame); a variant whose first run exceeds ``--peer-budget``
  seconds runs once;
* the cost of the analytic standard error: ``ie.estimate(...)`` / the point estimate, for ``fleiss_kappa``,
  ``gwet_ac1``, ``multi_kappa`` (Conger) and ``brennan_prediger`` with quadratic weights, on fresh data (the target)
  and, for information, on a warm ``Annotations`` (its count table and annotator statistics built beforehand).

Everything is run once untimed on a small table first (imports, e.g. scipy.stats, are not timed).

Values: irrCAC is asked for 15 digits (its default rounds to 5); estimate and SE must agree with it to
max(1e-12, items × 2**-52) -- irrCAC sums the per-item terms one after another with Python's ``sum``, whose rounding
grows with the number of items (about 2e-12 at 250,000 items). A referee in rational arithmetic (``fractions``, from
counts made with ``np.bincount``) gives the exact Fleiss' kappa, AC2 and Brennan-Prediger, untimed, to show whose
rounding a difference is.

Target (the weighted-agreement issue: "analytic standard errors cost no more than 3x the point estimate"), assessed
at 10**6 annotations: ``estimate`` / point estimate on fresh data, per coefficient. The irrCAC ratios are for
information.

Usage::

    python benchmarks/bench_weighted.py [--sizes 100000,1000000] [--repeat 3] [--peer-max 1000000]
                                        [--peer-budget 300] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import _benchlib as bl
import numpy as np
import pandas as pd

bl.use_working_tree()

import iaa_engine as ie  # noqa: E402
from iaa_engine import Annotations  # noqa: E402

CATEGORIES = [1, 2, 3, 4, 5]
WEIGHTS = "quadratic"
N_RATERS = 200
TARGET_SE_COST = 3.0
TARGET_SIZE = 1_000_000  # the SE-cost target is assessed at this many annotations and above
VALUE_TOL = 1e-12
EPS = 2.0**-52
IRRCAC_DIGITS = 15  # CAC rounds every result to `digits` (default 5)

#: our metric -> (point-estimate function, irrCAC method); the last two have no irrCAC run here
COEFFICIENTS: dict[str, tuple[Callable[..., float], str | None]] = {
    "fleiss_kappa": (ie.fleiss_kappa, "fleiss"),
    "gwet_ac1": (ie.gwet_ac1, "gwet"),
    "multi_kappa": (ie.multi_kappa, None),
    "brennan_prediger": (ie.brennan_prediger, None),
}


# --------------------------------------------------------------------------- data


def generate(n_annotations: int, *, n_raters: int = N_RATERS, seed: int = 0) -> pd.DataFrame:
    """The long table: ``item`` and ``annotator`` text ids, ``label`` int64 in 1..5 (exactly ``n_annotations`` rows)."""
    rng = np.random.default_rng(seed)
    per_item = rng.integers(2, 7, size=n_annotations // 2 + 8)  # 2..6 raters per item
    ends = np.cumsum(per_item)
    n_items = int(np.searchsorted(ends, n_annotations)) + 1
    per_item = per_item[:n_items]
    per_item[-1] -= int(per_item.sum() - n_annotations)
    if per_item[-1] < 2:  # a last item of one rating: give it to an earlier item with room instead
        room = int(np.flatnonzero(per_item[:-1] < 6)[0])
        per_item[room] += per_item[-1]
        per_item = per_item[:-1]
        n_items -= 1
    item = np.repeat(np.arange(n_items), per_item)
    # distinct raters per item, Zipf-like activity; duplicates within an item re-drawn uniformly
    activity = 1.0 / np.arange(1, n_raters + 1) ** 0.8
    rater = rng.choice(n_raters, size=n_annotations, p=activity / activity.sum())
    for _ in range(50):
        key = item.astype(np.int64) * n_raters + rater
        order = np.argsort(key, kind="stable")
        dup = np.zeros(n_annotations, dtype=bool)
        dup[order[1:]] = key[order[1:]] == key[order[:-1]]
        if not dup.any():
            break
        rater[dup] = rng.integers(0, n_raters, size=int(dup.sum()))
    else:
        raise RuntimeError("could not draw distinct raters per item")
    grade = rng.choice(np.arange(1, 6), size=n_items, p=[0.10, 0.20, 0.35, 0.20, 0.15])
    bias = rng.normal(0.0, 0.3, size=n_raters)
    score = grade[item] + bias[rater] + rng.normal(0.0, 0.7, size=n_annotations)
    label = np.clip(np.rint(score), 1, 5).astype(np.int64)
    perm = rng.permutation(n_annotations)
    return pd.DataFrame(
        {
            "item": np.char.add("item", np.char.zfill(item[perm].astype(str), 7)),
            "annotator": np.char.add("r", np.char.zfill(rater[perm].astype(str), 3)),
            "label": label[perm],
        }
    )


def from_long(df: pd.DataFrame) -> Annotations:
    return Annotations.from_long(df, level="ordinal", categories=CATEGORIES)


def to_wide(df: pd.DataFrame) -> pd.DataFrame:
    """irrCAC's input: items × raters, the rating or NaN."""
    return df.pivot(index="item", columns="annotator", values="label")


def irrcac(wide: pd.DataFrame, method: str) -> dict[str, Any]:
    from irrCAC.raw import CAC

    return getattr(CAC(wide, weights=WEIGHTS, categories=CATEGORIES, digits=IRRCAC_DIGITS), method)()


def exact_values(df: pd.DataFrame) -> dict[str, float]:
    """Fleiss' kappa, AC2 and Brennan-Prediger with quadratic weights in rational arithmetic (a referee).

    Independent of both libraries: the items × categories counts by ``np.bincount``, then Gwet's (2014) formulas
    (the ones irrCAC implements) with :class:`fractions.Fraction` over the distinct rows of counts (a few hundred),
    rounded to float once at the end.
    """
    item = pd.factorize(df["item"])[0]
    q = len(CATEGORIES)
    table = np.bincount(item * q + df["label"].to_numpy() - 1, minlength=(item.max() + 1) * q).reshape(-1, q)
    rows, mult = np.unique(table, axis=0, return_counts=True)
    span = (CATEGORIES[-1] - CATEGORIES[0]) ** 2
    w = [[1 - Fraction((a - b) ** 2, span) for b in CATEGORIES] for a in CATEGORIES]
    n, n2, pa_sum, pi = int(mult.sum()), 0, Fraction(0), [Fraction(0)] * q
    for row, m in zip(rows.tolist(), mult.tolist()):
        r = sum(row)
        pi = [pi[k] + Fraction(row[k] * m, r) for k in range(q)]
        if r >= 2:
            quad = sum(row[k] * (sum(w[k][j] * row[j] for j in range(q)) - 1) for k in range(q))
            pa_sum += quad * m / Fraction(r * (r - 1))
            n2 += m
    pa, pi = pa_sum / n2, [x / n for x in pi]
    t_w = sum(sum(x) for x in w)
    pe = {
        "fleiss_kappa": sum(w[k][j] * pi[k] * pi[j] for k in range(q) for j in range(q)),
        "gwet_ac1": t_w * sum(x * (1 - x) for x in pi) / (q * (q - 1)),
        "brennan_prediger": t_w / q**2,
    }
    return {m: float((pa - e) / (1 - e)) for m, e in pe.items()}


# --------------------------------------------------------------------------- timing


class Variant:
    """One timed thing: ``fn(setup())`` (``setup`` untimed, run before every repetition)."""

    def __init__(self, key: str, label: str, fn: Callable[[Any], Any], setup: Callable[[], Any] | None = None):
        self.key, self.label, self.fn, self.setup = key, label, fn, setup
        self.runs: list[float] = []
        self.peak: int | None = None
        self.out: Any = None
        self.capped = False

    def run_once(self) -> None:
        arg = self.setup() if self.setup is not None else None
        self.out = None
        gc.collect()
        base = bl.rss_bytes()
        bl.reset_peak_rss()
        t0 = time.perf_counter()
        self.out = self.fn(arg)
        dt = time.perf_counter() - t0
        hwm = bl.hwm_bytes()
        if base is not None and hwm is not None:
            self.peak = max(self.peak or 0, hwm - base)
        self.runs.append(dt)
        del arg

    @property
    def seconds(self) -> float:
        return statistics.median(self.runs)


def round_robin(variants: list[Variant], repeat: int, budget: float) -> None:
    """Run i of every variant before run i + 1 of any; a variant whose first run took over ``budget`` s runs once."""
    for i in range(repeat):
        for v in variants:
            if i > 0 and v.runs and v.runs[0] > budget:
                v.capped = True
                continue
            v.run_once()
            bl.say(f"    run {i + 1}/{repeat}  {v.label:<62} {bl.fmt_s(v.runs[-1]):>10}")


def warm_up() -> None:
    """Every code path once, untimed, on a small table (imports and first-call costs)."""
    df = generate(2_000, seed=1)
    wide = to_wide(df)
    for metric, (point, method) in COEFFICIENTS.items():
        point(from_long(df), weights=WEIGHTS)
        ie.estimate(from_long(df), metric, weights=WEIGHTS)
        if method is not None:
            irrcac(wide, method)


# --------------------------------------------------------------------------- main


def run_size(n: int, args: argparse.Namespace, bench: bl.Bench, repeat: int) -> dict[str, Any]:
    """Generate ``n`` annotations, time every variant round-robin, record the comparisons; the row of results."""
    bl.say(f"\n[{n:_} annotations] generating ...")
    df = generate(n, seed=args.seed)
    n_items = int(df["item"].nunique())
    n_raters = int(df["annotator"].nunique())
    bl.say(f"  long table: {len(df):_} rows, {n_items:_} items, {n_raters} raters")
    peer = n <= args.peer_max
    wide = to_wide(df) if peer else None
    if wide is not None:
        bl.say(
            f"  irrCAC frame: {wide.shape[0]:_} × {wide.shape[1]} ({bl.fmt_bytes(wide.memory_usage().sum())}), "
            f"{wide.notna().to_numpy().mean():.1%} filled"
        )
    else:
        bl.say(f"  irrCAC skipped at this size (over --peer-max {args.peer_max:_})")
    warm = from_long(df)
    _ = (warm.counts, warm.annotator_stats)  # build the cached views once
    fresh = lambda: from_long(df)  # noqa: E731

    variants: dict[str, Variant] = {}

    def add(key: str, label: str, fn: Callable[[Any], Any], setup: Callable[[], Any] | None = None) -> None:
        variants[key] = Variant(key, label, fn, setup)

    add("from_long", "ours: Annotations.from_long(df)", lambda _: from_long(df))
    if peer:
        add("pivot", "irrCAC input: df.pivot(item × annotator)", lambda _: to_wide(df))
    for metric, (point, method) in COEFFICIENTS.items():
        add(f"{metric}-point", f"ours: {metric}(data, weights)", lambda d, p=point: p(d, weights=WEIGHTS), fresh)
        add(
            f"{metric}-estimate",
            f"ours: estimate(data, {metric!r}, weights)",
            lambda d, m=metric: ie.estimate(d, m, weights=WEIGHTS),
            fresh,
        )
        if peer and method is not None:
            add(f"{metric}-irrcac", f"irrCAC: CAC(wide, ...).{method}()", lambda _, m=method: irrcac(wide, m))
    for metric, (point, _) in COEFFICIENTS.items():
        add(f"{metric}-point-warm", f"warm: {metric}(data, weights)", lambda _, p=point: p(warm, weights=WEIGHTS))
        add(
            f"{metric}-estimate-warm",
            f"warm: estimate(data, {metric!r}, weights)",
            lambda _, m=metric: ie.estimate(warm, m, weights=WEIGHTS),
        )

    bl.say(f"  {len(variants)} variants × {repeat} runs, round-robin:")
    round_robin(list(variants.values()), repeat, args.peer_budget)

    for var in variants.values():
        bench.steps[f"{n}-{var.key}"] = {
            "key": f"{n}-{var.key}",
            "label": f"{n:>10,} {var.label}",
            "group": f"{n:,}",
            "seconds": var.seconds,
            "repeat": len(var.runs),
            "runs": var.runs,
            "peak_rss_extra_bytes": var.peak,
            "value": None,
        }
    s = {k: var.seconds for k, var in variants.items()}
    big = n >= TARGET_SIZE
    exact = exact_values(df)
    # irrCAC adds its per-item terms one after another (Python's sum): rounding grows with the number of items
    tol = max(VALUE_TOL, n_items * EPS)

    # ---------------------------------------------------------------- conversion
    if peer:
        bench.compare(
            f"{n:,}: conversion, df.pivot (irrCAC's frame) / Annotations.from_long",
            ours=("Annotations.from_long", s["from_long"]),
            reference=("df.pivot", s["pivot"]),
            kind="peer",
            ratio_def="reference/ours",
        )

    # ---------------------------------------------------------------- per coefficient
    row: dict[str, Any] = {"n": n, "items": n_items, "raters": n_raters, "seconds": s, "coefficients": {}}
    for metric, (_, method) in COEFFICIENTS.items():
        est = variants[f"{metric}-estimate"].out
        pt = float(variants[f"{metric}-point"].out)
        rec: dict[str, Any] = {"point": pt, "estimate": est.estimate, "se": est.se, "exact": exact.get(metric)}
        if pt != est.estimate and not (np.isnan(pt) and np.isnan(est.estimate)):
            bl.say(f"  WARNING: {metric}: point estimate {pt!r} != estimate().estimate {est.estimate!r}")
        if peer and method is not None:
            got = variants[f"{metric}-irrcac"].out["est"]
            d_est = abs(est.estimate - float(got["coefficient_value"]))
            d_se = abs(est.se - float(got["se"]))
            rec.update(irrcac_estimate=float(got["coefficient_value"]), irrcac_se=float(got["se"]))
            rec.update(abs_diff_estimate=d_est, abs_diff_se=d_se)
            capped = " (one run: over --peer-budget)" if variants[f"{metric}-irrcac"].capped else ""
            c = bench.compare(
                f"{n:,}: {metric}[{WEIGHTS}] value+SE, irrCAC {method}() / ie.estimate",
                ours=("ie.estimate", s[f"{metric}-estimate"]),
                reference=(f"CAC.{method}()", s[f"{metric}-irrcac"]),
                kind="peer",
                ratio_def="reference/ours",
                values=(est.estimate, float(got["coefficient_value"])),
                tolerance=tol,
                note=f"SE ours {est.se:.15g}, irrCAC {float(got['se']):.15g}, |diff| {d_se:.2e}{capped}",
            )
            c["se_values"] = {"ours": est.se, "reference": float(got["se"]), "abs_diff": d_se}
            c["exact_estimate"] = exact[metric]
            if d_se > tol:
                c["status"] = "miss"
            bench.compare(
                f"{n:,}: {metric}[{WEIGHTS}], irrCAC {method}() (value+SE) / our point estimate",
                ours=(f"ie.{metric}", s[f"{metric}-point"]),
                reference=(f"CAC.{method}()", s[f"{metric}-irrcac"]),
                kind="peer",
                ratio_def="reference/ours",
                note="irrCAC also computes the SE; our point estimate does not",
            )
            bench.compare(
                f"{n:,}: {metric}[{WEIGHTS}] from the long table, pivot + irrCAC / from_long + ie.estimate",
                ours=("from_long + ie.estimate", s["from_long"] + s[f"{metric}-estimate"]),
                reference=(f"pivot + CAC.{method}()", s["pivot"] + s[f"{metric}-irrcac"]),
                kind="peer",
                ratio_def="reference/ours",
            )
        row["coefficients"][metric] = rec
    for metric in COEFFICIENTS:
        bench.compare(
            f"{n:,}: SE cost {metric}[{WEIGHTS}], ie.estimate / point estimate",
            ours=("ie.estimate", s[f"{metric}-estimate"]),
            reference=(f"ie.{metric}", s[f"{metric}-point"]),
            kind="baseline",
            ratio_def="ours/reference",
            target=("<=", TARGET_SE_COST) if big else None,
        )
    for metric in COEFFICIENTS:
        bench.compare(
            f"{n:,}: SE cost {metric}[{WEIGHTS}], warm Annotations, ie.estimate / point estimate",
            ours=("ie.estimate (warm)", s[f"{metric}-estimate-warm"]),
            reference=(f"ie.{metric} (warm)", s[f"{metric}-point-warm"]),
            kind="baseline",
            ratio_def="ours/reference",
            note="count table and annotator statistics already cached",
        )
    print_table(n, n_items, n_raters, row, s, peer, big, tol)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000", help="annotations, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="runs of every variant (median reported)")
    ap.add_argument("--peer-max", type=int, default=1_000_000, help="run irrCAC only up to this many annotations")
    ap.add_argument(
        "--peer-budget", type=float, default=300.0, help="an irrCAC variant whose first run exceeds this runs once"
    )
    ap.add_argument("--seed", type=int, default=20240612)
    ap.add_argument("--json", metavar="OUT", default=None)
    ap.add_argument("--quick", action="store_true", help="10**4 and 10**5 annotations, one run")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = "10000,100000", 1
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    repeat = max(1, args.repeat)
    machine = bl.machine_info()
    machine["versions"].update(bl.versions("irrCAC"))
    v = machine["versions"]
    bench = bl.Bench(repeat=repeat)
    t_wall = time.perf_counter()
    bl.say("=" * 110)
    bl.say(
        f"bench_weighted: weights={WEIGHTS!r}, ordinal 1..5, {N_RATERS} raters, 2-6 raters per item; sizes "
        f"{', '.join(f'{n:_}' for n in sizes)}; median of {repeat} round-robin runs; irrCAC up to "
        f"{args.peer_max:_} annotations"
    )
    bl.say(
        f"machine: {machine['cores_usable']} cores, RAM {bl.fmt_bytes(machine['ram_total_bytes'])}, "
        f"Python {machine['python']}, numpy {v['numpy']}, pandas {v['pandas']}, scipy {v['scipy']}, "
        f"irrCAC {v['irrCAC']}; load {machine['load_average']}"
    )
    bl.say("=" * 110)
    bl.say("[warm-up] every code path once on 2,000 annotations (untimed)")
    warm_up()

    rows = [run_size(n, args, bench, repeat) for n in sizes]
    bl.say("\nall comparisons:")
    bl.print_comparisons(bench.comparisons)
    wall = time.perf_counter() - t_wall
    bl.say(f"\n  wall time {wall:.0f} s; peak RSS {bl.fmt_bytes(bl.ru_maxrss_bytes())}; load {bl.loadavg()}")
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "weighted",
                "script": "benchmarks/bench_weighted.py",
                "title": "Weighted Fleiss' kappa and Gwet's AC2 with analytic SEs, against irrCAC; the cost of the SE",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {
                    "sizes": sizes,
                    "repeat": repeat,
                    "peer_max": args.peer_max,
                    "peer_budget": args.peer_budget,
                    "weights": WEIGHTS,
                    "raters": N_RATERS,
                    "seed": args.seed,
                    "quick": args.quick,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "rows": rows,
                "memory": {"ru_maxrss_bytes": bl.ru_maxrss_bytes()},
                "machine": machine,
                "load_average_end": bl.loadavg(),
                "wall_seconds": wall,
            },
        )
    return 0


def print_table(
    n: int, n_items: int, n_raters: int, row: dict[str, Any], s: dict[str, float], peer: bool, big: bool, tol: float
) -> None:
    bl.say(f"\n  {n:_} annotations ({n_items:_} items, {n_raters} raters), median times:")
    conv = f"    conversion from the long table: Annotations.from_long {bl.fmt_s(s['from_long'])}"
    if peer:
        ratio = s["pivot"] / s["from_long"]
        conv += f", df.pivot to irrCAC's frame {bl.fmt_s(s['pivot'])} (pivot / from_long {ratio:.2f}x)"
    else:
        conv += "; irrCAC not run at this size (over --peer-max)"
    bl.say(conv)
    hdr = (
        f"    {'coefficient [quadratic]':<26} {'point':>9} {'estimate':>9} {'irrCAC':>9} {'irrCAC/':>9} {'irrCAC/':>8}"
        f" {'est/pt':>7} {'target':>7} {'est/pt':>7}  {'|d est|':>8} {'|d SE|':>8}"
    )
    bl.say(hdr)
    bl.say(
        f"    {'':<26} {'':>9} {'(+SE,CI)':>9} {'(+SE,CI)':>9} {'estimate':>9} {'point':>8}"
        f" {'fresh':>7} {'<= 3x':>7} {'warm':>7}"
    )
    bl.say("    " + "-" * (len(hdr) - 4))
    for metric, rec in row["coefficients"].items():
        pt, es = s[f"{metric}-point"], s[f"{metric}-estimate"]
        cost = es / pt
        warm = s[f"{metric}-estimate-warm"] / s[f"{metric}-point-warm"]
        verdict = ("PASS" if cost <= TARGET_SE_COST else "MISS") if big else "info"
        key = f"{metric}-irrcac"
        if key in s:
            peer_cols = f"{bl.fmt_s(s[key]):>9} {s[key] / es:>8.1f}x {s[key] / pt:>7.1f}x"
            diffs = f"{rec['abs_diff_estimate']:>8.1e} {rec['abs_diff_se']:>8.1e}"
        else:
            peer_cols = f"{'-':>9} {'-':>9} {'-':>8}"
            diffs = f"{'-':>8} {'-':>8}"
        bl.say(
            f"    {metric:<26} {bl.fmt_s(pt):>9} {bl.fmt_s(es):>9} {peer_cols} {cost:>6.2f}x {verdict:>7}"
            f" {warm:>6.2f}x  {diffs}"
        )
    bl.say(f"    values (agreement with irrCAC: |d| <= {tol:.1e} = max(1e-12, items × 2**-52)):")
    for metric, rec in row["coefficients"].items():
        line = f"      {metric:<17} ours {rec['estimate']:.15f} SE {rec['se']:.15f}"
        if "irrcac_estimate" in rec:
            agree = rec["abs_diff_estimate"] <= tol and rec["abs_diff_se"] <= tol
            line += (
                f" | irrCAC {rec['irrcac_estimate']:.15f} SE {rec['irrcac_se']:.15f}"
                f" ({'agree' if agree else 'DISAGREE'})"
            )
        bl.say(line)
        if rec["exact"] is not None:
            d = rec["estimate"] - rec["exact"]
            line = f"      {'':<17} exact (rational arithmetic) {rec['exact']:.15f}: ours - exact {d:.1e}"
            if "irrcac_estimate" in rec:
                line += f", irrCAC - exact {rec['irrcac_estimate'] - rec['exact']:.1e}"
            bl.say(line)


if __name__ == "__main__":
    sys.exit(main())
