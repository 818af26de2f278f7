"""``iaa spans FILE``: Krippendorff's unitizing alpha (α_U) of a span table, pooled, per category and per document.

The file is read by the project's readers (:func:`iaa_engine.data._io.read_table`: CSV, TSV, JSON, JSON lines,
Parquet; a CSV cell is text as written, so a document ``007`` stays ``007``), its columns renamed to the span
table's (``annotator``, ``start``, ``end``, ``label``, optional ``document``) and handed to
:func:`iaa_engine.unitizing_alpha`, which checks it (errors name the offending rows, numbered from 1 as the data
rows of the file). ``--html`` writes a self-contained page with a picture of the continuum of the documents with
the lowest α_U (:mod:`iaa_engine.reporting._spans_page`).

Which pooled value is shown: α_U over every category and every document (``UnitizingAlpha.estimate``), by default
each document its own stretch of one continuum (a gap ends at its document's end); ``--pooling inception`` lays the
documents end to end as INCEpTION and DKPro Agreement do. The other pooling's value is shown beside the headline
when the two differ in the printed digits. ``--participants FILE`` says who took part in which document (a crowd);
without it, annotators without a span in most documents are reported in one ``iaa: warning:`` line.
``--per-document`` adds each document's α_U on its own continuum, ``--per-annotator`` each annotator's units
against the others' and α_U without them.

The headline coefficient is :data:`MEASURES`'s first entry. On request, beside it: ``--family`` the 2016 family
(:func:`iaa_engine.unitizing_family`: uα, |uα, cuα with its coverage, (k)uα per label) and ``--gamma`` Mathet,
Widlöcher and Métivier's γ (:func:`iaa_engine.gamma_agreement`, with γ-cat and the standard error of its sampling),
in every output. A further coefficient on request is one :class:`Extra` in :data:`ON_REQUEST` (its flag, its
function, how its options are read, and how its result becomes lines, CSV rows, JSON and the page's paragraph).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iaa_engine.cli import CliError, _positive_int, safe_csv

__all__ = ["register", "MEASURES"]

#: The coefficients ``iaa spans`` reports: (key in the JSON and the CSV, title, ``iaa_engine`` function name).
#: The first is the headline. A coefficient of the same result shape is one more line here.
MEASURES: tuple[tuple[str, str, str], ...] = (
    ("unitizing_alpha", "Krippendorff's unitizing alpha (α_U)", "unitizing_alpha"),
)

Row = tuple[str, str, Any, float, float, float, float]  # coefficient, scope, name, n_units, d_o, d_e, value


@dataclass(frozen=True)
class Extra:
    """A coefficient ``iaa spans`` computes on request, and how its result is shown."""

    flag: str  #: the ``args`` attribute of its flag
    key: str  #: its key in the JSON
    function: str  #: its ``iaa_engine`` function
    options: Callable[[argparse.Namespace], dict[str, Any]]  #: keyword arguments from the options
    lines: Callable[[Any, bool], list[str]]  #: the table's lines (result, per_document)
    rows: Callable[[Any, bool], list[Row]]  #: the CSV's rows
    json: Callable[[Any, bool], dict[str, Any]]  #: the JSON's object
    page: Callable[[Any], tuple[str, float, str]]  #: the page's paragraph: (title, value, note)
    continuum: bool = True  #: whether the function takes the continuum


def _gamma_cat(r: Any) -> str:
    return _num(r.gamma_cat) if r.gamma_cat == r.gamma_cat else f"undefined ({r.gamma_cat_undefined})"


#: a per-document γ whose sampling standard error exceeds this gets the advice to raise ``--gamma-samples``
GAMMA_SE_ADVICE = 0.01


def _gamma_lines(r: Any, per_document: bool) -> list[str]:
    from iaa_engine.base._results import printable

    lines = [
        f"Mathet, Widlöcher and Métivier's gamma (γ): {_num(r.estimate)} (sampling SE {r.se:.2g}, {r.n_samples} "
        f"samples); γ-cat {_gamma_cat(r)}; disorder {r.observed_disorder:.6g} observed, "
        f"{r.expected_disorder:.6g} expected"
    ]
    if per_document and len(r.per_document):
        docs = r.per_document
        lines += [
            f"  document {printable(d.document)}: γ {_num(d.gamma)} (SE {_num(d.se, 3)}, {d.n_units} units)"
            for d in docs.itertuples(index=False)
        ]
        worst = float(docs["se"].max())
        if worst > GAMMA_SE_ADVICE:
            need = math.ceil(r.n_samples * (worst / GAMMA_SE_ADVICE) ** 2)
            lines.append(
                f"  a document's γ has a sampling SE up to {worst:.3f} with {r.n_samples} samples: raise "
                f"--gamma-samples (about {need:,} for SE {GAMMA_SE_ADVICE} on every document; the SE shrinks as "
                "1/√samples)"
            )
    return lines


def _gamma_rows(r: Any, per_document: bool) -> list[Row]:
    rows: list[Row] = [
        ("gamma", "pooled", "", r.n_units, r.observed_disorder, r.expected_disorder, r.estimate),
        ("gamma_se", "pooled", "", r.n_units, math.nan, math.nan, r.se),
        ("gamma_cat", "pooled", "", r.n_units, r.observed_cat_disorder, r.expected_cat_disorder, r.gamma_cat),
    ]
    if per_document:
        for d in r.per_document.itertuples(index=False):
            rows.append(("gamma", "document", d.document, d.n_units, d.observed_disorder, d.expected_disorder, d.gamma))
            rows.append(("gamma_se", "document", d.document, d.n_units, math.nan, math.nan, d.se))
    return rows


#: pairs listed on the terminal by ``--f1`` (more: the lowest this many; all in CSV and JSON)
F1_PAIRS_SHOWN = 20


def _f1_lines(r: Any, per_document: bool) -> list[str]:
    from iaa_engine.base._results import printable

    match = "exact match" if r.match == "exact" else f"overlap match, IoU ≥ {r.threshold:g}"
    lines = [
        f"Pairwise span F1 ({match}): mean {_num(r.estimate)}, SD {_num(r.sd)} over {r.n_pairs} annotator pairs "
        f"(pooled {_num(r.pooled)}; a pair counts the documents both took part in)"
    ]
    pairs = r.pairs
    if len(pairs) > F1_PAIRS_SHOWN:
        pairs = pairs.sort_values("f1", kind="stable").head(F1_PAIRS_SHOWN)
        lines.append(f"  the {F1_PAIRS_SHOWN} lowest of {len(r.pairs)} pairs (all: --format csv or json):")
    lines += [
        f"  {printable(p.annotator_a)} – {printable(p.annotator_b)}: {_num(p.f1)} (matched {p.tp} of {p.n_a} + "
        f"{p.n_b} spans in {p.n_documents} documents)"
        for p in pairs.itertuples(index=False)
    ]
    tables = [("label", r.per_label)] + ([("document", r.per_document)] if per_document else [])
    for what, table in tables:
        lines += [
            f"  {what} {printable(t[0])}: mean {_num(t.mean_f1)}, SD {_num(t.sd_f1)} over {t.n_pairs} "
            f"pair{'' if t.n_pairs == 1 else 's'}"
            for t in table.itertuples(index=False)
        ]
    return lines


def _f1_rows(r: Any, per_document: bool) -> list[Row]:
    nan = float("nan")
    rows: list[Row] = [
        ("span_f1", "pooled", "", r.n_spans, nan, nan, r.estimate),
        ("span_f1_sd", "pooled", "", r.n_spans, nan, nan, r.sd),
    ]
    rows += [
        ("span_f1", "pair", f"{p.annotator_a} | {p.annotator_b}", p.n_a + p.n_b, nan, nan, p.f1)
        for p in r.pairs.itertuples(index=False)
    ]
    tables = [("category", r.per_label)] + ([("document", r.per_document)] if per_document else [])
    for scope, table in tables:
        for t in table.itertuples(index=False):
            rows += [("span_f1", scope, t[0], t.n_spans, nan, nan, t.mean_f1)]
            rows += [("span_f1_sd", scope, t[0], t.n_spans, nan, nan, t.sd_f1)]
    return rows


def _family_lines(r: Any, per_document: bool) -> list[str]:
    from iaa_engine.base._results import printable

    lines = [
        f"2016 family: uα {_num(r.estimate)}, |uα {_num(r.binary)} (boundaries), cuα {_num(r.coding)} (labels where "
        f"units meet; coverage {r.coding_coverage:.3f}); (k)uα per label:"
    ]
    for v in r.per_value.itertuples(index=False):
        lines.append(f"  {printable(v.value)}: {_num(v.alpha)} (coverage {v.coverage:.3f})")
    if per_document:
        lines += [
            f"  document {printable(d.document)}: uα {_num(d.u_alpha)}, |uα {_num(d.binary_alpha)}, "
            f"cuα {_num(d.coding_alpha)}"
            for d in r.per_document.itertuples(index=False)
        ]
    return lines


def _family_rows(r: Any, per_document: bool) -> list[Row]:
    nan = float("nan")
    rows: list[Row] = [
        ("u_alpha", "pooled", "", r.n_units, r.d_o, r.d_e, r.estimate),
        ("binary_u_alpha", "pooled", "", r.n_units, nan, nan, r.binary),
        ("coding_u_alpha", "pooled", "", r.n_units, nan, nan, r.coding),
    ]
    rows += [("k_u_alpha", "category", v.value, nan, nan, nan, v.alpha) for v in r.per_value.itertuples(index=False)]
    if per_document:
        for d in r.per_document.itertuples(index=False):
            rows += [
                ("u_alpha", "document", d.document, d.n_units, nan, nan, d.u_alpha),
                ("binary_u_alpha", "document", d.document, d.n_units, nan, nan, d.binary_alpha),
                ("coding_u_alpha", "document", d.document, d.n_units, nan, nan, d.coding_alpha),
            ]
    return rows


def _without(*names: str) -> Callable[[Any, bool], dict[str, Any]]:
    """The result's ``to_dict()`` without ``names`` (and without ``per_document`` unless asked)."""

    def pick(r: Any, per_document: bool) -> dict[str, Any]:
        drop = set(names) | (set() if per_document else {"per_document"})
        return {k: v for k, v in r.to_dict().items() if k not in drop}

    return pick


