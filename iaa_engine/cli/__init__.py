"""The ``iaa`` command line.

``iaa report PATH`` prints the agreement report of a file. Further
sub-commands come from plugins: every entry point in the group
``iaa_engine.cli`` is a callable ``register(subparsers)`` that adds its own
sub-command (the Label Studio connector adds ``iaa label-studio``). A
sub-command sets ``func`` on its parser; ``func(args)`` returns the exit code.

Errors in the user's input print one line, ``iaa: error: ...``, and exit
with status 2; nothing prints a traceback unless ``IAA_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

from iaa_engine.base._choices import AGREEMENT_WEIGHTS, DUPLICATE_RULES, LAYOUTS, LEVELS, SPA_WEIGHTS
from iaa_engine.base._csv import safe_csv
from iaa_engine.base._version import __version__

__all__ = ["main", "build_parser", "CliError"]

PLUGIN_GROUP = "iaa_engine.cli"

#: The core's further sub-commands, one module each in this package (``iaa_engine.cli.<name>``), each with a
#: ``register(subparsers)`` as a plugin's: a new sub-command is a new module and one line here, not an edit of
#: this file's parser. A module imports its heavy dependencies inside its ``func`` (``iaa --help`` stays fast).
COMMANDS: tuple[str, ...] = ("spans", "compare", "retest", "plan", "preferences", "rankings", "judges")


class CliError(Exception):
    """An error a sub-command reports as one line with a non-zero exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """Options that say how to read a data file (shared with plugins that read files)."""
    g = parser.add_argument_group("reading the data")
    g.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="auto",
        help="long: one row per annotation; wide: a label matrix; counts: items × categories counts. "
        "auto (default) reads a long table when the item/annotator/label columns exist, "
        "else a wide matrix",
    )
    g.add_argument("--item-col", default="item", metavar="NAME", help="item column of a long table (default: item)")
    g.add_argument(
        "--annotator-col",
        default="annotator",
        metavar="NAME",
        help="annotator column of a long table (default: annotator)",
    )
    g.add_argument("--label-col", default="label", metavar="NAME", help="label column of a long table (default: label)")
    g.add_argument(
        "--annotators-as",
        choices=("rows", "columns"),
        default=None,
        help="wide matrix orientation: one annotator per row (the classroom layout) or per column; by default "
        "the file says (a first column named like items, e.g. doc_id, or like annotators), else its shape "
        "(taller than wide: one item per row); a square matrix needs this flag",
    )
    g.add_argument(
        "--level",
        choices=LEVELS,
        default="nominal",
        help="level of measurement for Krippendorff's alpha (default: nominal)",
    )
    g.add_argument(
        "--categories",
        metavar="A,B,C",
        help="all categories in order, comma-separated (needed for --level ordinal with text labels)",
    )
    g.add_argument(
        "--duplicates",
        choices=DUPLICATE_RULES,
        default="error",
        help="an annotator labelling an item twice: error (default), or keep the first/last label",
    )
    g.add_argument(
        "--na-values",
        metavar="A,B",
        default="",
        help="label texts that mean 'not labelled', comma-separated (e.g. NA for files written by R); "
        "by default only blank cells are missing, and NA, None, null, ... are labels",
    )


def _split(text: str | None) -> list[str] | None:
    return [c.strip() for c in text.split(",") if c.strip()] if text else None


def load(args: argparse.Namespace):
    """Read the file named by ``args.path`` with the options of :func:`add_data_options`; say on stderr how it
    was read (``iaa: read 60 items × 4 annotators ...``)."""
    from iaa_engine.base._results import printable
    from iaa_engine.data._io import _read

    data, reading = _read(
        args.path,
        layout=args.layout,
        item=args.item_col,
        annotator=args.annotator_col,
        label=args.label_col,
        annotators_as=args.annotators_as,
        level=args.level,
        categories=_split(args.categories),
        duplicates=args.duplicates,
        na_values=_split(getattr(args, "na_values", None)) or (),
        keep=[c for c in (getattr(args, "by", None), getattr(args, "time", None)) if c],  # iaa report --by/--time
    )
    who = "" if data.n_annotators is None else f" × {data.n_annotators} annotators"
    print(
        printable(
            f"iaa: read {data.n_items} items{who} ({data.n_annotations} annotations) from "
            f"{Path(args.path).name!r}: {reading}"
        ),
        file=sys.stderr,
    )
    return data


