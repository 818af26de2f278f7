"""Write gold labels and agreement back to a project, idempotently, without side effects on how it is served.

Per task, from the current state of the server (so a re-run, or a run after a crash, only does what is still
missing; only the connector's own objects are ever updated or deleted):

* the gold label(s) as a prediction with model version :data:`GOLD_VERSION` (``iaa-engine-gold``): Label Studio
  does not count predictions toward a task's overlap, so a task the annotators have not finished stays served;
* the gold label(s) also as one annotation completed by the plugin's own user
  (:data:`iaa_label_studio.api.PLUGIN_EMAIL`, shown as "iaa-engine gold"), but only on tasks whose human
  annotations already reach the project's overlap (``maximum_annotations``; cancelled ones count only when the
  project counts skipped tasks as done): there the task is complete whatever the connector does, elsewhere an
  annotation would complete it and stop it being served. A task that falls below the overlap again (a human
  annotation deleted) loses the gold annotation; the gold prediction stays;
* the task's agreement as a prediction score (model version ``iaa-engine-agreement``);
* task data fields (numbers rounded to 3 decimals, strings): the agreement (``iaa_agreement``, per control
  ``iaa_agreement_<control>`` when there are several), where the gold is (``iaa_gold``: ``annotation``,
  ``prediction`` or ``none``) and whether the task needs adjudication (``iaa_needs_adjudication``: ``yes`` when
  a tie left a gold label undecided: the gold then keeps none of the tied labels), and what to adjudicate
  (``iaa_needs_review``: ``yes`` when the task's annotations do not all agree; ``iaa_confused``: its most confused
  label pair; :mod:`iaa_label_studio.quality`). Data is written by
  read-modify-write of the server's current data (never from a cached copy), or by the Data Manager action
  ``add_data_field``, which sets one key on the server.

The project's ``model_version`` (which also picks the predictions annotators get as pre-labels) is changed only
when asked (``set_model_version=True``, ``--set-model-version``).

Writes go in bulk where the server offers it (see :mod:`iaa_label_studio.bulk`): all new predictions in one
import; new gold annotations by the Data Manager action ``predictions_to_annotations`` when the token is the
plugin's own service account (the action makes the caller the author); data fields by ``add_data_field`` once
per distinct value. Anything else, and everything on a server without those actions, goes request by request.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iaa_engine.base import Progress

from .api import PLUGIN_EMAIL, Api
from .convert import human_annotations, user_id
from .project import Analysis, analyse, pull
from .quality import render as render_quality
from .quality import review_values
from .state import StateStore

__all__ = [
    "Change",
    "plan",
    "apply",
    "sync",
    "save_summary",
    "render_summary",
    "canonical",
    "GOLD_VERSION",
    "SCORE_VERSION",
    "DIGITS",
    "GOLD_FIELD",
    "REVIEW_FIELD",
]

#: model version of the gold predictions (never counted toward a task's overlap)
GOLD_VERSION = "iaa-engine-gold"
#: model version of the agreement predictions (their score is the task's agreement)
SCORE_VERSION = "iaa-engine-agreement"
#: decimals of the agreement written to task data and prediction scores
DIGITS = 3
#: task data field: where the task's gold is (``annotation``, ``prediction``, ``none``)
GOLD_FIELD = "iaa_gold"
#: task data field: ``yes`` when a tie left (part of) the task's gold undecided
REVIEW_FIELD = "iaa_needs_adjudication"


def canonical(result: list | None) -> list:
    """A comparable form of a result list (ignores key order and the order of regions)."""
    out = []
    for r in result or []:
        if isinstance(r, dict):
            out.append(json.dumps({k: r.get(k) for k in ("from_name", "to_name", "type", "value")}, sort_keys=True))
    return sorted(out)


@dataclass
class Change:
    """One write: ``kind`` in create_annotation, update_annotation, delete_annotation, create_prediction,
    update_prediction, delete_prediction, update_data, update_project. ``update_data`` carries the fields to set
    (``{name: value}``, None removes the field): they are merged into the task's data as it is on the server
    at the time of the write."""

    kind: str
    task: int | None
    target: int | None = None  # annotation / prediction id
    body: Any = None

    def describe(self) -> str:
        what = self.kind.replace("_", " ")
        where = f"task {self.task}" if self.task is not None else "project"
        extra = ""
        if self.kind.endswith("prediction") and isinstance(self.body, dict):
            if self.body.get("score") is not None:
                extra = f" score {self.body['score']:g}"
            elif self.body.get("model_version"):
                extra = f" {self.body['model_version']}"
        if self.kind == "update_data":
            extra = " " + ", ".join(f"{k}={v}" for k, v in self.body.items())
        if self.kind == "update_project":
            extra = " " + ", ".join(f"{k}={v!r}" for k, v in self.body.items())
        return f"{what} ({where}{', id ' + str(self.target) if self.target else ''}){extra}"


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _rounded(v: Any) -> float | None:
    x = _num(v)
    return None if x is None else round(x, DIGITS)


def overlap_of(project_raw: dict) -> tuple[int, bool]:
    """``(overlap, cancelled_count)``: the annotations a task needs before Label Studio stops serving it
    (``maximum_annotations``, at least 1) and whether cancelled (skipped) annotations count toward it (the
    project's ``skip_queue`` is ``IGNORE_SKIPPED``). With an overlap cohort below 100 % some tasks need only one
    annotation: the project's maximum is used for all, which errs on the side of not completing a task."""
    try:
        overlap = max(1, int(project_raw.get("maximum_annotations") or 1))
    except (TypeError, ValueError):
        overlap = 1
    return overlap, project_raw.get("skip_queue") == "IGNORE_SKIPPED"


def plan(
    analysis: Analysis,
    *,
    bot_id: int | None,
    field: str | None = "iaa_agreement",
    model_version: str = SCORE_VERSION,
    gold_version: str = GOLD_VERSION,
    gold: bool = True,
    min_annotations: int = 2,
    set_model_version: bool = False,
) -> list[Change]:
    """Every write needed to bring the project to the computed state (nothing for what is already there).

    Only the connector's own objects are named: annotations completed by ``bot_id``, predictions of
    ``model_version`` and ``gold_version``, and the connector's data fields.
    """
    changes: list[Change] = []
    project = analysis.project
    controls = [n for n, r in analysis.controls.items() if r.data is not None]
    per_control = len(controls) > 1
    overlap, cancelled_count = overlap_of(project.raw)
    tied: set[int] = set()
    for name in controls:
        tied |= set(getattr(analysis.controls[name].gold, "tied", ()))
    mine = {model_version, gold_version}
    for task in project.tasks:
        tid = int(task["id"])
        anns = task.get("annotations") or []
        ours = [a for a in anns if bot_id is not None and user_id(a.get("completed_by")) == bot_id]
        humans = human_annotations(task, [] if bot_id is None else [bot_id])
        n_human = len({user_id(a.get("completed_by")) for a in humans})
        n_done = len(humans) + (
            sum(1 for a in anns if a.get("was_cancelled") and user_id(a.get("completed_by")) != bot_id)
            if cancelled_count
            else 0
        )
        preds = [p for p in task.get("predictions") or [] if isinstance(p, dict)]
        by_version = {v: [p for p in preds if p.get("model_version") == v] for v in mine}
        # the gold: a prediction wherever there is one; an annotation only where the humans reached the overlap
        desired: list = []
        if gold and n_human >= min_annotations:
            for name in controls:
                desired += analysis.controls[name].gold.get(tid, [])
        if gold:
            gp = by_version[gold_version]
            if desired:
                body = {"task": tid, "result": desired, "model_version": gold_version}
                if not gp:
                    changes.append(Change("create_prediction", tid, body=body))
                elif canonical(gp[0].get("result")) != canonical(desired):
                    changes.append(Change("update_prediction", tid, gp[0]["id"], {"result": desired}))
                changes += [Change("delete_prediction", tid, p["id"]) for p in gp[1:]]
            else:
                changes += [Change("delete_prediction", tid, p["id"]) for p in gp]
            if desired and n_done >= overlap:
                if not ours:
                    changes.append(Change("create_annotation", tid, body=desired))
                elif canonical(ours[0].get("result")) != canonical(desired):
                    changes.append(Change("update_annotation", tid, ours[0]["id"], desired))
                changes += [Change("delete_annotation", tid, a["id"]) for a in ours[1:]]
            else:
                changes += [Change("delete_annotation", tid, a["id"]) for a in ours]
        # agreement prediction
        score = _rounded(analysis.task_score(tid))
        sp = by_version[model_version]
        if score is not None:
            body = {"task": tid, "result": [], "score": score, "model_version": model_version}
            if not sp:
                changes.append(Change("create_prediction", tid, body=body))
            elif _num(sp[0].get("score")) is None or abs(_num(sp[0].get("score")) - score) > 1e-9:
                changes.append(Change("update_prediction", tid, sp[0]["id"], {"score": score}))
            changes += [Change("delete_prediction", tid, p["id"]) for p in sp[1:]]
        else:
            changes += [Change("delete_prediction", tid, p["id"]) for p in sp]
        # task data fields (field None: none at all, e.g. --no-field)
        if field is None:
            continue
        values: dict[str, Any] = {field: score}
        if per_control:
            for name in controls:
                values[f"{field}_{name}"] = _rounded(analysis.controls[name].task_agreement.get(tid, math.nan))
        agreed = n_human >= min_annotations and any(tid in analysis.controls[n].task_agreement.index for n in controls)
        if gold:
            status = None
            if agreed:
                status = "annotation" if desired and n_done >= overlap else "prediction" if desired else "none"
            values[GOLD_FIELD] = status
        values[REVIEW_FIELD] = ("yes" if tid in tied else "no") if agreed else None
        values.update(review_values(analysis, tid, agreed))  # iaa_needs_review, iaa_confused (quality.py)
        data = task.get("data") or {}
        update = {k: v for k, v in values.items() if not (k not in data and v is None) and not _same(data.get(k), v)}
        if update:
            changes.append(Change("update_data", tid, body=update))
    if set_model_version and project.raw.get("model_version") != model_version:
        changes.append(Change("update_project", None, body={"model_version": model_version}))
    return changes


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, str) or isinstance(a, str):
        return a == b
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(float(a) - float(b)) <= 1e-9


