"""A self-contained HTML page of a unitizing study: α_U pooled and per category, and who marked what.

:func:`write_spans_page` (``iaa spans FILE --html OUT.html``) lays out the numbers of a
:class:`~iaa_engine.UnitizingAlpha` and, for the documents with the lowest α_U, a picture of the continuum drawn by
:func:`iaa_engine.reporting._draw_spans.continuum_plot` (one row per annotator, segments coloured by label). The
page uses the style sheet and helpers of the agreement report's page (:mod:`iaa_engine.reporting._html`): no script,
no font or file fetched; every name from the data is escaped.

A document with more units than :data:`MAX_SEGMENTS` (one long continuum) is drawn in one window of it: the
continuum is cut into windows holding about that many units each, α_U of every window is computed in one call
(each span counted in the window where it starts, cut at the window's end) and the window with the lowest α_U is
drawn, its stretch named in the caption.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["render_spans_page", "write_spans_page", "pooling_sentence", "other_pooling"]

#: A picture draws at most about this many segments; a longer document is drawn in its worst window.
MAX_SEGMENTS = 400
#: The per-document table lists every document up to this many, else the ones drawn.
DOCUMENT_ROWS = 50

_CSS_EXTRA = """
table.metrics td.alpha { font-weight: 600; }
p.pooled { font-size: 14px; }
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(v: float, digits: int = 4, form: str = "f") -> str:
    """A number cell with its exact value in ``data-value`` (``nan`` where undefined); ``form`` "g": ``digits``
    significant digits (disagreements are small numbers)."""
    v = float(v)
    if not np.isfinite(v):
        return '<td class="num undefined" data-value="nan">undefined</td>'
    return f'<td class="num" data-value="{v!r}">{v:.{digits}{form}}</td>'


def _pos(v: float) -> str:
    """A position or length as written: whole numbers in full (no exponent), others to 6 significant digits."""
    v = float(v)
    return f"{v:.0f}" if v.is_integer() and abs(v) < 1e15 else f"{v:.6g}"


