"""Pairwise preferences and rankings at scale, from the file: ours beside crowd-kit's BradleyTerry and a plain
Kendall's W.

Cases (each read from a CSV file with pandas inside the timed step; best of ``--repeat``):

* ``prompts``: 10⁶ pairwise judgments, 55,556 prompts × 4 responses (all 6 pairs) × 3 of 5 judges, the two
  responses shown in random order, the winner drawn from a Bradley–Terry truth (no ties: crowd-kit reads a winner
  only). Ours: ``ie.preference_agreement`` (canonical pairs, alpha and the kappa family, position bias, majority
  and Bradley–Terry gold) and ``ie.bradley_terry`` alone. crowd-kit's ``BradleyTerry`` builds one dense
  responses × responses win matrix, so a table of many prompts is fitted prompt by prompt (``groupby``, the way
  its users do); that loop is timed on the first ``--peer-prompts`` prompts (default 2,000) and scaled to all
  prompts (printed as such). Both run a fixed 100 MM steps (ours ``tol=-inf``, crowd-kit ``n_iter=100, tol=0``:
  crowd-kit 1.4.2 stops after two steps for any ``tol > 0``, its ``p_old`` aliasing ``p_new``); the scores of the
  shared prompts are compared.
* ``arena``: 10⁶ judgments of one prompt among 100 responses (a leaderboard): one fit each, 100 MM steps.
* ``rankings``: 10⁵ rankings (33,334 prompts × 3 judges) of 5–10 responses each (``m0 > m3 > ...``). Ours:
  ``ie.ranking_agreement`` (alpha with the Kendall distance, W per prompt, Borda gold). The plain Kendall's W: the
  file read with pandas, each prompt's rankings parsed with ``str.split`` into an m × n rank matrix and
  ``12 S / (m² (n³ − n))`` computed with numpy, prompt by prompt (``groupby``), chi-square p from scipy; the W
  values are compared.

crowd-kit runs in its own venv (``--crowdkit-python``, default ``benchmarks/out/crowdkit-venv/bin/python``, made
with ``python -m venv benchmarks/out/crowdkit-venv && benchmarks/out/crowdkit-venv/bin/pip install crowd-kit``;
never a dependency of the project), timed inside that process on the same file; without it the crowd-kit rows are
skipped.

Run: ``python benchmarks/bench_judgments.py [--quick] [--repeat 1] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import OUT_DIR, Bench, machine_info, print_comparisons, say, use_working_tree, write_json  # noqa: E402

use_working_tree()
import iaa_engine as ie  # noqa: E402

CROWDKIT = OUT_DIR / "crowdkit-venv" / "bin" / "python"
STEPS = 100

PEER = r"""
import json, sys, time
import numpy as np, pandas as pd
from crowdkit.aggregation import BradleyTerry
path, mode, limit, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t0 = time.perf_counter()
df = pd.read_csv(path, dtype=str)
win = np.where(df["label"] == "A", df["response_a"], df["response_b"])
data = pd.DataFrame({"worker": df["judge"], "left": df["response_a"], "right": df["response_b"], "label": win,
                     "prompt": df["prompt"]})
scores = {}
if mode == "arena":
    s = BradleyTerry(n_iter=steps, tol=0).fit(data).scores_
    scores = {f"{k}": float(v) for k, v in s.items()}
    n_done = 1
