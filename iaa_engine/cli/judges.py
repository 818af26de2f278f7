"""``iaa judges HUMANS MODELS``: can each model (an LLM judge, an ML backend) replace the annotators?

Both files are read with the same data options as ``iaa report`` reads one (the models file's annotator column names
the model); ``--models-layout`` and ``--models-item-col`` / ``-annotator-col`` / ``-label-col`` read a models file
shaped otherwise (a judge's export with one column per model, or its own column names). Per model: the Alternative
Annotator Test's verdict, winning rate ω and advantage probability ρ (:func:`iaa_engine.alt_test`), its agreement
with the pooled humans beside the humans' agreement with each other (:func:`iaa_engine.model_agreement`), its human-
likeness z (:func:`iaa_engine.human_likeness`) and, with ``--positive``, its judged rate of that label corrected for
its errors on the human-labelled items (:func:`iaa_engine.judge_accuracy`). Table, CSV or JSON; ``--html FILE`` also
writes the page of :mod:`iaa_engine.reporting._judges_page`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from iaa_engine.cli import CliError, add_data_options

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add ``iaa judges`` to the command line."""
    p = subparsers.add_parser(
        "judges",
        help="can a model replace the annotators? the Alternative Annotator Test, human-likeness, corrected rate",
        description="Each model of MODELS (its annotator column names the model) read against the humans of "
        "HUMANS: the Alternative Annotator Test (Calderon, Reichart & Dror 2025: leave one human out, is the model "
        "as good as that human at matching the others, one-sided t-test against epsilon, Benjamini-Yekutieli over "
        "the humans; passed when it wins against at least half of them), its agreement with the humans beside "
        "theirs with each other, its human-likeness z (Judge's Verdict: |z| < 1 human-like, z >= 1 "
        "super-consistent) and, with --positive, the judged rate of that label corrected for the model's errors "
        "(Rogan-Gladen with Lee et al.'s interval).",
    )
    p.add_argument("humans", metavar="HUMANS", help="the human annotations")
    p.add_argument("models", metavar="MODELS", help="the model annotations (one annotator per model)")
    p.add_argument(
        "--epsilon",
        type=float,
        required=True,
        help="the cost-benefit margin: 0.2 for expert annotators, 0.15 skilled, 0.1 crowd workers (the authors' "
        "rule of thumb; smaller when the humans agree little)",
    )
    p.add_argument("--scoring", choices=("accuracy", "neg_rmse"), default="accuracy", help="default accuracy")
    p.add_argument("--q", type=float, default=0.05, help="false discovery rate of Benjamini-Yekutieli (0.05)")
    p.add_argument("--min-humans", type=int, default=2, help="items with fewer human labels are left out (2)")
    p.add_argument("--min-items", type=int, default=30, help="humans with fewer items are not tested (30)")
    p.add_argument("--by", metavar="COLUMN", help="a column of HUMANS whose values group the items (domains)")
    p.add_argument("--positive", metavar="LABEL", help="correct the models' judged rate of this label")
    p.add_argument("--min-shared", type=int, default=20, help="items a pair needs for human-likeness (20)")
    p.add_argument("--confidence", type=float, default=0.95, help="the intervals' coverage (0.95)")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="table (default), csv, json")
    p.add_argument(
        "--table",
        choices=("models", "humans", "left_out", "likeness", "accuracy"),
        default="models",
        help="the table --format csv writes (default: models, one row per model)",
    )
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page of the judges to FILE")
    p.add_argument("--indent", action="store_true", help="indent the JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    add_data_options(p)
    g = p.add_argument_group(
        "reading MODELS", "a judge's export often differs from the humans' file: these options read MODELS (by "
        "default as HUMANS is read)"
    )  # fmt: skip
    g.add_argument(
        "--models-layout", choices=("auto", "long", "wide"), metavar="{auto,long,wide}",
        help="wide: one column per model beside an item column",
    )  # fmt: skip
    g.add_argument("--models-item-col", metavar="NAME", help="item column of MODELS (default: --item-col)")
    g.add_argument(
        "--models-annotator-col", metavar="NAME", help="the column naming the model (default: --annotator-col)"
    )
    g.add_argument("--models-label-col", metavar="NAME", help="label column of MODELS (default: --label-col)")
    p.set_defaults(func=run)


def _label(value: str, data: Any) -> Any:
    """``--positive`` as one of the data's categories (text as given, or the number it spells)."""
    cats = list(data.categories)
    if value in cats:
        return value
    for c in cats:
        if str(c) == value:
            return c
    return value


def _num(v: Any, fmt: str = ".3f", undefined: str = "") -> str:
    """A number, or ``undefined`` (with ``undefined`` as the reason when given)."""
    if v is None or v != v:
        return f"undefined ({undefined})" if undefined else "undefined"
    return format(v, fmt)


def _check_shared_items(humans: Any, models: Any, hname: str, mname: str) -> None:
    """Refuse two files with no item in common (every number would be undefined), and say when the ids differ only
    by leading zeros (a judge's export through a spreadsheet drops them)."""
    h_ids = [str(i) for i in humans.items]
    m_ids = [str(i) for i in models.items]
    if set(h_ids) & set(m_ids):
        return
    hint = ""
    if {i.lstrip("0") or "0" for i in h_ids} & {i.lstrip("0") or "0" for i in m_ids}:
        hint = "; they match once leading zeros are dropped: write the ids the same way in both files"
    raise CliError(
        f"no item of {mname!r} is an item of {hname!r}: the humans' items are {', '.join(map(repr, h_ids[:3]))}, "
        f"..., the models' {', '.join(map(repr, m_ids[:3]))}, ...{hint}"
    )


def run(args: argparse.Namespace) -> int:
    """``iaa judges``: read both files, run the tests, print or write."""
    import iaa_engine as ie
    from iaa_engine.base._csv import safe_csv
    from iaa_engine.base._policy import UndefinedMetricWarning
    from iaa_engine.base._results import nan_to_none, printable
    from iaa_engine.cli import load
    from iaa_engine.reporting._judges_page import summary

    if not 0 <= args.epsilon <= 1:
        raise CliError(f"--epsilon must be a number from 0 to 1; got {args.epsilon!r}")
    if not 0 < args.q < 1 or not 0 < args.confidence < 1:
        raise CliError("--q and --confidence must be numbers between 0 and 1 (exclusive)")
    if args.min_humans < 2 or args.min_items < 2 or args.min_shared < 2:
        raise CliError("--min-humans, --min-items and --min-shared must be whole numbers of at least 2")
    humans = load(argparse.Namespace(**{**vars(args), "path": args.humans}))
    own = {
        key: getattr(args, f"models_{key}")
        for key in ("layout", "item_col", "annotator_col", "label_col")
        if getattr(args, f"models_{key}") is not None
    }
    try:
        models = load(argparse.Namespace(**{**vars(args), "path": args.models, "by": None, **own}))
    except (ValueError, CliError) as exc:  # the reader's advice names the shared options: point to the models' own
        advice = re.sub(
            r"--(item-col|annotator-col|label-col|layout)\b", r"--models-\1", getattr(exc, "cli", None) or str(exc)
        )
        raise CliError(advice) from None
    if humans.n_annotators is None or models.n_annotators is None:
        raise CliError("iaa judges needs who labelled what in both files (a long table or a wide matrix)")
    _check_shared_items(humans, models, Path(args.humans).name, Path(args.models).name)
    alt = ie.alt_test(
        humans,
        models,
        epsilon=args.epsilon,
        scoring=args.scoring,
        q=args.q,
        min_humans=args.min_humans,
        min_items=args.min_items,
        by=args.by,
    )
    with warnings.catch_warnings():  # an undefined humans' agreement is printed "undefined" below
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        agreement = ie.model_agreement(humans, models, confidence=args.confidence, progress=False)
    likeness = ie.human_likeness(humans, models, min_items=args.min_shared, agreement=agreement)
    accuracy = None
    if args.positive is not None:
        accuracy = ie.judge_accuracy(humans, models, positive=_label(args.positive, humans), confidence=args.confidence)
    table = summary(alt, agreement, likeness, accuracy)
    if args.html:
        from iaa_engine.reporting._judges_page import write_judges_page

        page = write_judges_page(alt, agreement, likeness, args.html, accuracy)
        print(f"iaa: wrote {page}", file=sys.stderr)
    names = {"humans": Path(args.humans).name, "models": Path(args.models).name}
    if args.format == "json":
        doc: dict[str, Any] = {
            **names,
            "models": [{k: nan_to_none(v) for k, v in r.items()} for r in table.to_dict(orient="records")],
            "alt_test": alt.to_dict(),
            "agreement": agreement.to_dict(),
            "human_likeness": likeness.to_dict(),
        }
        if accuracy is not None:
            doc["judge_accuracy"] = accuracy.to_dict()
        text = json.dumps(nan_to_none(doc), indent=2 if args.indent else None, ensure_ascii=False) + "\n"
    elif args.format == "csv":
        if args.table == "accuracy" and accuracy is None:
            raise CliError("--table accuracy needs --positive")
        frames = {
            "models": table,
            "humans": alt.humans,
            "left_out": alt.left_out,
            "likeness": likeness.table,
            "accuracy": accuracy.table if accuracy is not None else None,
        }
        text = safe_csv(frames[args.table])
    else:
        lines = [
            f"Can the models of {names['models']} replace the annotators of {names['humans']}? "
            f"(epsilon {args.epsilon:g}, humans among themselves: agreement "
            f"{_num(agreement.human_agreement, undefined='no item has two human labels')})"
        ]
        reasons = dict(zip(accuracy.table["model"], accuracy.table["reason"])) if accuracy is not None else {}
        unlike = dict(zip(likeness.table["model"], likeness.table["reason"]))
        for r in table.to_dict(orient="records"):
            head = f"  {printable(r['model'])}: {r['verdict']}"
            if r["verdict"] == "undefined":  # no human tested: say why instead of a row of undefined numbers
                head += (
                    f" (no human labelled {args.min_items} or more of its items with at least {args.min_humans} human"
                    " labels; see the notes)"
                )
            elif "omega" in r:
                head += f"  winning rate {_num(r['omega'], '.2f')} of {r['humans_tested']} humans"
                head += f", advantage probability {_num(r['rho'], '.2f')}"
            else:
                head += f"  passes in {r['passed_groups']} of {r['groups']} groups"
            lines.append(head)
            z = (
                f"z {_num(r['z'], '+.2f')}: {r['human_likeness']}"
                if r["z"] == r["z"] and r["human_likeness"]
                else f"z undefined ({printable(unlike.get(r['model']) or 'no human pairs to compare with')})"
            )
            alone = "no item labelled by the model and a human"
            lines.append(
                f"      agreement with a human {_num(r['agreement'], undefined=alone)} "
                f"(humans {_num(r['human_agreement'], undefined='no item has two human labels')}); "
                f"mean kappa {_num(r['kappa'])}, {z}"
            )
            if accuracy is not None:
                why = reasons.get(r["model"], "")
                lines.append(
                    f"      rate of {printable(args.positive)!r}: judged {_num(r['raw'])}, corrected "
                    + (f"undefined ({printable(why)})" if why else
                       f"{_num(r['corrected'])} [{_num(r['lower'])}, {_num(r['upper'])}]")
                )  # fmt: skip
        notes = list(dict.fromkeys(alt.notes + agreement.notes + (accuracy.notes if accuracy is not None else [])))
        if len(alt.left_out):  # name the humans (not the (model, human) pairs: 20 humans and 3 models are 60 pairs)
            untested = list(dict.fromkeys(alt.left_out["human"]))
            shown = ", ".join(printable(str(h)) for h in untested[:8]) + (", ..." if len(untested) > 8 else "")
            notes.append(
                f"{len(untested)} human(s) with fewer than {args.min_items} items beside a model not tested ({shown}; "
                "--format csv --table left_out lists them with their items)"
            )
        lines += [f"  note: {printable(n)}" for n in notes]
        text = "\n".join(lines) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
