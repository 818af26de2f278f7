"""Mathet et al.'s gamma (``ie.gamma_agreement``) from a CSV file, beside pygamma-agreement.

Data: one continuum, 3 annotators; entities at regular slots (40 positions apart, 8-24 long, 5 labels); each
annotator marks an entity with probability 0.9, with both boundaries shifted by up to 3 and the label changed with
probability 0.1, and adds a spurious unit now and then (probability 0.05 per slot). Sizes: 50, 100, 200 and 1000
slots (about 3 x 45, 3 x 95, 3 x 190, 3 x 940 units); ``--quick``: 50 and 200.

Timed from the file on disk (a CSV with a header for us; pygamma's ``Continuum.from_csv`` wants one without),
both with 30 sampled continua (pygamma's default ``n_samples``) and the default dissimilarity (α = β = Δ∅ = 1):

* ours: ``pandas.read_csv`` then ``ie.gamma_agreement`` (best alignment by HiGHS, 30 samples), in this process
  (after one small warm-up call that imports SciPy's optimizer);
* pygamma-agreement (0.5.9: numba, cvxpy with GLPK_MI; CBC is not installed): ``Continuum.from_csv`` then
  ``compute_gamma``, in its own virtual environment, one process per size. Its numba functions are compiled
  (on a 6-unit continuum) before the clock starts. Each size gets ``--peer-timeout`` seconds (default 240):
  pygamma enumerates the whole product of (units + 1) per annotator (10^9 tuples at 3 x 1000) for the observed
  continuum and every sample. Once a size times out, the larger ones are not run for it.

The best-alignment disorders of the two are printed side by side (equal to pygamma's float32 precision); γ
differs by the sampling (different random streams; ours reports its standard error).

Setup of the peer (once): ``python -m venv benchmarks/out/pygamma-venv &&
benchmarks/out/pygamma-venv/bin/pip install pygamma-agreement``. Without it only our numbers are printed.

A crowd (``--crowd``, issue 33): 12 documents, 20 workers with 5 per document (8 entity slots each, the design
above), γ with a participants file (each document's alignments among its five, the sampler drawing only them),
from the files; beside it γ without participants (20 workers in every document: refused before the work), and
pygamma-agreement, which has neither documents nor participants, run document by document (12 continua of 5
annotators, 30 samples each): its best-alignment disorders, weighted by each document's N_d / 5, add up to ours.

Run: ``.venv/bin/python benchmarks/bench_gamma.py [--quick] [--repeat 3] [--peer-timeout 240] [--no-peer]
[--crowd] [--peer-python PATH]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import iaa_engine as ie
from iaa_engine.stats._gamma import TooManyAlignmentsError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

HERE = Path(__file__).resolve().parent
PEER_PYTHON = HERE / "out" / "pygamma-venv" / "bin" / "python"

PEER = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
import numpy as np
from pyannote.core import Segment
from pygamma_agreement import CombinedCategoricalDissimilarity, Continuum

warm = Continuum()
for a, s, e, c in [("A", 1, 5, "a"), ("A", 6, 10, "b"), ("B", 2, 6, "a"), ("B", 7, 11, "b"), ("C", 1, 4, "a")]:
    warm.add(a, Segment(s, e), c)
warm.compute_gamma(CombinedCategoricalDissimilarity(), n_samples=2)
t = time.perf_counter()
continuum = Continuum.from_csv(sys.argv[1])
np.random.seed(0)
result = continuum.compute_gamma(CombinedCategoricalDissimilarity(), n_samples=30)
gamma = float(result.gamma)
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "gamma": gamma, "observed": float(result.observed_disorder),
                  "expected": float(result.expected_disorder)}))
"""


def spans(n_slots: int, n_raters: int = 3, seed: int = 0) -> pd.DataFrame:
    """The design of the module's docstring (a rater's units may overlap only through a spurious one)."""
    rng = np.random.default_rng(seed)
    start = np.arange(n_slots) * 40 + rng.integers(0, 8, n_slots)
    length = rng.integers(8, 25, n_slots)
    label = rng.integers(0, 5, n_slots)
    frames = []
    for r in range(n_raters):
        keep = rng.random(n_slots) < 0.9
        s = start + rng.integers(-3, 4, n_slots)
        e = start + length + rng.integers(-3, 4, n_slots)
        lab = np.where(rng.random(n_slots) < 0.1, rng.integers(0, 5, n_slots), label)
        extra = rng.random(n_slots) < 0.05
        xs = start[extra] + 20 + rng.integers(0, 10, int(extra.sum()))
        frames.append(pd.DataFrame({"annotator": f"a{r}", "start": s[keep], "end": e[keep], "label": lab[keep]}))
        frames.append(pd.DataFrame({"annotator": f"a{r}", "start": xs, "end": xs + 6, "label": 0}))
    frame = pd.concat(frames, ignore_index=True)
    return frame.assign(label="L" + frame["label"].astype(str))