else:
    prompts = data["prompt"].drop_duplicates().iloc[:limit]
    sub = data[data["prompt"].isin(set(prompts))]
    for p, g in sub.groupby("prompt", sort=False):
        s = BradleyTerry(n_iter=steps, tol=0).fit(g).scores_
        scores.update({f"{p}|{k}": float(v) for k, v in s.items()})
    n_done = len(prompts)
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "n_prompts": n_done, "scores": scores}))
"""


def bt_truth(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.exp(rng.normal(0, 1, n))


def prompts_file(path: Path, n_prompts: int, seed: int = 0) -> None:
    """All 6 pairs of 4 responses per prompt, 3 of 5 judges each, random order shown, Bradley-Terry winners."""
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(4, 1)
    prompt = np.repeat(np.arange(n_prompts), 6 * 3)
    a = np.tile(np.repeat(i, 3), n_prompts)
    b = np.tile(np.repeat(j, 3), n_prompts)
    judges = np.argsort(rng.random((n_prompts * 6, 5)), axis=1)[:, :3].ravel()
    strength = bt_truth(rng, n_prompts * 4).reshape(n_prompts, 4)
    pa, pb = strength[prompt, a], strength[prompt, b]
    a_wins = rng.random(prompt.size) < pa / (pa + pb)
    swap = rng.random(prompt.size) < 0.5
    first, second = np.where(swap, b, a), np.where(swap, a, b)
    label = np.where(a_wins != swap, "A", "B")
    pd.DataFrame(
        {
            "prompt": pd.Series(prompt).map("p{}".format),
            "response_a": pd.Series(first).map("m{}".format),
            "response_b": pd.Series(second).map("m{}".format),
            "judge": pd.Series(judges).map("j{}".format),
            "label": label,
        }
    ).to_csv(path, index=False)


def arena_file(path: Path, n: int, n_models: int = 100, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_models, n)
    b = (a + rng.integers(1, n_models, n)) % n_models
    strength = bt_truth(rng, n_models)
    label = np.where(rng.random(n) < strength[a] / (strength[a] + strength[b]), "A", "B")
    pd.DataFrame(
        {
            "prompt": "arena",
            "response_a": pd.Series(a).map("m{:03d}".format),
            "response_b": pd.Series(b).map("m{:03d}".format),
            "judge": pd.Series(rng.integers(0, 1000, n)).map("u{}".format),
            "label": label,
        }
    ).to_csv(path, index=False)


def rankings_file(path: Path, n_prompts: int, seed: int = 2) -> None:
    """3 judges per prompt rank its 5-10 responses: a shared truth plus noise per judge."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 11, n_prompts)
    labels, prompts, judges = [], [], []
    for k in range(5, 11):
        rows = np.flatnonzero(sizes == k)
        if not rows.size:
            continue
        truth = rng.normal(0, 1, (rows.size, 1, k))
        noisy = truth + rng.normal(0, 1, (rows.size, 3, k))
        order = np.argsort(-noisy, axis=2)
        names = np.array([f"m{e}" for e in range(k)], dtype=object)[order]
        text = pd.Series([">".join(r) for r in names.reshape(-1, k)])
        labels.append(text)
        prompts.append(np.repeat(rows, 3))
        judges.append(np.tile(np.arange(3), rows.size))
    pd.DataFrame(
        {
            "prompt": pd.Series(np.concatenate(prompts)).map("p{}".format),
            "judge": pd.Series(np.concatenate(judges)).map("j{}".format),
            "label": pd.concat(labels, ignore_index=True),
        }
    ).to_csv(path, index=False)


def plain_kendall_w(path: Path) -> pd.Series:
    """Kendall's W per prompt written straightforwardly: parse, rank matrix, 12 S / (m^2 (n^3 - n)), chi2 p."""
    from scipy.stats import chi2

    df = pd.read_csv(path, dtype=str)
    out = {}
    for prompt, g in df.groupby("prompt", sort=True):
        orders = [lab.split(">") for lab in g["label"]]
        names = sorted(orders[0])
        index = {e: k for k, e in enumerate(names)}
        m, n = len(orders), len(names)
        ranks = np.zeros((m, n))
        for r, order in enumerate(orders):
            for pos, e in enumerate(order):
                ranks[r, index[e]] = pos + 1
        col = ranks.sum(axis=0)
        s = float(np.sum((col - col.mean()) ** 2))
        w = 12 * s / (m * m * (n**3 - n))
        chi2.sf(m * (n - 1) * w, n - 1)
        out[prompt] = w
    return pd.Series(out)


