"""The few Label Studio endpoints the connector uses, as plain JSON; the SDK used as a library.

Why not the SDK's resource methods for everything: they parse the server's answers into models and would
re-serialise annotations, while the connector compares and keeps them byte for byte. So the JSON endpoints go
through a plain ``httpx.Client`` that :class:`Api` owns, and the SDK's public client (``label_studio_sdk.
LabelStudio``, built on the same connection pool through its public ``httpx_client`` argument, available as
``Api.client``) does what the SDK knows better: exchanging a personal access token (a JWT refresh token) for an
access token (``client.tokens.refresh``). Nothing reaches into the SDK's private attributes. The label config is
read with the SDK's ``LabelInterface`` (:mod:`iaa_label_studio.convert`).

Every failure becomes :class:`LabelStudioError` with a one-line message that never contains the token, nor
credentials written into the URL (``http://user:password@host``): :func:`redact_url` is the only form of the URL
ever shown or stored.
"""

from __future__ import annotations

import json as _json
import time
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

from .names import PLUGIN_EMAIL, PLUGIN_FIRST, PLUGIN_LAST

__all__ = ["LabelStudioError", "Api", "Connection", "connect", "redact_url", "scrub", "PLUGIN_EMAIL"]


class LabelStudioError(Exception):
    """A connection or API problem, said in one line."""


def redact_url(url: str) -> str:
    """``url`` without the credentials of its authority (``http://user:pw@host/x`` -> ``http://***@host/x``)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))
    except ValueError:  # unparseable: hide anything that looks like credentials
        head, sep, rest = url.partition("://")
        return head + sep + "***@" + rest.rpartition("@")[2] if "@" in rest else url


def _credentials(url: str) -> list[str]:
    """The secret parts of ``url``'s authority (user info, password, in raw and decoded forms), longest first."""
    from urllib.parse import unquote, urlsplit

    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        netloc = url.partition("://")[2].partition("/")[0]
    if "@" not in netloc:
        return []
    info = netloc.rpartition("@")[0]
    user, _, password = info.partition(":")
    found = {info + "@", unquote(info) + "@"}  # as written in a URL: always
    # alone (quoted by a message in another form): unless so short that hiding it would garble the message
    found |= {x for x in (password, unquote(password)) if len(x) >= 4}
    found |= {x for x in (user, unquote(user)) if len(x) >= 4} if not password else set()
    return sorted((x for x in found if x and x != "@"), key=len, reverse=True)


def scrub(text: str, url: str | None) -> str:
    """``text`` with the credentials of ``url`` (if any) replaced by ``***``."""
    if not url:
        return text
    text = text.replace(url, redact_url(url)).replace(url.rstrip("/"), redact_url(url.rstrip("/")))
    for secret in _credentials(url):
        text = text.replace(secret, "***@" if secret.endswith("@") else "***")
    return text


class Connection(NamedTuple):
    """Where a server is and the token to use (``Api(Connection(url, token))`` or ``Api(url, token)``)."""

    url: str
    token: str


#: the longest query string of ids an export request carries: the request line stays under gunicorn's
#: default limit of 4,094 bytes (uWSGI's Docker setting allows 65,535; nginx 8,192)
ID_QUERY_CHARS = 3_000


def id_chunks(ids: Iterable[int], max_chars: int | None = None, per_id_extra: int = 11) -> Iterator[list[int]]:
    """``ids`` in consecutive lists whose query string fits in ``max_chars`` (default :data:`ID_QUERY_CHARS`), each
    id taking its digits and ``per_id_extra`` characters (11: ``ids%5B%5D=<id>&``; 3: ``<id>%2C`` in JSON)."""
    max_chars = ID_QUERY_CHARS if max_chars is None else max_chars
    chunk: list[int] = []
    used = 0
    for i in ids:
        n = len(str(int(i))) + per_id_extra
        if chunk and used + n > max_chars:
            yield chunk
            chunk, used = [], 0
        chunk.append(int(i))
        used += n
    if chunk:
        yield chunk


