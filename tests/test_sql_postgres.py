"""The SQL of iaa_engine/engines/_sql.py, written once, run next to the data in a real PostgreSQL (issue 35, item 3).

A private PostgreSQL cluster from Debian's packages starts under a temporary directory on a free loopback port; the
statements run through ``psql`` (no Python driver needed), and the statistics must equal the in-memory reader's on
the same CSV. Skips, saying why, when PostgreSQL's programs are not installed (``apt-get install postgresql``).
"""

from __future__ import annotations

import csv
import glob
import io
import os
import shutil
import socket
import subprocess
import tempfile
import warnings

import numpy as np
import pytest

import iaa_engine as ie
from iaa_engine.engines._sql import Engine, summarize_sql, text_literal

from .test_duckdb import CSV, _frame, _same


def _bin() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


BIN = _bin()
pytestmark = pytest.mark.skipif(
    BIN is None or shutil.which("psql") is None,
    reason="PostgreSQL is not installed (Debian: apt-get install postgresql): the SQL is tested in DuckDB only",
)


def _as_postgres(argv: list[str]) -> list[str]:
    """initdb and the server refuse to run as root: run them as the postgres user then."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


@pytest.fixture(scope="module")
def server():
    root = tempfile.mkdtemp(prefix="iaa-pg-")
    os.chmod(root, 0o755)
    data = os.path.join(root, "data")
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run(
        _as_postgres([f"{BIN}/initdb", "-D", data, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"]),
        check=True,
        capture_output=True,
    )
    opts = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        _as_postgres([f"{BIN}/pg_ctl", "-D", data, "-o", opts, "-l", os.path.join(root, "log"), "-w", "start"]),
        check=True,
        capture_output=True,
    )
    try:
        yield port
    finally:
        subprocess.run(_as_postgres([f"{BIN}/pg_ctl", "-D", data, "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


class Psql:
    """One psql session (temporary tables live as long as it does); each statement's CSV output is read back."""

    END = "__iaa_end__"
    NULL = "__iaa_null__"

    def __init__(self, port: int) -> None:
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "--csv", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
        )
        self.run(f"\\pset null {self.NULL}")

    def run(self, sql: str) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        text = sql.strip()
        if not text.startswith("\\"):
            text = text.rstrip(";") + ";"
        self.proc.stdin.write(text + f"\n\\echo {self.END}\n")
        self.proc.stdin.flush()
        lines = []
        while (line := self.proc.stdout.readline()) and line.rstrip("\n") != self.END:
            lines.append(line)
        errors = [x for x in lines if x.startswith(("ERROR:", "psql:"))]
        if errors:
            raise RuntimeError("".join(lines))
        return lines

    def fetch(self, sql: str) -> dict:
        rows = list(csv.reader(io.StringIO("".join(self.run(sql)))))
        header, body = rows[0], rows[1:]
        out = {}
        for j, name in enumerate(header):
            values = [None if r[j] == self.NULL else r[j] for r in body]
            try:
                out[name] = np.array([int(v) for v in values], dtype=np.int64)
            except (TypeError, ValueError):
                out[name] = np.array(values, dtype=object)
        return out

    def upload(self, name: str, values, codes) -> None:
        rows = ", ".join(f"({text_literal(str(v))}, {int(c)})" for v, c in zip(list(values), codes))
        self.run(f"CREATE TEMPORARY TABLE {name} (value text, code bigint)")
        self.run(f"INSERT INTO {name} VALUES {rows}")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _summarize(port: int, path, **options) -> ie.Annotations:
    db = Psql(port)
    try:
        db.run("DROP TABLE IF EXISTS annotations")
        db.run("CREATE TABLE annotations (item text, annotator text, label text)")
        db.run(f"\\copy annotations FROM {text_literal(str(path))} WITH (FORMAT csv, HEADER true)")
        return summarize_sql(
            Engine(db.run, db.fetch, db.upload),
            source="annotations",
            item="item",
            annotator="annotator",
            label="label",
            item_is_text=True,
            level=options.pop("level", "nominal"),
            categories=options.pop("categories", None),
            duplicates="error",
            **options,
        )
    finally:
        db.close()


def test_the_sql_in_postgresql_equals_the_in_memory_reader(server, tmp_path):
    frame = _frame(n_items=200, n_annotators=12, seed=2)
    path = tmp_path / "crowd.csv"
    frame[["item", "annotator", "label"]].to_csv(path, index=False)
    _same(_summarize(server, path), ie.read(path))


def test_postgresql_reads_ids_and_labels_as_written(server, tmp_path):
    path = tmp_path / "ids.csv"
    path.write_text(CSV)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(_summarize(server, path), ie.read(path))
        named = _summarize(server, path, na_values=["NA", "None", "null"])
    _same(named, ie.read(path, na_values=["NA", "None", "null"]))


def test_postgresql_interval_level(server, tmp_path):
    path = tmp_path / "levels.csv"
    path.write_text("item,annotator,label\na,x,1\na,y,2.5\nb,x,3\nb,y,3.0\nc,x,1\nc,y,2\nc,z,1\n")
    _same(_summarize(server, path, level="interval"), ie.read(path, level="interval"))