#: The coefficients on request, in the order they are shown.
ON_REQUEST: tuple[Extra, ...] = (
    Extra(
        "family",
        "unitizing_family",
        "unitizing_family",
        lambda a: {"overlaps": a.overlaps},
        _family_lines,
        _family_rows,
        _without("document_coincidences"),
        lambda r: (
            "The 2016 family: uα",
            r.estimate,
            f"|uα {_num(r.binary)} (boundaries only), cuα {_num(r.coding)} (labels where units meet, coverage "
            f"{r.coding_coverage:.3f})",
        ),
    ),
    Extra(
        "gamma",
        "gamma",
        "gamma_agreement",
        lambda a: {"n_samples": a.gamma_samples, "seed": a.seed, "per_document": a.per_document},
        _gamma_lines,
        _gamma_rows,
        _without("alignment"),
        lambda r: (
            "Mathet, Widlöcher and Métivier's γ",
            r.estimate,
            f"standard error of its sampling {r.se:.2g} ({r.n_samples} samples); γ-cat {_gamma_cat(r)}",
        ),
    ),
    Extra(
        "f1",
        "span_f1",
        "span_f1",
        lambda a: {"match": a.f1_match, "threshold": a.f1_threshold},
        _f1_lines,
        _f1_rows,
        _without("counts"),
        lambda r: (
            f"Pairwise span F1 ({r.match} match), mean over pairs",
            r.estimate,
            f"SD {_num(r.sd)} over {r.n_pairs} annotator pairs; pooled {_num(r.pooled)}",
        ),
        continuum=False,
    ),
)