def apply(
    api: Api,
    project_id: int,
    changes: list[Change],
    *,
    bot_id: int,
    caller_id: int | None = None,
    workers: int = 4,
    progress: bool | None = None,
    bulk: bool = True,
    gold_version: str = GOLD_VERSION,
    info: dict | None = None,
) -> Counter:
    """Perform the writes. Returns counts per kind; ``info`` (a dict) receives how they were made.

    Order: updates and deletions of the connector's own objects (request by request, in parallel); all new
    predictions in ONE import (each import recounts the whole project); new gold annotations (in bulk by
    ``predictions_to_annotations`` when the caller is the plugin's user ``bot_id``, else one request per
    task); task data (``add_data_field`` per distinct value, else read-modify-write per task); the project last.
    """
    from . import bulk as _bulk

    done: Counter = Counter()
    info = {} if info is None else info
    info.setdefault("annotations", "none")
    info.setdefault("data", "none")
    bar = Progress(len(changes), "writing", show=progress)

    def one(c: Change) -> str:
        if c.kind == "create_annotation":
            api.create_annotation(c.task, c.body, bot_id)
        elif c.kind == "update_annotation":
            api.update_annotation(c.target, c.body)
        elif c.kind == "delete_annotation":
            api.delete_annotation(c.target)
        elif c.kind == "update_prediction":
            api.update_prediction(c.target, c.body)
        elif c.kind == "delete_prediction":
            api.delete_prediction(c.target)
        elif c.kind == "update_data":
            api.merge_task_data(c.task, c.body)  # read-modify-write of the server's current data
        return c.kind

    def parallel(items: list[Change]) -> None:
        if not items:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            futures = [pool.submit(one, c) for c in items]
            for fut in as_completed(futures):
                done[fut.result()] += 1  # the first failure stops everything not yet started
                bar.update()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    by_kind: dict[str, list[Change]] = defaultdict(list)
    for c in changes:
        by_kind[c.kind].append(c)
    try:
        parallel(by_kind["delete_prediction"] + by_kind["update_prediction"] + by_kind["delete_annotation"])
        parallel(by_kind["update_annotation"])
        creates = [c.body for c in by_kind["create_prediction"]]
        if creates:  # one call: the server recounts the whole project per import
            api.import_predictions(project_id, creates)
            done["create_prediction"] += len(creates)
            bar.update(len(creates))
        new = by_kind["create_annotation"]
        if new:
            left = new
            if bulk and caller_id is not None and caller_id == bot_id:
                left, why = _bulk.gold_annotations(api, project_id, new, bot_id=bot_id, gold_version=gold_version)
                n_bulk = len(new) - len(left)
                done["create_annotation"] += n_bulk
                bar.update(n_bulk)
                info["annotations"] = "predictions_to_annotations" + (f" ({len(left)} per request)" if left else "")
                if why:
                    info["annotations_fallback"] = why
            else:
                info["annotations"] = "per request" + (
                    "" if caller_id == bot_id else " (the token is not the plugin's service account)"
                )
            parallel(left)
        data = by_kind["update_data"]
        if data:
            rest = data
            if bulk:
                rest, n_calls, why = _bulk.data_fields(api, project_id, data)
                n_bulk = len(data) - len(rest)
                done["update_data"] += n_bulk
                bar.update(n_bulk)
                if n_calls:
                    info["data"] = f"add_data_field ({n_calls} calls)" + (f", {len(rest)} per task" if rest else "")
                else:
                    info["data"] = "per task" + (f" ({why})" if why else "")
            else:
                info["data"] = "per task"
            parallel(rest)
        for c in by_kind["update_project"]:  # last: the server accepts a model_version only once a prediction has it
            api.update_project(project_id, c.body)
            done[c.kind] += 1
            bar.update()
    finally:
        bar.close()
    return done


