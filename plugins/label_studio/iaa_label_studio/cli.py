"""``iaa label-studio report|sync|watch``: registered in the ``iaa`` command through the entry point group
``iaa_engine.cli``. Connection from ``--url``/``--token`` or ``LABEL_STUDIO_URL``/``LABEL_STUDIO_API_KEY`` (read
when the command runs, never at import); the token is never printed or logged."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

__all__ = ["register"]


def _common(p: argparse.ArgumentParser, pooled: bool = False) -> None:
    g = p.add_argument_group("connection")
    g.add_argument("--url", help="Label Studio URL (default: $LABEL_STUDIO_URL)")
    g.add_argument(
        "--token", help="API token, legacy or personal access token (default: $LABEL_STUDIO_API_KEY); never printed"
    )
    g.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="longest wait for the server at any one moment: connecting, or the next bytes of an answer (default 60)",
    )
    g.add_argument(
        "--deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="longest time one request may take in all, retries and the whole answer included (default 600)",
    )
    g.add_argument(
        "--max-response",
        type=float,
        default=None,
        metavar="MIB",
        help="largest answer read, in MiB after decompression (default 256; parsed JSON takes ~7.6 times as much "
        "memory)",
    )
    if pooled:  # report: several projects with one labelling config pooled (_project_ids)
        p.add_argument(
            "--project", "-p", type=int, action="append", metavar="ID",
            help="project id; repeat it (or give --projects) to pool projects that share one labelling config",
        )  # fmt: skip
    else:
        p.add_argument("--project", "-p", type=int, required=True, metavar="ID", help="project id")
    a = p.add_argument_group("agreement")
    a.add_argument(
        "--iou",
        type=float,
        default=None,
        metavar="T",
        help="regions: match them across annotators with IoU >= T (0 < T <= 1); default: exact boundaries for "
        "text spans, 0.5 for time and image regions (key points: within 2%% of the image diagonal)",
    )
    a.add_argument(
        "--score-control",
        metavar="NAME",
        help="the control tag whose task agreement is the task's score (default: the first one with annotations)",
    )
    p.add_argument(
        "--progress", action="store_true", default=None, help="show progress on stderr even when it is not a terminal"
    )
    st = p.add_argument_group("saved state (read only what changed since the previous run)")
    st.add_argument("--full", action="store_true", help="read every task, whatever the saved state says")
    st.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where the previous run's read is kept (default: $IAA_LS_STATE_DIR, else "
        "~/.cache/iaa-engine/label-studio)",
    )
    st.add_argument("--no-state", action="store_true", help="keep no state: every run reads every task")


def _models_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--models",
        metavar="V1,V2",
        type=lambda s: [v.strip() for v in s.split(",") if v.strip()],
        default=None,
        help="prediction model versions that join as model raters: each model's agreement with each annotator, "
        "the pooled humans and the gold, per tag, beside the humans' own agreement (which never includes them)",
    )


def _gamma_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--gamma",
        action="store_true",
        help="span tags: also Mathet, Widlöcher and Métivier's gamma (with gamma-cat and its sampling error, 30 "
        "sampled continua, seed 0) beside Krippendorff's unitizing alpha; an integer program per task and sample",
    )


def register(subparsers: Any) -> None:
    """Add ``label-studio`` with its sub-commands to the ``iaa`` command line."""
    ls = subparsers.add_parser(
        "label-studio",
        help="agreement of a Label Studio project (report, sync, watch)",
        description="Agreement of a Label Studio project, computed by iaa-engine.",
    )
    sub = ls.add_subparsers(dest="ls_command", metavar="COMMAND")
    ls.set_defaults(func=lambda args: (ls.print_help(), 2)[1])

    rep = sub.add_parser(
        "report",
        help="pull a project and print its agreement (read-only)",
        description="Pull every task of a project and print one agreement report per control "
        "tag. Changes nothing on the server.",
    )
    _common(rep, pooled=True)
    _by_options(rep)
    rep.add_argument(
        "--json",
        action="store_true",
        help="JSON: per control tag the JSON of `iaa report --json` (controls), plus details",
    )
    rep.add_argument("--indent", action="store_true", help="indent the JSON")
    _models_option(rep)
    _gamma_option(rep)
    _judges_options(rep)
    rep.set_defaults(func=_cmd_report)

    syn = sub.add_parser(
        "sync",
        help="compute and write gold labels and agreement back to the project",
        description="Per task: the gold label as a prediction (model version iaa-engine-gold; never an "
        "annotation, which Label Studio would count toward the task's overlap); the task's agreement as a "
        "prediction score and as task data fields (agreement, gold status, needs adjudication). A copy of the "
        "gold prediction that an admin saved in the editor is her adjudication: kept, never written. Idempotent; "
        "never changes a human's annotation; which tasks are served, and the annotation counts and labelled state "
        "of every task, are Label Studio's own (the first sync after an earlier version deletes that version's "
        "gold annotations, which counted).",
    )
    _common(syn)
    _by_options(syn, report=False)
    syn.add_argument(
        "--dry-run", action="store_true", help="print what would change and the tabs it would create; write nothing"
    )
    syn.add_argument(
        "--field", default="iaa_agreement", help="task data field holding the agreement (default iaa_agreement)"
    )
    syn.add_argument(
        "--model-version",
        default="iaa-engine-agreement",
        help="model_version of the agreement predictions (default iaa-engine-agreement)",
    )
    syn.add_argument(
        "--no-gold", action="store_true", help="do not write gold labels (neither predictions nor annotations)"
    )
    syn.add_argument(
        "--set-model-version",
        action="store_true",
        help="also make the agreement predictions the project's model_version, so that the Data Manager's "
        "prediction score column shows them; this setting also picks the predictions annotators get as "
        "pre-labels (off by default: the project's settings are never changed unless asked)",
    )
    syn.add_argument(
        "--no-bulk",
        action="store_true",
        help="write request by request (default: new predictions in one import, data fields by the Data "
        "Manager action add_data_field)",
    )
    syn.add_argument("--no-tabs", action="store_true", help="do not create the Data Manager tabs 'IAA: ...'")
    syn.add_argument(
        "--no-field",
        action="store_true",
        help="do not write the task data field (the prediction score alone is written, in bulk: "
        "much faster on large projects)",
    )
    syn.add_argument(
        "--workers",
        type=int,
        default=4,
        help="parallel requests for per-task writes (default 4); a full read from a server with several "
        "processes uses at most 2, and 1 reads one export snapshot",
    )
    syn.add_argument(
        "--summary",
        metavar="DIR",
        default=".",
        help="directory for the summary files iaa-ls-<project>.json/.html (default: current)",
    )
    syn.add_argument("--no-html", action="store_true", help="do not write the HTML report")
    syn.add_argument("--json", action="store_true", help="print the summary as JSON")
    _models_option(syn)
    _gamma_option(syn)
    syn.set_defaults(func=_cmd_sync)

    w = sub.add_parser(
        "watch",
        help="serve webhooks and keep agreement and gold up to date",
        description="Register a webhook for annotation created/updated/deleted, check the shared "
        "secret header, update the affected tasks, and reconcile by polling.",
    )
    _common(w)
    w.add_argument(
        "--listen",
        default="127.0.0.1:8765",
        metavar="HOST:PORT",
        help="address of the webhook receiver (default 127.0.0.1:8765)",
    )
    w.add_argument("--public-url", metavar="URL", help="URL Label Studio posts to (default http://HOST:PORT/webhook)")
    w.add_argument(
        "--secret",
        help="shared secret sent in the X-IAA-Secret header (default: $IAA_WEBHOOK_SECRET, else a random one)",
    )
    w.add_argument(
        "--poll",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="reconcile every SECONDS by a sync of what changed (default 300; 0: never)",
    )
    w.add_argument("--field", default="iaa_agreement")
    w.add_argument("--model-version", default="iaa-engine-agreement")
    w.add_argument("--no-gold", action="store_true")
    w.add_argument("--no-field", action="store_true")
    w.add_argument("--workers", type=int, default=4)
    w.add_argument(
        "--max-body",
        type=int,
        default=1 << 20,
        metavar="BYTES",
        help="largest webhook body accepted (default 1 MiB; larger ones get 413 unread)",
    )
    w.add_argument("--max-seconds", type=float, default=None, help=argparse.SUPPRESS)
    w.set_defaults(func=_cmd_watch)


def _connect(args: argparse.Namespace):
    from iaa_engine.cli import CliError

    from .api import DEADLINE, MAX_RESPONSE_BYTES, TIMEOUT, Api, LabelStudioError, connect, scrub

    url = args.url or os.environ.get("LABEL_STUDIO_URL")
    token = args.token or os.environ.get("LABEL_STUDIO_API_KEY")
    if args.iou is not None and not 0 < args.iou <= 1:
        raise CliError(f"--iou must be in (0, 1]; got {args.iou}")
    limits = {}
    for option, value, default, scale in (
        ("--timeout", args.timeout, TIMEOUT, 1),
        ("--deadline", args.deadline, DEADLINE, 1),
        ("--max-response", args.max_response, MAX_RESPONSE_BYTES, 1 << 20),
    ):
        if value is not None and not (0 < value < float("inf")):
            raise CliError(f"{option} must be a positive number; got {value}")
        limits[option] = default if value is None else value * scale
    try:
        api = Api(
            connect(url, token),
            timeout=limits["--timeout"],
            deadline=limits["--deadline"],
            max_bytes=int(limits["--max-response"]),
        )
        args._ls_api = api  # for the error messages (_guard): they never show its token
        api.whoami()  # fails early and clearly on a wrong token or an unreachable server
    except LabelStudioError as exc:
        message = str(exc).replace(token, "***") if token and len(token) >= 4 else str(exc)
        raise CliError(scrub(message, url)) from None
    return api


def _state(args: argparse.Namespace):
    from .state import StateStore

    return None if args.no_state else StateStore(args.state_dir)


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        from iaa_engine.cli import CliError

        from .api import LabelStudioError

        try:
            return fn(args)
        except LabelStudioError as exc:  # the token never shown, whatever a message quotes
            api = getattr(args, "_ls_api", None)
            raise CliError(api.scrub(str(exc)) if api is not None else str(exc)) from None

    return run


@_guard
def _cmd_report(args: argparse.Namespace) -> int:
    from .analyse import analyse

    _project_ids(args)  # the options are checked before connecting
    options = _by_settings(args)
    _check_judges(args)
    api = _connect(args)
    project = _selected_project(api, args)
    analysis = analyse(
        project, iou_threshold=args.iou, primary=args.score_control, models=args.models, gamma=args.gamma
    )
    if options:
        _agreement_by(analysis, args, options)
    found = _judges(analysis, args) if args.judges else None
    if args.html:
        _write_html(analysis, args.html)
    if args.json:
        doc = analysis.to_json()
        if found is not None:
            doc["judges"] = found
        print(json.dumps(doc, indent=2 if args.indent else None, default=str))
    else:
        text = render_text(analysis)
        if found is not None:
            from .judges_report import render as render_judges

            text = text.rstrip("\n") + "\n\n" + "\n".join(render_judges(found))
        print(_printable(text))
    return 0


def _printable(text: str) -> str:
    """``text`` safe for a terminal: the core's escaping of control characters (escape sequences, bidi
    overrides) in annotator-typed labels, names and titles, line by line."""
    from iaa_engine.base._results import printable

    return "\n".join(printable(line) for line in text.split("\n"))


def render_text(analysis) -> str:
    from .analyse import fmt
    from .judgments import render as render_judgments
    from .quality import render as render_quality

    p = analysis.project
    head = f"projects {p.title} pooled" if p.pooled else f"project {p.id} {p.title!r}"
    lines = [f"Label Studio {head}: {len(p.tasks)} tasks", ""]
    if "selected" in p.pull_info:
        sel = p.pull_info["selected"]
        lines[-1:] = [f"  restricted to {sel['tasks']} of {sel['of']} tasks by {sel['by']}", ""]
    aside = analysis.converted.set_aside
    if aside:
        lines.append(f"Set aside when read (the wrong shape, never used): {sum(aside.values())}")
        lines += [f"  {n} × {why}" for why, n in sorted(aside.items())] + [""]
    for name, r in analysis.controls.items():
        d = r.details()
        lines.append(f"== {name} ({r.control.tag}{', multiple' if r.control.multiple else ''}, {r.control.level}) ==")
        lines.append(f"  results used {d['n_results_used']}, set aside {d['n_results_invalid']}")
        for why, n in d["invalid"].items():
            lines.append(f"    {n} × {why}")
        if r.report is not None:
            lines += ["  " + line for line in str(r.report).splitlines()]
        if r.partial_credit is not None:
            lines.append(
                f"  Krippendorff's alpha with partial credit ({r.partial_credit['distance']}): "
                f"{fmt(r.partial_credit['krippendorff_alpha'])}"
            )
        lines += render_unitizing(d.get("unitizing_alpha"))
        lines += render_region_matching(d.get("region_matching"))
        if r.vs_others:
            lines.append("  Each annotator against the others (pairs with every other annotation of the same items)")
            for who, v in r.vs_others.items():
                ag, ka = (fmt(v[k]) for k in ("agreement", "kappa"))
                lines.append(f"    {who:<32} agreement {ag}  kappa {ka}  ({v['n_items']} items, {v['n_pairs']} pairs)")
        if r.vs_ground_truth:
            lines.append("  Agreement with ground-truth annotations")
            for who, v in r.vs_ground_truth.items():
                pa = (
                    "undefined" if v["percent_agreement"] != v["percent_agreement"] else f"{v['percent_agreement']:.4f}"
                )
                ck = "undefined" if v["cohen_kappa"] != v["cohen_kappa"] else f"{v['cohen_kappa']:.4f}"
                lines.append(f"    {who:<32} agreement {pa}  kappa {ck}  ({v['n_shared']} shared items)")
        lines += render_quality(d.get("quality"))
        lines += render_by(analysis.by.get(name))
        for n in r.notes:
            lines.append(f"  note: {n}")
        lines.append("")
    lines += render_judgments(analysis.judgments)
    if analysis.converted.notes:
        lines += ["Notes"] + [f"  - {n}" for n in analysis.converted.notes]
    return "\n".join(lines).rstrip() + "\n"


def render_region_matching(rm: dict | None) -> list[str]:
    """Text lines for a region control's matching (``details.<tag>.region_matching``), in plain words, and the
    near misses of exact span boundaries with the suggestion of ``--iou`` when they dominate."""
    if not rm:
        return []
    from .analyse import fmt, near_miss_text

    unit = "spans" if rm.get("kind") == "span" else "regions"
    lines = [
        f"  Region matching: {rm['n_regions']} {unit} grouped into {rm['n_units']} units, {rm['n_missed']} times an "
        f"annotator of a task did not mark a unit the others marked; F1 {fmt(rm['f1_overall'])}",
        f"    per pair (first / second): precision = share of the second's {unit} the first also marked, recall = "
        f"share of the first's the second also marked, F1",
    ]
    for p in rm["pairs"]:
        pair = f"{p['annotator_a']} / {p['annotator_b']}"
        lines.append(
            f"    {pair:<40} {fmt(p['precision'])}  {fmt(p['recall'])}  {fmt(p['f1'])}"
            f"  ({p['n_matched']} matched; the first marked {p['n_regions_a']}, the second {p['n_regions_b']})"
        )
    near = near_miss_text(rm)
    return lines + ([f"  {near}"] if near else [])


def render_unitizing(u: dict | None) -> list[str]:
    """Text lines for a span control's Krippendorff's unitizing alpha (``details.<tag>.unitizing_alpha``): pooled,
    per category, and the pooled value of tasks with another number of annotators."""
    if not u:
        return []
    from .analyse import annotators_per_task, fmt

    if not u.get("n_tasks"):
        return ["  Krippendorff's unitizing alpha (α_U): undefined"] + [f"  note (α_U): {n}" for n in u["notes"]]
    length = u.get("length")
    lines = [
        f"  Krippendorff's unitizing alpha (α_U): {fmt(u['estimate'])}  ({u['n_tasks']} tasks with "
        f"{annotators_per_task(u)} laid end to end, {u['n_units']} units, continuum "
        f"{'-' if length is None else f'{length:g}'} {u['positions']}); per category: α_U, D_o, D_e, units"
    ]
    for r in u.get("per_category") or []:
        lines.append(
            f"    {str(r['category']):<32} {fmt(r['alpha'])}  {fmt(r['d_o'])}  {fmt(r['d_e'])}  ({r['n_units']} units)"
        )
    for g in u.get("other_groups") or []:
        lines.append(f"    tasks with {g['n_annotators']} annotators ({g['n_tasks']}): α_U {fmt(g['estimate'])}")
    g = u.get("gamma")
    if g:
        lines.append(
            f"    Mathet, Widlöcher and Métivier's gamma (γ) on the same tasks: {fmt(g['estimate'])} (sampling SE "
            f"{fmt(g['se'])}, {g['n_samples']} samples); γ-cat {fmt(g['gamma_cat'])}"
        )
    for m in u.get("models") or []:
        lines.append(
            f"    model {str(m['model'])} as one more annotator ({m['n_tasks']} tasks it predicted): α_U "
            f"{fmt(m['with_model'])}; the humans alone there {fmt(m['humans'])}"
        )
    return lines + [f"  note (α_U): {n}" for n in u.get("notes") or []]


@_guard
def _cmd_sync(args: argparse.Namespace) -> int:
    from .sync import sync

    options = _by_settings(args)  # checked before connecting
    api = _connect(args)
    summary = sync(
        api,
        args.project,
        iou_threshold=args.iou,
        primary=args.score_control,
        dry_run=args.dry_run,
        field=None if args.no_field else args.field,
        model_version=args.model_version,
        gold=not args.no_gold,
        workers=args.workers,
        summary_dir=args.summary,
        html=not args.no_html,
        progress=args.progress,
        state=_state(args),
        full=args.full,
        set_model_version=args.set_model_version,
        bulk=not args.no_bulk,
        tabs=not args.no_tabs,
        models=args.models,
        gamma=args.gamma,
        by=options or None,
    )
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        from .sync import render_summary

        print(_printable(render_summary(summary)))
    return 0


@_guard
def _cmd_watch(args: argparse.Namespace) -> int:
    from .watch import watch

    api = _connect(args)
    secret = args.secret or os.environ.get("IAA_WEBHOOK_SECRET")
    return watch(
        api,
        args.project,
        listen=args.listen,
        public_url=args.public_url,
        secret=secret,
        poll=args.poll,
        iou_threshold=args.iou,
        primary=args.score_control,
        field=None if args.no_field else args.field,
        model_version=args.model_version,
        gold=not args.no_gold,
        workers=args.workers,
        max_body=args.max_body,
        max_seconds=args.max_seconds,
        out=sys.stdout,
        state=_state(args),
        full=args.full,
    )


# ----------------------------------------------------------------------- by group, over time, which tasks (issue 27)


def _by_options(p: argparse.ArgumentParser, report: bool = True) -> None:
    """--time/--freq/--by-week/--by/--groups; on ``report`` also --html and the choice of tasks and projects."""
    g = p.add_argument_group("agreement by group and over time (iaa report --by/--time/--freq)")
    g.add_argument(
        "--time",
        choices=("created_at", "updated_at"),
        help="the coefficients per time window of the annotations' timestamps (created_at: when each annotation "
        "was first submitted; updated_at: its last save), each task in the window of its first annotation, tests "
        "between consecutive windows (Holm), and each annotator's agreement per window",
    )
    g.add_argument("--freq", choices=("D", "W", "M"), help="the windows of --time: days, weeks (default), months")
    g.add_argument("--by-week", action="store_true", help="agreement per week: --time created_at --freq W")
    g.add_argument(
        "--by",
        metavar="COLUMN",
        help="the coefficients per value of: group (the annotators' groups, --groups FILE), project (pooled "
        "projects) or data.FIELD (a task data field)",
    )
    g.add_argument(
        "--groups",
        metavar="FILE",
        help="annotator groups for --by group: two columns (annotator e-mail or user id, group) or a JSON object",
    )
    if not report:  # sync: the summary's JSON and HTML page carry it
        return
    g.add_argument(
        "--html",
        metavar="FILE",
        help="also write the HTML report of the score control (with --time/--by: its trend and drift section)",
    )
    s = p.add_argument_group("which tasks")
    s.add_argument(
        "--projects",
        metavar="ID,ID",
        help="pool several projects with one labelling config (same as repeating --project)",
    )
    s.add_argument(
        "--view",
        type=int,
        action="append",
        metavar="ID",
        help="only the tasks a Data Manager tab selects (its filters); repeat for tabs of pooled projects (a "
        "pooled project without a tab is read whole)",
    )
    s.add_argument("--tasks", metavar="IDS|FILE", help="only these task ids: 1,2,3 or a file of ids")


def _by_settings(args: argparse.Namespace) -> dict:
    """The agreement_over options from --time/--by-week/--freq/--by/--groups (checked before connecting), or {}."""
    from iaa_engine.cli import CliError

    time = args.time or ("created_at" if args.by_week else None)
    if args.by_week and args.freq not in (None, "W"):
        raise CliError(f"--by-week is --time created_at --freq W; got --freq {args.freq}")
    if args.freq and time is None:
        raise CliError("--freq needs --time created_at|updated_at (or --by-week)")
    if time and args.by:
        raise CliError("give --time (or --by-week) or --by, not both")
    if args.groups and args.by != "group":
        raise CliError("--groups FILE names the annotators' groups for --by group")
    if (
        args.by is not None
        and args.by not in ("group", "project")
        and not (args.by.startswith("data.") and len(args.by) > 5)
    ):
        raise CliError(f"--by must be group, project or data.FIELD (a task data field); got {args.by!r}")
    if args.by == "group" and not args.groups:
        raise CliError("--by group needs --groups FILE (annotator e-mail or user id, group)")
    if args.by == "project" and len(_project_ids(args)) < 2:
        raise CliError("--by project needs several projects (--project A --project B, or --projects A,B)")
    groups = None
    if args.groups:
        from .convert import parse_groups

        try:
            with open(args.groups, encoding="utf-8-sig") as f:
                groups = parse_groups(f.read(), f"--groups {args.groups}")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"cannot read --groups {args.groups}: {exc}") from None
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if not groups:
            raise CliError(f"--groups {args.groups} names no annotator")
    if not (time or args.by):
        return {}
    return {"time": time, "by": args.by, "freq": args.freq or "W", "groups": groups}


def _ids(text: str, what: str) -> list[int]:
    """Whole numbers separated by commas or white space; a CliError naming the first other token."""
    from iaa_engine.cli import CliError

    out = []
    for token in text.replace(",", " ").split():
        if not (token.isascii() and token.isdigit() and len(token) < 19):
            raise CliError(f"{what}: expected task or project ids (whole numbers); got {token!r}")
        out.append(int(token))
    if not out:
        raise CliError(f"{what}: no id given")
    return out


def _project_ids(args: argparse.Namespace) -> list[int]:
    from iaa_engine.cli import CliError

    given = getattr(args, "projects", None)
    ids = [args.project] if isinstance(args.project, int) else list(args.project or [])
    ids += _ids(given, "--projects") if given else []
    if not ids:
        raise CliError("give --project ID (or --projects ID,ID to pool projects)")
    return list(dict.fromkeys(ids))


def _task_list(value: str) -> list[int]:
    """--tasks: ids in the text, or in the file it names."""
    from iaa_engine.cli import CliError

    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8-sig") as f:
                return _ids(f.read(), f"--tasks {value}")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"cannot read --tasks {value}: {exc}") from None
    return _ids(value, "--tasks")


def _selected_project(api, args: argparse.Namespace):
    """The project (or the pooled projects), restricted to --view tabs and --tasks."""
    from iaa_engine.cli import CliError

    from .read import pull, pull_pooled, restrict

    ids = _project_ids(args)
    kw = {"progress": args.progress, "state": _state(args), "full": args.full}
    try:
        project = pull(api, ids[0], **kw) if len(ids) == 1 else pull_pooled(api, ids, **kw)
        if args.view:
            chosen: dict[int, set] = {}
            for vid in dict.fromkeys(args.view):
                v = api.view(vid)
                if v["project"] not in ids:
                    raise CliError(
                        f"--view {vid} is a tab of project {v['project']}, not of {', '.join(map(str, ids))}"
                    )
                chosen.setdefault(v["project"], set()).update(api.view_task_ids(v["project"], vid))
            keep = [
                t["id"] for t in project.tasks if t.get("project", project.id) not in chosen
                or t["id"] in chosen[t.get("project", project.id)]
            ]  # fmt: skip
            project = restrict(project, keep, "tab " + ", ".join(map(str, dict.fromkeys(args.view))))
        if args.tasks:
            project = restrict(project, _task_list(args.tasks), "--tasks")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return project


def _agreement_by(analysis, args: argparse.Namespace, options: dict) -> None:
    """analysis.by: the core's agreement by group or over time, and each annotator's drift, per control."""
    from iaa_engine.cli import CliError

    from .analyse import agreement_over

    try:
        agreement_over(analysis, **options)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _write_html(analysis, path: str) -> None:
    """--html: the core's HTML report of the score control (bootstrap intervals from 200 replicates, as the
    sync summary's page); after --time/--by its report carries agreement_by (the trend or forest plot, and over
    time each annotator's drift)."""
    from pathlib import Path

    import iaa_engine as ie
    from iaa_engine.cli import CliError

    from .analyse import html_inputs
    from .sync import _write_private

    data, by = html_inputs(analysis)
    if data is None and analysis.judgments:  # a project of judgments only (issue 28)
        return _write_judgments_html(analysis, path)
    if data is None:
        raise CliError("--html: the project has no annotations to report")
    rep = ie.report(data, ci=True, n_boot=200, seed=0, progress=False, **by) if by else None
    p = analysis.project
    which = f"projects {p.title}" if p.pooled else f"project {p.id}"
    title = f"Agreement of Label Studio {which} ({analysis.primary})"
    try:
        _write_private(
            Path(path), lambda tmp: ie.write_html_report(data, tmp, report=rep, title=title, n_boot=200, progress=False)
        )
        if analysis.judgments:  # issue 28: after the score control's report, in place (the file keeps its mode)
            from .judgments import write_html

            write_html(analysis.judgments, path)
    except OSError as exc:
        raise CliError(f"cannot write --html {path}: {exc.strerror or exc}") from None
    print(f"iaa: wrote {path}", file=sys.stderr)