def ours(path: Path, repeat: int) -> tuple[float, ie.GammaAgreement]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = ie.gamma_agreement(pd.read_csv(path))
        times.append(time.perf_counter() - t)
    assert out is not None
    return min(times), out


def peer(path: Path, timeout: float) -> dict | str:
    if not PEER_PYTHON.exists():
        return "not installed (see the module's docstring)"
    try:
        done = subprocess.run(
            [str(PEER_PYTHON), "-c", PEER, str(path)], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"did not finish in {timeout:.0f} s"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:120]
    return json.loads(done.stdout.strip().splitlines()[-1])


PEER_DOCUMENTS = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
import numpy as np
from pyannote.core import Segment
from pygamma_agreement import CombinedCategoricalDissimilarity, Continuum

warm = Continuum()
for a, s, e, c in [("A", 1, 5, "a"), ("A", 6, 10, "b"), ("B", 2, 6, "a"), ("B", 7, 11, "b"), ("C", 1, 4, "a")]:
    warm.add(a, Segment(s, e), c)
warm.compute_gamma(CombinedCategoricalDissimilarity(), n_samples=2)
t = time.perf_counter()
observed, units = [], []
for path in sys.argv[1:]:
    continuum = Continuum.from_csv(path)
    np.random.seed(0)
    result = continuum.compute_gamma(CombinedCategoricalDissimilarity(), n_samples=30)
    observed.append(float(result.observed_disorder))
    units.append(continuum.num_units)
