"""``iaa compare A B``: did agreement change between two data files? (:func:`iaa_engine.compare`).

Both files are read with the same data options (``--layout``, ``--level``, ...) as ``iaa report`` reads one.
Paired when they share items (the same item ids, or the same rows of two wide matrices without ids), otherwise
independent; ``--paired yes|no`` decides instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Literal

from iaa_engine.base._choices import AGREEMENT_WEIGHTS
from iaa_engine.cli import add_data_options

__all__ = ["register", "METRICS"]

#: The coefficients ``--metric`` names (iaa_engine's ANALYTIC_METRICS, listed here so that ``iaa --help`` imports
#: no numerics), with short aliases: Conger's kappa is ``multi_kappa``, AC2 is ``gwet_ac1`` with weights.
METRICS: dict[str, str] = {
    "fleiss_kappa": "fleiss_kappa",
    "fleiss": "fleiss_kappa",
    "gwet_ac1": "gwet_ac1",
    "ac1": "gwet_ac1",
    "ac2": "gwet_ac1",
    "brennan_prediger": "brennan_prediger",
    "bp": "brennan_prediger",
    "multi_kappa": "multi_kappa",
    "conger": "multi_kappa",
    "percent_agreement_weighted": "percent_agreement_weighted",
    "pa": "percent_agreement_weighted",
    "cohen_kappa": "cohen_kappa",
    "scott_pi": "scott_pi",
    "krippendorff_alpha": "krippendorff_alpha",
    "alpha": "krippendorff_alpha",
}


def register(subparsers: Any) -> None:
    """Add ``iaa compare`` to the command line."""
    p = subparsers.add_parser(
        "compare",
        help="test the difference of one agreement coefficient between two data files",
        description="The difference (B - A) of one agreement coefficient between two data files, with its "
        "standard error, confidence interval and test: paired on the items both files share (Gwet 2016: t with "
        "n - 1 df on the difference of the linearised per-item terms), independent otherwise (the two variances "
        "add: z test), or a bootstrap over items.",
    )
    p.add_argument("path_a", metavar="A", help="the first (reference) data file")
    p.add_argument("path_b", metavar="B", help="the second data file (the difference is B - A)")
    p.add_argument(
        "--metric",
        choices=tuple(METRICS),
        default="fleiss_kappa",
        help="the coefficient (default fleiss_kappa; aliases: fleiss, conger, ac1, ac2, bp, pa, alpha)",
    )
    p.add_argument(
        "--weights",
        choices=AGREEMENT_WEIGHTS,
        default="identity",
        help="agreement weights between categories (default identity: unweighted; alpha weighs by --level)",
    )
    p.add_argument(
        "--paired",
        choices=("auto", "yes", "no"),
        default="auto",
        help="auto (default): paired when the files share at least two items",
    )
    p.add_argument("--method", choices=("analytic", "bootstrap"), default="analytic", help="default analytic")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--seed", type=int, default=None, help="the bootstrap's random seed")
    p.add_argument("--confidence", type=float, default=0.95, help="the interval's coverage (default 0.95)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    add_data_options(p)
    p.set_defaults(func=_cmd_compare)


def _table(c: Any, a: str, b: str) -> str:
    width = max(len(a), len(b), 5) + 2
    pct = f"{c.confidence:.0%}"
    kind = f"t({c.df:g})" if c.df == c.df else "z"  # nan df: a z test
    how = f"paired on {c.n_items} shared items" if c.paired else f"independent data sets ({c.n_a} and {c.n_b} items)"

    def num(v: float) -> str:  # the undefined-value policy: never "nan" on the terminal
        return f"{v:.4f}" if v == v else "undefined"

    rows = [
        f"{c.metric}: {how}",
        f"{'':<{width}}{'estimate':>10}{'SE':>10}",
        f"{'A ' + a:<{width}}{num(c.estimate_a):>10}{num(c.se_a):>10}",
        f"{'B ' + b:<{width}}{num(c.estimate_b):>10}{num(c.se_b):>10}",
    ]
    if c.estimate == c.estimate and c.statistic == c.statistic:
        rows += [
            f"{'B - A':<{width}}{c.estimate:>10.4f}{num(c.se):>10}   {pct} CI [{num(c.lower)}, {num(c.upper)}]",
            f"{kind} = {c.statistic:.3f}, p = {c.p_value:.4g}",
        ]
    else:
        why = [name for name, v in (("A", c.estimate_a), ("B", c.estimate_b)) if v != v]
        reason = f"{c.metric} is undefined on {' and '.join(why)}" if why else "its standard error is undefined"
        rows.append(f"{'B - A':<{width}}{num(c.estimate):>10}{num(c.se):>10}   undefined ({reason}): no test")
    rows.append(f"method: {c.method}")
    only = [f"{c.details[k]} item(s) only in {k[-1].upper()}" for k in ("items_only_a", "items_only_b")
            if c.details.get(k)]  # fmt: skip
    if only:
        rows.append("left out of the paired test: " + ", ".join(only))
    return "\n".join(rows)


def _cmd_compare(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from iaa_engine.analysis._compare import compare
    from iaa_engine.base._results import printable
    from iaa_engine.cli import CliError, load

    if not 0.0 < args.confidence < 1.0:
        raise CliError(f"--confidence must be between 0 and 1 (exclusive); got {args.confidence}")
    if args.method == "bootstrap" and not 2 <= args.n_boot <= 100_000:
        raise CliError(f"--n-boot must be a whole number from 2 to 100000; got {args.n_boot}")
    data = [load(argparse.Namespace(**{**vars(args), "path": path})) for path in (args.path_a, args.path_b)]
    if METRICS[args.metric] in ("cohen_kappa", "scott_pi"):
        for path, d in zip((args.path_a, args.path_b), data):
            if d.n_annotators != 2:
                raise CliError(
                    f"--metric {args.metric} compares two annotators; {Path(path).name!r} has {d.n_annotators}: "
                    "keep two annotators per file, or use --metric fleiss_kappa or conger"
                )
    paired: bool | Literal["auto"] = "auto" if args.paired == "auto" else args.paired == "yes"
    c = compare(
        data[0],
        data[1],
        metric=METRICS[args.metric],
        weights=args.weights,
        paired=paired,
        method=args.method,
        confidence=args.confidence,
        n_boot=args.n_boot,
        seed=args.seed,
    )
    names = [Path(args.path_a).name, Path(args.path_b).name]
    if args.format == "json":
        print(json.dumps({"a": names[0], "b": names[1], **c.to_dict()}, indent=2 if args.indent else None))
    else:
        print("\n".join(printable(line) for line in _table(c, *names).splitlines()))
    sys.stdout.flush()
    return 0
