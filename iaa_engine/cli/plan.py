"""``iaa plan``: how many items a study needs (:func:`iaa_engine.plan`, :func:`iaa_engine.plan_simulation`).

``iaa plan kappa|icc|alpha`` runs a published closed-form calculator; ``iaa plan simulate [PILOT]`` the simulation
planner from a pilot file or stated prevalences, one row per ``--annotators`` value.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

__all__ = ["register"]


def _proportion(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number; got {text!r}")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--indent", action="store_true", help="indent the JSON")


def register(subparsers: Any) -> None:
    """Add ``iaa plan`` to the command line."""
    from iaa_engine.base._choices import SPA_WEIGHTS

    plan = subparsers.add_parser(
        "plan",
        help="plan a study: how many items for a kappa, ICC or alpha (power, interval width, simulation)",
        description="How many items to annotate: the published calculators (kappa: Donner-Eliasziw / kappaSize, "
        "Cantor, Flack, Bloch-Kraemer; ICC: Walter et al., Bonett; alpha: Krippendorff's minimum) and a "
        "simulation planner for any count-based coefficient from a pilot file or stated prevalences. Prints the "
        "fractional and the rounded-up number of items, and what the study reaches with it.",
    )
    calc = plan.add_subparsers(dest="calculator", metavar="{kappa,icc,alpha,simulate}", required=True)
    for name, methods, what in (
        ("kappa", ("power", "width", "fixed_n"), "Cohen's/Fleiss' kappa by power, interval, or at a fixed n"),
        ("icc", ("power", "width", "fixed_n"), "the ICC by power (Walter et al.) or interval width (Bonett)"),
        ("alpha", ("minimum",), "Krippendorff's minimum number of units for the smallest acceptable alpha"),
    ):
        p = calc.add_parser(name, help=what, description=what)
        p.add_argument("--method", choices=methods, default=methods[0], help=f"default {methods[0]}")
        p.add_argument(
            "--source",
            default=None,
            help="the calculator (kappa power: donner, cantor, flack; kappa width: donner, bloch_kraemer)",
        )
        p.add_argument("--null", type=_proportion, help="the value under the null (alpha: the smallest acceptable)")
        p.add_argument("--expected", type=_proportion, help="the anticipated value (the alternative)")
        p.add_argument(
            "--prevalence",
            type=_proportion,
            nargs="+",
            metavar="P",
            help="a binary rating's prevalence, or each category's proportion (alpha: the least frequent value's)",
        )
        p.add_argument("--second-prevalence", type=_proportion, help="Cantor: the second rater's rate of positives")
        p.add_argument("--raters", type=_whole, default=2, help="ratings per item (default 2)")
        p.add_argument("--significance", type=_proportion, default=0.05, help="type I error (default 0.05)")
        p.add_argument("--power", type=_proportion, default=0.8, help="power to reach (default 0.8)")
        p.add_argument("--sides", type=_whole, default=None, help="1 or 2 (default: the calculator's own)")
        p.add_argument("--width", type=_proportion, help="the interval's full width")
        p.add_argument("--lower", type=_proportion, help="kappa: the lower limit to stay above")
        p.add_argument("--upper", type=_proportion, help="kappa: the upper limit to stay below")
        p.add_argument("--confidence", type=_proportion, default=0.95, help="interval coverage (default 0.95)")
        p.add_argument("--n-items", type=_whole, help="the items available (--method fixed_n)")
        _output_options(p)
        p.set_defaults(func=_cmd_closed_form, coefficient=name)

    from iaa_engine.cli import add_data_options

    s = calc.add_parser(
        "simulate",
        help="simulate: items for an interval width of any count-based coefficient",
        description="The number of items for a coefficient's 95%% interval (--confidence) to have a width, by "
        "simulation from a pilot file (its items resampled; --annotators draws that many of each item's "
        "annotations) or from --prevalence and --kappa. One row per --annotators value.",
    )
    s.add_argument("path", nargs="?", help="a pilot file (CSV, TSV, JSON, Parquet); omit with --prevalence")
    add_data_options(s)
    s.add_argument("--metric", default="krippendorff_alpha", help="the coefficient (default krippendorff_alpha)")
    s.add_argument("--width", type=_proportion, default=0.2, help="the target full width (default 0.2)")
    s.add_argument("--confidence", type=_proportion, default=0.95, help="interval coverage (default 0.95)")
    s.add_argument("--annotators", type=_whole, nargs="+", metavar="M", help="annotations per item (one or more)")
    s.add_argument("--prevalence", type=_proportion, nargs="+", metavar="P", help="the model's category proportions")
    s.add_argument("--kappa", type=_proportion, help="the model's kappa")
    s.add_argument("--spa-weights", choices=SPA_WEIGHTS, default="annotations_m1", help="SPA scheme of spa metrics")
    s.add_argument("--n-rep", type=_whole, default=1000, help="simulated studies per size (default 1000)")
    s.add_argument("--seed", type=_whole, default=0, help="random seed (default 0)")
    _output_options(s)
    s.set_defaults(func=_cmd_simulate)


def _prevalence(values: list[float] | None) -> Any:
    if values is None:
        return None
    return values[0] if len(values) == 1 else values


def _describe(result: Any) -> str:
    from iaa_engine.base._results import printable

    lines = [f"{result.coefficient} by {result.method}: n = {result.n} items (raw {result.n_raw:.4f})"]
    for name, label in (("power", "power at n"), ("width", "interval width at n"), ("lower", "lower limit at n"),
                        ("upper", "upper limit at n")):  # fmt: skip
        value = getattr(result, name)
        if math.isfinite(value):
            lines.append(f"  {label}: {value:.4f}")
    if result.mc_se:
        lines.append(f"  Monte-Carlo standard error of n: {result.mc_se:.2f}")
    if "n_kappasize" in result.details and result.details["n_kappasize"] != result.n:
        lines.append(f"  kappaSize's own search says {result.details['n_kappasize']}")
    if result.details.get("test"):
        lines.append(f"  {result.details['test']}")
    lines.append(f"  source: {result.details.get('citation', result.source)}")
    return "\n".join(printable(line) for line in lines)


def _emit(args: argparse.Namespace, results: list[Any]) -> None:
    import json

    if args.json:
        body = [r.to_dict() for r in results]
        print(json.dumps(body[0] if len(body) == 1 else body, indent=2 if args.indent else None))
    else:
        print("\n".join(_describe(r) for r in results))


def _cmd_closed_form(args: argparse.Namespace) -> int:
    import iaa_engine as ie

    result = ie.plan(
        args.coefficient,
        method=args.method,
        source=args.source,
        null=args.null,
        expected=args.expected,
        prevalence=_prevalence(args.prevalence),
        second_prevalence=args.second_prevalence,
        raters=args.raters,
        significance=args.significance,
        power=args.power,
        sides=args.sides,
        width=args.width,
        lower=args.lower,
        upper=args.upper,
        confidence=args.confidence,
        n_items=args.n_items,
    )
    _emit(args, [result])
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    import iaa_engine as ie
    from iaa_engine.cli import CliError, load

    if (args.path is None) == (args.prevalence is None):
        raise CliError("give a pilot file or --prevalence (with --kappa), not both")
    data = load(args) if args.path is not None else None
    results = [
        ie.plan_simulation(
            data,
            metric=args.metric,
            width=args.width,
            confidence=args.confidence,
            annotators=m,
            prevalence=_prevalence(args.prevalence),
            kappa=args.kappa,
            weights=args.spa_weights,
            n_rep=args.n_rep,
            seed=args.seed,
            progress=False,
        )
        for m in (args.annotators or [None])
    ]
    if args.json:
        _emit(args, results)
        return 0
    first = results[0]
    print(f"{first.coefficient}: items for a {first.inputs['confidence']:.0%} interval of width {args.width:g}")
    print(f"{'annotators':>10}  {'n':>7}  {'n_raw':>9}  {'mc_se':>7}  {'width at n':>10}")
    for m, r in zip(args.annotators or [None], results):
        shown = "pilot" if m is None else str(m)
        print(f"{shown:>10}  {r.n:>7d}  {r.n_raw:>9.2f}  {r.mc_se:>7.2f}  {r.width:>10.4f}")
    print(f"source: {first.source}")
    return 0
