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

The state holds the tasks as read (data, and of every annotation the fields agreement needs), so its files
are private (mode 0600) in ``$IAA_LS_STATE_DIR``, else ``$XDG_CACHE_HOME/iaa-engine/label-studio``, else
``~/.cache/iaa-engine/label-studio`` (or ``--state-dir``). A directory the connector creates is made 0700; an
existing one is never changed (a warning says so when others may enter it). Deleting the state is always safe:
the next run reads everything.

A saved state is used only when it checks out: a regular file of this user (never a FIFO, a device or a
symbolic link: nothing is opened that could block), gzip that decompresses to at most
:data:`MAX_STATE_BYTES`, and JSON of the expected shape for this server and project. Anything else is ignored
and everything is read; the reason is the ``pull`` reason of the summary.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

from .convert import user_id

__all__ = ["StateStore", "PullState", "default_state_dir", "slim_task", "FORMAT", "MAX_STATE_BYTES", "NO_STATE"]

#: 2: predictions keep their result (the gold predictions are compared with it); 3: annotations their times; 4: who
#: last saved an annotation, its time in the editor and the prediction it was copied from (adjudications)
FORMAT = 4
_ANN_KEYS = (
    "id",
    "completed_by",
    "result",
    "was_cancelled",
    "ground_truth",
    "created_at",
    "updated_at",
    "updated_by",
    "lead_time",
    "parent_prediction",
)
_PRED_KEYS = ("id", "model_version", "score", "result")
#: the largest decompressed state read (~2 kB per task with three annotations: ~130,000 tasks). Checked before
#: anything is parsed (the file's size and its gzip trailer first, then while decompressing: a gzip bomb stops
#: here): parsed JSON takes ~7.6 times its size in memory, so this bounds a state read at about 2 GB
MAX_STATE_BYTES = 256 << 20
#: the pull reason when there is no saved state at all
NO_STATE = "no saved state"