#: ``--top``'s default: documents drawn on the ``--html`` page.
PAGE_DOCUMENTS = 8

_PAIR = re.compile(r"^\s*([-+]?[0-9.eE+-]+)\s*,\s*([-+]?[0-9.eE+-]+)\s*$")


def register(subparsers: Any) -> None:
    """Add ``iaa spans`` to the command line."""
    p = subparsers.add_parser(
        "spans",
        help="unitizing alpha (α_U) of a span table: pooled, per category, per document",
        description="Krippendorff's unitizing alpha of a table of spans (one row per span: annotator, start, end "
        "(exclusive), label, optionally document) read from a CSV, TSV, JSON or Parquet file. Shows the pooled "
        "α_U (every category and every document, each document its own stretch of one continuum: a gap ends at its "
        "document's end; --pooling inception lays the documents end to end as INCEpTION does) and one row per "
        "category; --per-document adds each document's α_U on its own continuum; --participants says who saw which "
        "document.",
    )
    p.add_argument("path", help="the span table")
    cols = p.add_argument_group("columns")
    for role, default in (
        ("annotator", "annotator"),
        ("start", "start"),
        ("end", "end"),
        ("label", "label"),
        ("document", "document"),
    ):
        extra = " (exclusive)" if role == "end" else ""
        extra += "; optional: without it the file is one document" if role == "document" else ""
        cols.add_argument(
            f"--{role}-col", default=default, metavar="NAME", help=f"{role} column{extra} (default: {default})"
        )
    p.add_argument(
        "--continuum",
        metavar="FILE|BEGIN,LENGTH",
        help="each document's continuum: a file with columns document (or as named by --document-col), begin "
        "(optional, 0) and length (e.g. the texts' lengths), or BEGIN,LENGTH for every document; default: each "
        "document from its first start to its last end, with a warning (α_U depends on it)",
    )
    p.add_argument(
        "--overlaps",
        choices=("raise", "merge"),
        default="raise",
        help="an annotator's overlapping spans of one label: raise (default: an error naming them) or merge "
        "them into their union",
    )
    p.add_argument(
        "--participants",
        metavar="FILE",
        help="who took part in which document: a file with the span table's document and annotator columns (as "
        "named by --document-col and --annotator-col, or document and annotator), one row per annotator who saw a "
        "document (one who marked nothing too). Each document's α_U is then among its participants; without it "
        "every annotator counts in every document",
    )
    p.add_argument(
        "--pooling",
        choices=("documents", "inception"),
        default="documents",
        help="how the headline pools the documents: documents (default: each document its own stretch, a gap ends "
        "at its document's end) or inception (documents laid end to end as INCEpTION and DKPro Agreement do)",
    )
    p.add_argument("--per-document", action="store_true", help="add each document's α_U on its own continuum")
    p.add_argument(
        "--per-annotator",
        action="store_true",
        help="add each annotator's units per document and mean unit length against the others', and the pooled "
        "α_U without them (who fragments, who misses)",
    )
    p.add_argument(
        "--family",
        action="store_true",
        help="also the 2016 family (Krippendorff, Mathet, Bouvry & Widlöcher): uα, |uα (boundaries only), cuα "
        "(labels where units meet, with its coverage) and (k)uα per label",
    )
    g = p.add_argument_group("gamma")
    g.add_argument(
        "--gamma",
        action="store_true",
        help="also Mathet, Widlöcher and Métivier's γ and γ-cat (best alignment by an integer program, expected "
        "disorder from sampled continua: slower; the standard error of the sampling is shown)",
    )
    g.add_argument(
        "--gamma-samples", type=_positive_int, default=30, metavar="N", help="sampled continua for γ (default 30)"
    )
    g.add_argument("--seed", type=int, default=0, help="seed of γ's sampling (default 0: the same value every run)")
    f = p.add_argument_group("pairwise F1")
    f.add_argument(
        "--f1",
        action="store_true",
        help="also pairwise span F1 (as bratiaa and Prodigy report it): every annotator pair's F1 on the documents "
        "both took part in, and the mean and SD over pairs, per label and (with --per-document) per document",
    )
    f.add_argument(
        "--f1-match",
        choices=("exact", "overlap"),
        default="exact",
        help="exact (default: same start, end and label) or overlap (same label, IoU at least --f1-threshold)",
    )
    f.add_argument(
        "--f1-threshold", type=float, default=0.5, metavar="T", help="with --f1-match overlap: the IoU (default 0.5)"
    )
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv or json")
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write a self-contained HTML page: the numbers and a picture of who marked what in the "
        "documents with the lowest α_U",
    )
    p.add_argument(
        "--top",
        type=_positive_int,
        default=PAGE_DOCUMENTS,
        metavar="N",
        help=f"with --html: draw the N documents with the lowest α_U (default {PAGE_DOCUMENTS})",
    )
    from iaa_engine.cli import add_engine_options

    add_engine_options(p)
    p.set_defaults(func=run)