print(json.dumps({"seconds": time.perf_counter() - t, "observed": observed, "units": units}))
"""


def crowd(n_docs: int = 12, workers: int = 20, per_doc: int = 5, entities: int = 8, seed: int = 0):
    """(spans, participants): each document seen by ``per_doc`` of ``workers``; the design of :func:`spans` with
    ``entities`` slots per document, each participant marking an entity with probability 0.9."""
    rng = np.random.default_rng(seed)
    frames, part = [], []
    for d in range(n_docs):
        who = rng.choice(workers, per_doc, replace=False)
        one = spans(entities, per_doc, seed=seed * 1000 + d)
        one = one.assign(annotator=[f"w{who[int(a[1:])]:02d}" for a in one["annotator"]], document=f"d{d:02d}")
        frames.append(one)
        part += [(f"d{d:02d}", f"w{w:02d}") for w in who]
    return pd.concat(frames, ignore_index=True), pd.DataFrame(part, columns=["document", "annotator"])


def crowd_case(repeat: int, peer_python: Path, timeout: float) -> None:
    """γ with participants on 12 documents x 20 workers, 5 per document, from the files; pygamma-agreement (no
    documents, no participants) document by document on the same units, 5 annotators each."""
    frame, part = crowd()
    print(f"\ngamma, a crowd: 12 documents, 20 workers, 5 per document, {len(frame)} units, 30 samples")
    with tempfile.TemporaryDirectory() as tmp:
        path, ppath = Path(tmp) / "crowd.csv", Path(tmp) / "participants.csv"
        frame.to_csv(path, index=False)
        part.to_csv(ppath, index=False)
        times, res = [], None
        for _ in range(repeat):
            t = time.perf_counter()
            res = ie.gamma_agreement(pd.read_csv(path), participants=pd.read_csv(ppath))
            times.append(time.perf_counter() - t)
        assert res is not None
        print(
            f"  ours, with participants (from the two files)    {min(times):7.3f} s   gamma {res.estimate:.4f} ± "
            f"{res.se:.4f}, observed disorder {res.observed_disorder:.6f}, {res.n_candidates:,} candidates"
        )
        try:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ie.AbsentAnnotatorsWarning)  # the point of this line
                ie.gamma_agreement(pd.read_csv(path), n_samples=30)
            print(f"  ours, without participants (20 workers in every document) {time.perf_counter() - t:7.3f} s")
        except TooManyAlignmentsError as error:
            print(f"  ours, without participants (20 workers in every document): refused ({str(error)[:90]}...)")
        if not peer_python.exists():
            print(f"  pygamma-agreement: not installed at {peer_python}")
            return
        files = []
        for d, one in frame.groupby("document"):
            f = Path(tmp) / f"pygamma_{d}.csv"
            one[["annotator", "label", "start", "end"]].to_csv(f, index=False, header=False)
            files.append(str(f))
        try:
            done = subprocess.run(
                [str(peer_python), "-c", PEER_DOCUMENTS, *files], capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            print(f"  pygamma-agreement, document by document: did not finish in {timeout:.0f} s")
            return
        if done.returncode:
            print("  pygamma-agreement failed:", (done.stderr.strip().splitlines() or ["?"])[-1][:120])
            return
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
        # the same best alignments: Σ_d (disorder_d × N_d / 5) over the documents is ours × n̄ (Σ_d N_d / n_d)
        total = sum(o * n / 5 for o, n in zip(theirs["observed"], theirs["units"]))
        n_bar = len(frame) / 5
        print(
            f"  pygamma-agreement, document by document (12 continua of 5 annotators, 30 samples each) "
            f"{theirs['seconds']:7.3f} s ({theirs['seconds'] / min(times):.1f}x ours); total best-alignment "
            f"disorder {total:.6f} (ours {res.observed_disorder * n_bar:.6f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 and 200 slots only")
    parser.add_argument("--repeat", type=int, default=3, help="our runs per size (the best is shown)")
    parser.add_argument("--peer-timeout", type=float, default=240.0)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--json", default=None, help="write the comparisons as JSON here (run_all.py)")
    parser.add_argument("--crowd", action="store_true", help="only the crowd with participants (issue 33)")
    parser.add_argument("--peer-python", default=str(PEER_PYTHON), help="a Python with pygamma-agreement")
    args = parser.parse_args()
    if args.crowd:
        ie.gamma_agreement(spans(5), n_samples=2)  # imports before the clock
        crowd_case(args.repeat, Path(args.peer_python), args.peer_timeout)
        return
    bench = bl.Bench()
    machine = bl.machine_info()
    sizes = (50, 200) if args.quick else (50, 100, 200, 1000)
    print("gamma from the CSV file, 3 annotators, 30 samples      ours (s)   pygamma (s)   ratio   "
          "observed disorder (ours / pygamma)   gamma ours ± se / pygamma")  # fmt: skip
    gave_up = ""
    ie.gamma_agreement(spans(5), n_samples=2)  # imports (scipy.optimize, HiGHS) before the clock, as pygamma's jit
    with tempfile.TemporaryDirectory() as tmp:
        for n_slots in sizes:
            frame = spans(n_slots)
            path = Path(tmp) / f"spans{n_slots}.csv"
            frame.to_csv(path, index=False)
            peer_path = Path(tmp) / f"pygamma{n_slots}.csv"
            frame[["annotator", "label", "start", "end"]].to_csv(peer_path, index=False, header=False)
            seconds, res = ours(path, args.repeat)
            if args.no_peer:
                theirs: dict | str = "skipped"
            elif gave_up:
                theirs = f"not run: it did not finish {gave_up}"
            else:
                theirs = peer(peer_path, args.peer_timeout)
                if isinstance(theirs, str) and theirs.startswith("did not finish"):
                    gave_up = f"{n_slots} slots in {args.peer_timeout:.0f} s"
            head = f"{n_slots:>5} slots, {len(frame):>5} units, {res.n_candidates:>6} candidates   {seconds:>8.3f}"
            if isinstance(theirs, dict):
                bench.compare(
                    f"gamma from the CSV, 3 annotators, {len(frame)} units, 30 samples",
                    ours=("ie.gamma_agreement", seconds),
                    reference=("pygamma-agreement compute_gamma", theirs["seconds"]),
                    kind="peer",
                    ratio_def="reference/ours",
                    values=(res.observed_disorder, theirs["observed"]),
                    tolerance=1e-5,
                    note="values: best-alignment disorders (pygamma in float32)",
                )
                print(
                    f"{head}   {theirs['seconds']:>11.3f}   {theirs['seconds'] / seconds:>5.1f}x   "
                    f"{res.observed_disorder:.6f} / {theirs['observed']:.6f}                "
                    f"{res.estimate:.4f} ± {res.se:.4f} / {theirs['gamma']:.4f}",
                    flush=True,
                )
            else:
                print(
                    f"{head}   {'-':>11}   {'-':>6}   {res.observed_disorder:.6f} / -"
                    f"                      {res.estimate:.4f} ± {res.se:.4f} / -   (pygamma: {theirs})",
                    flush=True,
                )
    if args.json:
        bl.write_json(
            args.json,
            {
                "title": "## bench_gamma.py — Mathet et al.'s gamma from a CSV file, beside pygamma-agreement",
                "params": {"annotators": 3, "n_samples": 30, "sizes": ", ".join(map(str, sizes))},
                "comparisons": bench.comparisons,
                "machine": machine,
                "load_average_end": bl.loadavg(),
                "memory": {"ru_maxrss_bytes": bl.ru_maxrss_bytes()},
            },
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
