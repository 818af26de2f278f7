"""The few Label Studio endpoints the connector uses, as plain JSON; the SDK used as a library.

Why not the SDK's resource methods for everything: they parse the server's answers into models and would
re-serialise annotations, while the connector compares and keeps them byte for byte. So the JSON endpoints go
through a plain ``httpx.Client`` that :class:`Api` owns, and the SDK's public client (``label_studio_sdk.
LabelStudio``, built on the same connection pool through its public ``httpx_client`` argument, available as
``Api.client``) does what the SDK knows better: exchanging a personal access token (a JWT refresh token) for an
access token (``client.tokens.refresh``). Nothing reaches into the SDK's private attributes. The label config is
read with the SDK's ``LabelInterface`` (:mod:`iaa_label_studio.convert`).

Every failure becomes :class:`LabelStudioError` with a one-line message that never contains the token (nor the
access token a personal access token is exchanged for), whatever the server echoes. A URL with credentials
(``http://user:password@host``) is refused: httpx would send them as basic authentication instead of the token.

Every request is bounded (defaults overridable per :class:`Api` and on the command line):

* :data:`TIMEOUT` (60 s): the longest wait for the server at any one moment (connecting, or the next bytes). A
  request whose answer stalls that long fails at once (never retried: a stalled server costs one wait, not three);
* :data:`DEADLINE` (600 s): the longest time one request may take in all (retries, a slow upload, every byte of
  the answer): a server sending one byte every few seconds is cut off there;
* :data:`MAX_RESPONSE_BYTES` (256 MiB): the largest answer read (after decompression: gzip and deflate are
  decompressed here, under the same cap); a larger one is refused, before reading when its length is declared.
  JSON takes about 7.6 times its size in memory once parsed: 256 MiB bounds a read at about 2 GB.

Every answer is checked for the shape the connector expects (a project is an object, users a list of objects with
ids, ...); anything else is a one-line error naming what the server sent.
"""

from __future__ import annotations

import json as _json
import re
import reprlib
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

from .names import PLUGIN_EMAIL, PLUGIN_FIRST, PLUGIN_LAST

__all__ = [
    "LabelStudioError",
    "Api",
    "Connection",
    "connect",
    "redact_url",
    "scrub",
    "shown",
    "PLUGIN_EMAIL",
    "TIMEOUT",
    "DEADLINE",
    "MAX_RESPONSE_BYTES",
]

#: seconds to wait for the server at any one moment (connecting, or the next bytes of an answer): Label Studio
#: builds an export before sending its first byte (~2 ms of server time per task)
TIMEOUT = 60.0
#: seconds one request may take in all: retries, the upload, and every byte of the answer
DEADLINE = 600.0
#: the largest answer read, in bytes after decompression (parsed JSON takes ~7.6 times its size in memory)
MAX_RESPONSE_BYTES = 256 << 20


class LabelStudioError(Exception):
    """A connection or API problem, said in one line."""


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 2, 40, 40, 40
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = 3
_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}


def shown(value: Any) -> str:
    """What the server sent, for a one-line message: its JSON kind and its start (``a list [1, 2, 3, ...]``);
    bounded whatever its size or depth."""
    kind = _KINDS.get(type(value)) or ("a number" if isinstance(value, (int, float)) else type(value).__name__)
    return f"{kind} {' '.join(_SHORT.repr(value).split())}"


