"""``sync``: read the project, compute its agreement, plan the writes, write them, and summarise.

The pipeline, each step a module of its own (each importing only the steps below it):
:func:`iaa_label_studio.read.pull` (the only reads, through :mod:`iaa_label_studio.api`) ->
:func:`iaa_label_studio.analyse.analyse` (the core's numbers; :mod:`iaa_label_studio.convert` turns the tasks into
the core's data model) -> :func:`iaa_label_studio.plan.plan` (what to write: pure) ->
:func:`iaa_label_studio.write.apply` (the writes) -> a read-back of what was written (the saved state stays
current) -> the summary (:func:`save_summary`, :func:`render_summary`).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .analyse import Analysis, agreement_over, analyse, annotators_per_task, html_inputs, near_miss_text
from .api import Api
from .names import AGREEMENT_FIELD, GOLD_VERSION, PLUGIN_EMAIL, SCORE_VERSION
from .plan import overlap_of, plan
from .quality import render as render_quality
from .read import pull
from .state import StateStore
from .write import apply, ensure_tabs

__all__ = ["sync", "save_summary", "render_summary"]


def sync(
    api: Api,
    project_id: int,
    *,
    iou_threshold: float | None = None,
    primary: str | None = None,
    dry_run: bool = False,
    field: str | None = AGREEMENT_FIELD,
    model_version: str = SCORE_VERSION,
    gold: bool = True,
    workers: int = 4,
    summary_dir: str | Path | None = None,
    html: bool = True,
    progress: bool | None = None,
    n_boot: int = 200,
    state: StateStore | None = None,
    full: bool = False,
    refresh: Iterable[int] = (),
    set_model_version: bool = False,
    bulk: bool = True,
    tabs: bool = True,
    models: Iterable[str] | None = None,
    gamma: bool = False,
    by: dict | None = None,
) -> dict:
    """Pull, compute, plan and (unless ``dry_run``) write. Returns the summary (also saved under ``summary_dir``).

    With a ``state`` store the pull reads only what changed since the previous run (``full=True``: everything;
    ``refresh``: these tasks in any case), and after writing, the written tasks are read back: the state stays
    current and the summary's ``after`` says what a new plan would still write (nothing, unless somebody
    changed the project meanwhile). ``set_model_version``: also make the agreement predictions the project's
    ``model_version`` (the Data Manager then shows their score; it also picks the predictions annotators get as
    pre-labels, so it is never done unless asked). ``bulk=False``: every write request by request. ``tabs``:
    create the Data Manager tabs of :func:`iaa_label_studio.plan.tab_definitions` when missing (with the data
    fields only).
    ``models``: prediction model versions that join as model raters (:mod:`iaa_label_studio.quality`; never the
    connector's own versions). ``gamma``: span tags also get Mathet et al.'s γ in the summary (never written to
    the project). ``by``: the options of :func:`iaa_label_studio.analyse.agreement_over` (``time``, ``by``,
    ``freq``, ``groups``): the summary's agreement then holds the agreement per window or group, and its HTML page
    the trend (nothing of it is written to the project).
    """
    t0 = time.perf_counter()
    me = api.whoami() or {}
    service = str(me.get("email", "")).lower() == PLUGIN_EMAIL  # the token is the plugin's service account
    bot = api.plugin_user(create=False)  # only to recognise the gold annotations of earlier versions
    bot_id = bot["id"] if bot else None
    project = pull(
        api, project_id, plugin_user=bot_id, progress=progress, state=state, full=full, refresh=refresh, workers=workers
    )
    t_pull = time.perf_counter() - t0
    raters = dict(models=models, own_versions=(model_version, GOLD_VERSION))  # model raters (quality.py)
    analysis = analyse(project, iou_threshold=iou_threshold, primary=primary, gamma=gamma, **raters)
    if by:
        agreement_over(analysis, **by)
    t_compute = time.perf_counter() - t0 - t_pull
    opts = dict(bot_id=bot_id, field=field, model_version=model_version, gold=gold, set_model_version=set_model_version)
    changes = plan(analysis, **opts)
    planned = Counter(c.kind for c in changes)
    done: Counter = Counter()
    after: dict[str, Any] | None = None
    how: dict[str, Any] = {"service_account": service, "bulk": bulk}
    t_w = time.perf_counter()
    if not dry_run and changes:
        done = apply(
            api,
            project_id,
            changes,
            workers=workers,
            progress=progress,
            bulk=bulk,
            info=how,
        )
        if state is not None:  # read back what was written (keeps the state current) and plan again
            touched = {c.task for c in changes if c.task is not None}
            back = pull(
                api, project_id, plugin_user=bot_id, progress=progress, state=state, refresh=touched, workers=workers
            )
            left = plan(analyse(back, iou_threshold=iou_threshold, primary=primary, **raters), **opts)
            after = {"pull": back.pull_info, "left": dict(Counter(c.kind for c in left))}
    t_write = time.perf_counter() - t_w
    if tabs and field is not None:  # a dry run lists the tabs it would create
        how["tabs"] = ensure_tabs(api, project_id, analysis, field=field, gold=gold, dry_run=dry_run)
    t_end = time.perf_counter()
    summary: dict[str, Any] = {
        "project": project_id,
        "dry_run": dry_run,
        "n_tasks": len(project.tasks),
        "plugin_user": {"id": bot_id, "email": bot.get("email") if bot else None},
        "model_version": model_version,
        "gold_version": GOLD_VERSION,
        "model_raters": list(models) if models else None,
        "field": field,
        "overlap": overlap_of(project.raw)[0],
        "primary_control": analysis.primary,
        "pull": project.pull_info,
        "planned": dict(planned),
        "done": dict(done),
        "writes": how,
        "after": after,
        "unchanged_tasks": len(project.tasks) - len({c.task for c in changes if c.task is not None}),
        "examples": [c.describe() for c in changes[:20]],
        "seconds": {
            "pull": t_pull,
            "compute": t_compute,
            "pull_and_compute": t_pull + t_compute,
            "write": t_write,
            "total": t_end - t0,
        },
        "agreement": analysis.to_json(),
        "adjudicated": {"n_tasks": len(analysis.adjudications), "by": analysis.adjudicated_by()},
    }
    if summary_dir is not None and not dry_run:
        save_summary(summary, analysis, summary_dir, html=html, n_boot=n_boot)
    return summary


def _write_private(path: Path, write) -> None:
    """Call ``write(tmp)`` on a new file readable by the owner only (0600, whatever the umask), then move it to
    ``path`` (an existing file there, whatever its mode, is replaced: the result is 0600 too)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        os.close(fd)
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_summary(summary: dict, analysis: Analysis, summary_dir: str | Path, *, html: bool = True, n_boot: int = 200):
    """Write ``iaa-ls-<project>.json`` (and the HTML report) into ``summary_dir``; they name annotators (e-mail
    addresses), so they are private files (0600). A directory that does not exist is created 0700; an existing
    one is left as it is. Sets ``summary["files"]``."""
    out = Path(summary_dir)
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        out.mkdir(mode=0o700, exist_ok=True)
    project_id = summary["project"]
    path = out / f"iaa-ls-{project_id}.json"
    summary["files"] = [str(path)]
    data, by = html_inputs(analysis)  # with agreement by group or over time: a report that carries it
    if html and data is not None:
        import iaa_engine as ie

        report = ie.report(data, ci=bool(n_boot), n_boot=n_boot or 1000, seed=0, progress=False, **by) if by else None
        hpath = out / f"iaa-ls-{project_id}.html"
        _write_private(
            hpath,
            lambda tmp: ie.write_html_report(
                data,
                tmp,
                n_boot=n_boot,
                title=f"Agreement of Label Studio project {project_id} ({analysis.primary})",
                progress=False,
                report=report,
            ),
        )
        summary["files"].append(str(hpath))
    text = json.dumps(summary, indent=2, default=str) + "\n"
    _write_private(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def render_summary(s: dict) -> str:
    """The summary as text lines (the command line escapes control characters in what annotators typed)."""
    head = "dry run: would write" if s["dry_run"] else "wrote"
    counts = s["planned"] if s["dry_run"] else s["done"]
    lines = [
        f"Label Studio project {s['project']}: {s['n_tasks']} tasks, score from control "
        f"{s['primary_control']!r}, {s['unchanged_tasks']} tasks unchanged"
    ]
    pi = s.get("pull") or {}
    if pi.get("mode") == "incremental":
        lines.append(f"read {pi['read']} changed task(s) since the previous run (saved state)")
    elif pi.get("mode") == "full":
        how = f"; {pi['how']}" if pi.get("how") else ""
        lines.append(f"read all {pi['read']} tasks ({pi.get('reason')}{how})")
    aside = (s.get("agreement") or {}).get("set_aside") or {}
    if aside:
        lines.append(
            f"set aside when read (the wrong shape, never used): {sum(aside.values())} ("
            + "; ".join(f"{n} × {why}" for why, n in sorted(aside.items()))
            + ")"
        )
    if counts:
        lines.append(f"{head}: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items())))
    else:
        lines.append("nothing to change")
    if s["dry_run"]:
        lines += ["  " + e for e in s["examples"]]
    tabs = (s.get("writes") or {}).get("tabs") or {}
    if tabs.get("created"):
        lines.append(
            ("dry run: would create" if s["dry_run"] else "created")
            + " the Data Manager tab(s) "
            + ", ".join(repr(t) for t in tabs["created"])
        )
    adj = s.get("adjudicated") or {}
    if adj.get("n_tasks"):
        lines.append(
            "kept as the gold, never rewritten: "
            + "; ".join(f"{n} gold label{'s' if n != 1 else ''} adjudicated by {who}" for who, n in adj["by"].items())
        )
    if s.get("after") and s["after"]["left"]:
        lines.append(
            "read back after writing: still to write "
            + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(s["after"]["left"].items()))
            + " (the project changed during the sync; the next run writes them)"
        )
    elif s.get("after"):
        lines.append("read back after writing: nothing left to write")
    for name, rep in s["agreement"]["controls"].items():
        if rep is None:
            continue
        ka = rep.get("krippendorff_alpha")
        lines.append(
            f"  {name}: Krippendorff's alpha {'undefined' if ka is None else f'{ka:.4f}'}, "
            f"{rep['n_items']} items, {rep['n_annotators']} annotators"
        )
        details = (s["agreement"].get("details") or {}).get(name) or {}
        ua = details.get("unitizing_alpha")
        if ua and ua.get("n_tasks"):  # span tags: Krippendorff's unitizing alpha beside the unit-matched alpha
            est = ua.get("estimate")
            lines.append(
                f"  {name}: Krippendorff's unitizing alpha (α_U) {'undefined' if est is None else f'{est:.4f}'}, "
                f"{ua['n_tasks']} tasks with {annotators_per_task(ua)}"
            )
        near = near_miss_text(details.get("region_matching"))  # exact span boundaries missed by a character
        lines += [f"  {name}: {near}"] if near else []
        lines += ["  " + line for line in render_quality(details.get("quality"))]  # scorecard, gold, models
    for f in s.get("files", []):
        lines.append(f"summary saved to {f}")
    return "\n".join(lines)
