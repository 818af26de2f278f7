"""Write gold labels and agreement back to a project, idempotently and without touching a human's annotation.

Per task, from the current state of the server (so a re-run, or a run after a
crash, only does what is still missing):

* the gold label(s) as one annotation completed by the plugin's own user
  (:data:`iaa_label_studio.api.PLUGIN_EMAIL`): created, updated when it changed,
  left alone when equal; duplicates of the plugin's own annotation are removed;
* the task's agreement as a prediction with ``model_version`` (bulk import for new
  ones; the project's ``model_version`` is set so the Data Manager shows the score);
* the agreement as a task data field (read-merge-write of ``data``).

Only the plugin's own annotations and predictions are ever updated or deleted.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iaa_engine.base import Progress

from .api import Api
from .convert import human_annotations, user_id
from .project import Analysis, analyse, pull
from .state import StateStore

__all__ = ["Change", "plan", "apply", "sync", "save_summary", "render_summary", "canonical"]


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
    update_prediction, delete_prediction, update_data, update_project."""

    kind: str
    task: int | None
    target: int | None = None  # annotation / prediction id
    body: Any = None

    def describe(self) -> str:
        what = self.kind.replace("_", " ")
        where = f"task {self.task}" if self.task is not None else "project"
        extra = ""
        if self.kind.endswith("prediction") and isinstance(self.body, dict) and "score" in self.body:
            extra = f" score {self.body['score']:.4f}"
        if self.kind == "update_data":
            extra = " " + ", ".join(f"{k}={v if v is None else round(v, 4)}" for k, v in self.body[1].items())
        return f"{what} ({where}{', id ' + str(self.target) if self.target else ''}){extra}"


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def plan(
    analysis: Analysis,
    *,
    bot_id: int | None,
    field: str | None = "iaa_agreement",
    model_version: str = "iaa-engine-agreement",
    gold: bool = True,
    min_annotations: int = 2,
) -> list[Change]:
    """Every write needed to bring the project to the computed state (nothing for what is already there)."""
    changes: list[Change] = []
    project = analysis.project
    controls = [n for n, r in analysis.controls.items() if r.data is not None]
    per_control = len(controls) > 1
    for task in project.tasks:
        tid = int(task["id"])
        anns = task.get("annotations") or []
        ours = [a for a in anns if bot_id is not None and user_id(a.get("completed_by")) == bot_id]
        n_human = len(
            {user_id(a.get("completed_by")) for a in human_annotations(task, [] if bot_id is None else [bot_id])}
        )
        # gold annotation
        desired: list = []
        if gold and n_human >= min_annotations:
            for name in controls:
                desired += analysis.controls[name].gold.get(tid, [])
        if not gold:
            pass  # --no-gold: the plugin's annotations are left as they are
        elif desired:
            if not ours:
                changes.append(Change("create_annotation", tid, body=desired))
            elif canonical(ours[0].get("result")) != canonical(desired):
                changes.append(Change("update_annotation", tid, ours[0]["id"], desired))
            changes += [Change("delete_annotation", tid, a["id"]) for a in ours[1:]]
        else:
            changes += [Change("delete_annotation", tid, a["id"]) for a in ours]
        # agreement prediction
        score = _num(analysis.task_score(tid))
        preds = [
            p for p in task.get("predictions") or [] if isinstance(p, dict) and p.get("model_version") == model_version
        ]
        if score is not None:
            body = {"task": tid, "result": [], "score": score, "model_version": model_version}
            if not preds:
                changes.append(Change("create_prediction", tid, body=body))
            elif _num(preds[0].get("score")) is None or abs(_num(preds[0].get("score")) - score) > 1e-12:
                changes.append(Change("update_prediction", tid, preds[0]["id"], {"score": score}))
            changes += [Change("delete_prediction", tid, p["id"]) for p in preds[1:]]
        else:
            changes += [Change("delete_prediction", tid, p["id"]) for p in preds]
        # task data field(s): read-merge-write (field None: no data field, e.g. --no-field)
        if field is None:
            continue
        values = {field: score}
        if per_control:
            for name in controls:
                values[f"{field}_{name}"] = _num(analysis.controls[name].task_agreement.get(tid, math.nan))
        data = task.get("data") or {}
        update = {k: v for k, v in values.items() if not (k not in data and v is None) and not _same(data.get(k), v)}
        if update:
            changes.append(Change("update_data", tid, body=(data, update)))
    has_scores = any(c.kind == "create_prediction" for c in changes) or any(
        p.get("model_version") == model_version
        for t in project.tasks
        for p in t.get("predictions") or []
        if isinstance(p, dict)
    )
    if has_scores and project.raw.get("model_version") != model_version:
        changes.append(Change("update_project", None, body={"model_version": model_version}))
    return changes


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return isinstance(a, (int, float)) and abs(float(a) - float(b)) <= 1e-12


