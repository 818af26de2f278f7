"""A self-contained HTML page of the judges: can each model replace the annotators?

:func:`render_judges_page` (``iaa judges HUMANS MODELS --html OUT.html``) lays out, from results already computed
(:func:`iaa_engine.alt_test`, :func:`iaa_engine.model_agreement`, :func:`iaa_engine.human_likeness` and optionally
:func:`iaa_engine.judge_accuracy`): one row per model with its verdict, ω, ρ, its agreement beside the humans', its
human-likeness and the corrected rate; per model, each human's test; and a picture of each human's advantage
against ε. The style sheet and helpers are the agreement report's (:mod:`iaa_engine.reporting._html`): no script,
no font or file fetched; every name from the data is escaped.
"""

from __future__ import annotations

import html
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["render_judges_page", "write_judges_page", "summary"]


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(v: Any, digits: int = 3, form: str = "f", why: Any = "") -> str:
    """A number cell with its exact value in ``data-value`` (``nan`` where undefined, with ``why`` as the reason
    when given); ``form`` "g": ``digits`` significant digits (p-values are small numbers)."""
    v = float(v) if v is not None else float("nan")
    if not np.isfinite(v):
        reason = f" ({_esc(why)})" if isinstance(why, str) and why else ""
        return f'<td class="num undefined" data-value="nan">undefined{reason}</td>'
    return f'<td class="num" data-value="{v!r}">{v:.{digits}{form}}</td>'


def summary(alt: Any, agreement: Any, likeness: Any, accuracy: Any | None) -> pd.DataFrame:
    """One row per model: the verdict, ω, ρ, agreement beside the humans', human-likeness and the corrected rate."""
    models = alt.models
    if "group" in models:  # with groups: the verdict over all groups
        models = alt.summary.rename(columns={"groups_passed": "passed_groups"})
    rows = agreement.table[agreement.table["kind"] == "humans"].set_index("model")
    like = likeness.table.set_index("model")
    out = pd.DataFrame({"model": models["model"].to_numpy()})
    if "group" in alt.models:
        out["groups"] = models["n_groups"].to_numpy()
        out["passed_groups"] = models["passed_groups"].to_numpy()
        out["verdict"] = np.where(out["passed_groups"] == out["groups"], "PASSED", "FAILED")
    else:
        out["verdict"] = np.where(
            models["n_humans"].to_numpy() == 0, "undefined", np.where(models["passed"].to_numpy(), "PASSED", "FAILED")
        )
        out["omega"] = models["omega"].to_numpy()
        out["rho"] = models["rho"].to_numpy()
        out["humans_tested"] = models["n_humans"].to_numpy()
    out["agreement"] = rows["agreement"].reindex(out["model"]).to_numpy()
    out["human_agreement"] = agreement.human_agreement
    out["kappa"] = like["kappa"].reindex(out["model"]).to_numpy()
    out["z"] = like["z"].reindex(out["model"]).to_numpy()
    out["human_likeness"] = like["reading"].reindex(out["model"]).to_numpy()
    if accuracy is not None:
        acc = accuracy.table.set_index("model")
        for c in ("raw", "corrected", "lower", "upper"):
            out[c] = acc[c].reindex(out["model"]).to_numpy()
    return out