def sync(
    api: Api,
    project_id: int,
    *,
    iou_threshold: float | None = None,
    primary: str | None = None,
    dry_run: bool = False,
    field: str | None = "iaa_agreement",
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
) -> dict:
    """Pull, compute, plan and (unless ``dry_run``) write. Returns the summary (also saved under ``summary_dir``).

    With a ``state`` store the pull reads only what changed since the previous run (``full=True``: everything;
    ``refresh``: these tasks in any case), and after writing, the written tasks are read back: the state stays
    current and the summary's ``after`` says what a new plan would still write (nothing, unless somebody
    changed the project meanwhile). ``set_model_version``: also make the agreement predictions the project's
    ``model_version`` (the Data Manager then shows their score; it also picks the predictions annotators get as
    pre-labels, so it is never done unless asked). ``bulk=False``: every write request by request. ``tabs``:
    create the Data Manager tabs of :mod:`iaa_label_studio.tabs` when missing (with the data fields only).
    ``models``: prediction model versions that join as model raters (:mod:`iaa_label_studio.quality`; never the
    connector's own versions).
    """
    t0 = time.perf_counter()
    me = api.whoami() or {}
    service = str(me.get("email", "")).lower() == PLUGIN_EMAIL  # the token is the plugin's service account
    bot = api.plugin_user(create=not dry_run)
    bot_id = bot["id"] if bot else None
    project = pull(
        api, project_id, plugin_user=bot_id, progress=progress, state=state, full=full, refresh=refresh, workers=workers
    )
    t_pull = time.perf_counter() - t0
    raters = dict(models=models, own_versions=(model_version, GOLD_VERSION))  # model raters (quality.py)
    analysis = analyse(project, iou_threshold=iou_threshold, primary=primary, **raters)
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
            bot_id=bot_id,
            caller_id=me.get("id"),
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
    if not dry_run and tabs and field is not None:
        from .tabs import ensure_tabs

        how["tabs"] = ensure_tabs(api, project_id, analysis, field=field, gold=gold)
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
    if html and analysis.primary and analysis.controls[analysis.primary].data is not None:
        import iaa_engine as ie

        hpath = out / f"iaa-ls-{project_id}.html"
        _write_private(
            hpath,
            lambda tmp: ie.write_html_report(
                analysis.controls[analysis.primary].data,
                tmp,
                n_boot=n_boot,
                title=f"Agreement of Label Studio project {project_id} ({analysis.primary})",
                progress=False,
            ),
        )
        summary["files"].append(str(hpath))
    text = json.dumps(summary, indent=2, default=str) + "\n"
    _write_private(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def render_summary(s: dict) -> str:
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
    if counts:
        lines.append(f"{head}: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items())))
    else:
        lines.append("nothing to change")
    if s["dry_run"]:
        lines += ["  " + e for e in s["examples"]]
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
        lines += ["  " + line for line in render_quality(details.get("quality"))]  # scorecard, gold, models
    for f in s.get("files", []):
        lines.append(f"summary saved to {f}")
    return "\n".join(lines)