# --------------------------------------------------------------------------- reading


def _near(name: str, names: list[str]) -> str:
    from iaa_engine.data._io import _near as near

    return near(name, names)


def _text(column: Any) -> Any:
    """A column of ids or labels: text as written, as a pandas text column straight from Arrow (no Python string
    per cell; blank cells missing), other values (JSON or Parquet numbers) as read."""
    import numpy as np

    from iaa_engine.data._encode import arrow_text

    text = arrow_text(column)
    if text is not None:
        import pyarrow.compute as pc

        return pc.if_else(pc.equal(pc.utf8_trim_whitespace(text), ""), None, text).to_pandas()
    return column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)


def _numbers(column: Any) -> Any:
    """Positions as float64 when every cell is a plain number (Arrow's cast); otherwise the values as read, for
    :func:`iaa_engine.unitizing_alpha` to name the cells that are not numbers."""
    import numpy as np

    from iaa_engine.data._encode import arrow_text

    text = arrow_text(column)
    if text is None:
        return column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # padded or not numbers: the core parses what it can and names the rest
        return np.asarray(text.to_numpy(zero_copy_only=False), dtype=object)


def _id_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _text_ids(values: Any) -> Any:
    """Ids as text (a continuum file's numbers written as text), matched to the span table's by that text."""
    import numpy as np
    import pandas as pd

    if isinstance(values, pd.Series) and pd.api.types.is_string_dtype(values.dtype):
        return values
    return np.array([None if v is None or v != v else _id_text(v) for v in np.asarray(values, dtype=object)])


def _match_documents(continuum: Any, documents: Any) -> Any:
    """A continuum file's document ids (text, as read) as the span table's own ids where their text is the same:
    documents numbered in a JSON or Parquet file (7) match the continuum file's ``7`` and keep their numeric
    order."""
    import pandas as pd

    if not isinstance(continuum, pd.DataFrame) or pd.api.types.is_string_dtype(documents.dtype):
        return continuum
    lookup = {_id_text(v): v for v in pd.unique(documents.dropna())}
    return continuum.assign(document=[lookup.get(t, t) for t in continuum["document"]])


def read_spans(args: argparse.Namespace) -> tuple[Any, bool]:
    """The span table of ``args.path`` as a DataFrame with the span table's column names (and ``row``, the
    1-based data row, which the core's errors show), and whether it has a document column."""
    import numpy as np
    import pandas as pd

    from iaa_engine.data._io import read_table

    names, columns = read_table(args.path)
    file = Path(args.path).name
    given = {
        "annotator": args.annotator_col,
        "start": args.start_col,
        "end": args.end_col,
        "label": args.label_col,
    }
    absent = [f"{c!r}" for c in given.values() if c not in names]
    if absent:
        first = next(c for c in given.values() if c not in names)
        raise CliError(
            f"column(s) {', '.join(absent)} not found in {file}{_near(first, names)}; it has columns {names!r}. "
            "A span table has columns annotator, start, end, label (and optionally document); name yours with "
            "--annotator-col, --start-col, --end-col, --label-col, --document-col"
        )
    has_documents = args.document_col in names
    if not has_documents and args.document_col != "document":
        raise CliError(
            f"--document-col {args.document_col!r}: no such column in {file}{_near(args.document_col, names)}; "
            f"it has columns {names!r}"
        )
    by_name = dict(zip(names, columns))
    data: dict[str, Any] = {"row": np.arange(1, len(columns[0]) + 1)}
    if has_documents:
        data["document"] = _text(by_name[args.document_col])
    data["annotator"] = _text(by_name[args.annotator_col])
    data["start"] = _numbers(by_name[args.start_col])
    data["end"] = _numbers(by_name[args.end_col])
    data["label"] = _text(by_name[args.label_col])
    return pd.DataFrame(data), has_documents