def _advantage_plot(fig_id: str, rows: pd.DataFrame, epsilon: float) -> str:
    """Each tested human's advantage (mean of d_h, in [-1, 1]) as a dot on one axis, with the line at ε: a human
    whose null the test rejected (the model wins against them) is filled, the others hollow."""
    width, height, left, right, top = 640, 90, 40, 20, 28
    span = width - left - right

    def x(v: float) -> float:
        return left + (v + 1.0) / 2.0 * span

    parts = [
        f'<svg id="{fig_id}" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{left}" y1="{top + 20}" x2="{width - right}" y2="{top + 20}" stroke="#9aa0a6"/>',
        f'<line x1="{x(epsilon):.1f}" y1="{top - 6}" x2="{x(epsilon):.1f}" y2="{top + 40}" stroke="#c0392b" '
        'stroke-dasharray="4 3"/>',
        f'<text x="{x(epsilon):.1f}" y="{top - 10}" font-size="11" text-anchor="middle" fill="#c0392b">ε = '
        f"{epsilon:g}</text>",
    ]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{x(tick):.1f}" y="{top + 52}" font-size="10" text-anchor="middle" fill="#5f6368">{tick:g}</text>'
        )
    for k, r in enumerate(rows.itertuples(index=False)):
        fill = "#1a73e8" if r.rejected else "#fff"
        dy = (k % 5) * 4 - 8  # a little vertical spread so that equal advantages stay visible
        parts.append(
            f'<circle cx="{x(float(r.advantage)):.1f}" cy="{top + 20 + dy}" r="4" fill="{fill}" stroke="#1a73e8">'
            f"<title>{_esc(r.human)}: advantage {float(r.advantage):.3f}, {int(r.items)} items, p "
            f"{float(r.p_value):.3g}{' (rejected)' if r.rejected else ''}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def render_judges_page(
    alt: Any, agreement: Any, likeness: Any, accuracy: Any | None = None, *, title: str | None = None
) -> str:
    """The page of :func:`write_judges_page` as a string.

    Parameters
    ----------
    alt : AltTest
        :func:`iaa_engine.alt_test` of the humans and models.
    agreement : ModelAgreement
        :func:`iaa_engine.model_agreement` of the same.
    likeness : HumanLikeness
        :func:`iaa_engine.human_likeness` of the same.
    accuracy : JudgeAccuracy, optional
        :func:`iaa_engine.judge_accuracy` of the same.
    title : str, optional
        The page's title.

    Returns
    -------
    str
        The HTML document (UTF-8; ends with a newline).

    Examples
    --------
    >>> import pandas as pd, iaa_engine as ie
    >>> from iaa_engine.reporting._judges_page import render_judges_page
    >>> humans = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": list("abcabc"), "label": list("xxyyyy")})
    >>> model = pd.DataFrame({"item": [1, 2], "annotator": "m", "label": ["x", "y"]})
    >>> page = render_judges_page(ie.alt_test(humans, model, epsilon=0.1, min_items=2),
    ...                           ie.model_agreement(humans, model), ie.human_likeness(humans, model, min_items=2))
    >>> page.count("<svg"), "PASSED" in page
    (1, True)
    """
    from iaa_engine.base._version import __version__
    from iaa_engine.reporting._html import _CSS, _figure, _skipped

    title = "Can the models replace the annotators?" if title is None else str(title)
    table = summary(alt, agreement, likeness, accuracy)
    head = [
        "model",
        "verdict",
        *(["winning rate ω", "advantage probability ρ", "humans tested"] if "omega" in table else ["groups passed"]),
        "agreement with a human",
        "humans among themselves",
        "mean κ with humans",
        "human-likeness z",
        "reading",
        *(["judged rate", "corrected rate", "lower", "upper"] if accuracy is not None else []),
    ]
    body = []
    unlike = dict(zip(likeness.table["model"], likeness.table["reason"]))  # why a z is undefined
    reasons = dict(zip(accuracy.table["model"], accuracy.table["reason"])) if accuracy is not None else {}
    for r in table.to_dict(orient="records"):
        cells = [f"<td>{_esc(r['model'])}</td>", f'<td class="verdict">{_esc(r["verdict"])}</td>']
        if "omega" in r:
            none = f"no human with at least {alt.min_items} items"
            cells += [_num(r["omega"], why=none), _num(r["rho"], why=none)]
            cells.append(f'<td class="num">{int(r["humans_tested"])}</td>')
        else:
            cells.append(f'<td class="num">{int(r["passed_groups"])} of {int(r["groups"])}</td>')
        cells += [_num(r["agreement"]), _num(r["human_agreement"], why="no item has two human labels")]
        cells += [_num(r["kappa"]), _num(r["z"], 2, why=unlike.get(r["model"]))]
        cells.append(f"<td>{_esc(r['human_likeness'] or '')}</td>")
        if accuracy is not None:
            cells += [_num(r["raw"]), _num(r["corrected"], why=reasons.get(r["model"])), _num(r["lower"])]
            cells.append(_num(r["upper"]))
        body.append("<tr>" + "".join(cells) + "</tr>")
    models_table = (
        '<table class="metrics" id="models"><thead><tr>'
        + "".join(f"<th>{_esc(h)}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )
    sections = []
    for k, (model, rows) in enumerate(alt.humans.groupby("model", sort=False)):
        lines = [
            "<tr>"
            + f"<td>{_esc(r.human)}</td>"
            + (f"<td>{_esc(r.group)}</td>" if "group" in rows else "")
            + f'<td class="num">{int(r.items)}</td>'
            + _num(r.rho)
            + _num(r.advantage)
            + _num(r.p_value, 3, "g")
            + _num(r.p_adjusted, 3, "g")
            + f"<td>{'yes' if r.rejected else 'no'}</td></tr>"
            for r in rows.itertuples(index=False)
        ]
        group_head = "<th>group</th>" if "group" in rows else ""
        table_html = (
            f'<table class="metrics" id="humans-{k}"><thead><tr><th>human</th>{group_head}<th>items</th>'
            "<th>ρ_h</th><th>advantage</th><th>p</th><th>p (Benjamini–Yekutieli)</th><th>rejected</th></tr></thead>"
            "<tbody>" + "".join(lines) + "</tbody></table>"
        )
        caption = (
            f"Each human's advantage over {_esc(model)} (the mean of d_h = W_h − W_model over their items; a tie "
            f"counts for both): filled where the test rejected the human's advantage of at least ε = {alt.epsilon:g}."
        )
        figure = _figure(f"fig-{k}", f"{model}: each human's advantage", _advantage_plot(f"adv-{k}", rows, alt.epsilon),
                         caption)  # fmt: skip
        sections.append(f'<h3 id="model-{k}">{_esc(model)}</h3>' + figure + table_html)
    if not sections:
        sections.append(_skipped("fig-0", "Each human's advantage", "no human had enough items to be tested"))
    notes = list(dict.fromkeys(alt.notes + agreement.notes + (accuracy.notes if accuracy is not None else [])))
    notes_html = "".join(f"<li>{_esc(n)}</li>" for n in notes)
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="iaa-engine {_esc(__version__)}">',
        f"<title>{_esc(title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<header><h1>{_esc(title)}</h1>",
        '<p class="lead">The Alternative Annotator Test (Calderon, Reichart &amp; Dror 2025): leaving one human out '
        "at a time, is the model at least as good as that human at matching the others, up to the margin "
        f"ε = {alt.epsilon:g}? One-sided t-tests, Benjamini–Yekutieli over the humans at q = {alt.q:g}; a model "
        "passes when it wins against at least half of them. Human-likeness (Judge's Verdict): |z| &lt; 1 human-like, "
        "z ≥ 1 super-consistent.</p></header>",
        '<h2 id="verdicts">Per model</h2>',
        models_table,
        '<h2 id="humans">Per human</h2>',
        *sections,
        f"<h2>Notes</h2><ul>{notes_html}</ul>" if notes_html else "",
        f"<footer>iaa-engine {_esc(__version__)} · scoring {_esc(alt.scoring)}, at least {alt.min_items} items per "
        "human · this file is self-contained (no scripts, no external resources).</footer>",
        "</main></body></html>",
    ]
    return "\n".join(page) + "\n"


def write_judges_page(
    alt: Any,
    agreement: Any,
    likeness: Any,
    path: str | PathLike,
    accuracy: Any | None = None,
    *,
    title: str | None = None,
) -> Path:
    """Write the page of :func:`render_judges_page` to ``path`` (UTF-8); returns the path."""
    out = Path(path)
    out.write_text(render_judges_page(alt, agreement, likeness, accuracy, title=title), encoding="utf-8")
    return out
