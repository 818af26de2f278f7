"""``iaa preferences FILE``: agreement of judges on pairwise preferences, their position bias, and the gold answers.

The file (CSV, TSV, JSON, JSON lines or Parquet, read by :func:`iaa_engine.data._io.read_table`) has one row per
judgment: the prompt, the two responses in the order shown, the judge and the label A / B / tie (and optionally a
strength). It goes to :func:`iaa_engine.preference_agreement`; ``--models`` names judges of the file that are
models (LLM judges): they are left out of the humans' numbers and compared with the humans
(:func:`iaa_engine.preference_model_agreement`). ``--fail-on-bias`` makes a position-biased judge the exit status
1 (for a pipeline that should stop there).

The terminal shows a summary (:meth:`PreferenceAgreement.summary`): the coefficients, the position bias of all
judges pooled with its exact test, how many judges are flagged, and the flagged judges (else those with the
smallest p-values), at most ``--top`` of them, each with its number of judgments. ``--table judges`` prints the
whole judges table instead (and ``--format csv`` writes it).

The column defaults follow the long table of the judgments guide (``prompt``, ``response_a``, ``response_b``,
``judge``, ``label``), falling back to ``item`` and ``annotator`` when the file has those instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from iaa_engine.cli import CliError, safe_csv

__all__ = ["register", "read_frame", "column", "emit"]


def read_frame(path: str) -> Any:
    """The file as a DataFrame (text columns as written, typed columns of JSON/Parquet as typed)."""
    import pandas as pd

    from iaa_engine.data._io import read_table

    names, columns = read_table(path)
    data = {}
    for name, col in zip(names, columns):
        values = col.to_pandas() if hasattr(col, "to_pandas") else pd.Series(col)
        data[name] = pd.Series(values).reset_index(drop=True)
    return pd.DataFrame(data)


def column(frame: Any, given: str | None, defaults: tuple[str, ...], flag: str, file: str) -> str:
    """The column ``given`` (checked), else the first of ``defaults`` the file has."""
    names = list(map(str, frame.columns))
    if given is not None:
        if given not in names:
            raise CliError(f"{flag} {given!r}: no such column in {file}; it has columns {names!r}")
        return given
    have = [d for d in defaults if d in names]
    if len(have) > 1:
        raise CliError(
            f"{file} has the columns {have[0]!r} and {have[1]!r}, either of which could be meant; name the one "
            f"meant with {flag}"
        )
    if have:
        return have[0]
    raise CliError(
        f"{file} has no column {' or '.join(map(repr, defaults))}; it has columns {names!r}. Name it with {flag}"
    )


def emit(text: str, output: str | None) -> None:
    """Write ``text`` to ``output`` (a file) or standard output."""
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _num(v: float) -> str:
    return "undefined" if v != v else f"{v:.4f}"


def register(subparsers: Any) -> None:
    """Add ``iaa preferences`` to the command line."""
    p = subparsers.add_parser(
        "preferences",
        help="agreement on pairwise preferences (A / B / tie), each judge's position bias, Bradley-Terry scores",
        description="Agreement of judges on pairwise preferences read from a long table (one row per judgment: "
        "prompt, response_a (shown first), response_b, judge, label A / B / tie, optionally a strength). A "
        "judgment on (B, A) is the mirrored judgment on (A, B). Shows ordinal alpha and the kappa family on the "
        "canonical pairs, each judge's position bias (share of decided judgments the first shown response won, "
        "exact binomial test, Holm across judges) and the Bradley-Terry scores of each prompt's responses.",
    )
    p.add_argument("path", help="the table of judgments")
    cols = p.add_argument_group("columns")
    cols.add_argument("--item-col", metavar="NAME", help="the prompt (default: prompt, else item)")
    cols.add_argument("--response-a-col", default="response_a", metavar="NAME", help="response shown first")
    cols.add_argument("--response-b-col", default="response_b", metavar="NAME", help="response shown second")
    cols.add_argument("--annotator-col", metavar="NAME", help="the judge (default: judge, else annotator)")
    cols.add_argument("--label-col", default="label", metavar="NAME", help="A, B or tie (default: label)")
    cols.add_argument("--strength-col", metavar="NAME", help="optional: how much better (a positive number)")
    p.add_argument(
        "--models",
        metavar="J1,J2",
        help="judges of the file that are models (LLM judges): compared with the humans, left out of their numbers",
    )
    p.add_argument(
        "--bias-level", type=float, default=0.05, help="level of the position-bias flag (Holm-adjusted; 0.05)"
    )
    p.add_argument("--fail-on-bias", action="store_true", help="exit with status 1 when a judge is position-biased")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv or json")
    p.add_argument(
        "--table",
        choices=("judges", "pairs", "scores", "coefficients", "models"),
        help="the whole table to write: with --format csv (default: judges), or on the terminal in place of the "
        "summary",
    )
    p.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="N",
        help="the summary lists the flagged judges (else those with the smallest p-values), at most N (default "
        "10; 0: all)",
    )
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``iaa preferences``: read, compute, print or write."""
    import pandas as pd

    import iaa_engine as ie
    from iaa_engine.base._results import nan_to_none, printable
    from iaa_engine.data._preferences import JUDGE_COLUMNS, PROMPT_COLUMNS

    file = Path(args.path).name
    frame = read_frame(args.path)
    item = column(frame, args.item_col, PROMPT_COLUMNS, "--item-col", file)
    judge = column(frame, args.annotator_col, JUDGE_COLUMNS, "--annotator-col", file)
    for flag, name in (("--response-a-col", args.response_a_col), ("--response-b-col", args.response_b_col)):
        column(frame, name, (), flag, file)
    label = column(frame, args.label_col, (), "--label-col", file)
    if args.strength_col:
        column(frame, args.strength_col, (), "--strength-col", file)
    if not 0 < args.bias_level < 1:
        raise CliError(f"--bias-level must be a number between 0 and 1; got {args.bias_level!r}")
    if args.top < 0:
        raise CliError(f"--top must be 0 (all) or a positive whole number; got {args.top!r}")
    cols = dict(
        item=item,
        response_a=args.response_a_col,
        response_b=args.response_b_col,
        annotator=judge,
        label=label,
        strength=args.strength_col,
    )
    models = [m.strip() for m in (args.models or "").split(",") if m.strip()]
    who = frame[judge].astype(str).str.strip()
    unknown = [m for m in models if m not in set(who)]
    if unknown:
        raise CliError(f"--models: no judge named {', '.join(map(repr, unknown))} in {file}")
    humans = frame[~who.isin(models)] if models else frame
    if humans.empty:
        raise CliError("--models names every judge: no human judgments are left")
    result = ie.preference_agreement(humans, **cols, bias_level=args.bias_level)
    beside = ie.preference_model_agreement(humans, frame[who.isin(models)], **cols) if models else None

    if args.format == "json":
        doc: dict[str, Any] = {"file": file, "preferences": result.to_dict()}
        if beside is not None:
            doc["models"] = beside.to_dict()
        emit(json.dumps(nan_to_none(doc), indent=2 if args.indent else None, ensure_ascii=False) + "\n", args.output)
    elif args.format == "csv" or args.table:
        if args.table == "models" and beside is None:
            raise CliError("--table models needs --models")
        tables = {
            "judges": result.judges,
            "pairs": result.pairs,
            "scores": result.scores,
            "coefficients": pd.DataFrame(list(result.coefficients.items()), columns=["coefficient", "value"]),
            "models": beside.table if beside is not None else None,
        }
        chosen = tables[args.table or "judges"]
        if args.format == "csv":
            emit(safe_csv(chosen), args.output)
        else:
            with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
                head = f"{file}: the {args.table} table ({len(chosen):,} rows)"
                emit(f"{head}\n{chosen.to_string(index=False)}\n", args.output)
    else:
        lines = [f"{file}: {result.summary(top=args.top)}"]
        if result.n_judges > (args.top or result.n_judges):
            lines.append("  (every judge: --table judges, or --format csv --table judges)")
        if beside is not None:
            lines.append(str(beside))
        top = result.scores.groupby("item", sort=True).head(1)
        if len(top) <= 20:
            lines.append("Bradley-Terry: the strongest response of each prompt")
            lines += [
                f"  {printable(r.item)}: {printable(r.response)} (score {_num(r.score)})"
                for r in top.itertuples(index=False)
            ]
        emit("\n".join(lines) + "\n", args.output)
    if args.fail_on_bias and bool(result.judges["position_bias"].any()):
        return 1
    return 0