def _load_dask(args: argparse.Namespace, client=None):
    from iaa_engine.engines._distributed import read_dask

    unsupported = [flag for flag, given in (("--layout", args.layout not in ("auto", "long")),) if given]
    if unsupported:
        raise CliError(
            f"{', '.join(unsupported)} need(s) per-item data and cannot run with --engine dask, which "
            "summarises the data on the cluster; run without them or with --engine memory"
        )
    return read_dask(
        args.path,
        item=args.item_col,
        annotator=args.annotator_col,
        label=args.label_col,
        level=args.level,
        categories=_split(args.categories),
        duplicates=args.duplicates,
        scheduler=client if client is not None else args.scheduler,
        n_workers=None if args.scheduler else args.workers,  # --workers sizes a local cluster only
        memory_limit=args.memory_limit,
    )


def _load_duckdb(args: argparse.Namespace):
    from iaa_engine.engines._duckdb import read_duckdb

    unsupported = [
        flag
        for flag, given in (
            ("--ci", args.ci),
            ("--hierarchy", args.hierarchy is not None),
            ("--strata", args.strata is not None),
            ("--html", bool(args.html)),
            ("--layout", args.layout not in ("auto", "long")),
            ("--by/--time", bool(args.by or args.time)),
            ("--scheduler", bool(args.scheduler)),
            ("--workers", args.workers is not None),
        )
        if given
    ]
    if unsupported:
        raise CliError(
            f"{', '.join(unsupported)} cannot run with --engine duckdb, which summarises the data in DuckDB "
            "(per-item results and cluster settings do not apply); run without them or with --engine memory"
        )
    return read_duckdb(
        args.path,
        item=args.item_col,
        annotator=args.annotator_col,
        label=args.label_col,
        level=args.level,
        categories=_split(args.categories),
        duplicates=args.duplicates,
        na_values=_split(getattr(args, "na_values", None)) or (),
        memory_limit=args.memory_limit,
    )


def _dask_session(args: argparse.Namespace):
    """One cluster for the whole command: ``--scheduler``'s, or a local one sized by ``--workers`` and
    ``--memory-limit`` (checked before it starts)."""
    from iaa_engine.engines._commands import dask_session

    return dask_session(
        args.scheduler, None if args.scheduler else getattr(args, "workers", None), getattr(args, "memory_limit", None)
    )


def _dask_frame(args: argparse.Namespace, *extra: str):
    """The long table's columns (and ``extra`` ones) of the Parquet dataset ``args.path`` as a Dask DataFrame."""
    from iaa_engine.engines._commands import open_dask

    return open_dask(args.path, [args.item_col, args.annotator_col, args.label_col, *extra])


def _long_columns(args: argparse.Namespace) -> dict:
    return {
        "item": args.item_col,
        "annotator": args.annotator_col,
        "label": args.label_col,
        "level": args.level,
        "categories": _split(args.categories),
        "duplicates": args.duplicates,
    }


def _prefetch(args: argparse.Namespace) -> None:
    """Start reading ``args.path`` (and encoding its item, annotator and label columns) in a thread while the core
    is imported; :func:`load` then takes what it read (``iaa_engine/data/_files.py``)."""
    from iaa_engine.data._files import prefetch

    if args.layout in ("auto", "long"):
        prefetch(args.path, ids=(args.item_col, args.annotator_col), labels=(args.label_col,))
    else:
        prefetch(args.path)


#: What ``--html`` and ``--ci`` import once the data is read (inside their functions), imported while it is read.
_PAGE_MODULES = (
    "scipy.sparse",
    "iaa_engine.analysis._gold",
    "iaa_engine.analysis._scorecard",
    "iaa_engine.analysis._disagreements",
    "iaa_engine.reporting._draw",
    "iaa_engine.reporting._html",
)
_INTERVAL_MODULES = ("scipy.sparse", "scipy.special", "iaa_engine.metrics._icc", "iaa_engine.inference._inference")