def default_state_dir() -> Path:
    env = os.environ.get("IAA_LS_STATE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "iaa-engine" / "label-studio"


def _id(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63


def _annotation_problem(a: object) -> str | None:
    """Why an annotation as read cannot be used (its shape), or None."""
    if not isinstance(a, dict):
        return "an annotation that is not a JSON object"
    if not _id(a.get("id")):
        return "an annotation whose id is not a whole number"
    who = user_id(a.get("completed_by"))
    if who is not None and not _id(who):
        return "an annotation whose completed_by is not a user id"
    result = a.get("result")
    if result is not None and not isinstance(result, list):
        return "an annotation whose result is not a list"
    if any(not isinstance(r, dict) for r in result or []):
        return "an annotation with a result that is not a JSON object"
    return None


def _prediction_problem(p: object) -> str | None:
    if not isinstance(p, dict) or not _id(p.get("id")):
        return "a prediction that is not a JSON object with an id"
    result = p.get("result")
    if (result is not None and not isinstance(result, list)) or any(not isinstance(r, dict) for r in result or []):
        return "a prediction whose result is not a list of JSON objects"
    return None


def _flag(x: object, key: str) -> bool:
    return bool(x.get(key)) if isinstance(x, dict) else False


def slim_task(task: dict) -> dict:
    """The fields of a task the connector uses (the same whichever endpoint it came from). ``task`` is an object
    with a checked ``id`` and ``data`` (:mod:`iaa_label_studio.read`); annotations and predictions of the wrong
    shape are set aside: listed under ``set_aside`` (``{"reason", "kind", "was_cancelled", "ground_truth"}``) so
    that the report counts them and the project's counters still match, never used."""
    anns, preds, aside = [], [], []
    found = task.get("annotations") or []
    if not isinstance(found, list):
        aside.append({"reason": "annotations that are not a list", "kind": "annotation"})
        found = []
    for a in found:
        why = _annotation_problem(a)
        if why is not None:
            aside.append(
                {
                    "reason": why,
                    "kind": "annotation",
                    "was_cancelled": _flag(a, "was_cancelled"),
                    "ground_truth": _flag(a, "ground_truth"),
                }
            )
            continue
        b = {k: a.get(k) for k in _ANN_KEYS}
        b["completed_by"] = user_id(b["completed_by"])
        b["updated_by"] = user_id(b["updated_by"])
        anns.append(b)
    found = task.get("predictions") or []
    if not isinstance(found, list):
        aside.append({"reason": "predictions that are not a list", "kind": "prediction"})
        found = []
    for p in found:
        why = _prediction_problem(p)
        if why is not None:
            aside.append({"reason": why, "kind": "prediction"})
            continue
        preds.append({k: p.get(k) for k in _PRED_KEYS})
    out = {
        "id": int(task["id"]),
        "data": task.get("data") or {},
        "updated_at": task.get("updated_at"),
        "annotations": anns,
        "predictions": preds,
    }
    if aside:
        out["set_aside"] = aside
    return out


def counts_of(tasks: list[dict]) -> dict[str, int]:
    """The project counters Label Studio reports, computed from tasks as read."""
    aside = [x for t in tasks for x in t.get("set_aside") or []]  # counted by the server all the same
    anns = [a for t in tasks for a in t.get("annotations") or []] + [x for x in aside if x["kind"] == "annotation"]
    return {
        "task_number": len(tasks),
        "total_annotations_number": sum(1 for a in anns if not a.get("was_cancelled")),
        "skipped_annotations_number": sum(1 for a in anns if a.get("was_cancelled")),
        "ground_truth_number": sum(1 for a in anns if a.get("ground_truth")),
        "total_predictions_number": sum(len(t.get("predictions") or []) for t in tasks)
        + sum(1 for x in aside if x["kind"] == "prediction"),
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


class StateProblem(ValueError):
    """Why a saved state cannot be used (one line)."""


def _int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_shape(d: object, url: str, project: int) -> None:
    """Raise :class:`StateProblem` unless ``d`` is a state of the expected shape for ``url`` and ``project``."""
    if not isinstance(d, dict):
        raise StateProblem(f"not a JSON object but a {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise StateProblem(f"format {d.get('format')!r}, expected {FORMAT}")
    if d.get("url") != url.rstrip("/") or not _int(d.get("project")) or d["project"] != int(project):
        raise StateProblem("saved for another server or project")
    wm = d.get("watermark")
    if wm is not None:
        if not isinstance(wm, str):
            raise StateProblem("watermark is not a date")
        try:
            when = datetime.fromisoformat(wm)
        except ValueError:
            raise StateProblem("watermark is not a date") from None
        if when.tzinfo is None:
            raise StateProblem("watermark has no time zone")
    tasks = d.get("tasks")
    if not isinstance(tasks, list):
        raise StateProblem("tasks is not a list")
    for t in tasks:
        if not isinstance(t, dict) or not _int(t.get("id")):
            raise StateProblem("a task is not an object with an integer id")
        if not isinstance(t.get("data"), dict) or not isinstance(t.get("updated_at"), (str, type(None))):
            raise StateProblem(f"task {t['id']}: data or updated_at of the wrong type")
        anns, preds = t.get("annotations"), t.get("predictions")
        if not isinstance(anns, list) or not isinstance(preds, list):
            raise StateProblem(f"task {t['id']}: annotations or predictions not a list")
        for a in anns:
            if (
                not isinstance(a, dict)
                or not _int(a.get("id"))
                or not (a.get("completed_by") is None or _int(a.get("completed_by")))
                or not isinstance(a.get("result"), (list, type(None)))
            ):
                raise StateProblem(f"task {t['id']}: an annotation of the wrong shape")
        for q in preds:
            if not isinstance(q, dict) or not _int(q.get("id")):
                raise StateProblem(f"task {t['id']}: a prediction of the wrong shape")
        aside = t.get("set_aside", [])
        if not isinstance(aside, list) or not all(
            isinstance(x, dict) and isinstance(x.get("reason"), str) and x.get("kind") in ("annotation", "prediction")
            for x in aside
        ):
            raise StateProblem(f"task {t['id']}: set_aside of the wrong shape")


def _read_bounded(path: Path, limit: int) -> bytearray:
    """The decompressed bytes of ``path``; raises :class:`StateProblem` for anything but a regular gzip file of
    this user decompressing to at most ``limit`` bytes. Never blocks on a FIFO or device, never follows a link."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StateProblem(f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise StateProblem("not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise StateProblem(f"cannot be opened ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as raw:
        st = os.fstat(fd)  # the file opened, not the name checked above
        if not stat.S_ISREG(st.st_mode):
            raise StateProblem("not a regular file")
        if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
            raise StateProblem("owned by another user")
        # the size first: compressed data larger than the limit is refused unread (gzip never shrinks by more than
        # a few bytes per 64 kB); then the bound while decompressing, before anything is parsed
        if st.st_size > limit + limit // 64 + 4096:
            raise StateProblem(f"decompresses to more than {limit} bytes (the file alone has {st.st_size})")
        out = bytearray()
        try:
            with gzip.GzipFile(fileobj=raw, mode="rb") as f:
                while True:
                    chunk = f.read(min(1 << 20, limit + 1 - len(out)))
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > limit:
                        raise StateProblem(f"decompresses to more than {limit} bytes")
        except (OSError, EOFError, zlib.error) as exc:
            raise StateProblem(
                f"not a valid gzip file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
            ) from None
    return out  # no copy: the limit bounds the memory once


class StateStore:
    """One file per (server, project) in ``directory``."""

    def __init__(
        self, directory: str | Path | None = None, *, max_bytes: int = MAX_STATE_BYTES, warn: TextIO | None = None
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_state_dir()
        self.max_bytes = int(max_bytes)
        self._warn = warn  # where the one-line warning about a shared directory goes (default: stderr)
        self._warned = False

    def path(self, url: str, project: int) -> Path:
        key = hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:16]
        return self.directory / f"{key}-project-{int(project)}.json.gz"

    def load(self, url: str, project: int) -> PullState | None:
        """The saved state, or None when there is none or it cannot be used (any problem means: read all)."""
        return self.read(url, project)[0]

    def read(self, url: str, project: int) -> tuple[PullState | None, str | None]:
        """``(state, None)``, or ``(None, why)`` when there is no usable state: :data:`NO_STATE`, or
        ``"saved state ignored: <problem>"``."""
        path = self.path(url, project)
        try:
            raw = _read_bounded(path, self.max_bytes)
            try:
                d = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                raise StateProblem("not valid JSON") from None
            _check_shape(d, url, project)
            return PullState.from_json(d), None
        except FileNotFoundError:
            return None, NO_STATE
        except StateProblem as exc:
            return None, f"saved state ignored: {path.name} {exc}"
        except (OSError, ValueError, KeyError, TypeError, EOFError, MemoryError) as exc:  # a last resort
            return None, f"saved state ignored: {path.name} cannot be used ({type(exc).__name__})"

    def _ensure_directory(self) -> None:
        """Create the directory 0700 when missing; an existing one is left as it is (a warning when others may
        enter it: then the files alone, 0600, keep the state private)."""
        d = self.directory
        if not d.exists():
            d.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.mkdir(d, 0o700)
                os.chmod(d, 0o700)  # ours: the umask must not widen it
                return
            except FileExistsError:
                pass  # created meanwhile by someone else: treated as existing
        if not d.is_dir():
            raise NotADirectoryError(f"the state directory {d} is not a directory")
        mode = d.stat().st_mode & 0o7777
        if mode & 0o077 and not self._warned:
            self._warned = True
            (self._warn or sys.stderr).write(
                f"iaa: warning: the state directory {d} is accessible to others (mode {mode:o}); "
                "left unchanged, the state files are private (0600)\n"
            )

    def save(self, state: PullState) -> Path:
        """Write atomically (temporary file + rename), readable by the owner only."""
        self._ensure_directory()
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
