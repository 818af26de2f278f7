"""The user-shaped sparse crowd table of the end-to-end benchmarks (issue "from file to report").

Text ids as annotation tools export them (``doc0001234``, ``w0042``), 500 annotators with Zipf-like activity,
5 labels, 1-8 annotations per item (an annotator at most once per item), each annotation the item's true label with
probability 0.75, rows shuffled. Vectorised: 10**7 annotations in a few seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LABELS = np.array(["neg", "neu", "pos", "mixed", "off"])


def generate(n_annotations: int, *, n_annotators: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    per_item = rng.integers(1, 9, size=int(n_annotations / 4.5 * 1.1) + 64)
    ends = np.cumsum(per_item)
    n_items = int(np.searchsorted(ends, n_annotations)) + 1
    per_item = per_item[:n_items]
    per_item[-1] -= int(per_item.sum() - n_annotations)
    item = np.repeat(np.arange(n_items), per_item)
    # distinct annotators per item: Zipf-like activity, duplicates within an item re-drawn uniformly
    activity = 1.0 / np.arange(1, n_annotators + 1) ** 0.8
    ann = rng.choice(n_annotators, size=n_annotations, p=activity / activity.sum())
    for _ in range(20):
        key = item.astype(np.int64) * n_annotators + ann
        order = np.argsort(key, kind="stable")
        dup = np.zeros(n_annotations, dtype=bool)
        dup[order[1:]] = key[order[1:]] == key[order[:-1]]
        if not dup.any():
            break
        ann[dup] = rng.integers(0, n_annotators, size=int(dup.sum()))
    truth = rng.integers(0, len(LABELS), size=n_items)
    label = np.where(rng.random(n_annotations) < 0.75, truth[item], rng.integers(0, len(LABELS), size=n_annotations))
    perm = rng.permutation(n_annotations)
    return pd.DataFrame(
        {
            "item": np.char.add("doc", np.char.zfill(item[perm].astype(str), 7)),
            "annotator": np.char.add("w", np.char.zfill(ann[perm].astype(str), 4)),
            "label": LABELS[label[perm]],
        }
    )


def write(path: str, n_annotations: int, *, seed: int = 0) -> None:
    """Write the table as CSV or Parquet (by suffix) with pyarrow, as an export would."""
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet

    table = pa.Table.from_pandas(generate(n_annotations, seed=seed), preserve_index=False)
    if str(path).endswith(".parquet"):
        pyarrow.parquet.write_table(table, path)
    else:
        pyarrow.csv.write_csv(table, path, write_options=pyarrow.csv.WriteOptions(quoting_style="none"))