def read_continuum(text: str | None, has_documents: bool, document_col: str = "document") -> Any:
    """``--continuum``: None, a (begin, length) pair, or a DataFrame (document, begin, length) from a file; the
    file's document column is named as the span table's (``--document-col``) or ``document``."""
    if text is None:
        return None
    path = Path(text)
    if not path.exists():
        match = _PAIR.match(text)
        if not match:
            raise CliError(
                f"--continuum {text!r}: no such file, and not BEGIN,LENGTH (two numbers, e.g. 0,1200); give a "
                "file with columns document, begin, length or the continuum of every document"
            )
        try:
            begin, length = float(match.group(1)), float(match.group(2))
        except ValueError:
            raise CliError(f"--continuum {text!r}: BEGIN and LENGTH must be numbers, e.g. 0,1200") from None
        if not (begin == begin and length == length and abs(begin) < float("inf") and 0 <= length < float("inf")):
            raise CliError(f"--continuum {text!r}: BEGIN must be a finite number and LENGTH one of at least 0")
        return (begin, length)
    import numpy as np
    import pandas as pd

    from iaa_engine.data._io import read_table

    names, columns = read_table(path)
    by_name = dict(zip(names, columns))
    if document_col in by_name:
        by_name["document"] = by_name[document_col]
    if "length" not in by_name or (has_documents and "document" not in by_name):
        doc = "document" if document_col == "document" else f"{document_col} (or document)"
        need = f"{doc}, begin (optional) and length" if has_documents else "length and begin (optional)"
        raise CliError(f"--continuum {path.name}: needs columns {need}; it has columns {names!r}")
    frame = pd.DataFrame(
        {
            "document": _text_ids(_text(by_name["document"]))
            if "document" in by_name
            else np.full(len(columns[0]), None, dtype=object),
            "begin": _numbers(by_name["begin"]) if "begin" in by_name else np.zeros(len(columns[0])),
            "length": _numbers(by_name["length"]),
        }
    )
    for name in ("begin", "length"):
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values) | ((values < 0) if name == "length" else False)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            what = "a number of at least 0" if name == "length" else "a finite number"
            raise CliError(
                f"--continuum {path.name}: {name} must be {what} in every row; got {frame[name].iloc[row]!r} in "
                f"data row {row + 1}"
            )
        frame[name] = values
    if has_documents:
        missing = frame["document"].isna().to_numpy()
        if missing.any():
            raise CliError(
                f"--continuum {path.name}: document is blank in data row {int(np.flatnonzero(missing)[0]) + 1}"
            )
        twice = frame["document"].duplicated().to_numpy()
        if twice.any():
            raise CliError(
                f"--continuum {path.name}: document {frame['document'].iloc[int(np.flatnonzero(twice)[0])]!r} "
                "has two rows; give one continuum per document"
            )
        return frame
    if len(frame) != 1:
        raise CliError(
            f"--continuum {path.name}: the span table has no document column, so the continuum file must have "
            f"one row; it has {len(frame)}"
        )
    return (float(frame["begin"].iloc[0]), float(frame["length"].iloc[0]))


def read_participants(args: argparse.Namespace, frame: Any, has_documents: bool) -> Any:
    """``--participants FILE``: a DataFrame (document, annotator) with ids as text as written (matched to the span
    table's own ids where their text is the same), or None."""
    if not args.participants:
        return None
    import pandas as pd

    from iaa_engine.data._io import read_table

    path = Path(args.participants)
    if not path.exists():
        raise CliError(f"--participants {args.participants!r}: no such file")
    names, columns = read_table(path)
    by_name = dict(zip(names, columns))
    roles = [("annotator", args.annotator_col)] + ([("document", args.document_col)] if has_documents else [])
    data: dict[str, Any] = {}
    for role, given in roles:
        name = given if given in by_name else role if role in by_name else None
        if name is None:
            raise CliError(
                f"--participants {path.name}: no column {given!r}{_near(given, names)}; it has columns {names!r}. "
                f"It needs the span table's {' and '.join(repr(g) for _, g in reversed(roles))} columns (one row per "
                "annotator who took part in a document)"
            )
        column = _text_ids(_text(by_name[name]))
        spans_ids = frame[role]
        if not pd.api.types.is_string_dtype(spans_ids.dtype):  # numbered ids in a JSON or Parquet span table
            lookup = {_id_text(v): v for v in pd.unique(spans_ids.dropna())}
            column = [lookup.get(t, t) for t in column]
        data[role] = column
    table = pd.DataFrame(data)
    for role in data:
        blank = table[role].isna().to_numpy()
        if blank.any():
            import numpy as np

            raise CliError(
                f"--participants {path.name}: {role} is blank in data row {int(np.flatnonzero(blank)[0]) + 1}"
            )
    return table