def _columns(spans: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """annotator, start, end, label (and document) of a span table the core has accepted."""
    start = pd.to_numeric(spans["start"]).to_numpy(dtype=float)
    end = pd.to_numeric(spans["end"]).to_numpy(dtype=float)
    doc = spans["document"].to_numpy() if "document" in spans.columns else None
    return spans["annotator"].to_numpy(), start, end, spans["label"].to_numpy(), doc


def _worst_window(
    rater: np.ndarray, cat: np.ndarray, start: np.ndarray, end: np.ndarray, begin: float, length: float
) -> tuple[float, float, float]:
    """(window begin, window length, its α_U) of the window of a long document with the lowest α_U."""
    import warnings

    from iaa_engine.metrics._unitizing import unitizing_alpha

    n_windows = int(np.ceil(start.size / MAX_SEGMENTS))
    size = length / n_windows
    if float(begin).is_integer() and float(length).is_integer():  # whole positions: windows of whole positions
        size = float(np.ceil(size))
        n_windows = int(np.ceil(length / size))
    window = np.minimum(((start - begin) // size).astype(np.int64), n_windows - 1)
    w_begin = begin + window * size
    frame = pd.DataFrame(
        {
            "document": window,
            "annotator": rater,
            "start": start,
            "end": np.minimum(end, w_begin + size),
            "label": cat,
        }
    )
    begins = begin + np.arange(n_windows) * size
    continuum = pd.DataFrame(
        {"document": np.arange(n_windows), "begin": begins, "length": np.minimum(size, begin + length - begins)}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = unitizing_alpha(frame, continuum=continuum, overlaps="merge").per_document
    alpha = per["alpha"].to_numpy()
    pick = int(np.nanargmin(alpha)) if np.isfinite(alpha).any() else 0
    return float(per["begin"].iloc[pick]), float(per["length"].iloc[pick]), float(alpha[pick])


def _ranked(result: Any, documents: int) -> pd.DataFrame:
    """The documents to draw: lowest α_U first (most disagreement), then the most units; undefined ones last."""
    per = result.per_document.reset_index(drop=True)
    key = per.assign(code_=np.arange(len(per)), undefined_=~np.isfinite(per["alpha"].to_numpy(dtype=float)))
    key = key[key["n_units"] > 0]
    key = key.sort_values(["undefined_", "alpha", "n_units"], ascending=[True, True, False], kind="stable")
    return key.head(documents)


def render_spans_page(
    spans: Any,
    result: Any,
    *,
    documents: int = 8,
    title: str | None = None,
    extras: Sequence[tuple[str, float, str]] = (),
    participants: Any = None,
    annotators: Sequence | None = None,
    absent: str | None = None,
) -> str:
    """The page of :func:`write_spans_page` as a string.

    Parameters
    ----------
    spans : DataFrame
        The span table ``result`` was computed from (columns ``annotator``, ``start``, ``end``, ``label``,
        optionally ``document``).
    result : UnitizingAlpha
        Its :func:`iaa_engine.unitizing_alpha`.
    documents : int
        Draw this many documents, the lowest α_U first.
    title : str, optional
        The page's title.
    extras : sequence of (title, value, note)
        Further coefficients of the same spans shown beside α_U (e.g. γ with the standard error of its sampling
        in the note), one paragraph each.
    participants : DataFrame, optional
        Who took part in which document (columns ``document``, ``annotator``), as given to ``unitizing_alpha``: a
        document's picture then has one row per participant (one without a span an empty row), not one per
        annotator of the study.
    annotators : sequence, optional
        The study's annotators with spans, sorted, when ``spans`` holds only the documents to draw (the Dask engine
        computes ``result`` on the cluster and brings back only those documents' spans); default: ``spans``'s.
    absent : str, optional
        With ``annotators``: the text of the :class:`~iaa_engine.AbsentAnnotatorsWarning` the computation gave
        ('' for none); default: checked on ``spans``.

    Returns
    -------
    str
        The HTML document (UTF-8; ends with a newline).

    Examples
    --------
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> from iaa_engine.reporting._spans_page import render_spans_page
    >>> spans = pd.DataFrame({"annotator": ["a", "b"], "start": [2, 3], "end": [6, 6], "label": ["PER", "PER"]})
    >>> page = render_spans_page(spans, ie.unitizing_alpha(spans, continuum=(0, 10)))
    >>> page.count("<svg"), 'data-value="0.8426' in page
    (1, True)
    """
    from iaa_engine.base._version import __version__
    from iaa_engine.reporting._draw_spans import continuum_plot
    from iaa_engine.reporting._html import _CSS, _figure, _skipped

    frame = pd.DataFrame(spans)
    annotator, start, end, label, doc = _columns(frame)
    if annotators is None:
        rater, rater_names = pd.factorize(annotator, sort=True)
    else:
        rater_names = pd.Index(list(annotators), dtype=object)
        rater = rater_names.get_indexer(annotator)
    cat_names = pd.Index(result.per_category["category"])
    cat = cat_names.get_indexer(label)
    per = result.per_document.reset_index(drop=True)
    doccode_ = pd.Index(per["document"]).get_indexer(doc) if doc is not None else np.zeros(len(frame), np.int64)
    title = "Span agreement: unitizing alpha" if title is None else str(title)
    docs_word = "document" if result.n_documents == 1 else "documents"

    cards = [
        ("α_U (pooled)", "undefined" if not np.isfinite(result.estimate) else f"{result.estimate:.4f}", "estimate"),
        ("annotators", f"{result.n_annotators:,}", "n_annotators"),
        (docs_word, f"{result.n_documents:,}", "n_documents"),
        ("categories", f"{result.n_categories:,}", "n_categories"),
        ("units", f"{result.n_units:,}", "n_units"),
        (
            "continuum length",
            f"{result.length:,.0f}" if float(result.length).is_integer() else _pos(result.length),
            "length",
        ),
    ]
    extra_html = "".join(
        f'<p class="pooled extra" data-value="{float(v)!r}">{_esc(t)}: '
        f"<strong>{_esc('undefined' if not np.isfinite(v) else f'{v:.4f}')}</strong>"
        f"{_esc(f'; {note}' if note else '')}</p>"
        for t, v, note in extras
    )
    card_html = (
        '<div class="cards">'
        + "".join(
            f'<div class="card" id="card-{key}" data-value="{float(getattr(result, key))!r}"><div class="v">{_esc(v)}'
            f'</div><div class="k">{_esc(k)}</div></div>'
            for k, v, key in cards
        )
        + "</div>"
    )
    pooled = (
        '<p class="pooled">The pooled α_U is taken over every category'
        + (f" and {pooling_sentence(result)}" if doc is not None else "")
        + ": 1 − mean D_o / mean D_e over the "
        f"categories, a ratio of means, not a mean of the categories' alphas. D_o = {result.d_o:.6g}, "
        f"D_e = {result.d_e:.6g}.</p>"
    )
    if absent is not None:
        pooled += f'<p class="pooled warning" id="absent-annotators">Warning: {_esc(absent)}</p>' if absent else ""
    elif participants is None and doc is not None and not getattr(result, "n_participants", 0):
        pooled += _absent_note(doc, rater, rater_names)
    rows = "".join(
        f'<tr><td>{_esc(r.category)}</td><td class="num">{int(r.n_units):,}</td>'
        f"{_num(r.d_o, 4, 'g')}{_num(r.d_e, 4, 'g')}{_num(r.alpha)}</tr>"
        for r in result.per_category.itertuples(index=False)
    )
    category_table = (
        '<div class="wide"><table class="metrics" id="per-category"><thead><tr><th>category</th>'
        '<th class="num">units</th><th class="num">D_o</th><th class="num">D_e</th><th class="num">α_U</th></tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
    )

    ranked = _ranked(result, documents)
    shown = per if len(per) <= DOCUMENT_ROWS else per.iloc[ranked["code_"].to_numpy()]
    doc_rows = "".join(
        f"<tr><td>{_esc(r.document)}</td>{_num(r.begin, 0 if float(r.begin).is_integer() else 4)}"
        f"{_num(r.length, 0 if float(r.length).is_integer() else 4)}"
        f'<td class="num">{int(getattr(r, "n_annotators", 0)):,}</td><td class="num">{int(r.n_units):,}</td>'
        f"{_num(r.d_o, 4, 'g')}{_num(r.d_e, 4, 'g')}{_num(r.alpha)}</tr>"
        for r in shown.itertuples(index=False)
    )
    which = (
        "every document"
        if len(per) <= DOCUMENT_ROWS
        else f"the {len(shown)} drawn below (of {len(per):,}; every document: iaa spans FILE --per-document)"
    )
    document_table = (
        f"<p>Each document's α_U on its own continuum ({_esc(which)}).</p>"
        '<div class="wide"><table class="metrics" id="per-document"><thead><tr><th>document</th>'
        '<th class="num">begin</th><th class="num">length</th><th class="num">raters</th><th class="num">units</th>'
        '<th class="num">D_o</th>'
        f'<th class="num">D_e</th><th class="num">α_U</th></tr></thead><tbody>{doc_rows}</tbody></table></div>'
    )

    who = None
    if participants is not None:
        table = pd.DataFrame(participants) if not isinstance(participants, Mapping) else None
        if table is None:
            who = {d: list(a) for d, a in participants.items()}
        else:
            key = table["document"] if "document" in table.columns else pd.Series([None] * len(table))
            who = {d: list(g) for d, g in table["annotator"].groupby(key.to_numpy(), sort=False)}
            if "document" not in table.columns:
                who = {None: list(table["annotator"])}
    figures = []
    for k, r in enumerate(ranked.itertuples(index=False)):
        code = int(r.code_)
        mask = doccode_ == code
        begin, length = float(r.begin), float(r.length)
        name = "" if doc is None else f"document {r.document}: "
        note = ""
        if mask.sum() > MAX_SEGMENTS:
            w_begin, w_length, w_alpha = _worst_window(rater[mask], cat[mask], start[mask], end[mask], begin, length)
            note = (
                f" The document holds {int(mask.sum()):,} spans; drawn: its window "
                f"[{_pos(w_begin)}, {_pos(w_begin + w_length)}) with the lowest α_U of its windows ({w_alpha:.4f}; "
                "spans counted in the window where they start)."
            )
            mask &= (start < w_begin + w_length) & (end > w_begin) | ((start == end) & (start == w_begin))
            begin, length = w_begin, w_length
        alpha = "undefined" if not np.isfinite(r.alpha) else f"{r.alpha:.4f}"
        try:
            raters, codes = list(rater_names), rater[mask]
            if who is not None:  # this document's participants only
                raters = sorted(who.get(r.document, ()), key=str)
                codes = pd.Index(raters).get_indexer(np.asarray(annotator)[mask])
            svg = continuum_plot(
                f"doc{k}",
                f"{name}α_U {alpha}",
                begin,
                length,
                raters,
                codes,
                np.maximum(start[mask], begin),
                np.minimum(end[mask], begin + length),
                cat[mask],
                list(cat_names),
            )
        except ValueError as exc:
            figures.append(_skipped(f"fig-doc{k}", name.rstrip(": ") or "The continuum", str(exc)))
            continue
        caption = (
            f"Who marked what: one row per annotator, one bar per span coloured by its label (hover for the span), "
            f"on the continuum [{_pos(begin)}, {_pos(begin + length)}). {int(r.n_units):,} units, α_U {alpha}.{note}"
        )
        heading = f"Document {r.document}" if doc is not None else "The continuum"
        figures.append(_figure(f"fig-doc{k}", heading, svg, _esc(caption)))
    if not figures:
        figures.append(_skipped("fig-doc0", "Who marked what", "no document holds a unit"))
    heading = "The document" if result.n_documents == 1 else f"The {len(ranked)} documents with the lowest α_U"
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="iaa-engine {_esc(__version__)}">',
        f"<title>{_esc(title)}</title>",
        f"<style>{_CSS}{_CSS_EXTRA}</style></head><body><main>",
        f"<header><h1>{_esc(title)}</h1>",
        '<p class="lead">Krippendorff\'s unitizing alpha (α_U; Krippendorff 1995, 2004 §12.4): agreement on where '
        "the units are and what they are, per category and pooled.</p>",
        card_html,
        "</header>",
        '<h2 id="pooled">Pooled and per category</h2>',
        pooled,
        extra_html,
        category_table,
        '<h2 id="documents">Per document</h2>' + document_table if doc is not None else "",
        f'<h2 id="pictures">{_esc(heading)}: who marked what</h2>',
        *figures,
        f"<footer>iaa-engine {_esc(__version__)} · {result.n_units:,} units, {result.n_annotators} annotators, "
        f"{result.n_documents:,} {docs_word} · this file is self-contained (no scripts, no external "
        "resources).</footer>",
        "</main></body></html>",
    ]
    return "\n".join(page) + "\n"


def _absent_note(doc: np.ndarray, rater: np.ndarray, names: pd.Index) -> str:
    """The crowd warning of :func:`iaa_engine.unitizing_alpha` (annotators with no span in most documents, no
    participants given) as a paragraph of the page, which is shared without the terminal's stderr; else ''."""
    import warnings

    from iaa_engine.data._spans import AbsentAnnotatorsWarning, _warn_absent

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AbsentAnnotatorsWarning)
        _warn_absent(pd.factorize(doc)[0].astype(np.int64), rater.astype(np.int64), names)
    said = [str(w.message) for w in caught if issubclass(w.category, AbsentAnnotatorsWarning)]
    return "".join(f'<p class="pooled warning" id="absent-annotators">Warning: {_esc(m)}</p>' for m in said[:1])


def other_pooling(result: Any) -> tuple[str, float] | None:
    """The pooled α_U under the pooling the headline does not use, when it is defined and differs from the headline
    by more than its printed rounding (4 decimals): (what it is, value); else None."""
    if result.pooling == "inception":
        name, value = "pooled by document (a gap ends at its document's end)", result.estimate_documents
    else:
        name, value = "INCEpTION and DKPro Agreement (documents concatenated)", result.estimate_inception
    if not (np.isfinite(value) and np.isfinite(result.estimate)) or f"{value:.4f}" == f"{result.estimate:.4f}":
        return None
    return name, float(value)


def pooling_sentence(result: Any) -> str:
    """How the headline pooled the documents, and the other pooling's value beside it when it differs."""
    if result.pooling == "inception":
        text = (
            "every document laid end to end in one continuum, as INCEpTION and DKPro Agreement concatenate them "
            "(a gap may run on into the next document; the order of the documents matters)"
        )
    else:
        text = (
            "every document, each its own stretch of one continuum (a gap ends at its document's end, so the order of "
            "the documents does not matter)"
        )
    if getattr(result, "n_participants", 0):
        text += ", each document among its participants (each document's pairs weighed 1/(R_d − 1))"
    other = other_pooling(result)
    if other is not None:
        text += f"; {other[0]}: {other[1]:.4f}"
    return text


def write_spans_page(
    spans: Any,
    result: Any,
    path: str | PathLike,
    *,
    documents: int = 8,
    title: str | None = None,
    extras: Sequence[tuple[str, float, str]] = (),
    participants: Any = None,
    annotators: Sequence | None = None,
    absent: str | None = None,
) -> Path:
    """Write the page of a unitizing study (see :func:`render_spans_page`) to ``path`` (UTF-8); returns the path.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> import iaa_engine as ie
    >>> from iaa_engine.reporting._spans_page import write_spans_page
    >>> spans = pd.DataFrame({"annotator": ["a", "b"], "start": [2, 3], "end": [6, 6], "label": ["PER", "PER"]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_spans_page(spans, ie.unitizing_alpha(spans, continuum=(0, 10)), pathlib.Path(tmp) / "s.html")
    ...     out.name
    's.html'
    """
    out = Path(path)
    page = render_spans_page(
        spans,
        result,
        documents=documents,
        title=title,
        extras=extras,
        participants=participants,
        annotators=annotators,
        absent=absent,
    )
    out.write_text(page, encoding="utf-8")
    return out