def _cmd_report(args: argparse.Namespace) -> int:
    if args.by and args.time:
        raise CliError("give --by COLUMN or --time COLUMN, not both")
    if args.csv and not (args.by or args.time):
        raise CliError("--csv prints the table per group: it needs --by COLUMN or --time COLUMN")
    if args.engine == "memory":
        if args.scheduler:
            raise CliError("--scheduler needs --engine dask")
        _prefetch(args)  # the file is read while the report's modules are imported

    from iaa_engine.reporting._report import report

    pairwise: bool | Literal["auto"] = "auto" if args.pairwise == "auto" else args.pairwise == "yes"

    def make_report(data: Any, by_result: Any = None, strata_result: Any = None, hierarchy_result: Any = None) -> Any:
        rep = report(
            data,
            level=args.level,
            weights=args.weights,
            pairwise=pairwise,
            ci=args.ci,
            n_boot=args.n_boot,
            seed=args.seed,
            hierarchy=None if hierarchy_result is not None else args.hierarchy,
            strata=None if strata_result is not None else args.strata,
            kappa_weights=None if args.kappa_weights == "none" else args.kappa_weights,
            benchmark=args.benchmark,
            by=None if by_result is not None else args.by,
            time=None if by_result is not None else args.time,
            freq=args.freq,
        )
        if args.engine == "dask":  # computed on the cluster, group by group, stratum by stratum
            import dataclasses

            rep = dataclasses.replace(rep, by=by_result or rep.by, strata=strata_result or rep.strata)
            if hierarchy_result is not None:  # its notes last, where the in-memory report puts them
                rep = dataclasses.replace(rep, hierarchy=hierarchy_result, notes=[*rep.notes, *hierarchy_result.notes])
        return rep

    by_result = strata_result = hierarchy_result = None
    if args.engine == "dask":
        from iaa_engine.reporting._report import AUTO_KAPPA_WEIGHTS

        with _dask_session(args) as client:
            data = _load_dask(args, client)
            if args.by or args.time:
                from iaa_engine.engines._commands import agreement_by_dask

                chosen = AUTO_KAPPA_WEIGHTS.get(args.level) if args.kappa_weights == "auto" else args.kappa_weights
                by_result = agreement_by_dask(
                    _dask_frame(args, args.by or args.time),
                    args.by,
                    time=args.time,
                    freq=args.freq,
                    weights="identity" if chosen in (None, "none") else chosen,
                    client=client,
                    **_long_columns(args),
                )
            if args.strata is not None:
                from iaa_engine.engines._commands import frequency_strata_dask

                strata_result = frequency_strata_dask(
                    _dask_frame(args), n_strata=args.strata, client=client, **_long_columns(args)
                )
            if args.hierarchy is not None:
                from iaa_engine.engines._dask_hierarchy import hierarchical_agreement_dask

                hierarchy_result = hierarchical_agreement_dask(
                    _dask_frame(args), sep=args.hierarchy, client=client, **_long_columns(args)
                )
            rep = make_report(data, by_result, strata_result, hierarchy_result)
            if rep.level in ("interval", "ratio"):  # the ICC's mean squares, summed over partitions of whole items
                from iaa_engine.engines._dask_icc import with_icc_dask

                rep = with_icc_dask(rep, _dask_frame(args), data, client=client, **_long_columns(args))
            if args.html:  # the page's per-item parts are summed on the cluster
                from iaa_engine.engines._dask_html import write_html_report_dask

                frame = _dask_frame(args, *([args.time] if args.time else []))  # the scorecard's drift: --time
                out = write_html_report_dask(
                    frame, args.html, client=client, report=rep, data=data, **_long_columns(args)
                )
                print(f"iaa: wrote {out}", file=sys.stderr)
    elif args.engine == "duckdb":
        data = _load_duckdb(args)
    else:
        for name in (_PAGE_MODULES if args.html else ()) + (_INTERVAL_MODULES if args.ci else ()):
            importlib.import_module(name)  # imported anyway later: meanwhile the read goes on in its thread
        data = load(args)
    if args.engine != "dask":
        rep = make_report(data)
    if args.html and args.engine != "dask":
        from iaa_engine.reporting._html import write_html_report

        out = write_html_report(data, args.html, report=rep)  # draws the report (and --ci's intervals) as computed
        print(f"iaa: wrote {out}", file=sys.stderr)
    if args.csv:
        sys.stdout.write(safe_csv(rep.by.to_frame()))
    elif args.json:
        print(rep.to_json(indent=2 if args.indent else None))
    elif not args.html:
        print(rep)
    return 0