def _write_judgments_html(analysis, path: str) -> None:
    """--html of a project whose tags are all judgments (Pairwise, Ranker): a page of the judgments alone."""
    from pathlib import Path

    from iaa_engine.cli import CliError

    from .judgments import write_html
    from .sync import _write_private

    p = analysis.project
    title = f"Judgments in Label Studio {'projects ' + p.title if p.pooled else 'project ' + str(p.id)}"
    try:
        _write_private(Path(path), lambda tmp: write_html(analysis.judgments, tmp, title))
    except OSError as exc:
        raise CliError(f"cannot write --html {path}: {exc.strerror or exc}") from None
    print(f"iaa: wrote {path}", file=sys.stderr)


def render_by(b) -> list[str]:
    """A control's agreement by group or over time (the core's text) and each annotator's drift, as lines."""
    if b is None:
        return []
    lines = ["  " + line if line else line for line in str(b.result).splitlines()] if b.result is not None else []
    if b.drift is not None and len(b.drift):
        lines.append("  Each annotator's agreement with the others per window (pairable annotations in brackets)")
        for who, rows in b.drift.sort_values("start").groupby("annotator", sort=True):
            cells = "  ".join(
                f"{w} {r:.3f} ({n})" for w, r, n in zip(rows["window"], rows["agreement"], rows["n_pairable"])
            )
            lines.append(f"    {who:<32} {cells}")
    return lines + [f"  note (by {b.column}): {n}" for n in b.notes]


