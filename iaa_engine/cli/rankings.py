"""``iaa rankings FILE``: agreement of judges ranking the responses of prompts (Kendall's W, alpha with a rank
distance, a gold ranking).

One row per prompt and judge, the ranking in the label column written ``r2 > r1 = r3 > r4`` (``>`` between places,
better first; ``=`` inside a shared place or bucket; a ranking that leaves responses out is a top-k list). It goes to
:func:`iaa_engine.ranking_agreement`. The column defaults are ``prompt`` (else ``item``), ``judge`` (else
``annotator``) and ``label``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from iaa_engine.cli import CliError, safe_csv
from iaa_engine.cli.preferences import column, emit, read_frame

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``iaa rankings`` to the command line."""
    p = subparsers.add_parser(
        "rankings",
        help="agreement on rankings: Kendall's W per prompt, alpha with a rank distance, a gold ranking",
        description="Agreement of judges ranking the responses of prompts, read from a long table (one row per "
        "prompt and judge; the label a ranking such as 'r2 > r1 = r3 > r4': '>' between places, better first, "
        "'=' inside a shared place, or worst first with '<'; responses a ranking leaves out share its bottom "
        "place). Shows Krippendorff's alpha with a rank distance, Kendall's W per prompt (tie-corrected, with its "
        "chi-square test) and the gold ranking (Borda or Bradley-Terry).",
    )
    p.add_argument("path", help="the table of rankings")
    cols = p.add_argument_group("columns")
    cols.add_argument("--item-col", metavar="NAME", help="the prompt (default: prompt, else item)")
    cols.add_argument("--annotator-col", metavar="NAME", help="the judge (default: judge, else annotator)")
    cols.add_argument("--label-col", default="label", metavar="NAME", help="the ranking (default: label)")
    p.add_argument(
        "--distance",
        choices=("kendall_tau", "footrule"),
        default="kendall_tau",
        help="rank distance of alpha: kendall_tau (share of discordant pairs; Fagin's K^(p) with ties and top-k "
        "lists; default) or footrule (Spearman's footrule on mid-rank positions)",
    )
    p.add_argument(
        "--penalty", type=float, default=0.5, help="kendall_tau: cost of a pair tied in one ranking only (0.5)"
    )
    p.add_argument("--no-tie-correction", action="store_true", help="Kendall's W without the correction for ties")
    p.add_argument("--gold", choices=("borda", "bradley_terry"), default="borda", help="rule of the gold ranking")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv or json")
    p.add_argument(
        "--table",
        choices=("prompts", "gold", "judges"),
        default="prompts",
        help="the table --format csv writes (default: prompts, one row per prompt with its W)",
    )
    p.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="N",
        help="the terminal lists the N judges farthest from the gold ranking, with their number of rankings "
        "(default 10; 0: all); every judge with --format csv --table judges",
    )
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``iaa rankings``: read, compute, print or write."""
    import iaa_engine as ie
    from iaa_engine.base._results import nan_to_none, printable
    from iaa_engine.data._preferences import JUDGE_COLUMNS, PROMPT_COLUMNS

    file = Path(args.path).name
    frame = read_frame(args.path)
    item = column(frame, args.item_col, PROMPT_COLUMNS, "--item-col", file)
    judge = column(frame, args.annotator_col, JUDGE_COLUMNS, "--annotator-col", file)
    label = column(frame, args.label_col, (), "--label-col", file)
    if not 0 <= args.penalty <= 1:
        raise CliError(f"--penalty must be a number from 0 to 1; got {args.penalty!r}")
    if args.top < 0:
        raise CliError(f"--top must be 0 (all) or a positive whole number; got {args.top!r}")
    result = ie.ranking_agreement(
        frame,
        item=item,
        annotator=judge,
        label=label,
        distance=args.distance,
        penalty=args.penalty,
        correct=not args.no_tie_correction,
        gold=args.gold,
    )
    if args.format == "json":
        doc = {"file": file, "rankings": result.to_dict()}
        emit(json.dumps(nan_to_none(doc), indent=2 if args.indent else None, ensure_ascii=False) + "\n", args.output)
    elif args.format == "csv":
        tables = {"prompts": result.per_item, "gold": result.gold, "judges": result.judges}
        emit(safe_csv(tables[args.table]), args.output)
    else:
        judges = result.judges.sort_values(["distance_to_gold", "judge"], ascending=[False, True], kind="stable")
        shown = judges if args.top == 0 else judges.head(args.top)
        head = "Judges" if len(shown) == len(judges) else f"The {len(shown)} judges farthest from the gold ranking"
        lines = [f"{file}: {result}", f"{head} (mean rank distance to the gold ranking, farthest first):"]
        lines += [
            f"  {printable(r.judge)!s:>16}: {r.distance_to_gold:.4f} over {r.n_rankings} ranking(s)"
            for r in shown.itertuples(index=False)
        ]
        if len(shown) < len(judges):
            lines.append(
                f"  ... and {len(judges) - len(shown):,} more judges (every judge: --format csv --table judges)"
            )
        if len(result.per_item) <= 20:
            lines.append("Prompts (Kendall's W, chi-square test):")
            lines += [
                f"  {printable(r.item)}: W {r.w:.4f}, chi2({r.df}) = {r.statistic:.4g}, p = {r.p_value:.3g}, "
                f"{r.n_judges} judges, {r.n_responses} responses{'' if r.complete else ' (ties or top-k)'}"
                for r in result.per_item.itertuples(index=False)
            ]
        emit("\n".join(lines) + "\n", args.output)
    return 0