# --------------------------------------------------------------------------- output


def _num(v: float, digits: int = 4) -> str:
    return "undefined" if v != v else f"{v:.{digits}f}"


def _g(v: float) -> str:
    """A disagreement D_o or D_e in the tables: six significant digits, or ``undefined`` (never ``nan``)."""
    return "undefined" if v != v else f"{v:.6g}"


def _per_document(result: Any) -> str:
    """How many participants the documents had ("5 per document", "3–5 per document"), and how many documents had
    fewer than two (no pair: left out of the pooled value)."""
    counts = result.per_document["n_annotators"].to_numpy()
    low, high = int(counts.min()), int(counts.max())
    text = f"{low} per document" if low == high else f"{low}–{high} per document"
    short = int((counts < 2).sum())
    if short:
        text += f"; {short} document{'s' if short != 1 else ''} with fewer than two, left out"
    return text


def _table(title: str, result: Any, per_document: bool, extras: list[tuple[Extra, Any]]) -> str:
    from iaa_engine.base._results import printable
    from iaa_engine.reporting._spans_page import other_pooling

    docs = result.n_documents
    how = (
        "laid end to end as INCEpTION and DKPro Agreement do"
        if result.pooling == "inception"
        else (
            "each its own stretch of one continuum, a gap ending at its document's end"
            if docs != 1
            else "one continuum"
        )
    )
    lines = [f"{title}: {_num(result.estimate)}"]
    other = other_pooling(result) if docs > 1 else None
    if other is not None:
        lines.append(f"  {other[0]}: {other[1]:.4f}")
    lines += [
        f"  pooled over {result.n_categories} categor{'y' if result.n_categories == 1 else 'ies'} and {docs} "
        f"document{'s' if docs != 1 else ''}, {how} "
        f"(continuum length {result.length:g}): D_o {result.d_o:.6g}, D_e {result.d_e:.6g}",
        f"  {result.n_units} units, {result.n_annotators} annotators"
        + (
            f"; {result.n_participants} document-participant pairs ({_per_document(result)}): each document's "
            "α_U among its participants"
            if result.n_participants and docs
            else ""
        ),
    ]
    for spec, extra in extras:
        lines += spec.lines(extra, per_document)
    lines.append("")
    cats = result.per_category
    width = max([8, *(len(printable(c)) for c in cats["category"])])
    lines.append(f"{'category':<{width}}  {'units':>7}  {'D_o':>10}  {'D_e':>10}  {'alpha':>9}")
    for r in cats.itertuples(index=False):
        lines.append(
            f"{printable(r.category):<{width}}  {r.n_units:>7}  {_g(r.d_o):>10}  {_g(r.d_e):>10}  {_num(r.alpha):>9}"
        )
    if per_document:
        docs_t = result.per_document
        width = max([8, *(len(printable(d)) for d in docs_t["document"])])
        lines += [
            "",
            f"{'document':<{width}}  {'begin':>8}  {'length':>8}  {'raters':>6}  {'units':>7}  {'D_o':>10}  "
            f"{'D_e':>10}  {'alpha':>9}",
        ]
        for r in docs_t.itertuples(index=False):
            lines.append(
                f"{printable(r.document):<{width}}  {r.begin:>8g}  {r.length:>8g}  {r.n_annotators:>6}  "
                f"{r.n_units:>7}  {_g(r.d_o):>10}  {_g(r.d_e):>10}  {_num(r.alpha):>9}"
            )
    if result.per_annotator is not None:
        table = result.per_annotator
        width = max([9, *(len(printable(a)) for a in table["annotator"])])
        lines += [
            "",
            "Who fragments, who misses: each annotator's units per document taken part in and mean unit length, "
            "against everyone else's, and the pooled α_U without them",
            f"{'annotator':<{width}}  {'docs':>6}  {'units':>7}  {'per doc':>8}  {'others':>8}  {'mean len':>9}  "
            f"{'others':>9}  {'α_U without':>11}",
        ]
        for r in table.itertuples(index=False):
            lines.append(
                f"{printable(r.annotator):<{width}}  {r.n_documents:>6}  {r.n_units:>7}  {r.units_per_document:>8.3g}"
                f"  {r.others_units_per_document:>8.3g}  {r.mean_length:>9.4g}  {r.others_mean_length:>9.4g}  "
                f"{_num(r.alpha_without):>11}"
            )
    return "\n".join(lines)


