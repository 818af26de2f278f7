"""The whole-process floor of a report from a file (shared/notes/performance.md): what any tool must do first.

Start the interpreter, import numpy and pyarrow, read the file, turn the three columns into sorted integer codes
(Arrow dictionary encoding, then the rank of each dictionary entry), and count items × labels and annotators ×
labels with numpy.bincount. No statistic, no validation, no output beyond one line.

    python benchmarks/_e2e_floor.py FILE.csv|FILE.parquet
"""

import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def codes(column):
    enc = (
        column.combine_chunks().dictionary_encode()
        if isinstance(column, pa.ChunkedArray)
        else column.dictionary_encode()
    )
    order = pc.sort_indices(enc.dictionary).to_numpy()
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[enc.indices.to_numpy()], order.size


def main(path: str) -> None:
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
    else:
        import pyarrow.csv as pcsv

        table = pcsv.read_csv(
            path,
            convert_options=pcsv.ConvertOptions(
                column_types={"item": pa.string(), "annotator": pa.string(), "label": pa.string()}
            ),
        )
    item, n_items = codes(table.column("item"))
    ann, n_ann = codes(table.column("annotator"))
    label, n_labels = codes(table.column("label"))
    print(n_items, n_ann, n_labels, count(item, label, n_items, n_labels), count(ann, label, n_ann, n_labels))


def count(rows, label, n_rows, n_labels):
    """The rows × labels count table: dense bincount while it is small, the distinct cells otherwise."""
    key = rows.astype(np.int64) * n_labels + label
    if n_rows * n_labels <= 1 << 26:
        return int(np.bincount(key, minlength=n_rows * n_labels).sum())
    cells, counts = np.unique(key, return_counts=True)
    return int(counts.sum())


if __name__ == "__main__":
    main(sys.argv[1])