def connect(url: str | None, token: str | None) -> Connection:
    """A checked :class:`Connection`; a missing URL or token is an error that names the options."""
    if not url:
        raise LabelStudioError("no Label Studio URL: pass --url or set LABEL_STUDIO_URL")
    if not token:
        raise LabelStudioError("no API token: pass --token or set LABEL_STUDIO_API_KEY")
    if not url.startswith(("http://", "https://")):
        raise LabelStudioError(f"the Label Studio URL must start with http:// or https://; got {redact_url(url)!r}")
    import httpx

    try:
        httpx.URL(url)
    except Exception as exc:  # e.g. an invalid URL: said in one line, without the credentials
        raise LabelStudioError(scrub(f"cannot use the Label Studio URL {url!r}: {exc}", url).splitlines()[0]) from None
    return Connection(url.rstrip("/"), token)


def _refresh_token(token: str) -> bool:
    """Whether ``token`` is a personal access token (a JWT refresh token) rather than a legacy token."""
    if token.count(".") != 2:
        return False
    try:
        import jwt  # PyJWT, a dependency of the SDK

        return jwt.decode(token, options={"verify_signature": False}).get("token_type") == "refresh"
    except Exception:
        return False


class Api:
    """JSON access to one server: ``Api(url, token)`` or ``Api(Connection(url, token))``."""

    def __init__(
        self, where: Connection | str, token: str | None = None, *, retries: int = 2, timeout: float = 60.0
    ) -> None:
        import httpx
        from label_studio_sdk import LabelStudio

        if isinstance(where, Connection) or (isinstance(where, tuple) and len(where) == 2):
            url, token = where
        elif isinstance(where, str) and token:
            url = where
        else:
            raise TypeError("Api(url, token) or Api(Connection(url, token))")
        self.retries = int(retries)
        self._raw_url = str(url).rstrip("/")
        self._token = str(token)
        self._http = httpx.Client(base_url=self._raw_url + "/", timeout=timeout, follow_redirects=True)
        #: the SDK's public client on the same connection pool
        self.client = LabelStudio(base_url=self._raw_url, api_key=self._token, timeout=timeout, httpx_client=self._http)
        self._jwt = _refresh_token(self._token)
        self._access: str | None = None
        #: the server's URL as shown and stored: without credentials (:func:`redact_url`)
        self.base_url = redact_url(self._raw_url)
        #: the server's clock at its latest answer (HTTP ``Date`` header, whole seconds), or None
        self.server_date: datetime | None = None
        #: the HTTP ``Server`` header of its latest answer ("" when none was sent): see :attr:`single_process`
        self.server_software = ""

    def _authorization(self, renew: bool = False) -> str:
        if not self._jwt:
            return f"Token {self._token}"
        if self._access is None or renew:  # a personal access token: the SDK exchanges it for an access token
            try:
                self._access = self.client.tokens.refresh(refresh=self._token).access
            except Exception as exc:
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} refused the personal access token ({type(exc).__name__}); "
                    "check --token / LABEL_STUDIO_API_KEY"
                ) from None
        return f"Bearer {self._access}"

    def request(
        self, method: str, path: str, *, params: dict | None = None, json: Any = None, ok404: bool = False
    ) -> Any:
        try:
            return self._request(method, path, params=params, json=json, ok404=ok404)
        except LabelStudioError as exc:  # whatever a message quotes (an httpx error, the server's answer)
            raise LabelStudioError(scrub(str(exc), self._raw_url)) from None

    def _request(self, method: str, path: str, *, params: dict | None, json: Any, ok404: bool) -> Any:
        import httpx

        attempts = 1 + (0 if method == "POST" else self.retries)
        renewed = False
        for attempt in range(attempts):
            try:
                r = self._http.request(
                    method,
                    path.lstrip("/"),
                    params=params,
                    json=json,
                    headers={"Authorization": self._authorization()},
                )
            except httpx.TimeoutException:
                if attempt + 1 < attempts:
                    continue
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} did not answer in time ({method} {path})"
                ) from None
            except httpx.HTTPError as exc:
                if attempt + 1 < attempts and not isinstance(exc, httpx.ConnectError):
                    time.sleep(0.5 * (attempt + 1))
                    continue
                raise LabelStudioError(
                    f"cannot reach Label Studio at {self.base_url}: {type(exc).__name__}"
                    f"{': ' + str(exc).splitlines()[0] if str(exc) else ''}"
                ) from None
            if r.status_code == 401 and self._jwt and not renewed:  # the access token expired: once more
                renewed = True
                self._authorization(renew=True)
                r = self._http.request(
                    method, path.lstrip("/"), params=params, json=json, headers={"Authorization": self._authorization()}
                )
            if r.status_code in (429, 502, 503, 504) and attempt + 1 < attempts:
                time.sleep(0.5 * (attempt + 1))
                continue
            break
        self.server_software = r.headers.get("server", "")
        date = r.headers.get("date")
        if date:
            try:
                self.server_date = parsedate_to_datetime(date).astimezone(timezone.utc)
            except (TypeError, ValueError):
                pass
        if r.status_code in (401, 403):
            raise LabelStudioError(
                f"Label Studio at {self.base_url} refused the API token (HTTP {r.status_code}); "
                "check --token / LABEL_STUDIO_API_KEY"
            )
        if r.status_code == 404 and ok404:
            return None
        if r.status_code >= 400:
            body = r.text.replace("\n", " ")[:200]
            raise LabelStudioError(
                f"Label Studio answered HTTP {r.status_code} to {method} /{path.lstrip('/')}: {body}"
            )
        if not r.content:
            return None
        try:
            return r.json()
        except ValueError:
            raise LabelStudioError(
                f"{self.base_url} answered {method} /{path.lstrip('/')} with something that is "
                "not JSON: is this a Label Studio server?"
            ) from None

    @property
    def single_process(self) -> bool:
        """Whether the server is Django's development server, which ``label-studio start`` runs: one Python
        process, so parallel reads only add requests. Label Studio's Docker image serves through uWSGI with two
        processes per core (``deploy/uwsgi.ini``), where reading id ranges in parallel divides the time."""
        return self.server_software.startswith("WSGIServer/")

    # ------------------------------------------------------------------ reading

    def version(self) -> dict:
        return self.request("GET", "api/version") or {}

    def whoami(self) -> dict:
        return self.request("GET", "api/current-user/whoami")

    def project(self, project_id: int) -> dict:
        p = self.request("GET", f"api/projects/{int(project_id)}", ok404=True)
        if p is None:
            raise LabelStudioError(
                f"project {project_id} does not exist on {self.base_url} (or this token cannot see it)"
            )
        return p

    def tasks(self, project_id: int, page_size: int = 500, *, query: str | None = None) -> Iterator[dict]:
        """Every task of the project (or those a Data Manager ``query`` selects) with its annotations and
        predictions, page by page (the slowest read; the fallback when the export endpoints are unavailable).
        Storage URIs in ``data`` are kept as stored (``resolve_uri=false``): the data read here may be written
        back. Every page is read, whatever page size the server caps."""
        page = 1
        seen = 0
        params: dict[str, Any] = {"project": int(project_id), "fields": "all", "resolve_uri": "false"}
        if query is not None:
            params["query"] = query
        while True:
            data = self.request("GET", "api/tasks", params={**params, "page": page, "page_size": page_size}, ok404=True)
            if data is None:  # past the last page
                return
            items = data.get("tasks", data) if isinstance(data, dict) else data
            if not items:
                return
            yield from items
            seen += len(items)
            total = data.get("total") if isinstance(data, dict) else None
            if total is not None and seen >= total:
                return
            page += 1

    def tasks_snapshot(self, project_id: int, *, timeout: float = 3600.0) -> list[dict]:
        """Every task with its annotations and whole predictions, through an export snapshot (the fastest read).

        The snapshot (titled ``iaa-engine pull``) is created, downloaded and deleted again. Annotations of
        every kind (cancelled, ground truth) are included; ``completed_by`` is the user id.
        """
        body = {
            "title": "iaa-engine pull (temporary)",
            "serialization_options": {
                "drafts": {"only_id": True},
                "predictions": {"only_id": False},
                "annotations__completed_by": {"only_id": True},
            },
            "annotation_filter_options": {"usual": True, "ground_truth": True, "skipped": True},
        }
        ex = self.request("POST", f"api/projects/{int(project_id)}/exports/", json=body)
        try:
            deadline = time.monotonic() + timeout
            status = ex.get("status")
            while status not in ("completed", "failed"):  # without Redis the POST returns it completed
                if time.monotonic() > deadline:
                    raise LabelStudioError(
                        f"the export snapshot of project {project_id} did not complete within {timeout:.0f} s"
                    )
                time.sleep(0.5)
                status = self.request("GET", f"api/projects/{int(project_id)}/exports/{ex['id']}").get("status")
            if status == "failed":
                raise LabelStudioError(f"Label Studio could not build the export snapshot of project {project_id}")
            tasks = self.request(
                "GET", f"api/projects/{int(project_id)}/exports/{ex['id']}/download", params={"exportType": "JSON"}
            )
        finally:
            try:
                self.request("DELETE", f"api/projects/{int(project_id)}/exports/{ex['id']}", ok404=True)
            except LabelStudioError:
                pass  # a snapshot left behind is harmless; the data was read
        if not isinstance(tasks, list):
            raise LabelStudioError(f"the export snapshot of project {project_id} is not a list of tasks")
        return tasks

    def tasks_export(self, project_id: int, ids: Iterable[int] | None = None) -> list[dict]:
        """The tasks (all, or those in ``ids``) through the JSON export; their ``predictions`` are ids only."""
        params: dict[str, Any] = {"exportType": "JSON", "download_all_tasks": "true"}
        if ids is None:
            return self.request("GET", f"api/projects/{int(project_id)}/export", params=params)
        out: list[dict] = []
        for chunk in id_chunks(ids):
            out += self.request("GET", f"api/projects/{int(project_id)}/export", params={**params, "ids[]": chunk})
        return out

    def export_part(self, project_id: int, ids: list[int]) -> list[dict]:
        """The tasks ``ids`` through ONE request of the JSON export (``ids`` must fit in one query string: see
        :func:`id_chunks`); their ``predictions`` are ids only. Ids of no task of the project are ignored."""
        params: dict[str, Any] = {"exportType": "JSON", "download_all_tasks": "true", "ids[]": [int(i) for i in ids]}
        return self.request("GET", f"api/projects/{int(project_id)}/export", params=params)

    def tasks_by_ids(self, project_id: int, ids: Iterable[int]) -> list[dict]:
        """The tasks ``ids`` with their annotations and whole predictions, through the Data Manager's task list
        (``selectedItems``). Slower per task than the export (~4 ms of server time against ~2 ms), but the export
        endpoint leaves a copy of what it sends in the server's export directory and this leaves nothing: for the
        few tasks a re-sync reads. Never on a project that retrieves predictions automatically: its task list asks
        the ML backend for the predictions of listed tasks that have none (the caller checks). Ids of deleted
        tasks are left out; every page of the answer is read (a server may cap the page size)."""
        out: list[dict] = []
        # compact JSON in the query string: "%2C" between ids; the rest of the query takes ~150 characters
        for chunk in id_chunks(ids, max_chars=ID_QUERY_CHARS - 150, per_id_extra=3):
            query = _json.dumps({"selectedItems": {"all": False, "included": chunk}}, separators=(",", ":"))
            out += self.tasks(project_id, page_size=len(chunk), query=query)
        return out

    def task_id_range(self, project_id: int) -> tuple[int, int, int] | None:
        """``(lowest id, highest id, number of tasks)`` of the project, or None when it has no task: two
        Data Manager queries of one task each, ordered by id (the server sorts; nothing else is serialised)."""
        ends = []
        total = 0
        for order in ("tasks:id", "-tasks:id"):
            data = self.request(
                "GET",
                "api/tasks",
                params={
                    "project": int(project_id),
                    "fields": "task_only",
                    "page": 1,
                    "page_size": 1,
                    "query": _json.dumps({"ordering": [order]}),
                    "resolve_uri": "false",
                },
                ok404=True,
            )
            items = (data or {}).get("tasks", []) if isinstance(data, dict) else (data or [])
            if not items:
                return None
            ends.append(int(items[0]["id"]))
            total = int(data.get("total") or 0) if isinstance(data, dict) else 0
        lo, hi = min(ends), max(ends)
        return lo, hi, total or hi - lo + 1

    def predictions(self, *, project_id: int | None = None, task_id: int | None = None) -> list[dict]:
        """Whole predictions of a project or of one task."""
        params = {"project": int(project_id)} if task_id is None else {"task": int(task_id)}
        data = self.request("GET", "api/predictions", params=params) or []
        return data.get("results", []) if isinstance(data, dict) else data

    def updated_since(
        self, project_id: int, since: datetime, page_size: int = 5000, *, count_only: bool = False
    ) -> Any:
        """``(task id, updated_at)`` of every task whose ``updated_at`` is later than ``since`` (a Data Manager
        filter: the server does the selection, so nothing changed costs one quick call); ``count_only``: how
        many there are (one task serialised, whatever the number)."""
        value = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        query = _json.dumps(
            {
                "filters": {
                    "conjunction": "and",
                    "items": [
                        {"filter": "filter:tasks:updated_at", "operator": "greater", "type": "Datetime", "value": value}
                    ],
                }
            }
        )
        out: list[tuple[int, str]] = []
        page = 1
        if count_only:
            page_size = 1
        while True:
            data = self.request(
                "GET",
                "api/tasks",
                params={
                    "project": int(project_id),
                    "fields": "task_only",
                    "page": page,
                    "page_size": page_size,
                    "query": query,
                    "resolve_uri": "false",
                },
                ok404=True,
            )
            items = (data or {}).get("tasks", []) if isinstance(data, dict) else (data or [])
            if count_only:
                total = data.get("total") if isinstance(data, dict) else None
                return int(total) if isinstance(total, int) else len(items)
            out += [(int(t["id"]), str(t.get("updated_at"))) for t in items]
            total = data.get("total") if isinstance(data, dict) else None
            if not items or total is None or len(out) >= total:
                return out
            page += 1

    def task(self, task_id: int) -> dict | None:
        return self.request("GET", f"api/tasks/{int(task_id)}", params={"resolve_uri": "false"}, ok404=True)

    def users(self) -> list[dict]:
        data = self.request("GET", "api/users", params={"page_size": 10000})
        return data.get("results", data) if isinstance(data, dict) else data

    # ------------------------------------------------------------------ writing

    def plugin_user(self, create: bool = True) -> dict | None:
        """The plugin's own user (created when missing and ``create``; its display name set when it differs)."""
        for u in self.users():
            if str(u.get("email", "")).lower() == PLUGIN_EMAIL:
                if create and (u.get("first_name"), u.get("last_name")) != (PLUGIN_FIRST, PLUGIN_LAST):
                    try:  # the connector's own user: a readable name ("iaa-engine gold")
                        u = self.request(
                            "PATCH",
                            f"api/users/{int(u['id'])}",
                            json={"first_name": PLUGIN_FIRST, "last_name": PLUGIN_LAST},
                        )
                    except LabelStudioError:
                        pass  # another user's profile may be read-only to this token: the name is cosmetic
                return u
        if not create:
            return None
        return self.request(
            "POST",
            "api/users",
            json={
                "email": PLUGIN_EMAIL,
                "username": PLUGIN_EMAIL,
                "first_name": PLUGIN_FIRST,
                "last_name": PLUGIN_LAST,
            },
        )

    def create_annotation(self, task_id: int, result: list, completed_by: int) -> dict:
        return self.request(
            "POST",
            f"api/tasks/{int(task_id)}/annotations",
            json={"result": result, "completed_by": completed_by, "ground_truth": False, "was_cancelled": False},
        )

    def update_annotation(self, annotation_id: int, result: list) -> dict:
        return self.request("PATCH", f"api/annotations/{int(annotation_id)}", json={"result": result})

    def delete_annotation(self, annotation_id: int) -> None:
        self.request("DELETE", f"api/annotations/{int(annotation_id)}", ok404=True)

    def import_predictions(self, project_id: int, predictions: list[dict]) -> Any:
        return self.request("POST", f"api/projects/{int(project_id)}/import/predictions", json=predictions)

    def update_prediction(self, prediction_id: int, body: dict) -> dict:
        return self.request("PATCH", f"api/predictions/{int(prediction_id)}", json=body)

    def delete_prediction(self, prediction_id: int) -> None:
        self.request("DELETE", f"api/predictions/{int(prediction_id)}", ok404=True)

    def merge_task_data(self, task_id: int, fields: dict) -> dict | None:
        """Read-modify-write of one task's ``data``: the server's CURRENT data is read right before the write and
        only ``fields`` change in it (a value None removes the key). ``PATCH /api/tasks/{id}`` replaces ``data``
        wholesale, so nothing but the data just read may be sent. None when the task no longer exists."""
        task = self.task(task_id)
        if task is None:
            return None
        data = dict(task.get("data") or {})
        for k, v in fields.items():
            if v is None:
                data.pop(k, None)
            else:
                data[k] = v
        if data == (task.get("data") or {}):
            return task
        return self.request("PATCH", f"api/tasks/{int(task_id)}", json={"data": data})

    def action(self, project_id: int, action: str, task_ids: Iterable[int], **body: Any) -> dict:
        """Run the Data Manager action ``action`` on the tasks ``task_ids`` (``POST /api/dm/actions``)."""
        selected = {"all": False, "included": [int(t) for t in task_ids]}
        return (
            self.request(
                "POST",
                "api/dm/actions",
                params={"id": action, "project": int(project_id)},
                json={"selectedItems": selected, **body},
            )
            or {}
        )

    def views(self, project_id: int) -> list[dict]:
        """The project's saved Data Manager tabs."""
        data = self.request("GET", "api/dm/views", params={"project": int(project_id)}) or []
        return data.get("results", data) if isinstance(data, dict) else data

    def create_view(self, project_id: int, data: dict) -> dict:
        return self.request("POST", "api/dm/views", json={"project": int(project_id), "data": data})

    def update_view(self, view_id: int, project_id: int, data: dict) -> dict:
        return self.request("PATCH", f"api/dm/views/{int(view_id)}", json={"project": int(project_id), "data": data})

    def update_project(self, project_id: int, body: dict) -> dict:
        return self.request("PATCH", f"api/projects/{int(project_id)}", json=body)

    def webhooks(self, project_id: int) -> list[dict]:
        data = self.request("GET", "api/webhooks", params={"project": int(project_id)})
        return data.get("results", data) if isinstance(data, dict) else data

    def create_webhook(self, project_id: int, url: str, headers: dict, actions: list[str]) -> dict:
        return self.request(
            "POST",
            "api/webhooks",
            json={
                "project": int(project_id),
                "url": url,
                "headers": headers,
                "send_payload": True,
                "send_for_all_actions": False,
                "actions": actions,
                "is_active": True,
            },
        )

    def delete_webhook(self, webhook_id: int) -> None:
        self.request("DELETE", f"api/webhooks/{int(webhook_id)}", ok404=True)