def _csv(key: str, result: Any, per_document: bool, extras: list[tuple[Extra, Any]]) -> str:
    """One CSV: the pooled row (scope ``pooled``; for several documents a second one named by the other pooling,
    ``inception`` or ``documents``, when defined), one row per category, per document and per annotator
    (``unitizing_alpha_without``, α_U without the annotator) on request, then the rows of the coefficients on
    request (their ``d_o`` and ``d_e`` the observed and expected disagreement or disorder)."""
    import numpy as np
    import pandas as pd

    nan = np.nan
    order = ["coefficient", "scope", "name", "begin", "length", "n_units", "d_o", "d_e", "value"]
    parts = [
        pd.DataFrame(
            {
                "coefficient": [key],
                "scope": "pooled",
                "name": "",
                "begin": nan,
                "length": result.length,
                "n_units": result.n_units,
                "d_o": result.d_o,
                "d_e": result.d_e,
                "value": result.estimate,
            }
        ),
        result.per_category.rename(columns={"category": "name", "alpha": "value"}).assign(
            coefficient=key, scope="category", begin=nan, length=result.length
        ),
    ]
    other = result.estimate_inception if result.pooling == "documents" else result.estimate_documents
    if result.n_documents > 1 and other == other:  # the other pooling's value (scope pooled, named by it)
        parts.insert(
            1,
            pd.DataFrame(
                {
                    "coefficient": [key],
                    "scope": "pooled",
                    "name": "inception" if result.pooling == "documents" else "documents",
                    "begin": nan,
                    "length": result.length,
                    "n_units": result.n_units,
                    "d_o": nan,
                    "d_e": nan,
                    "value": other,
                }
            ),
        )
    if per_document:
        parts.append(
            result.per_document.rename(columns={"document": "name", "alpha": "value"}).assign(
                coefficient=key, scope="document"
            )
        )
    if result.per_annotator is not None:
        parts.append(
            result.per_annotator.rename(columns={"annotator": "name", "alpha_without": "value"}).assign(
                coefficient=f"{key}_without", scope="annotator", begin=nan, length=result.length, d_o=nan, d_e=nan
            )
        )
    rows = [row for spec, extra in extras for row in spec.rows(extra, per_document)]
    if rows:
        columns = ["coefficient", "scope", "name", "n_units", "d_o", "d_e", "value"]
        extra = pd.DataFrame(rows, columns=columns).assign(begin=nan, length=nan)
        extra.loc[extra["scope"] == "pooled", "length"] = result.length  # the same continuum
        parts.append(extra)
    table = pd.concat([p[order] for p in parts], ignore_index=True)
    table["n_units"] = table["n_units"].astype("Int64")
    return safe_csv(table)


def _json(key: str, result: Any, per_document: bool, file: str, extras: list[tuple[Extra, Any]]) -> dict[str, Any]:
    from iaa_engine.base._results import nan_to_none
    from iaa_engine.reporting._spans_page import pooling_sentence

    tables = ("per_category", "per_document", "per_annotator")
    out = {k: nan_to_none(getattr(result, k)) for k in result.keys() if k not in tables}
    shown = ["per_category"] + (["per_document"] if per_document else []) + ["per_annotator"]
    for name in shown:
        table = getattr(result, name)  # column by column (vectorised), then one record per row
        if table is None:
            continue
        columns = {c: nan_to_none(table[c].to_numpy()) for c in table.columns}
        out[name] = [dict(zip(columns, row)) for row in zip(*columns.values())]
    out["pooled"] = f"every category and {pooling_sentence(result)}"
    doc: dict[str, Any] = {"file": file, key: out}
    for spec, extra in extras:
        doc[spec.key] = spec.json(extra, per_document)
    return doc


#: What ``--engine dask`` computes: the headline α_U (both poolings), the per-category and per-document tables,
#: ``--f1``, ``--family``, ``--per-annotator`` (up to 64 annotators) and ``--html`` (the drawn
#: documents' spans alone come back). ``--gamma`` is not distributed, and is refused with it.
DASK_REFUSED = (("--gamma", "gamma"),)


def _ids(frame: Any, name: str) -> Any:
    """A Dask column's distinct values when they are not text (ids numbered in Parquet: the continuum and
    participants files' text is matched to them), else an empty text column (text matches as written)."""
    import pandas as pd

    column = frame[name]
    if pd.api.types.is_string_dtype(column.dtype):
        return pd.Series([], dtype=column.dtype)
    import dask

    (values,) = dask.compute(column.dropna().unique())
    return pd.Series(pd.unique(values.to_numpy() if hasattr(values, "to_numpy") else values))


