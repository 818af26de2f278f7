"""Regenerate the team lead's walkthrough data (docs/team-lead/) and its pictures (docs/images/).

    python scripts/screenshots.py            # data, then the HTML report, then the pictures
    python scripts/screenshots.py --data-only

The data are a simulated review-labelling team (deterministic: the same files on every run): 400 product reviews,
3 of 12 annotators per review, four labels of which ``neutral`` and ``mixed`` are the hard pair (most mistakes on one
go to the other); ``kim`` says ``positive`` far too often (a label bias) and ``lee`` clicks at random. ``gold.csv``
holds the true label of 80 reviews (gold questions); ``models.csv`` the labels of two versions of a pre-labelling
model on every review.

The pictures are parts of the page ``iaa report team.csv --html report.html --benchmark landis_koch`` writes,
rendered by headless Chromium (``/usr/bin/chromium`` or ``chromium`` on the PATH): each shot loads a copy of the page
with a short script that keeps only the wanted section, and the screenshot is cropped to the page's white area.
``docs/team-lead.md`` shows them; ``tests/test_walkthrough.py`` checks that the data are what this script writes
and that every command of the walkthrough prints what the document quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "docs" / "team-lead"
IMAGE_DIR = ROOT / "docs" / "images"

LABELS = np.array(["positive", "negative", "neutral", "mixed"])
NAMES = np.array(["ana", "ben", "chen", "dara", "eli", "femi", "gus", "hana", "ivan", "jo", "kim", "lee"])


def simulate(seed: int = 17) -> dict[str, pd.DataFrame]:
    """The walkthrough's data: the team's annotations, the gold questions and two pre-labelling models."""
    rng = np.random.default_rng(seed)
    n_items, per_item, k = 400, 3, LABELS.size
    truth = rng.choice(k, size=n_items, p=[0.35, 0.3, 0.2, 0.15])
    who = np.argsort(rng.random((n_items, NAMES.size)), axis=1)[:, :per_item]
    item = np.repeat(np.arange(n_items), per_item)
    ann, true = who.ravel(), truth[item]
    accuracy = np.r_[rng.uniform(0.85, 0.95, 10), 0.9, 0.0][ann]
    # a mistake is another label at random, except that neutral and mixed are mostly mistaken for each other
    other = (true + rng.integers(1, k, size=true.size)) % k
    swap = np.where(true == 2, 3, np.where(true == 3, 2, -1))
    other = np.where((swap >= 0) & (rng.random(true.size) < 0.9), swap, other)
    label = np.where(rng.random(true.size) < accuracy, true, other)
    label = np.where((ann == 10) & (rng.random(true.size) < 0.5), 0, label)  # kim: "positive" half the time
    label = np.where(ann == 11, rng.integers(0, k, size=true.size), label)  # lee: at random
    ids = np.array([f"review_{i + 1:03d}" for i in range(n_items)])
    team = pd.DataFrame({"item": ids[item], "annotator": NAMES[ann], "label": LABELS[label]})

    gold_items = np.sort(rng.choice(n_items, size=80, replace=False))
    gold = pd.DataFrame({"item": ids[gold_items], "label": LABELS[truth[gold_items]]})

    models = []
    for version, acc in (("prelabel-v1", 0.88), ("prelabel-v2", 0.70)):
        wrong = (truth + rng.integers(1, k, size=n_items)) % k
        guess = np.where(rng.random(n_items) < acc, truth, wrong)
        models.append(pd.DataFrame({"item": ids, "annotator": version, "label": LABELS[guess]}))
    return {"team": team, "gold": gold, "models": pd.concat(models, ignore_index=True)}


def write_data(out: Path = DATA_DIR) -> list[Path]:
    """Write ``team.csv``, ``gold.csv`` and ``models.csv`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, frame in simulate().items():
        path = out / f"{name}.csv"
        frame.to_csv(path, index=False, lineterminator="\n")
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- pictures

#: name -> (the element to keep, how many elements before it to keep too, the heading text to stop at, rows kept
#: per table, the page's fragment); an h2 keeps what follows it up to the next h2 or the stop heading
SHOTS = {
    "benchmark": ("#metrics", 0, "", 0, ""),
    "adjudicate-items": ("#adjudicate", 0, "Most confused", 8, ""),
    "coincidence": ("#fig-coincidence", 0, "", 0, ""),
    "confused-pair": ("#adjudicate-pairs", 2, "", 0, "#pair-1"),
    "annotators": ("#annotators", 0, "", 0, ""),
}
WIDTH = 1150

#: keeps only one section of the page: an h2 with what follows it up to the next h2, or one element
KEEP = """
<script>
(function () {
  const sel = %s, before = %d, stop = %s, rows = %d;
  const start = document.querySelector(sel), main = document.querySelector("main");
  const keep = [start];
  if (start.tagName === "H2") {
    for (let n = start.nextElementSibling; n && n.tagName !== "H2"; n = n.nextElementSibling) {
      if (stop && n.textContent.startsWith(stop)) break;
      keep.push(n);
    }
  }
  for (let i = 0, n = start.previousElementSibling; i < before && n; i++, n = n.previousElementSibling) keep.unshift(n);
  main.replaceChildren(...keep);
  if (rows > 0) main.querySelectorAll("table tbody").forEach(function (tb) {
    Array.from(tb.rows).slice(rows).forEach(function (r) { r.remove(); });
  });
  main.style.paddingBottom = "12px";
  const h = main.firstElementChild;
  if (h) h.style.marginTop = "4px";
})();
</script>
"""


def chromium() -> str:
    exe = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
    if exe is None:
        raise SystemExit("chromium is not installed (apt-get install chromium, or bash scripts/system-deps.sh)")
    return exe


def screenshot(page: Path, png: Path, width: int, height: int, fragment: str = "") -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            f"--window-size={width},{height}",
            page.resolve().as_uri() + fragment,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if not png.is_file():
        raise RuntimeError(f"chromium made no screenshot:\n{out.stderr[-2000:]}")


def crop(png: Path, background: tuple[int, int, int] = (0xF4, 0xF5, 0xF7)) -> tuple[int, int]:
    """Crop to the page's white area (everything that is not the body's grey), then drop its empty bottom."""
    from PIL import Image

    img = Image.open(png).convert("RGB")
    arr = np.asarray(img)
    content = np.any(arr != np.array(background, dtype=np.uint8), axis=2)
    rows, cols = np.flatnonzero(content.any(axis=1)), np.flatnonzero(content.any(axis=0))
    arr = arr[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    inked = np.flatnonzero(np.any(arr < 250, axis=(1, 2)))  # the last row with anything drawn on it
    arr = arr[: min(arr.shape[0], inked[-1] + 14)]
    Image.fromarray(arr).save(png, optimize=True)
    return arr.shape[1], arr.shape[0]


def write_pictures(data_dir: Path = DATA_DIR, out: Path = IMAGE_DIR) -> dict[str, tuple[int, int]]:
    """Write the HTML report of ``team.csv`` and cut the walkthrough's pictures out of it."""
    out.mkdir(parents=True, exist_ok=True)
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        cmd = [sys.executable, "-m", "iaa_engine", "report", str(data_dir / "team.csv"), "--html", str(page)]
        subprocess.run([*cmd, "--benchmark", "landis_koch"], check=True, capture_output=True, text=True)
        html = page.read_text(encoding="utf-8")
        for name, (selector, before, stop, rows, fragment) in SHOTS.items():
            script = KEEP % (json.dumps(selector), before, json.dumps(stop), rows)
            variant = Path(tmp) / f"{name}.html"
            variant.write_text(html.replace("</body>", script + "</body>"), "utf-8")
            png = out / f"{name}.png"
            screenshot(variant, png, WIDTH, 2400, fragment)
            sizes[name] = crop(png)
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-only", action="store_true", help="write the data files only")
    args = parser.parse_args(argv)
    for path in write_data():
        print("wrote", path.relative_to(ROOT))
    if not args.data_only:
        for name, (w, h) in write_pictures().items():
            print(f"wrote docs/images/{name}.png ({w} x {h})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