def apply(
    api: Api, project_id: int, changes: list[Change], *, bot_id: int, workers: int = 4, progress: bool | None = None
) -> Counter:
    """Perform the writes; new predictions in bulk, the rest in parallel. Returns counts per kind."""
    done: Counter = Counter()
    bar = Progress(len(changes), "writing", show=progress)
    creates = [c.body for c in changes if c.kind == "create_prediction"]

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
            # read-merge-write: PATCH replaces data wholesale, so send the data read by the pull with our fields
            api.update_task_data(c.task, {**c.body[0], **c.body[1]})
        return c.kind

    rest = [c for c in changes if c.kind not in ("update_project", "create_prediction")]
    try:
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            futures = [pool.submit(one, c) for c in rest]
            for fut in as_completed(futures):
                done[fut.result()] += 1  # the first failure stops everything not yet started
                bar.update()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        for i in range(0, len(creates), 1000):
            chunk = creates[i : i + 1000]
            api.import_predictions(project_id, chunk)
            done["create_prediction"] += len(chunk)
            bar.update(len(chunk))
        for c in changes:  # last: the server accepts a model_version only once a prediction carries it
            if c.kind == "update_project":
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
    model_version: str = "iaa-engine-agreement",
    gold: bool = True,
    workers: int = 4,
    summary_dir: str | Path | None = None,
    html: bool = True,
    progress: bool | None = None,
    n_boot: int = 200,
    state: StateStore | None = None,
    full: bool = False,
    refresh: Iterable[int] = (),
) -> dict:
    """Pull, compute, plan and (unless ``dry_run``) write. Returns the summary (also saved under ``summary_dir``).

    With a ``state`` store the pull reads only what changed since the previous run (``full=True``: everything;
    ``refresh``: these tasks in any case), and after writing, the written tasks are read back: the state stays
    current and the summary's ``after`` says what a new plan would still write (nothing, unless somebody
    changed the project meanwhile).
    """
    t0 = time.perf_counter()
    bot = api.plugin_user(create=not dry_run)
    bot_id = bot["id"] if bot else None
    project = pull(api, project_id, plugin_user=bot_id, progress=progress, state=state, full=full, refresh=refresh)
    t_pull = time.perf_counter() - t0
    analysis = analyse(project, iou_threshold=iou_threshold, primary=primary)
    t_compute = time.perf_counter() - t0 - t_pull
    opts = dict(bot_id=bot_id, field=field, model_version=model_version, gold=gold)
    changes = plan(analysis, **opts)
    planned = Counter(c.kind for c in changes)
    done: Counter = Counter()
    after: dict[str, Any] | None = None
    if not dry_run and changes:
        done = apply(api, project_id, changes, bot_id=bot_id, workers=workers, progress=progress)
        if state is not None:  # read back what was written (keeps the state current) and plan again
            touched = {c.task for c in changes if c.task is not None}
            back = pull(api, project_id, plugin_user=bot_id, progress=progress, state=state, refresh=touched)
            left = plan(analyse(back, iou_threshold=iou_threshold, primary=primary), **opts)
            after = {"pull": back.pull_info, "left": dict(Counter(c.kind for c in left))}
    t_end = time.perf_counter()
    summary: dict[str, Any] = {
        "project": project_id,
        "dry_run": dry_run,
        "n_tasks": len(project.tasks),
        "plugin_user": {"id": bot_id, "email": bot.get("email") if bot else None},
        "model_version": model_version,
        "field": field,
        "primary_control": analysis.primary,
        "pull": project.pull_info,
        "planned": dict(planned),
        "done": dict(done),
        "after": after,
        "unchanged_tasks": len(project.tasks) - len({c.task for c in changes if c.task is not None}),
        "examples": [c.describe() for c in changes[:20]],
        "seconds": {"pull": t_pull, "compute": t_compute, "pull_and_compute": t_pull + t_compute, "total": t_end - t0},
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
        lines.append(f"read all {pi['read']} tasks ({pi.get('reason')})")
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
    for f in s.get("files", []):
        lines.append(f"summary saved to {f}")
    return "\n".join(lines)