def _cmd_gold(args: argparse.Namespace) -> int:
    from iaa_engine.analysis._gold import gold_standard

    if not args.sep:  # tied labels joined by nothing could not be told apart
        raise CliError("--sep must be a non-empty string (it joins tied labels); got ''")
    rule = args.rule.replace("-", "_")
    if _dask_only(args, [("--json", args.json), ("--layout", args.layout not in ("auto", "long"))]):
        from iaa_engine.engines._commands import gold_dask

        if not args.output:
            raise CliError(
                "--engine dask writes the gold labels from the workers: give -o FILE.csv (one CSV file) or "
                "-o DIRECTORY (a Parquet dataset)"
            )
        with _dask_session(args) as client:
            info = gold_dask(
                _dask_frame(args), args.output, rule=rule, sep=args.sep, max_iter=args.max_iter, client=client,
                **_long_columns(args),
            )  # fmt: skip
        print(
            f"iaa: wrote gold labels of {info['n_items']} items ({info['n_ties']} ties) to {args.output}",
            file=sys.stderr,
        )
        return 0
    data = load(args)
    gold = gold_standard(data, rule=rule, max_iter=args.max_iter)
    if args.json:
        text = json.dumps(gold.to_dict(), indent=2 if args.indent else None)
    else:
        text = safe_csv(gold.per_item(sep=args.sep))
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        ties = int(gold.per_item()["tie"].sum())
        print(
            f"iaa: wrote gold labels of {gold.labels['item'].nunique()} items ({ties} ties) to {args.output}",
            file=sys.stderr,
        )
    else:
        if sys.stdout.isatty():  # names with escape sequences must not drive the terminal
            from iaa_engine.base._results import printable

            text = "\n".join(printable(line) for line in text.splitlines())
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _cmd_disagreements(args: argparse.Namespace) -> int:
    from iaa_engine.analysis._disagreements import disagreements

    options = {
        "top": args.top or None,
        "items_per_pair": args.items_per_pair or None,
        "dawid_skene": "auto" if args.dawid_skene else False,
        "max_iter": args.max_iter,
    }
    if _dask_only(args, [("--layout", args.layout not in ("auto", "long"))]):
        from iaa_engine.engines._commands import disagreements_dask

        with _dask_session(args) as client:
            result = disagreements_dask(_dask_frame(args), client=client, **options, **_long_columns(args))
    else:
        result = disagreements(load(args), **options)
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=2 if args.indent else None)
    elif args.format == "csv":
        text = safe_csv(result.pairs_frame() if args.pairs else result.to_frame())
    else:
        text = result.pairs_text() if args.pairs else str(result)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(
            f"iaa: wrote {len(result.items)} of {result.n_disagreeing} items to adjudicate and "
            f"{len(result.pairs)} label pairs to {args.output}",
            file=sys.stderr,
        )
        return 0
    if sys.stdout.isatty() and args.format != "table":  # the table is already escaped
        from iaa_engine.base._results import printable

        text = "\n".join(printable(line) for line in text.splitlines())
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _read_known(path: str):
    """Known labels (gold questions) from a CSV/TSV with columns item and label (or two columns), or a JSON object
    item -> label; read as text (matched to the data's items and categories by their text)."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise CliError(f"--gold: no such file {path!r} (give 'majority', 'dawid-skene' or a file of known labels)")
    try:
        if p.suffix.lower() == ".json":
            with open(p, encoding="utf-8-sig") as fh:
                obj = json.load(fh)
            if not isinstance(obj, dict):
                raise CliError(f"--gold {path}: a JSON file of known labels must be an object item -> label")
            nested = [k for k, v in obj.items() if isinstance(v, (dict, list))]
            if nested:
                raise CliError(
                    f"--gold {path}: a known label must be text or a number; item {nested[0][:80]!r} holds "
                    f"a JSON {type(obj[nested[0]]).__name__}"
                )
            return {str(k): str(v) for k, v in obj.items() if v is not None}
        sep = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
        frame = pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(
            f"--gold {path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8"
        ) from None
    except RecursionError:
        raise CliError(f"--gold {path}: the JSON is nested too deeply; expected an object item -> label") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"--gold {path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except pd.errors.ParserError as exc:
        raise CliError(f"--gold {path}: cannot read it as a table: {str(exc).strip().splitlines()[-1]}") from None
    except pd.errors.EmptyDataError:
        raise CliError(f"--gold {path}: the file is empty; expected columns item and label") from None
    if not {"item", "label"} <= set(frame.columns) and frame.shape[1] != 2:
        raise CliError(
            f"--gold {path}: needs columns 'item' and 'label' (or exactly two columns); got {list(frame.columns)[:6]}"
        )
    if {"item", "label"} <= set(frame.columns):
        frame = frame[["item", "label"]]
    frame.columns = ["item", "label"]
    return frame[frame["label"] != ""]


def _cmd_annotators(args: argparse.Namespace) -> int:
    from iaa_engine.analysis._gold import gold_accuracy
    from iaa_engine.analysis._scorecard import annotator_report

    gold_opt = args.gold.replace("-", "_")
    known = None if gold_opt in ("majority", "dawid_skene") else _read_known(args.gold)
    options = {
        "gold": gold_opt if known is None else known,
        "pairwise": True if args.pairs else "auto",
        "max_iter": args.max_iter,
        **({"time": args.time, "freq": args.freq} if args.time else {}),
    }
    refused = [
        ("--layout", args.layout not in ("auto", "long")),
        ("--annotators-as", args.annotators_as is not None),
        ("--na-values", bool(args.na_values)),
    ]
    if _dask_only(args, refused):  # a Parquet dataset of the long table: the wide layout's options do not apply
        from iaa_engine.analysis._gold import accuracy_verdict
        from iaa_engine.engines._dask_annotators import _annotator_report_dask

        with _dask_session(args) as client:
            frame = _dask_frame(args, *([args.time] if args.time else []))
            result, correct, found = _annotator_report_dask(frame, client=client, **options, **_long_columns(args))
        if known is not None:  # the pass/fail verdict of gold_accuracy from the scorecard's counts
            import pandas as pd

            n_known = len(known)
            acc = accuracy_verdict(
                pd.Index(result.table["annotator"]), result.table["n_gold"].to_numpy(), correct.astype("int64"),
                args.threshold, 0.95, 5, found, n_known - found,
            )  # fmt: skip
    else:
        data = load(args)
        result = annotator_report(data, **options)
        if known is not None:
            acc = gold_accuracy(data, known, threshold=args.threshold)
    table = result.table
    if known is not None:
        table = table.merge(acc.table[["annotator", "passed", "status"]], on="annotator", how="left")
    if args.format == "json":
        out = result.to_dict()
        if known is not None:
            from iaa_engine.base._results import nan_to_none

            out["annotators"] = nan_to_none(table.to_dict(orient="records"))
            out["threshold"] = args.threshold
        text = json.dumps(out, indent=2 if args.indent else None)
    elif args.format == "csv":
        if args.time:
            if args.pairs:
                raise CliError("--format csv prints one table: give --pairs or --time, not both")
            if result.drift is None:  # pragma: no cover - annotator_report(time=...) always returns it
                raise CliError(f"no drift table for --time {args.time!r}")
            text = safe_csv(result.drift)
        elif args.pairs:
            if result.pairs is None:
                raise CliError("no pairwise tests: no two annotators share an item")
            text = safe_csv(result.pairs)
        else:
            text = safe_csv(table)
    else:
        from iaa_engine.analysis._scorecard import alpha_text, flag_legend, text_table
        from iaa_engine.base._results import printable

        shown = table.assign(annotator=table["annotator"].map(printable))
        text = (
            f"Annotator scorecard: alpha {alpha_text(result.alpha)} ({result.level}); gold: {result.gold}"
            + (f" (pass at {args.threshold:g})" if known is not None else "")
            + "\n"
            + text_table(shown, extra=("status",) if known is not None else ())
        )
        if result.flagged():
            text += "\n\nflagged: " + ", ".join(printable(a) for a in result.flagged())
        text += "\n\n" + flag_legend(result.settings, width=118)
        if result.drift is not None:
            drift = result.drift.assign(annotator=result.drift["annotator"].map(printable))
            wide = drift.pivot(index="annotator", columns="window", values="agreement")
            text += (
                f"\n\nAgreement with the others per {dict(D='day', W='week', M='month')[args.freq]} of {args.time!r} "
                "(drift; every window's n and interval: --format csv):\n"
                + wide.to_string(float_format=lambda v: f"{v:.3f}", na_rep="-")
            )
        text += "\nEvery column, the intervals and MACE's competence: --format csv or json."
        text += "\n\n" + "\n".join(f"note: {n}" for n in result.notes) if result.notes else ""
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(
            f"iaa: wrote the scorecard of {len(table)} annotators ({len(result.flagged())} flagged) to {args.output}",
            file=sys.stderr,
        )
        return 0
    if sys.stdout.isatty() and args.format != "table":  # the table is already escaped
        from iaa_engine.base._results import printable

        text = "\n".join(printable(line) for line in text.splitlines())
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0; got {value}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {value}")
    return value


def add_engine_options(parser: argparse.ArgumentParser, *, duckdb: bool = False) -> None:
    """``--engine`` and the engines' options (``--scheduler``, ``--workers``, ``--memory-limit``)."""
    eng = parser.add_argument_group("large data")
    eng.add_argument(
        "--engine",
        choices=("memory", "dask", "duckdb") if duckdb else ("memory", "dask"),
        default="memory",
        help="dask: read a Parquet dataset (directory, glob or fsspec URL) on a Dask cluster"
        + (
            "; duckdb: summarise Parquet or CSV files (a glob, s3:// or gs:// paths) or an SQL query over them in "
            "DuckDB, out of core (PATH may then be a glob or a query starting with SELECT)"
            if duckdb
            else ""
        ),
    )
    eng.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of an existing Dask scheduler (default: start a local cluster sized to the machine)",
    )
    eng.add_argument(
        "--workers", type=_positive_int, metavar="N", help="worker processes of the local cluster (default: cores)"
    )
    eng.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="dask: memory limit per local worker, e.g. 2GiB"
        + (
            "; duckdb: DuckDB's memory limit, e.g. 1GB (default 500MB; it spills to a temporary directory beyond it)"
            if duckdb
            else ""
        ),
    )