def _run_dask(args: argparse.Namespace) -> int:
    """``iaa spans --engine dask``: the span table is a Parquet dataset; each document is computed where its spans,
    its continuum and its participants meet (:func:`iaa_engine.unitizing_alpha_dask`)."""
    from iaa_engine.base._results import printable
    from iaa_engine.cli import _dask_only, _dask_session
    from iaa_engine.engines._commands import open_dask
    from iaa_engine.engines._dask_spans import _alpha_dask

    _dask_only(args, [(flag, bool(getattr(args, name, False))) for flag, name in DASK_REFUSED])
    roles = {
        args.document_col: "document",
        args.annotator_col: "annotator",
        args.start_col: "start",
        args.end_col: "end",
        args.label_col: "label",
    }
    if len(roles) != 5:
        raise CliError("--engine dask: the document, annotator, start, end and label columns must be five columns")
    frame = open_dask(args.path, list(roles)).rename(columns=roles)
    continuum = read_continuum(args.continuum, True, args.document_col)
    if continuum is not None and not isinstance(continuum, tuple):
        continuum = _match_documents(continuum, _ids(frame, "document"))
    participants = None
    if args.participants:
        participants = read_participants(
            args, {"document": _ids(frame, "document"), "annotator": _ids(frame, "annotator")}, True
        )
    key, title, _ = MEASURES[0]
    extras: list[tuple[Extra, Any]] = []
    shown = absent = None
    with _dask_session(args) as client:
        with warnings.catch_warnings(record=True) as caught:  # shown below as they were; the page keeps the crowd's
            result, n_rows, f1, family, annotators = _alpha_dask(
                frame,
                client=client,
                continuum=continuum,
                participants=participants,
                pooling=args.pooling,
                overlaps=args.overlaps,
                per_annotator=args.per_annotator,
                f1=(args.f1_match, args.f1_threshold) if args.f1 else None,  # on the same shuffle
                family=bool(args.family),
            )
        for w in caught:  # they passed the filters already
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        if args.html:  # only the drawn documents' spans come back
            import dask

            from iaa_engine.data._spans import AbsentAnnotatorsWarning
            from iaa_engine.reporting._spans_page import _ranked

            drawn = list(_ranked(result, args.top)["document"])
            (shown,) = dask.compute(frame[frame["document"].isin(drawn)]) if drawn else (frame._meta,)
            said = [str(w.message) for w in caught if issubclass(w.category, AbsentAnnotatorsWarning)]
            absent = said[0] if said else ""
    got = {"family": family, "f1": f1}
    extras += [(spec, got[spec.flag]) for spec in ON_REQUEST if got.get(spec.flag) is not None]  # in their order
    print(
        printable(
            f"iaa: read {n_rows} spans by {result.n_annotators} annotators in {result.n_documents} documents from "
            f"{Path(args.path).name!r}"
        ),
        file=sys.stderr,
    )
    if shown is not None:
        _write_page(
            args, shown.reset_index(drop=True), result, extras, participants, annotators=annotators, absent=absent
        )
    return _emit(args, key, title, result, extras)


def run(args: argparse.Namespace) -> int:
    """``iaa spans``: read, compute, print or write."""
    import iaa_engine as ie
    from iaa_engine.base._results import printable

    if getattr(args, "engine", "memory") == "dask":
        return _run_dask(args)
    if getattr(args, "scheduler", None):
        raise CliError("--scheduler needs --engine dask")
    frame, has_documents = read_spans(args)
    continuum = read_continuum(args.continuum, has_documents, args.document_col)
    if has_documents:
        continuum = _match_documents(continuum, frame["document"])
    participants = read_participants(args, frame, has_documents)
    key, title, name = MEASURES[0]
    result = getattr(ie, name)(
        frame,
        continuum=continuum,
        overlaps=args.overlaps,
        participants=participants,
        pooling=args.pooling,
        per_annotator=args.per_annotator,
    )
    docs = f" in {result.n_documents} documents" if has_documents else ""
    print(
        printable(
            f"iaa: read {len(frame)} spans by {result.n_annotators} annotators{docs} from {Path(args.path).name!r}"
        ),
        file=sys.stderr,
    )
    extras: list[tuple[Extra, Any]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ie.AbsentAnnotatorsWarning)  # said once, for the headline
        for spec in ON_REQUEST:
            if getattr(args, spec.flag, False):
                where = {"continuum": continuum} if spec.continuum else {}
                result_of = getattr(ie, spec.function)
                extras.append((spec, result_of(frame, **where, participants=participants, **spec.options(args))))
    if args.html:
        _write_page(args, frame, result, extras, participants)
    return _emit(args, key, title, result, extras)


def _write_page(
    args: argparse.Namespace, spans: Any, result: Any, extras: list[tuple[Extra, Any]], participants: Any, **more: Any
) -> None:
    """``--html FILE``: the span page (``more``: what the Dask engine adds, the annotators and the absent ones)."""
    from iaa_engine.reporting._spans_page import write_spans_page

    out = write_spans_page(
        spans,
        result,
        args.html,
        documents=args.top,
        title=f"Span agreement: {Path(args.path).name}",
        extras=[spec.page(extra) for spec, extra in extras],
        participants=participants,
        **more,
    )
    print(f"iaa: wrote {out}", file=sys.stderr)


def _emit(args: argparse.Namespace, key: str, title: str, result: Any, extras: list[tuple[Extra, Any]]) -> int:
    """The table, CSV or JSON of the result, printed or written to ``-o``."""
    from iaa_engine.base._results import printable

    file = Path(args.path).name
    if args.format == "json":
        text = json.dumps(_json(key, result, args.per_document, file, extras), indent=2 if args.indent else None)
    elif args.format == "csv":
        text = _csv(key, result, args.per_document, extras)
    else:
        text = _table(title, result, args.per_document, extras)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"iaa: wrote {args.output}", file=sys.stderr)
        return 0
    if sys.stdout.isatty() and args.format != "table":  # the table is already escaped
        text = "\n".join(printable(line) for line in text.splitlines())
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