# ----------------------------------------------------------------------- model versions as judges (issue 34)


def _judges_options(p: argparse.ArgumentParser) -> None:
    """--judges and its options (report only: nothing is written)."""
    g = p.add_argument_group("model versions as judges (--judges: can the ML backend replace an annotator?)")
    g.add_argument(
        "--judges",
        action="store_true",
        help="per tag and model version (every version with predictions, the connector's own excepted, or those of "
        "--models): the Alternative Annotator Test's verdict, winning rate and advantage probability, agreement "
        "with the humans beside theirs with each other, human-likeness, and on binary tags the judged rate "
        "corrected for the model's errors",
    )
    g.add_argument(
        "--epsilon",
        type=float,
        default=None,
        help="the test's cost-benefit margin (default 0.15, for skilled annotators; the authors advise 0.2 for "
        "experts, 0.1 for crowd workers, smaller when the humans agree little)",
    )
    g.add_argument("--q", type=float, default=0.05, help="false discovery rate of Benjamini-Yekutieli (0.05)")
    g.add_argument(
        "--min-items",
        type=int,
        default=30,
        help="humans with fewer items beside a model are not tested (30: the t-test's normal approximation)",
    )
    g.add_argument(
        "--positive",
        metavar="LABEL",
        help="binary tags: the label whose rate is corrected (default: the tag's first choice in the label config)",
    )