def peer(python: Path, path: Path, mode: str, limit: int) -> dict | None:
    if not python.exists():
        return None
    done = subprocess.run(
        [str(python), "-c", PEER, str(path), mode, str(limit), str(STEPS)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        say(f"  crowd-kit failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10^5 judgments and 10^4 rankings")
    ap.add_argument("--repeat", type=int, default=1, help="runs per step (best; default 1)")
    ap.add_argument("--peer-prompts", type=int, default=2000, help="prompts crowd-kit fits one by one (default 2000)")
    ap.add_argument("--crowdkit-python", type=Path, default=CROWDKIT, help="a Python with crowd-kit installed")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    args = ap.parse_args()
    n_judgments = 100_000 if args.quick else 1_000_000
    n_prompts = math.ceil(n_judgments / 18)
    n_rank_prompts = math.ceil((10_000 if args.quick else 100_000) / 3)
    bench = Bench(args.repeat)
    with tempfile.TemporaryDirectory(dir=OUT_DIR if OUT_DIR.exists() else None) as tmp:
        d = Path(tmp)
        say(
            f"writing the files ({n_prompts * 18:,} judgments of {n_prompts:,} prompts; {n_judgments:,} arena "
            f"judgments; {n_rank_prompts * 3:,} rankings) ..."
        )
        prompts_file(d / "prompts.csv", n_prompts)
        arena_file(d / "arena.csv", n_judgments)
        rankings_file(d / "rankings.csv", n_rank_prompts)
        cols = dict(item="prompt", annotator="judge")

        say("prompts: many prompts of 4 responses")
        bench.step(
            "pref",
            "ie.preference_agreement from the file (all of it)",
            lambda: ie.preference_agreement(pd.read_csv(d / "prompts.csv", dtype=str), **cols),
        )
        ours_bt = bench.step(
            "bt",
            f"ie.bradley_terry from the file, {STEPS} MM steps",
            lambda: ie.bradley_terry(
                pd.read_csv(d / "prompts.csv", dtype=str), item="prompt", max_iter=STEPS, tol=-math.inf
            ),
        )
        res = peer(args.crowdkit_python, d / "prompts.csv", "prompts", args.peer_prompts)
        if res is not None:
            scale = n_prompts / res["n_prompts"]
            bench.steps["crowdkit"] = {
                "key": "crowdkit",
                "label": "crowd-kit BradleyTerry per prompt (scaled)",
                "seconds": res["seconds"] * scale,
                "value": None,
                "group": "",
                "repeat": 1,
                "peak_rss_extra_bytes": None,
            }
            say(
                f"  crowd-kit BradleyTerry, prompt by prompt: {res['seconds']:.3f} s for {res['n_prompts']:,} "
                f"prompts, x{scale:.2f} = {res['seconds'] * scale:.3f} s for all"
            )
            ours = ours_bt.scores.assign(key=lambda f: f["item"] + "|" + f["response"]).set_index("key")["score"]
            theirs = pd.Series(res["scores"])
            diff = float(np.max(np.abs(ours.loc[theirs.index].to_numpy() - theirs.to_numpy())))
            bench.compare(
                f"Bradley-Terry of {n_prompts:,} prompts ({n_prompts * 18:,} judgments), {STEPS} steps: crowd-kit "
                "per prompt (scaled from its first prompts) / ours",
                ours=("ours", bench.seconds("bt")),
                reference=("crowd-kit 1.4.2", res["seconds"] * scale),
                kind="peer",
                ratio_def="reference/ours",
                values=(diff, 0.0),
                tolerance=1e-9,
                note="values: the largest |score difference| on the prompts crowd-kit fitted",
            )

        say("arena: one prompt, 100 responses")
        ours_arena = bench.step(
            "arena",
            f"ie.bradley_terry from the file, {STEPS} MM steps",
            lambda: ie.bradley_terry(
                pd.read_csv(d / "arena.csv", dtype=str), item="prompt", max_iter=STEPS, tol=-math.inf
            ),
        )
        res = peer(args.crowdkit_python, d / "arena.csv", "arena", 1)
        if res is not None:
            say(f"  crowd-kit BradleyTerry: {res['seconds']:.3f} s")
            ours = ours_arena.scores.set_index("response")["score"]
            theirs = pd.Series(res["scores"])
            diff = float(np.max(np.abs(ours.loc[theirs.index].to_numpy() - theirs.to_numpy())))
            bench.compare(
                f"Bradley-Terry, one prompt of 100 responses, {n_judgments:,} judgments, {STEPS} steps: "
                "crowd-kit / ours",
                ours=("ours", bench.seconds("arena")),
                reference=("crowd-kit 1.4.2", res["seconds"]),
                kind="peer",
                ratio_def="reference/ours",
                values=(diff, 0.0),
                tolerance=1e-9,
                note="values: the largest |score difference|",
            )

        say("rankings: 5-10 responses, 3 judges per prompt")
        ours_rank = bench.step(
            "rank",
            "ie.ranking_agreement from the file (alpha, W per prompt, Borda gold)",
            lambda: ie.ranking_agreement(pd.read_csv(d / "rankings.csv", dtype=str), **cols),
        )
        plain = bench.step(
            "plain_w",
            "plain Kendall's W per prompt (pandas groupby + numpy)",
            lambda: plain_kendall_w(d / "rankings.csv"),
        )
        w_ours = ours_rank.per_item.set_index("item")["w"]
        diff = float(np.max(np.abs(w_ours.loc[plain.index].to_numpy() - plain.to_numpy())))
        bench.compare(
            f"Kendall's W of {n_rank_prompts:,} prompts ({n_rank_prompts * 3:,} rankings): plain / ours (ours also "
            "computes alpha and the gold ranking)",
            ours=("ours", bench.seconds("rank")),
            reference=("plain numpy", bench.seconds("plain_w")),
            kind="baseline",
            ratio_def="reference/ours",
            values=(diff, 0.0),
            tolerance=1e-12,
            note="values: the largest |W difference| over the prompts",
        )
    print_comparisons(bench.comparisons)
    if args.json:
        write_json(
            args.json,
            {
                "benchmark": "judgments",
                "title": "Pairwise preferences and rankings",
                "command": " ".join(sys.argv),
                "params": {"judgments": n_prompts * 18, "rankings": n_rank_prompts * 3, "steps": STEPS},
                "steps": list(bench.steps.values()),
                "comparisons": bench.comparisons,
                "machine": machine_info(),
            },
        )


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    say(f"total {time.perf_counter() - t0:.1f} s")