def _is_id(v: Any) -> bool:
    """A Label Studio object id: a whole number (never a boolean) that fits the server's 64-bit columns."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63


def _objects(data: Any, what: str, where: str, *, key: str = "results") -> list[dict]:
    """``data`` (a list, or a page ``{key: [...]}``) as a list of objects with ids; else a one-line error."""
    items = data.get(key) if isinstance(data, dict) and key in data else data
    if not isinstance(items, list):
        raise LabelStudioError(f"Label Studio answered {where} with {shown(data)}: expected a list of {what}")
    for x in items:
        if not isinstance(x, dict) or not _is_id(x.get("id")):
            raise LabelStudioError(
                f"Label Studio answered {where} with {shown(x)} among the {what}: expected objects with an id"
            )
    return items


def _list(data: Any, what: str, where: str) -> list:
    """``data`` checked to be a JSON list (its items are checked by the reader); else a one-line error."""
    if not isinstance(data, list):
        raise LabelStudioError(f"Label Studio answered {where} with {shown(data)}: expected a list of {what}")
    return data


def _object(data: Any, what: str, where: str, *, with_id: bool = True) -> dict:
    """``data`` checked to be a JSON object (with an id); else a one-line error naming what came."""
    if not isinstance(data, dict) or (with_id and not _is_id(data.get("id"))):
        raise LabelStudioError(
            f"Label Studio answered {where} with {shown(data)}: expected {what} (an object"
            + (" with an id)" if with_id else ")")
        )
    return data


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


def _no_credentials(url: str) -> None:
    """Refuse a URL that carries credentials: httpx would send them as basic authentication in place of the token
    (silently); the token is the one way in."""
    if _credentials(url) or "@" in url.partition("://")[2].partition("/")[0]:
        raise LabelStudioError(
            f"the Label Studio URL must not carry credentials (user:password@); got {redact_url(url)!r}: "
            "pass the API token with --token or LABEL_STUDIO_API_KEY"
        )


def connect(url: str | None, token: str | None) -> Connection:
    """A checked :class:`Connection`; a missing URL or token is an error that names the options, a URL with
    credentials is refused (the token is the one way in)."""
    if not url:
        raise LabelStudioError("no Label Studio URL: pass --url or set LABEL_STUDIO_URL")
    if not token:
        raise LabelStudioError("no API token: pass --token or set LABEL_STUDIO_API_KEY")
    if not url.startswith(("http://", "https://")):
        raise LabelStudioError(f"the Label Studio URL must start with http:// or https://; got {redact_url(url)!r}")
    _no_credentials(url)
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


#: a run of token characters long enough to be a piece of a token (JWTs are cut at their dots)
_TOKEN_PIECE = re.compile(r"[A-Za-z0-9_\-]{8,}")


class _TooLate(Exception):
    """The request's deadline passed."""


