"""A real Label Studio server for tests and benchmarks: installed in its own cached venv, started on loopback.

    with start_test_server(tmp_dir) as server:   # migrated template copied, free port, /health waited for
        api = Api(server.client())

The server package is never installed into the project's environment:
``scripts/ls-server-venv.sh`` creates ``~/.cache/iaa-engine/label-studio-venv-<version>`` once.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SERVER_VERSION", "ServerUnavailable", "install_server", "LabelStudioServer", "free_port", "run_cli"]

SERVER_VERSION = os.environ.get("IAA_LS_VERSION", "1.23.2")
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "ls-server-venv.sh"
TOKEN = "iaa-test-token-0123456789"
USER = "admin@example.com"
PASSWORD = "iaa-test-password"


class ServerUnavailable(RuntimeError):
    """The Label Studio server could not be installed or started."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def install_server(version: str = SERVER_VERSION) -> Path:
    """Path of the ``label-studio`` executable in its cached venv (installed on first use, ~1 min)."""
    try:
        out = subprocess.run(["bash", str(SCRIPT), version], capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerUnavailable(f"installing label-studio {version} failed: {exc}") from None
    exe = Path(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else None
    if out.returncode != 0 or exe is None or not exe.exists():
        tail = " | ".join(line for line in out.stderr.splitlines() if "WARNING: Location" not in line)[-600:]
        raise ServerUnavailable(f"installing label-studio {version} failed (exit {out.returncode}): {tail}")
    return exe


def _env(base: Path, ssrf: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LABEL_STUDIO_", "DJANGO_"))}
    env.update(
        HOME=str(base / "home"),
        LABEL_STUDIO_BASE_DATA_DIR=str(base / "data"),
        DJANGO_DB="sqlite",
        COLLECT_ANALYTICS="false",
        LATEST_VERSION_CHECK="false",
        PYTHONUNBUFFERED="1",
    )
    if not ssrf:
        env["SSRF_PROTECTION_ENABLED"] = "false"  # lets the server send webhooks to a loopback receiver
    (base / "home").mkdir(parents=True, exist_ok=True)
    return env


def _health(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as r:
            return r.status == 200 and b"UP" in r.read()
    except OSError:
        return False


@dataclass
class LabelStudioServer:
    """A running server; stop it with :meth:`stop` (SIGTERM) or use it as a context manager."""

    exe: Path
    base: Path
    port: int
    ssrf: bool = True
    #: 0: ``label-studio start`` (Django's development server, one process); N: gunicorn with N worker
    #: processes on the same data, as Label Studio's Docker image serves it (uWSGI, ``deploy/uwsgi.ini``)
    processes: int = 0
    #: settings for the server, e.g. ``{"TASK_API_PAGE_SIZE_MAX": "5"}`` (Label Studio reads them from the environment)
    settings: dict = field(default_factory=dict)
    proc: subprocess.Popen | None = None
    token: str = TOKEN
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.base / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def run(self, timeout: float = 180.0) -> LabelStudioServer:
        """Start (or restart) the process on ``self.port`` and wait for ``/health``."""
        if _health(self.url):
            raise ServerUnavailable(f"port {self.port} already answers /health")
        env = {**_env(self.base, self.ssrf), **{str(k): str(v) for k, v in self.settings.items()}}
        if self.processes:  # the data directory must already be set up (a copy of the template)
            package = next(self.exe.parent.parent.glob("lib/python3*/site-packages/label_studio"))
            env.update(DJANGO_SETTINGS_MODULE="core.settings.label_studio", PYTHONPATH=str(package), HOST=self.url)
            cmd = [
                str(self.exe.parent / "gunicorn"),
                "core.wsgi:application",
                "--workers",
                str(self.processes),
                "--bind",
                f"127.0.0.1:{self.port}",
                "--timeout",
                "600",
                "--chdir",
                str(package),
            ]
        else:
            cmd = self._start_command()
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.base, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerUnavailable(f"label-studio exited with {self.proc.returncode}; see {self.log}")
            if _health(self.url):
                return self
            time.sleep(0.3)
        self.stop()
        raise ServerUnavailable(f"label-studio did not answer /health on {self.url} within {timeout:.0f} s")

    def _start_command(self) -> list[str]:
        return [
            str(self.exe),
            "start",
            "--no-browser",
            "--internal-host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--host",
            self.url,
            "--username",
            USER,
            "--password",
            PASSWORD,
            "--user-token",
            self.token,
            "--enable-legacy-api-token",
        ]

    def stop(self) -> None:
        """SIGTERM, then wait (SIGKILL after 20 s)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def client(self):
        """Where the server is and its admin token: ``Api(server.client())``."""
        from .api import Connection

        return Connection(self.url, self.token)

    def service_account(self, email: str, password: str) -> str:
        """The API token of the existing user ``email``, obtained as an admin on the server's host would: set its
        password with ``label-studio reset_password`` (the server's own command, same data directory), log in
        through the login form, read ``GET /api/current-user/token``."""
        out = subprocess.run(
            [str(self.exe), "reset_password", "--username", email, "--password", password],
            env=_env(self.base, self.ssrf),
            cwd=self.base,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if "Password successfully changed" not in out.stdout and "same as current" not in out.stdout:
            raise ServerUnavailable(f"reset_password failed: {(out.stdout + out.stderr)[-400:]}")
        import http.cookiejar
        import re
        import urllib.parse

        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(self.url + "/user/login/", timeout=30).read().decode()
        csrf = next((c.value for c in jar if c.name == "csrftoken"), None)
        m = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        form = {"email": email, "password": password, "csrfmiddlewaretoken": m.group(1) if m else csrf or ""}
        req = urllib.request.Request(
            self.url + "/user/login/",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Referer": self.url + "/user/login/", "X-CSRFToken": csrf or ""},
        )
        opener.open(req, timeout=30).read()
        with opener.open(self.url + "/api/current-user/token", timeout=30) as r:
            import json

            token = json.loads(r.read()).get("token")
        if not token:
            raise ServerUnavailable(f"no API token for {email}")
        return token

    def __enter__(self) -> LabelStudioServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def template(cls, exe: Path, directory: Path) -> Path:
        """Migrate once into ``directory`` (start, wait for health, stop); returns it."""
        if (directory / ".ready").exists():
            return directory
        directory.mkdir(parents=True, exist_ok=True)
        server = cls(exe, directory, free_port())
        try:
            server.run(timeout=300)
        finally:
            server.stop()
        (directory / ".ready").touch()
        return directory

    @classmethod
    def from_template(
        cls,
        exe: Path,
        template: Path,
        base: Path,
        *,
        ssrf: bool = True,
        processes: int = 0,
        settings: dict | None = None,
    ) -> LabelStudioServer:
        """Copy a migrated template into ``base`` and start a server there on a free port."""
        if base.exists():
            shutil.rmtree(base)
        shutil.copytree(template, base, ignore=shutil.ignore_patterns("server.log", ".ready"))
        return cls(exe, base, free_port(), ssrf=ssrf, processes=processes, settings=dict(settings or {})).run()


_CACHE: dict[str, tuple[Path, Path]] = {}


def prepared(version: str = SERVER_VERSION) -> tuple[Path, Path]:
    """(label-studio executable, migrated template data dir), both cached under ~/.cache/iaa-engine."""
    if version not in _CACHE:
        exe = install_server(version)
        cache = exe.parent.parent.parent  # ~/.cache/iaa-engine
        import fcntl

        with open(cache / f".label-studio-template-{version}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            tpl = LabelStudioServer.template(exe, cache / f"label-studio-template-{version}")
        _CACHE[version] = (exe, tpl)
    return _CACHE[version]


def start_test_server(
    base: Path, *, ssrf: bool = True, processes: int = 0, settings: dict | None = None
) -> LabelStudioServer:
    """A fresh server (copy of the migrated template) in ``base`` on a free loopback port; ``processes`` and
    ``settings``: see :class:`LabelStudioServer`."""
    exe, tpl = prepared()
    return LabelStudioServer.from_template(exe, tpl, base, ssrf=ssrf, processes=processes, settings=settings)


# --------------------------------------------------------------------------- building test projects


def make_users(api, emails: list[str]) -> dict[str, int]:
    """Users by e-mail (created when missing) -> id."""
    have = {u["email"]: u["id"] for u in api.users()}
    out = {}
    for e in emails:
        if e not in have:
            have[e] = api.request("POST", "api/users", json={"email": e, "username": e, "first_name": e.split("@")[0]})[
                "id"
            ]
        out[e] = have[e]
    return out


def make_project(api, title: str, config: str, tasks: list[dict]) -> int:
    """A project with ``tasks`` ({"data": ..., "annotations": [{"result", "completed_by", ...}]}) imported at once."""
    pid = api.request("POST", "api/projects", json={"title": title, "label_config": config})["id"]
    for i in range(0, len(tasks), 2000):
        api.request("POST", f"api/projects/{pid}/import", json=tasks[i : i + 2000])
    return pid


#: the environment variables a test's ``iaa`` run never inherits (a developer's own server, the debug switch)
NOT_INHERITED = ("IAA_DEBUG", "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY")
#: the warning filters a new Python process starts with (the suite's own filters turn some warnings into errors)
_PROCESS_WARNING_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
)


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``iaa *args`` run in this process, as the ``iaa`` command runs it: the command line's own ``main`` (argument
    parsing, the plugin's sub-command, its error handling and exit status) with its output captured, the
    environment of a new process (``NOT_INHERITED`` removed, ``env`` added) and a new process's warning filters.

    What the tests check of a command is its output and status; a new Python process for each run only adds its
    start-up (about 1.5 s of CPU to import the connector, the core and SciPy again). The console script itself is
    run as a process by the tests that need one (a server stopped under a running sync, the one-line errors).
    """
    import contextlib
    import io
    import warnings

    from iaa_engine.cli import main as iaa_main

    changed = {*NOT_INHERITED, *(env or {})}
    saved = {name: os.environ.get(name) for name in changed}
    out, err = io.StringIO(), io.StringIO()
    try:
        for name in NOT_INHERITED:
            os.environ.pop(name, None)
        os.environ.update(env or {})
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            warnings.resetwarnings()
            for action, category, module in reversed(_PROCESS_WARNING_FILTERS):
                warnings.filterwarnings(action, category=category, module=module or "")
            try:
                code = iaa_main(list(args))
            except SystemExit as exc:  # argparse: a usage error (2) or --help (0)
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess(["iaa", *args], code, out.getvalue(), err.getvalue())


def main() -> int:  # pragma: no cover - manual use: python -m iaa_label_studio.testing DIR
    base = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/iaa-ls-server")
    exe = install_server()
    tpl = LabelStudioServer.template(exe, base / "template")
    server = LabelStudioServer.from_template(exe, tpl, base / "run", ssrf=False)
    print(f"{server.url} token={server.token} pid={server.proc.pid}", flush=True)
    try:
        server.proc.wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def server_or_skip(base: Path, **kwargs) -> LabelStudioServer:
    """For pytest fixtures: a started server, or a skip saying why (a failure on CI, which must have one)."""
    import os

    import pytest

    try:
        return start_test_server(base, **kwargs)
    except ServerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the Label Studio server is needed on CI: {exc}")
        pytest.skip(f"no Label Studio server: {exc}")