def _dask_only(args: argparse.Namespace, refused: Sequence[tuple[str, bool]]) -> bool:
    """True for ``--engine dask`` (after refusing the options it cannot honour); ``--scheduler`` needs it."""
    if args.engine != "dask":
        if args.scheduler:
            raise CliError("--scheduler needs --engine dask")
        return False
    bad = [flag for flag, given in refused if given]
    if bad:
        raise CliError(f"{', '.join(bad)} cannot run with --engine dask; run without or with --engine memory")
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iaa",
        description="Inter-annotator agreement on sparse annotations.",
    )
    parser.add_argument("--version", action="version", version=f"iaa-engine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    rep = sub.add_parser(
        "report",
        help="print every agreement metric of a data file",
        description="Compute every applicable agreement metric of a CSV, TSV, JSON or Parquet file.",
    )
    rep.add_argument("path", help="the data file")
    add_data_options(rep)
    rep.add_argument(
        "--weights",
        choices=SPA_WEIGHTS,
        default="annotations_m1",
        help="SPA weighting scheme shown as the headline SPA value (all six are reported)",
    )
    rep.add_argument(
        "--kappa-weights",
        choices=("auto", "none", *AGREEMENT_WEIGHTS),
        default="auto",
        help="agreement weights between categories for the weighted kappa family (AC2, weighted Fleiss, Conger, "
        "Brennan-Prediger) with Gwet's standard errors; auto: quadratic for ordinal/interval, ratio for ratio data, "
        "none for nominal (--weights is SPA's item weighting)",
    )
    rep.add_argument(
        "--pairwise",
        choices=("auto", "yes", "no"),
        default="auto",
        help="compute annotator × annotator matrices (auto: up to 100 annotators)",
    )
    rep.add_argument("--ci", action="store_true", help="add bootstrap 95%% intervals for every scalar metric")
    rep.add_argument(
        "--benchmark",
        choices=("landis_koch", "fleiss", "altman", "krippendorff"),
        help="read each coefficient with a standard error on this benchmark scale with its uncertainty "
        "(Gwet's probabilistic benchmarking: the band reached with probability 0.95)",
    )
    rep.add_argument(
        "--n-boot", type=_positive_int, default=1000, metavar="B", help="bootstrap replicates (default 1000)"
    )
    rep.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    rep.add_argument(
        "--hierarchy",
        nargs="?",
        const="/",
        metavar="SEP",
        help="labels are hierarchical paths split on SEP (default '/'): add parent/child agreement",
    )
    rep.add_argument(
        "--strata",
        type=int,
        nargs="?",
        const=3,
        metavar="K",
        help="add agreement by label-frequency strata (default 3: rare, moderate, common)",
    )
    rep.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write a self-contained HTML report with pictures (with --ci: and the intervals)",
    )
    grp = rep.add_argument_group("agreement by group and over time")
    grp.add_argument(
        "--by",
        metavar="COLUMN",
        help="a further column of a long table (batch, document type, annotator group): the coefficients per value, "
        "with their intervals and tests between consecutive values (Holm)",
    )
    grp.add_argument(
        "--time",
        metavar="COLUMN",
        help="a column of ISO 8601 timestamps: the coefficients per time window (each item in the window of its first "
        "annotation), tests between consecutive windows; with --html a trend plot and each annotator's drift",
    )
    grp.add_argument(
        "--freq",
        choices=("D", "W", "M"),
        default="W",
        help="the windows of --time: days, weeks (Monday to Sunday; default) or calendar months",
    )
    grp.add_argument("--csv", action="store_true", help="print the table per group or window as CSV")
    add_engine_options(rep, duckdb=True)
    rep.add_argument("--json", action="store_true", help="print JSON instead of a table")
    rep.add_argument("--indent", action="store_true", help="indent the JSON")
    rep.set_defaults(func=_cmd_report)

    gold = sub.add_parser(
        "gold",
        help="write gold labels aggregated from the annotations",
        description="Aggregate annotations into one gold label per item; tied labels are all kept.",
    )
    gold.add_argument("path", help="the data file")
    add_data_options(gold)
    gold.add_argument(
        "--rule",
        choices=("majority", "diff", "rat", "com", "inv", "dawid-skene"),
        default="majority",
        help="majority vote, a bias-correcting rule (diff, rat, com, inv) or Dawid-Skene EM",
    )
    gold.add_argument(
        "--max-iter", type=_positive_int, default=100, help="Dawid-Skene EM iterations at most (default 100)"
    )
    gold.add_argument("--sep", default="|", help="separator of tied labels in the CSV (default '|')")
    gold.add_argument("--json", action="store_true", help="JSON with the list of gold labels per item")
    gold.add_argument("--indent", action="store_true", help="indent the JSON")
    gold.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE instead of standard output (--engine dask: FILE.csv, or a directory for a Parquet dataset)",
    )
    add_engine_options(gold)
    gold.set_defaults(func=_cmd_gold)

    dis = sub.add_parser(
        "disagreements",
        help="list the items to adjudicate and the most confused label pairs",
        description="Rank the items annotators disagree on (lowest item agreement, tied majority, Dawid-Skene "
        "posterior entropy) and the label pairs they confuse most (observed / expected coincidences), each with "
        "the items behind it.",
    )
    dis.add_argument("path", help="the data file")
    add_data_options(dis)
    dis.add_argument(
        "--top",
        type=_non_negative_int,
        default=20,
        metavar="N",
        help="list the N first items and pairs (default 20; 0: all)",
    )
    dis.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv or json")
    dis.add_argument(
        "--pairs",
        action="store_true",
        help="the label pairs (with the items behind each) instead of the items, in the table or CSV (JSON holds both)",
    )
    dis.add_argument(
        "--items-per-pair",
        type=_non_negative_int,
        default=20,
        metavar="K",
        help="list the K items with the largest share behind each pair (default 20; 0: all)",
    )
    dis.add_argument(
        "--no-dawid-skene",
        dest="dawid_skene",
        action="store_false",
        help="rank without the Dawid-Skene posterior entropy (faster)",
    )
    dis.add_argument(
        "--max-iter", type=_positive_int, default=100, help="Dawid-Skene EM iterations at most (default 100)"
    )
    dis.add_argument("--indent", action="store_true", help="indent the JSON")
    dis.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    add_engine_options(dis)
    dis.set_defaults(func=_cmd_disagreements)

    ann = sub.add_parser(
        "annotators",
        help="a scorecard per annotator: agreement, accuracy, alpha without them, bias tests, flags",
        description="One row per annotator: agreement and kappa with the pooled others, accuracy and kappa against "
        "gold labels (with intervals), the change in alpha without them, their label distribution against the "
        "others', MACE competence, and a flag for likely random or biased work; --format csv --pairs gives the "
        "Stuart-Maxwell and Bhapkar tests per pair.",
    )
    ann.add_argument("path", help="the data file")
    add_data_options(ann)
    ann.add_argument(
        "--gold",
        default="majority",
        metavar="RULE|FILE",
        help="gold labels: 'majority' (default), 'dawid-skene', or a file of known labels (gold questions: CSV/TSV "
        "with columns item and label, or a JSON object item -> label)",
    )
    ann.add_argument(
        "--threshold",
        type=float,
        default=0.8,
        help="with a file of known labels: the accuracy an annotator needs to pass (default 0.8)",
    )
    ann.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv or json")
    ann.add_argument("--pairs", action="store_true", help="compute the pairwise tests (with --format csv: print them)")
    ann.add_argument("--max-iter", type=_positive_int, default=100, help="EM iterations at most (default 100)")
    ann.add_argument("--indent", action="store_true", help="indent the JSON")
    ann.add_argument(
        "--time",
        metavar="COLUMN",
        help="a column of ISO 8601 timestamps: also each annotator's agreement with the others per time window (drift; "
        "each item in the window of its first annotation). With --format csv: print the drift table",
    )
    ann.add_argument(
        "--freq",
        choices=("D", "W", "M"),
        default="W",
        help="the windows of --time: days, weeks (Monday to Sunday; default) or calendar months",
    )
    ann.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    add_engine_options(ann)
    ann.set_defaults(func=_cmd_annotators)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    for ep in entry_points(group=PLUGIN_GROUP):
        try:
            ep.load()(sub)
        except Exception as exc:  # a broken plugin must not break the core command line
            print(f"iaa: warning: plugin {ep.name!r} could not be loaded: {exc}", file=sys.stderr)
    return parser