class Api:
    """JSON access to one server: ``Api(url, token)`` or ``Api(Connection(url, token))``.

    ``timeout``: the longest wait for the server at any one moment (default :data:`TIMEOUT`); ``deadline``: the
    longest time one request may take in all, retries included (default :data:`DEADLINE`); ``max_bytes``: the
    largest answer read (default :data:`MAX_RESPONSE_BYTES`).
    """

    def __init__(
        self,
        where: Connection | str,
        token: str | None = None,
        *,
        retries: int = 2,
        timeout: float = TIMEOUT,
        deadline: float = DEADLINE,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        import httpx
        from label_studio_sdk import LabelStudio

        if isinstance(where, Connection) or (isinstance(where, tuple) and len(where) == 2):
            url, token = where
        elif isinstance(where, str) and token:
            url = where
        else:
            raise TypeError("Api(url, token) or Api(Connection(url, token))")
        _no_credentials(str(url))
        for name, v in (("timeout", timeout), ("deadline", deadline), ("max_bytes", max_bytes)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v != v or v == float("inf"):
                raise ValueError(f"{name} must be a positive number; got {v!r}")
        self.retries = int(retries)
        self.timeout, self.deadline, self.max_bytes = float(timeout), float(deadline), int(max_bytes)
        self._raw_url = str(url).rstrip("/")
        self._token = str(token)
        # gzip and deflate only: they are decompressed here, under the size cap
        self._http = httpx.Client(
            base_url=self._raw_url + "/",
            timeout=min(self.timeout, self.deadline),
            follow_redirects=True,
            headers={"Accept-Encoding": "gzip, deflate"},
        )
        #: the SDK's public client on the same connection pool
        self.client = LabelStudio(
            base_url=self._raw_url,
            api_key=self._token,
            timeout=min(self.timeout, self.deadline),
            httpx_client=self._http,
        )
        self._jwt = _refresh_token(self._token)
        self._access: str | None = None
        #: the server's URL as shown and stored
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

    def scrub(self, text: str) -> str:
        """``text`` without the token, the access token it was exchanged for, nor any credentials of the URL; nor
        a piece of a token that a shortened quote cut (8 characters or more of one)."""
        text = scrub(text, self._raw_url)
        secrets = [x for x in sorted({self._token, self._access or ""}, key=len, reverse=True) if len(x) >= 4]
        for secret in secrets:
            text = text.replace(secret, "***")
        return _TOKEN_PIECE.sub(lambda m: "***" if any(m.group() in x for x in secrets) else m.group(), text)

    def request(
        self, method: str, path: str, *, params: dict | None = None, json: Any = None, ok404: bool = False
    ) -> Any:
        """One JSON request (``None`` for an empty answer, or a 404 when ``ok404``), within :attr:`deadline`; every
        problem is a :class:`LabelStudioError` whose message never holds the token."""
        try:
            return self._request(method, path, params=params, json=json, ok404=ok404)
        except LabelStudioError as exc:  # whatever a message quotes (an httpx error, the server's answer)
            raise LabelStudioError(self.scrub(str(exc))) from None

    def _request(self, method: str, path: str, *, params: dict | None, json: Any, ok404: bool) -> Any:
        import httpx

        where = f"{method} /{path.lstrip('/')}"
        deadline = time.monotonic() + self.deadline
        attempts = 1 + (0 if method == "POST" else self.retries)
        renewed = False
        attempt = 0
        while True:
            try:
                status, headers, body = self._exchange(method, path, params, json, deadline)
            except _TooLate:
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} did not finish answering {where} within {self.deadline:g} s "
                    "(the deadline of one request; --deadline)"
                ) from None
            except httpx.TimeoutException as exc:
                if isinstance(exc, httpx.ConnectTimeout) and attempt + 1 < attempts:  # a stall is not retried
                    attempt += 1
                    continue
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} did not answer {where} in time "
                    f"(nothing for {min(self.timeout, self.deadline):g} s; --timeout)"
                ) from None
            except httpx.HTTPError as exc:
                if attempt + 1 < attempts and not isinstance(exc, httpx.ConnectError):
                    attempt += 1
                    time.sleep(0.5 * attempt)
                    continue
                raise LabelStudioError(
                    f"cannot reach Label Studio at {self.base_url}: {type(exc).__name__}"
                    f"{': ' + str(exc).splitlines()[0] if str(exc) else ''}"
                ) from None
            if status == 401 and self._jwt and not renewed:  # the access token expired: once more
                renewed = True
                self._authorization(renew=True)
                continue
            if status in (429, 502, 503, 504) and attempt + 1 < attempts:
                attempt += 1
                time.sleep(0.5 * attempt)
                continue
            break
        self.server_software = headers.get("server", "")
        date = headers.get("date")
        if date:
            try:
                self.server_date = parsedate_to_datetime(date).astimezone(timezone.utc)
            except (TypeError, ValueError):
                pass
        if status in (401, 403):
            raise LabelStudioError(
                f"Label Studio at {self.base_url} refused the API token (HTTP {status}); "
                "check --token / LABEL_STUDIO_API_KEY"
            )
        if status == 404 and ok404:
            return None
        if status >= 400:
            from iaa_engine.base._results import printable  # the core's escaping of control characters

            text = self.scrub(printable(" ".join(body[:1000].decode("utf-8", "replace").split())))
            raise LabelStudioError(f"Label Studio answered HTTP {status} to {where}: {text[:200]}")
        if not body:
            return None
        try:
            return _json.loads(body)
        except RecursionError:
            raise LabelStudioError(
                f"Label Studio answered {where} with JSON nested too deeply to read (over Python's recursion limit, "
                f"{len(body)} bytes)"
            ) from None
        except ValueError:
            raise LabelStudioError(
                f"{self.base_url} answered {where} with something that is not JSON "
                f"({' '.join(body[:60].decode('utf-8', 'replace').split())!r}): is this a Label Studio server?"
            ) from None

    def _exchange(self, method: str, path: str, params: Any, json: Any, deadline: float) -> tuple[int, Any, bytearray]:
        """One attempt: ``(status, headers, body)``. The request and the answer's headers are waited for in a helper
        thread (httpx bounds each wait, not the whole: a server may trickle its headers), the body here, checking
        the deadline at every piece and the size against :attr:`max_bytes`."""
        import httpx

        left = deadline - time.monotonic()
        if left <= 0:
            raise _TooLate()
        wait = httpx.Timeout(max(0.001, min(self.timeout, left)))
        request = self._http.build_request(
            method,
            path.lstrip("/"),
            params=params,
            json=json,
            headers={"Authorization": self._authorization()},
            timeout=wait,
        )
        got: dict[str, Any] = {}
        done = threading.Event()
        abandoned = threading.Event()

        def send() -> None:
            try:
                got["response"] = self._http.send(request, stream=True)
            except BaseException as exc:  # handed to the caller
                got["error"] = exc
            finally:
                done.set()
                if abandoned.is_set() and "response" in got:  # the caller gave up: free the connection
                    got["response"].close()

        threading.Thread(target=send, name="iaa-ls-request", daemon=True).start()
        if not done.wait(max(0.0, deadline - time.monotonic())):
            abandoned.set()
            if done.is_set() and "response" in got:
                got["response"].close()
            raise _TooLate()
        if "error" in got:
            raise got["error"]
        response = got["response"]
        try:
            return response.status_code, response.headers, self._body(response, deadline, method, path)
        finally:
            response.close()

    def _body(self, response: Any, deadline: float, method: str, path: str) -> bytearray:
        """The decompressed body, at most :attr:`max_bytes`, read before ``deadline``."""
        where = f"{method} /{path.lstrip('/')}"
        cap = self.max_bytes

        def too_large() -> LabelStudioError:
            return LabelStudioError(
                f"Label Studio's answer to {where} is larger than {cap:,} bytes (the size cap of one answer; "
                "--max-response)"
            )

        declared = response.headers.get("content-length", "")
        if declared.strip().isdigit() and int(declared) > cap:
            raise too_large()
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding in ("gzip", "x-gzip"):
            unzip: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            unzip = zlib.decompressobj()
        elif encoding in ("", "identity"):
            unzip = None
        else:
            raise LabelStudioError(f"Label Studio answered {where} in an encoding it was not offered ({encoding!r})")
        out = bytearray()
        try:
            for raw in response.iter_raw():
                if time.monotonic() > deadline:
                    raise _TooLate()
                if unzip is None:
                    out += raw
                else:
                    out += unzip.decompress(raw, cap + 1 - len(out))
                    if unzip.unconsumed_tail:
                        raise too_large()
                if len(out) > cap:
                    raise too_large()
            if unzip is not None:
                out += unzip.flush()
        except zlib.error:
            raise LabelStudioError(f"Label Studio answered {where} with a body that does not decompress") from None
        if len(out) > cap:
            raise too_large()
        return out  # no copy: json.loads reads a bytearray

    @property
    def single_process(self) -> bool:
        """Whether the server is Django's development server, which ``label-studio start`` runs: one Python
        process, so parallel reads only add requests. Label Studio's Docker image serves through uWSGI with two
        processes per core (``deploy/uwsgi.ini``), where reading id ranges in parallel divides the time."""
        return self.server_software.startswith("WSGIServer/")

    # ------------------------------------------------------------------ reading

    def version(self) -> dict:
        return _object(self.request("GET", "api/version") or {}, "the version", "GET /api/version", with_id=False)

    def whoami(self) -> dict:
        return _object(self.request("GET", "api/current-user/whoami"), "a user", "GET /api/current-user/whoami")

    def project(self, project_id: int) -> dict:
        where = f"GET /api/projects/{int(project_id)}"
        p = self.request("GET", f"api/projects/{int(project_id)}", ok404=True)
        if p is None:
            raise LabelStudioError(
                f"project {project_id} does not exist on {self.base_url} (or this token cannot see it)"
            )
        p = _object(p, "a project", where)
        if not isinstance(p.get("label_config") or "", str) or not isinstance(p.get("title") or "", str):
            raise LabelStudioError(f"Label Studio answered {where} with {shown(p)}: its label_config is not a text")
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
            items = _list(data.get("tasks", data) if isinstance(data, dict) else data, "tasks", "GET /api/tasks")
            if not items:
                return
            yield from items
            seen += len(items)
            total = data.get("total") if isinstance(data, dict) else None
            if not isinstance(total, int) or seen >= total:
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
        ex = _object(
            self.request("POST", f"api/projects/{int(project_id)}/exports/", json=body),
            "an export",
            f"POST /api/projects/{int(project_id)}/exports/",
        )
        try:
            deadline = time.monotonic() + timeout
            status = ex.get("status")
            while status not in ("completed", "failed"):  # without Redis the POST returns it completed
                if time.monotonic() > deadline:
                    raise LabelStudioError(
                        f"the export snapshot of project {project_id} did not complete within {timeout:.0f} s"
                    )
                time.sleep(0.5)
                where = f"GET /api/projects/{int(project_id)}/exports/{ex['id']}"
                status = _object(self.request("GET", where[5:]), "an export", where).get("status")
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
        return _list(tasks, "tasks", f"GET /api/projects/{int(project_id)}/exports/{ex['id']}/download")

    def tasks_export(self, project_id: int, ids: Iterable[int] | None = None) -> list[dict]:
        """The tasks (all, or those in ``ids``) through the JSON export; their ``predictions`` are ids only."""
        params: dict[str, Any] = {"exportType": "JSON", "download_all_tasks": "true"}
        where = f"GET /api/projects/{int(project_id)}/export"
        if ids is None:
            return _list(self.request("GET", where[5:], params=params), "tasks", where)
        out: list[dict] = []
        for chunk in id_chunks(ids):
            out += self.export_part(project_id, chunk)
        return out

    def export_part(self, project_id: int, ids: list[int]) -> list[dict]:
        """The tasks ``ids`` through ONE request of the JSON export (``ids`` must fit in one query string: see
        :func:`id_chunks`); their ``predictions`` are ids only. Ids of no task of the project are ignored."""
        params: dict[str, Any] = {"exportType": "JSON", "download_all_tasks": "true", "ids[]": [int(i) for i in ids]}
        where = f"GET /api/projects/{int(project_id)}/export"
        return _list(self.request("GET", where[5:], params=params), "tasks", where)

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
            items = _objects(
                (data or {}).get("tasks", []) if isinstance(data, dict) else (data or []), "tasks", "GET /api/tasks"
            )
            if not items:
                return None
            ends.append(int(items[0]["id"]))
            total = int(data.get("total") or 0) if isinstance(data, dict) else 0
        lo, hi = min(ends), max(ends)
        return lo, hi, total or hi - lo + 1

    def predictions(self, *, project_id: int | None = None, task_id: int | None = None) -> list[dict]:
        """Whole predictions of a project or of one task."""
        params = {"project": int(project_id)} if task_id is None else {"task": int(task_id)}
        return _objects(
            self.request("GET", "api/predictions", params=params) or [], "predictions", "GET /api/predictions"
        )

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
            items = _objects(
                (data or {}).get("tasks", []) if isinstance(data, dict) else (data or []), "tasks", "GET /api/tasks"
            )
            if count_only:
                total = data.get("total") if isinstance(data, dict) else None
                return int(total) if isinstance(total, int) else len(items)
            out += [(int(t["id"]), str(t.get("updated_at"))) for t in items]
            total = data.get("total") if isinstance(data, dict) else None
            if not items or total is None or len(out) >= total:
                return out
            page += 1

    def task(self, task_id: int) -> dict | None:
        t = self.request("GET", f"api/tasks/{int(task_id)}", params={"resolve_uri": "false"}, ok404=True)
        return None if t is None else _object(t, "a task", f"GET /api/tasks/{int(task_id)}")

    def users(self) -> list[dict]:
        return _objects(self.request("GET", "api/users", params={"page_size": 10000}), "users", "GET /api/users")

    # ------------------------------------------------------------------ writing

    def plugin_user(self, create: bool = True) -> dict | None:
        """The plugin's own user (created when missing and ``create``; its display name set when it differs)."""
        for u in self.users():
            if str(u.get("email", "")).lower() == PLUGIN_EMAIL:
                if create and (u.get("first_name"), u.get("last_name")) != (PLUGIN_FIRST, PLUGIN_LAST):
                    try:  # the connector's own user: a readable name ("iaa-engine gold")
                        where = f"PATCH /api/users/{int(u['id'])}"
                        named = self.request(
                            "PATCH", where[6:], json={"first_name": PLUGIN_FIRST, "last_name": PLUGIN_LAST}
                        )
                        u = _object(named, "the user", where) if named is not None else u
                    except LabelStudioError:
                        pass  # another user's profile may be read-only to this token: the name is cosmetic
                return u
        if not create:
            return None
        made = self.request(
            "POST",
            "api/users",
            json={
                "email": PLUGIN_EMAIL,
                "username": PLUGIN_EMAIL,
                "first_name": PLUGIN_FIRST,
                "last_name": PLUGIN_LAST,
            },
        )
        return _object(made, "the new user", "POST /api/users")

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
        return _objects(
            self.request("GET", "api/dm/views", params={"project": int(project_id)}) or [], "tabs", "GET /api/dm/views"
        )

    def view(self, view_id: int) -> dict:
        """One saved Data Manager tab (``GET /api/dm/views/{id}``): its ``project`` and ``data`` (filters)."""
        where = f"GET /api/dm/views/{int(view_id)}"
        v = self.request("GET", where[5:], ok404=True)
        if v is None:
            raise LabelStudioError(f"Data Manager tab {view_id} does not exist on {self.base_url} (or this token "
                                   "cannot see it)")  # fmt: skip
        v = _object(v, "a Data Manager tab", where)
        if not _is_id(v.get("project")):
            raise LabelStudioError(f"Label Studio answered {where} with {shown(v)}: its project is not an id")
        return v

    def view_task_ids(self, project_id: int, view_id: int, page_size: int = 5000) -> list[int]:
        """The ids of the tasks a Data Manager tab selects (its filters applied by the server: ``GET /api/tasks``
        with ``view=``), every page read; only ids are serialised."""
        out: list[int] = []
        page = 1
        while True:
            params = {"project": int(project_id), "view": int(view_id), "fields": "task_only", "page": page,
                      "page_size": page_size, "resolve_uri": "false"}  # fmt: skip
            data = self.request("GET", "api/tasks", params=params, ok404=True)
            items = _objects(
                (data or {}).get("tasks", []) if isinstance(data, dict) else (data or []), "tasks", "GET /api/tasks"
            )
            out += [int(t["id"]) for t in items]
            total = data.get("total") if isinstance(data, dict) else None
            if not items or not isinstance(total, int) or len(out) >= total:
                return out
            page += 1

    def create_view(self, project_id: int, data: dict) -> dict:
        return self.request("POST", "api/dm/views", json={"project": int(project_id), "data": data})

    def update_view(self, view_id: int, project_id: int, data: dict) -> dict:
        return self.request("PATCH", f"api/dm/views/{int(view_id)}", json={"project": int(project_id), "data": data})

    def update_project(self, project_id: int, body: dict) -> dict:
        return self.request("PATCH", f"api/projects/{int(project_id)}", json=body)

    def webhooks(self, project_id: int) -> list[dict]:
        return _objects(
            self.request("GET", "api/webhooks", params={"project": int(project_id)}) or [],
            "webhooks",
            "GET /api/webhooks",
        )

    def create_webhook(self, project_id: int, url: str, headers: dict, actions: list[str]) -> dict:
        made = self.request(
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
        return _object(made, "the new webhook", "POST /api/webhooks")

    def delete_webhook(self, webhook_id: int) -> None:
        self.request("DELETE", f"api/webhooks/{int(webhook_id)}", ok404=True)


def _scrubbing(fn: Any) -> Any:
    """``fn`` (a method of :class:`Api`) whose :class:`LabelStudioError` messages never hold the token, whatever
    they quote (a shape check quotes what the server sent)."""
    import functools
    import inspect

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def each(self: Api, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from fn(self, *args, **kwargs)
            except LabelStudioError as exc:
                raise LabelStudioError(self.scrub(str(exc))) from None

        return each

    @functools.wraps(fn)
    def run(self: Api, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except LabelStudioError as exc:
            raise LabelStudioError(self.scrub(str(exc))) from None

    return run


for _name, _fn in list(vars(Api).items()):
    if not _name.startswith("_") and _name not in ("scrub", "request") and callable(_fn):
        setattr(Api, _name, _scrubbing(_fn))
