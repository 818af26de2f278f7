"""``iaa retest FILE``: test–retest agreement from a long table with repeated labels (:func:`iaa_engine.retest`).

The file is read by the project's readers (:func:`iaa_engine.data._io.read_table`). A CSV cell is text as
written, so at the edge: labels that are all numbers become numbers (then ICC and Eliasziw's decomposition are
computed, and alpha is at the interval level unless ``--level`` says otherwise); an ``--occasion-col`` of numbers
or of dates is ordered as numbers or as dates, not as text (``10`` after ``9``).
"""

from __future__ import annotations

import argparse
from typing import Any

from iaa_engine.base._choices import LEVELS

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``iaa retest`` to the command line."""
    p = subparsers.add_parser(
        "retest",
        help="test-retest: each annotator's agreement with themself beside the inter-rater agreement",
        description="Test-retest agreement of a long table (one row per label given) in which annotators "
        "labelled some items more than once. The repeats are ordered by --occasion-col (numbers or dates) or by "
        "the file's row order. Prints each annotator's intra-rater agreement (percent agreement, Cohen's kappa, "
        "Krippendorff's alpha, and ICC for numbers, with intervals), the inter-rater agreement on each occasion, "
        "and for numeric labels Eliasziw et al.'s (1994) inter/intra-rater decomposition (R irr's relInterIntra).",
    )
    p.add_argument("path", help="a long table: CSV, TSV, JSON or Parquet")
    g = p.add_argument_group("columns")
    g.add_argument("--item-col", default="item", metavar="NAME", help="item column (default: item)")
    g.add_argument("--annotator-col", default="annotator", metavar="NAME", help="annotator column (default: annotator)")
    g.add_argument("--label-col", default="label", metavar="NAME", help="label column (default: label)")
    g.add_argument(
        "--occasion-col",
        default=None,
        metavar="NAME",
        help="column ordering an annotator's repeats of an item (numbers or dates); default: the row order",
    )
    p.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help="level of measurement for alpha (default: interval when every label is a number, else nominal)",
    )
    p.add_argument("--categories", metavar="A,B,C", help="all categories in order, comma-separated")
    p.add_argument("--na-values", metavar="A,B", default="", help="label texts that mean 'not labelled'")
    p.add_argument("--confidence", type=float, default=0.95, help="the intervals' coverage (default 0.95)")
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table (default), csv (the per-annotator table) or json (everything)",
    )
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=_cmd_retest)


def _cmd_retest(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from iaa_engine.analysis._retest import as_numbers, retest
    from iaa_engine.base._results import printable
    from iaa_engine.cli import CliError, _split, safe_csv
    from iaa_engine.data._io import _frame, read_table

    if not 0.0 < args.confidence < 1.0:
        raise CliError(f"--confidence must be between 0 and 1 (exclusive); got {args.confidence}")
    names, columns = read_table(args.path)
    frame = _frame(names, columns)
    label = args.label_col
    if label in frame.columns and args.level in (None, "interval", "ratio"):
        frame[label] = as_numbers(frame[label].to_numpy())
    # the occasion column: ordered by retest's one rule (numbers as numbers, dates as dates, else refused)
    r = retest(
        frame,
        item=args.item_col,
        annotator=args.annotator_col,
        label=label,
        occasion=args.occasion_col,
        level=args.level,
        categories=_split(args.categories),
        na_values=tuple(_split(args.na_values) or ()),
        confidence=args.confidence,
    )
    if args.format == "json":
        text = r.to_json(indent=2 if args.indent else None)
    elif args.format == "csv":
        text = safe_csv(r.intra)
    else:
        lines = str(r).splitlines()
        text = "\n".join(printable(line) for line in lines)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"iaa: wrote {args.output}", file=sys.stderr)
    else:
        print(text.rstrip("\n"))
    return 0
