"""Label Studio sync: 10,000 tasks × 3 annotations against a local real server, first sync and unchanged re-sync.

Targets (issue "The Label Studio plugin"): first sync under 2 minutes, re-sync with nothing changed under
20 seconds. The server is the real one, installed in its own cached venv and started on 127.0.0.1 by
``iaa_label_studio.testing`` (SQLite, Django development server, as ``label-studio start`` runs it).

Timed, each a real ``sync`` call:

* re-sync with nothing changed, *cold*: no saved state (another machine, or the state deleted): every task is
  read through an export snapshot, everything computed, nothing written;
* re-sync with nothing changed, *warm*: with the state the previous run saved (the normal case): one filtered
  query for changed tasks, the counters checked, everything computed from the state, nothing written (the
  project is first left alone for the look-back margin: a run re-lists tasks changed within 30 s before the
  previous run started);
* first sync of scores only (``--no-gold --no-field``): one bulk import of the agreement predictions;
* first sync with every output on ``--full-tasks`` tasks: per task one gold annotation and one data-field update
  (one request each: the Community API has no bulk write of annotations by another user or of task data on
  existing tasks), then the bulk prediction import and the read-back of what was written;
* the re-sync after that first sync (warm).

    python benchmarks/bench_label_studio.py [--tasks 10000] [--full-tasks N] [--workers 4] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
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


def synced_copy(api, source: int) -> int:
    """A copy of project ``source`` in the state a first sync leaves it (gold annotations by the plugin's user,
    agreement predictions, data fields), built with one bulk import instead of per-task writes."""
    from collections import defaultdict

    from iaa_label_studio import testing as lst
    from iaa_label_studio.project import analyse, pull
    from iaa_label_studio.sync import plan

    bot = api.plugin_user(create=True)["id"]
    project = pull(api, source, plugin_user=bot)
    changes = defaultdict(list)
    for c in plan(analyse(project), bot_id=bot):
        changes[c.task].append(c)
    tasks = []
    for t in project.tasks:
        anns = [{"completed_by": a["completed_by"], "result": a["result"]} for a in t["annotations"]]
        data, preds = dict(t["data"]), []
        for c in changes[t["id"]]:
            if c.kind == "create_annotation":
                anns.append({"completed_by": bot, "result": c.body})
            elif c.kind == "create_prediction":
                preds.append({"result": [], "score": c.body["score"], "model_version": c.body["model_version"]})
            elif c.kind == "update_data":
                data.update(c.body[1])
        tasks.append({"data": data, "annotations": anns, "predictions": preds})
    pid = lst.make_project(api, "benchmark, synced state", CONFIG, tasks)
    api.update_project(pid, {"model_version": "iaa-engine-agreement"})
    return pid


def _secs(s: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in s["seconds"].items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--annotators", type=int, default=3)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument(
        "--full-tasks",
        type=int,
        default=None,
        help="tasks of the project that gets the first sync with every output (default: --tasks). On the "
        "development server each costs two requests of ~0.15-0.3 s",
    )
    ap.add_argument("--quick", action="store_true", help="1,000 tasks (300 for the full first sync)")
    args = ap.parse_args(argv)
    if args.quick:
        args.tasks = 1_000
        args.full_tasks = args.full_tasks or 300
    args.full_tasks = min(args.full_tasks or args.tasks, args.tasks)
    t_wall = time.perf_counter()
    machine = bl.machine_info()
    bl.say(
        f"Label Studio sync benchmark: {args.tasks:_} tasks × {args.annotators} annotations, "
        f"{args.workers} parallel writers"
    )
    try:
        from iaa_label_studio import testing as lst
        from iaa_label_studio.api import Api
        from iaa_label_studio.project import MARGIN
        from iaa_label_studio.state import StateStore
        from iaa_label_studio.sync import sync
    except ImportError as exc:
        bl.say(
            f"  skipped: the plugin is not installed ({exc}); run `make test` or pip install -e plugins/label_studio"
        )
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="iaa-bench-ls-"))
    bench = bl.Bench(repeat=1)
    try:
        t0 = time.perf_counter()
        try:
            server = lst.start_test_server(tmp / "server")
        except lst.ServerUnavailable as exc:
            bl.say(f"  skipped: no Label Studio server ({exc})")
            return 0
        bl.say(f"  server {lst.SERVER_VERSION} up on {server.url} in {time.perf_counter() - t0:.1f} s")
        with server:
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
            pid_scores = lst.make_project(api, "benchmark, scores only", CONFIG, tasks)
            pid_full = lst.make_project(api, "benchmark, full first sync", CONFIG, tasks[: args.full_tasks])
            bl.say(f"  projects imported in {time.perf_counter() - t0:.1f} s")

            store = StateStore(tmp / "state")

            def run(project, **kw):
                return sync(
                    api, project, workers=args.workers, summary_dir=None, html=False, progress=False, state=store, **kw
                )

            def nothing_planned(s, what):
                if s["planned"]:
                    raise SystemExit(f"  ERROR: {what} planned writes: {s['planned']}")
                return s

            # 1. the synced state of the whole project, built by one fast import, then unchanged re-syncs of it
            t0 = time.perf_counter()
            pid_synced = synced_copy(api, pid_scores)
            bl.say(
                f"  synced state of {args.tasks:_} tasks (gold annotations, scores, fields) imported in "
                f"{time.perf_counter() - t0:.1f} s"
            )
            # "nothing changed": a run always looks again at tasks changed within MARGIN before the previous run
            # (transactions commit out of order), so the import must be older than that
            settle = MARGIN.total_seconds() + 1
            bl.say(f"  leaving the project alone for {settle:.0f} s (the look-back margin of a re-sync)")
            time.sleep(settle)
            cold = nothing_planned(
                bench.step(
                    "resync_cold",
                    f"re-sync of {args.tasks:_} synced tasks, nothing changed, no saved state",
                    lambda: run(pid_synced),
                    value=lambda s: s["pull"]["read"],
                ),
                "the cold re-sync",
            )
            bl.say(f"    read {cold['pull']}; seconds {_secs(cold)}")
            warm = nothing_planned(
                bench.step(
                    "resync",
                    f"re-sync of {args.tasks:_} synced tasks, nothing changed, saved state",
                    lambda: run(pid_synced),
                    value=lambda s: s["pull"]["read"],
                ),
                "the warm re-sync",
            )
            bl.say(f"    read {warm['pull']}; seconds {_secs(warm)}")
            # 2. first sync, scores only: one bulk import
            lean = dict(gold=False, field=None)
            scores = bench.step(
                "scores",
                f"first sync of {args.tasks:_} tasks, scores only (--no-gold --no-field)",
                lambda: run(pid_scores, **lean),
                value=lambda s: sum(s["done"].values()),
            )
            bl.say(f"    writes: {scores['done']}; seconds {_secs(scores)}")
            # 3. first sync with every output: two requests per task (gold annotation, data field)
            first = bench.step(
                "first",
                f"first sync of {args.full_tasks:_} tasks: gold + score + field",
                lambda: run(pid_full),
                value=lambda s: sum(s["done"].values()),
            )
            bl.say(f"    writes: {first['done']}; read back {first['after']}; seconds {_secs(first)}")
            if first["after"] is None or first["after"]["left"]:
                raise SystemExit(f"  ERROR: the read-back after the first sync found writes left: {first['after']}")
            nothing_planned(
                bench.step(
                    "resync_full",
                    f"re-sync of the {args.full_tasks:_} tasks after their first sync (saved state)",
                    lambda: run(pid_full),
                    value=lambda s: s["pull"]["read"],
                ),
                "the re-sync after the first sync",
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    target_first = 120.0 * args.full_tasks / 10_000
    target_again = 20.0 * args.tasks / 10_000
    target_scores = 120.0 * args.tasks / 10_000
    scaled = "" if args.full_tasks == 10_000 else f" (target scaled to {args.full_tasks:_} tasks)"
    bench.compare(
        f"first sync, all outputs / {target_first:.0f} s target{scaled}",
        ours=("first sync", bench.seconds("first")),
        reference=("target", target_first),
        kind="baseline",
        ratio_def="ours/reference",
        target=("<=", 1.0),
    )
    scaled = "" if args.tasks == 10_000 else f" (target scaled to {args.tasks:_} tasks)"
    bench.compare(
        f"unchanged re-sync, saved state / {target_again:.0f} s target{scaled}",
        ours=("re-sync", bench.seconds("resync")),
        reference=("target", target_again),
        kind="baseline",
        ratio_def="ours/reference",
        target=("<=", 1.0),
    )
    bench.compare(
        f"unchanged re-sync, no saved state / {target_again:.0f} s target{scaled}",
        ours=("re-sync, cold", bench.seconds("resync_cold")),
        reference=("target", target_again),
        kind="baseline",
        ratio_def="ours/reference",
        target=("<=", 1.0),
    )
    bench.compare(
        f"first sync, scores only (--no-gold --no-field) / {target_scores:.0f} s target{scaled}  [info]",
        ours=("first sync, scores only", bench.seconds("scores")),
        reference=("target", target_scores),
        kind="baseline",
        ratio_def="ours/reference",
    )
    bl.say("")
    bl.print_comparisons(bench.comparisons)
    per_task = bench.seconds("first") / args.full_tasks
    bl.say(
        f"\n  first sync {per_task * 1000:.1f} ms per task ({per_task * 10_000 / 60:.1f} min for 10,000 tasks); "
        f"re-sync {bench.seconds('resync'):.1f} s with the saved state, {bench.seconds('resync_cold'):.1f} s "
        "without"
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
                    "full_tasks": args.full_tasks,
                    "annotators": args.annotators,
                    "workers": args.workers,
                    "seed": args.seed,
                    "quick": args.quick,
                    "server_version": lst.SERVER_VERSION,
                },
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "writes": first["done"],
                "machine": machine,
                "wall_seconds": wall,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
