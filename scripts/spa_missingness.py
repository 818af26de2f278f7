"""Reproduce docs/spa-missingness.md: SPA and two chance corrections under random missingness.

.venv/bin/python scripts/spa_missingness.py            # prints the markdown table
"""

import numpy as np

import iaa_engine as ie


def main() -> None:
    rng = np.random.default_rng(0)
    truth = rng.choice(3, size=30, p=[0.5, 0.3, 0.2])
    labels = np.where(rng.random((30, 6)) < 0.5, truth[:, None], rng.integers(0, 3, (30, 6)))
    data = ie.Annotations.from_wide(labels, annotators_as="columns")
    res = ie.missingness_simulation(data, fractions=(0.3, 0.5, 0.7), n_rep=4000, seed=1, progress=True)
    print("| missing | quantity | complete data | mean over 4000 | bias | MC s.e. | z |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in res.itertuples():
        print(
            f"| {r.fraction:.0%} | {r.quantity} | {r.complete:.4f} | {r.mean:.4f} | {r.bias:+.4f} | {r.mc_se:.4f} "
            f"| {r.z:+.2f} |"
        )


if __name__ == "__main__":
    main()