_SHOWN: set[str] = set()


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """Warnings as one line each (``iaa: warning: ...``), never a source location, and each text once per run
    (an engine that reads the data in two passes, e.g. ``--engine dask --by``, warns in both)."""
    from iaa_engine.base._results import printable

    text = f"iaa: warning: {printable(message)}"
    if text not in _SHOWN:
        _SHOWN.add(text)
        print(text, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    warnings.showwarning = _show_warning
    _SHOWN.clear()
    try:
        return int(args.func(args) or 0)
    except MemoryError:
        if os.environ.get("IAA_DEBUG"):
            raise
        print(
            "iaa: error: out of memory; for many annotators or categories try --pairwise no, for intervals a "
            "smaller --n-boot",
            file=sys.stderr,
        )
        return 2
    except CliError as exc:
        print(f"iaa: error: {exc}", file=sys.stderr)
        return exc.status
    except BrokenPipeError:  # the reader went away (| head): end quietly, as Unix tools do on SIGPIPE
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
        return 128 + 13
    except (ValueError, TypeError, OSError, KeyError) as exc:
        if os.environ.get("IAA_DEBUG"):
            raise
        message = (exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)) or type(exc).__name__
        message = getattr(exc, "cli", None) or message  # InputError: the same message with the CLI's flags
        print(f"iaa: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("iaa: interrupted", file=sys.stderr)
        return 130


def run() -> None:  # pragma: no cover - the console script; main() is what the tests call
    """The ``iaa`` command: :func:`main`, then exit without the interpreter's final teardown.

    Once the output is flushed nothing is left to do, and on rare runs Arrow's C++ threads abort the process in
    that teardown (``terminate called without an active exception``, exit -6, after a correct answer:
    apache/arrow#34314; seen once in ~2,600 test runs of the command). Files and clusters are closed by then.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: main() has answered already
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