def _check_judges(args: argparse.Namespace) -> None:
    """The --judges options, checked before connecting."""
    from iaa_engine.cli import CliError

    given = [o for o, v in (("--epsilon", args.epsilon), ("--positive", args.positive)) if v is not None] + [
        o for o, v, d in (("--q", args.q, 0.05), ("--min-items", args.min_items, 30)) if v != d
    ]
    if given and not args.judges:
        raise CliError(f"{', '.join(given)} belong to --judges")
    if args.epsilon is not None and not 0 <= args.epsilon <= 1:
        raise CliError(f"--epsilon must be a number from 0 to 1; got {args.epsilon!r}")
    if not 0 < args.q < 1:
        raise CliError(f"--q must be a number between 0 and 1 (exclusive); got {args.q!r}")
    if args.min_items < 2:
        raise CliError(f"--min-items must be a whole number of at least 2; got {args.min_items!r}")


def _judges(analysis, args: argparse.Namespace) -> dict:
    """--judges: the model versions read as judges per tag (:func:`iaa_label_studio.judges_report.judges`)."""
    from iaa_engine.cli import CliError

    from .judges_report import judges

    try:
        return judges(
            analysis,
            models=args.models,
            epsilon=args.epsilon,
            q=args.q,
            min_items=args.min_items,
            positive=args.positive,
            iou_threshold=args.iou,
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
