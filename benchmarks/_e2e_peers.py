"""A peer library's agreement coefficient from the same file, end to end (read, build its input, compute).

    python benchmarks/_e2e_peers.py krippendorff|statsmodels|irrcac FILE.csv|FILE.parquet

Each builds exactly the input its library documents, from the long table as pandas reads it:
* krippendorff: the annotators × items reliability matrix (NaN = missing), then ``krippendorff.alpha`` (nominal);
* statsmodels: the items × categories count table (``pandas.crosstab``), then ``fleiss_kappa`` on the items with
  the most common number of ratings (statsmodels asserts one number of ratings per item, so it cannot take the
  whole sparse table; the timing of the pipeline is what is compared);
* irrCAC: the items × annotators ratings frame (NaN = missing), then ``CAC(...).fleiss()``.
"""

import sys

import numpy as np
import pandas as pd


def read(path: str) -> pd.DataFrame:
    if path.endswith(".parquet"):
        return pd.read_parquet(path)
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def main(peer: str, path: str) -> None:
    df = read(path)
    item, items = pd.factorize(df["item"])
    ann, anns = pd.factorize(df["annotator"])
    label, labels = pd.factorize(df["label"], sort=True)
    if peer in ("krippendorff", "krippendorff-interval"):
        import krippendorff

        matrix = np.full((len(anns), len(items)), np.nan)
        if peer == "krippendorff":
            matrix[ann, item] = label
            level = "nominal"
        else:
            matrix[ann, item] = pd.to_numeric(df["label"]).to_numpy(dtype=float)
            level = "interval"
        value = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    elif peer == "statsmodels":
        from statsmodels.stats.inter_rater import fleiss_kappa

        table = pd.crosstab(df["item"], df["label"]).to_numpy()
        n = table.sum(axis=1)
        table = table[n == np.bincount(n).argmax()]  # statsmodels asserts one number of ratings per item
        value = fleiss_kappa(table)
    elif peer == "irrcac":
        from irrCAC.raw import CAC

        matrix = np.full((len(items), len(anns)), np.nan)
        matrix[item, ann] = label
        ratings = pd.DataFrame(matrix)
        value = CAC(ratings, categories=list(range(len(labels)))).fleiss()["est"]["coefficient_value"]
    else:
        raise SystemExit(f"unknown peer {peer!r}")
    print(peer, value)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
