"""What the previous run read of a project, kept on disk so that the next run reads only what changed.

A full read of a large project is the slowest step of a re-sync (the server serialises every annotation:
~1.6 ms per task). With the state of the previous run, a pull asks the server which tasks changed since then
(one Data Manager query filtered on ``updated_at``), reads those tasks only, and then checks the result
against the project's live counters (tasks, annotations, cancelled annotations, ground truths, predictions):
any difference, or a large share of changed tasks, falls back to a full read. Label Studio moves a task's
``updated_at`` whenever an annotation or prediction of it is saved or deleted through the API and whenever the
task itself is saved; bulk actions that do not (deleting annotations or tasks from the Data Manager, bulk
imports) change the counters instead. One bulk action changes neither: the Data Manager's experimental
"Rename Labels"; ``--full`` reads everything.

The state holds the tasks as read (data, and of every annotation the fields agreement needs), so it lives
in a private directory (mode 0700, files 0600): ``$IAA_LS_STATE_DIR``, else
``$XDG_CACHE_HOME/iaa-engine/label-studio``, else ``~/.cache/iaa-engine/label-studio``. Deleting it is
always safe: the next run reads everything.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .convert import user_id

__all__ = ["StateStore", "PullState", "default_state_dir", "slim_task", "FORMAT"]

FORMAT = 1
_ANN_KEYS = ("id", "completed_by", "result", "was_cancelled", "ground_truth", "updated_at")
_PRED_KEYS = ("id", "model_version", "score")


def default_state_dir() -> Path:
    env = os.environ.get("IAA_LS_STATE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "iaa-engine" / "label-studio"


def slim_task(task: dict) -> dict:
    """The fields of a task the connector uses (the same whichever endpoint it came from)."""
    anns = []
    for a in task.get("annotations") or []:
        if isinstance(a, dict):
            b = {k: a.get(k) for k in _ANN_KEYS}
            b["completed_by"] = user_id(b["completed_by"])
            anns.append(b)
    preds = [{k: p.get(k) for k in _PRED_KEYS} for p in task.get("predictions") or [] if isinstance(p, dict)]
    return {
        "id": int(task["id"]),
        "data": task.get("data") or {},
        "updated_at": task.get("updated_at"),
        "annotations": anns,
        "predictions": preds,
    }


def counts_of(tasks: list[dict]) -> dict[str, int]:
    """The project counters Label Studio reports, computed from tasks as read."""
    anns = [a for t in tasks for a in t.get("annotations") or []]
    return {
        "task_number": len(tasks),
        "total_annotations_number": sum(1 for a in anns if not a.get("was_cancelled")),
        "skipped_annotations_number": sum(1 for a in anns if a.get("was_cancelled")),
        "ground_truth_number": sum(1 for a in anns if a.get("ground_truth")),
        "total_predictions_number": sum(len(t.get("predictions") or []) for t in tasks),
    }


def counts_differ(project: dict, tasks: list[dict]) -> list[str]:
    """Which live counters of ``project`` (the project's API answer) differ from ``tasks``."""
    mine = counts_of(tasks)
    return [
        f"{k} {mine[k]} read vs {project[k]} on the server"
        for k in mine
        if isinstance(project.get(k), int) and project[k] != mine[k]
    ]


@dataclass
class PullState:
    """The tasks of one project as last read, and the server time from which changes must be looked for."""

    url: str
    project: int
    watermark: datetime | None
    tasks: dict[int, dict] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "url": self.url,
            "project": self.project,
            "watermark": self.watermark.isoformat() if self.watermark else None,
            "tasks": list(self.tasks.values()),
        }

    @classmethod
    def from_json(cls, d: dict) -> PullState:
        wm = datetime.fromisoformat(d["watermark"]) if d.get("watermark") else None
        return cls(d["url"], int(d["project"]), wm, {int(t["id"]): t for t in d["tasks"]})


class StateStore:
    """One file per (server, project) in ``directory``."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_state_dir()

    def path(self, url: str, project: int) -> Path:
        key = hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:16]
        return self.directory / f"{key}-project-{int(project)}.json.gz"

    def load(self, url: str, project: int) -> PullState | None:
        """The saved state, or None when there is none or it cannot be used (any problem means: read all)."""
        path = self.path(url, project)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                d = json.load(f)
            if d.get("format") != FORMAT or d.get("url") != url.rstrip("/") or int(d.get("project")) != project:
                return None
            return PullState.from_json(d)
        except (OSError, ValueError, KeyError, TypeError, EOFError):
            return None

    def save(self, state: PullState) -> Path:
        """Write atomically (temporary file + rename), readable by the owner only."""
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            os.chmod(self.directory, 0o700)
        except OSError:
            pass
        path = self.path(state.url, state.project)
        state.url = state.url.rstrip("/")
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=self.directory)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as f:
                f.write(json.dumps(state.to_json(), separators=(",", ":")).encode("utf-8"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path
