"""Label Studio sync: 10,000 tasks × 3 annotations against a local real server, first sync and unchanged re-sync.

Targets (issue 13): a first sync with every output under 2 minutes when run as the plugin's service account, and
an unchanged re-sync under 20 seconds with and without the saved state. The server is the real one, installed in
its own cached venv and started on 127.0.0.1 by ``iaa_label_studio.testing`` (SQLite), served two ways, each with
its own project:

* ``dev``: Django's development server, one process, as ``label-studio start`` runs it;
* ``processes``: gunicorn with two worker processes per core on the same code and data, as Label Studio's Docker
  image serves it (uWSGI with ``processes = cores * 2``, ``deploy/uwsgi.ini``). The connector then reads a full
  project as id ranges in parallel (2 requests at a time) instead of one export snapshot.

The service account is made as the README tells an admin (the plugin's user, ``label-studio reset_password``, log
in, ``GET /api/current-user/token``).

Timed, each a real ``sync`` call as the service account:

* first sync, every output: read (export snapshot), compute, then the gold predictions and the agreement
  predictions in ONE import (no annotation: the gold is a prediction only, issue 36), the data fields (agreement,
  gold status, needs adjudication) by ``add_data_field`` once per distinct value, the Data Manager tabs, and the
  read-back of what was written (the saved state);
* re-sync with nothing changed, *cold*: no saved state used (another machine, or the state deleted; ``--full``):
  every task read, everything computed, nothing written;
* re-sync with nothing changed, *warm*: with the state the previous run saved: one filtered query for changed
  tasks, the counters checked, everything computed from the state, nothing written (the project is first left
  alone for the look-back margin: a run re-lists tasks changed within 30 s before the previous run started).

    python benchmarks/bench_label_studio.py [--tasks 10000] [--servers dev processes] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _benchlib as bl
import numpy as np

bl.use_working_tree()

CONFIG = (
    '<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
    '<Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>'
)


def _secs(s: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in s["seconds"].items())


def _one_server(args, bench, kind, server, tmp, lst, Api, Connection, PLUGIN_EMAIL, MARGIN) -> dict:
    """Import the project, then time the first sync, the cold re-sync and the warm re-sync on ``server``."""
    from iaa_label_studio.state import StateStore
    from iaa_label_studio.sync import sync

    api = Api(server.client())
    users = list(lst.make_users(api, [f"bench{a}@example.com" for a in range(args.annotators)]).values())
    rng = np.random.default_rng(args.seed)
    truth = rng.integers(0, 3, size=args.tasks)
    ok = rng.random((args.tasks, args.annotators)) < 0.75
    labels = np.where(ok, truth[:, None], rng.integers(0, 3, size=(args.tasks, args.annotators)))
    names = np.array(["pos", "neg", "neu"])
    tasks = [
        {
            "data": {"text": f"review {i}"},
            "annotations": [
                {
                    "completed_by": users[a],
                    "result": [
                        {
                            "from_name": "sentiment",
                            "to_name": "text",
                            "type": "choices",
                            "value": {"choices": [str(names[labels[i, a]])]},
                        }
                    ],
                }
                for a in range(args.annotators)
            ],
        }
        for i in range(args.tasks)
    ]
    t0 = time.perf_counter()
    pid = lst.make_project(api, "benchmark", CONFIG, tasks)
    bl.say(f"  project imported in {time.perf_counter() - t0:.1f} s")
    api.plugin_user(create=True)
    bot = Api(Connection(server.url, server.service_account(PLUGIN_EMAIL, "benchmark-service-password")))

    def run(store, **kw):
        return sync(bot, pid, workers=args.workers, summary_dir=None, html=False, progress=False, state=store, **kw)

    def nothing_planned(s, what):
        if s["planned"]:
            raise SystemExit(f"  ERROR: {what} planned writes: {s['planned']}")
        return s

    store = StateStore(tmp / "state")
    first = bench.step(
        f"{kind}_first",
        f"first sync of {args.tasks:_} tasks, every output, service account",
        lambda: run(store),
        value=lambda s: sum(s["done"].values()),
    )
    bl.say(f"    writes: {first['done']} via {first['writes']}; seconds {_secs(first)}")
    if first["after"] is None or first["after"]["left"]:
        raise SystemExit(f"  ERROR: the read-back after the first sync found writes left: {first['after']}")
    # "nothing changed": a run always looks again at tasks changed within MARGIN before the previous run
    # (transactions commit out of order), so the writes must be older than that
    settle = MARGIN.total_seconds() + 1
    bl.say(f"  leaving the project alone for {settle:.0f} s (the look-back margin of a re-sync)")
    time.sleep(settle)
    cold = nothing_planned(
        bench.step(
            f"{kind}_resync_cold",
            f"re-sync of {args.tasks:_} synced tasks, nothing changed, no saved state",
            lambda: run(store, full=True),  # reads everything, then saves the state the warm run uses
            value=lambda s: s["pull"]["read"],
        ),
        "the cold re-sync",
    )
    bl.say(f"    read {cold['pull']}; seconds {_secs(cold)}")
    warm = nothing_planned(
        bench.step(
            f"{kind}_resync",
            f"re-sync of {args.tasks:_} synced tasks, nothing changed, saved state",
            lambda: run(store),
            value=lambda s: s["pull"]["read"],
        ),
        "the warm re-sync",
    )
    bl.say(f"    read {warm['pull']}; seconds {_secs(warm)}")
    return {"done": first["done"], "writes": first["writes"], "seconds": first["seconds"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--annotators", type=int, default=3)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="1,000 tasks")
    ap.add_argument(
        "--servers",
        nargs="+",
        choices=("dev", "processes"),
        default=["dev", "processes"],
        help="how the server runs: label-studio start (dev), gunicorn with 2 processes per core (processes)",
    )
    args = ap.parse_args(argv)
    if args.quick:
        args.tasks = 1_000
    t_wall = time.perf_counter()
    machine = bl.machine_info()
    bl.say(f"Label Studio sync benchmark: {args.tasks:_} tasks × {args.annotators} annotations, as the service account")
    try:
        from iaa_label_studio import testing as lst
        from iaa_label_studio.api import PLUGIN_EMAIL, Api, Connection
        from iaa_label_studio.read import MARGIN
    except ImportError as exc:
        bl.say(
            f"  skipped: the plugin is not installed ({exc}); run `make test` or pip install -e plugins/label_studio"
        )
        return 0
    bench = bl.Bench(repeat=1)
    kinds = {"dev": 0, "processes": 2 * (os.cpu_count() or 1)}
    names = {"dev": "development server (label-studio start, 1 process)", "processes": ""}
    names["processes"] = f"gunicorn, {kinds['processes']} processes (2 per core, as the Docker image's uWSGI)"
    writes: dict[str, dict] = {}
    for kind in args.servers:
        tmp = Path(tempfile.mkdtemp(prefix="iaa-bench-ls-"))
        try:
            bl.say(f"\n  server: {names[kind]}")
            t0 = time.perf_counter()
            try:
                server = lst.start_test_server(tmp / "server", processes=kinds[kind])
            except lst.ServerUnavailable as exc:
                bl.say(f"  skipped: no Label Studio server ({exc})")
                return 0
            bl.say(f"  server {lst.SERVER_VERSION} up on {server.url} in {time.perf_counter() - t0:.1f} s")
            with server:
                writes[kind] = _one_server(args, bench, kind, server, tmp, lst, Api, Connection, PLUGIN_EMAIL, MARGIN)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    target_first = 120.0 * args.tasks / 10_000
    target_again = 20.0 * args.tasks / 10_000
    scaled = "" if args.tasks == 10_000 else f" (target scaled to {args.tasks:_} tasks)"
    for kind in args.servers:
        for key, what, target in (
            ("first", "first sync, all outputs, service account", target_first),
            ("resync", "unchanged re-sync, saved state", target_again),
            ("resync_cold", "unchanged re-sync, no saved state", target_again),
        ):
            bench.compare(
                f"{kind}: {what} / {target:.0f} s target{scaled}",
                ours=(what.split(",")[0], bench.seconds(f"{kind}_{key}")),
                reference=("target", target),
                kind="baseline",
                ratio_def="ours/reference",
                target=("<=", 1.0),
            )
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    for kind in args.servers:
        bl.say(
            f"  {kind}: first sync {bench.seconds(kind + '_first'):.1f} s; re-sync "
            f"{bench.seconds(kind + '_resync'):.1f} s with the saved state, "
            f"{bench.seconds(kind + '_resync_cold'):.1f} s without"
        )
    wall = time.perf_counter() - t_wall
    if args.json:
        bl.write_json(
            args.json,
            {
                "benchmark": "label_studio",
                "script": "benchmarks/bench_label_studio.py",
                "title": "Label Studio sync: first sync and unchanged re-sync against a local real server",
                "command": " ".join([Path(sys.executable).name, *sys.argv]),
                "params": {
                    "tasks": args.tasks,
                    "annotators": args.annotators,
                    "workers": args.workers,
                    "seed": args.seed,
                    "quick": args.quick,
                    "servers": args.servers,
                    "server_version": lst.SERVER_VERSION,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "servers": {k: names[k] for k in args.servers},
                "first_sync": writes,
                "machine": machine,
                "wall_seconds": wall,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
