"""Regenerate the bundled example data sets in iaa_engine/examples/ (deterministic).

classroom.csv: the 3 annotators x 15 items matrix of seed 001 (annotators as rows).
crowd.csv:     a sparse crowd-style long table: 300 product reviews, 40 annotators of
               varying skill, each review labelled by 1 to 6 of them, 4 sentiment classes.
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent.parent / "iaa_engine" / "examples"

CLASSROOM = [
    [1, 1, 1, 3, 3, 2, 3, 3, 1, 2, 2, 2, 1, 3, 1],
    [1, 2, 1, 2, 3, 2, 3, 3, 1, 1, 2, 2, 1, 3, 1],
    [2, 1, 1, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 3, 1],
]


def classroom() -> pd.DataFrame:
    frame = pd.DataFrame(
        CLASSROOM, index=["annotator_0", "annotator_1", "annotator_2"], columns=[f"item_{j + 1}" for j in range(15)]
    )
    frame.index.name = "annotator"
    return frame


def crowd(seed: int = 20251124) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    classes = np.array(["negative", "neutral", "positive", "mixed"])
    n_items, n_annotators = 300, 40
    truth = rng.choice(4, size=n_items, p=[0.3, 0.25, 0.35, 0.10])
    skill = rng.uniform(0.45, 0.95, size=n_annotators)
    per_item = rng.choice([1, 2, 3, 4, 5, 6], size=n_items, p=[0.1, 0.3, 0.25, 0.15, 0.1, 0.1])
    rows = []
    for i in range(n_items):  # data generation only; the library never loops over annotations
        for a in rng.choice(n_annotators, size=per_item[i], replace=False):
            correct = rng.random() < skill[a]
            label = truth[i] if correct else rng.choice([c for c in range(4) if c != truth[i]])
            rows.append((f"review_{i + 1:03d}", f"worker_{a + 1:02d}", classes[label]))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


if __name__ == "__main__":
    HERE.mkdir(parents=True, exist_ok=True)
    classroom().to_csv(HERE / "classroom.csv")
    crowd().to_csv(HERE / "crowd.csv", index=False)
    print("wrote", HERE / "classroom.csv", "and", HERE / "crowd.csv")
