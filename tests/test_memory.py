"""Memory bounded by the data: the large shapes of the intake issue run under a fixed address-space ceiling.

Each case runs in its own interpreter with ``RLIMIT_AS`` set (virtual memory, so every allocation counts, whether
touched or not) and checks the number against an independent computation, or a one-line error before the allocation.
Before the fix these cases tried to allocate 7 GiB (30,000 labels), 298 GiB (100,000 interval values), 7.45 GiB
(1,000 annotators × 1,000 labels), 3.3 GB (one pair among 2,000 annotators) and 15 GiB (a count table with a cell of
10⁹).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

CEILING_GIB = 3.0


def run_limited(
    code: str, ceiling_gib: float = CEILING_GIB, args: list[str] | None = None
) -> subprocess.CompletedProcess:
    limit = int(ceiling_gib * 2**30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    cmd = args if args is not None else [sys.executable, "-c", textwrap.dedent(code)]
    return subprocess.run(cmd, capture_output=True, text=True, preexec_fn=cap, env=env, timeout=300)


def result_of(code: str, ceiling_gib: float = CEILING_GIB) -> dict:
    proc = run_limited(code, ceiling_gib)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


PAIRS = """
import json, numpy as np, pandas as pd, iaa_engine as ie
rng = np.random.default_rng(0)
n_items = {n_items}
labels = {labels}
frame = pd.DataFrame({{"item": np.repeat(np.arange(n_items), 2).astype(str), "annotator": np.tile(["a", "b"], n_items),
                      "label": labels}})
data = ie.Annotations.from_long(frame, level="{level}")
alpha = ie.krippendorff_alpha(data)
print(json.dumps({{"alpha": alpha, "labels": frame["label"].astype(str).tolist() if {dump} else None}}))
"""


def test_thirty_thousand_distinct_labels_on_sixty_thousand_rows():
    n_items = 30_000
    code = PAIRS.format(
        n_items=n_items, labels="rng.integers(0, 30_000, 2 * n_items).astype(str)", level="nominal", dump=True
    )
    out = result_of(code)
    # independent: every item has two values; D_o = 2·#disagreeing items / n, D_e = (n² - Σ n_c²) / (n(n-1))
    lab = np.array(out["labels"]).reshape(-1, 2)
    n = lab.size
    _, counts = np.unique(lab, return_counts=True)
    assert counts.size > 20_000
    d_o = 2.0 * np.sum(lab[:, 0] != lab[:, 1]) / n
    d_e = (n * n - np.sum(counts.astype(float) ** 2)) / (n * (n - 1.0))
    assert out["alpha"] == pytest.approx(1.0 - d_o / d_e, abs=1e-12)


def test_a_hundred_thousand_distinct_interval_values():
    n_items = 100_000
    code = PAIRS.format(
        n_items=n_items, labels="np.round(rng.normal(size=2 * n_items), 9)", level="interval", dump=True
    )
    out = result_of(code)
    x = np.array(out["labels"], dtype=float).reshape(-1, 2)
    assert np.unique(x).size > 190_000
    n = x.size
    d_o = 2.0 * np.sum((x[:, 0] - x[:, 1]) ** 2) / n
    v = x.ravel()
    d_e = 2.0 * (n * np.sum(v * v) - v.sum() ** 2) / (n * (n - 1.0))
    assert out["alpha"] == pytest.approx(1.0 - d_o / d_e, abs=1e-9)


def test_ratio_alpha_on_many_distinct_values_stays_in_bounded_memory():
    code = PAIRS.format(n_items=10_000, labels="rng.random(20_000) + 0.5", level="ratio", dump=True)
    out = result_of(code)
    x = np.array(out["labels"], dtype=float).reshape(-1, 2)
    v = x.ravel()
    n = v.size

    def delta(a, b):
        return ((a - b) / (a + b)) ** 2

    d_o = 2.0 * np.sum(delta(x[:, 0], x[:, 1])) / n
    d_e = sum(float(np.sum(delta(v[i : i + 1000, None], v[None, :]))) for i in range(0, n, 1000)) / (n * (n - 1.0))
    assert out["alpha"] == pytest.approx(1.0 - d_o / d_e, abs=1e-9)


MANY = """
import json, numpy as np, pandas as pd, iaa_engine as ie
rng = np.random.default_rng(1)
n = 200_000
frame = pd.DataFrame({"item": rng.integers(0, 40_000, n), "annotator": rng.integers(0, 1000, n),
                      "label": rng.integers(0, 1000, n)})
data = ie.Annotations.from_long(frame, duplicates="first")
rep = ie.report(data, pairwise=PAIRWISE)
table = data.counts.to_dense()
print(json.dumps({"fleiss": rep.values["fleiss_kappa"], "alpha": rep.values["krippendorff_alpha"],
                  "multi": rep.values["multi_kappa"],
                  "fleiss_counts": ie.fleiss_kappa(ie.Annotations.from_counts(table)),
                  "alpha_counts": ie.krippendorff_alpha(ie.Annotations.from_counts(table)),
                  "matrices": sorted(rep.matrices)}))
"""


@pytest.mark.parametrize("pairwise", [False, True])
def test_a_thousand_annotators_and_a_thousand_labels(pairwise):
    out = result_of(MANY.replace("PAIRWISE", repr(pairwise)))
    assert out["fleiss"] == pytest.approx(out["fleiss_counts"], abs=1e-12)
    assert out["alpha"] == pytest.approx(out["alpha_counts"], abs=1e-12)
    assert np.isfinite(out["multi"])
    assert out["matrices"] == (
        ["cohen_kappa", "krippendorff_alpha_matrix", "percent_agreement_matrix"] if pairwise else []
    )


def test_one_pairs_kappa_among_two_thousand_annotators_uses_only_that_pair():
    code = """
    import json, numpy as np, pandas as pd, iaa_engine as ie
    rng = np.random.default_rng(2)
    n = 400_000
    crowd = pd.DataFrame({"item": rng.integers(0, 20_000, n), "annotator": rng.integers(0, 2000, n).astype(str),
                          "label": rng.integers(0, 5, n)})
    pair = pd.DataFrame({"item": np.tile(np.arange(3000), 2), "annotator": np.repeat(["pa", "pb"], 3000),
                         "label": rng.integers(0, 5, 6000)})
    data = ie.Annotations.from_long(pd.concat([crowd, pair]), duplicates="first")
    a, b = "pa", "pb"
    kept = data.to_long()
    pair = kept[kept.annotator.isin([a, b])].pivot(index="item", columns="annotator", values="label").dropna()
    print(json.dumps({"kappa": ie.cohen_kappa(data, a, b), "x": pair[a].tolist(), "y": pair[b].tolist(),
                      "pair_stats_built": "pair_stats" in data.__dict__}))
    """
    out = result_of(code, ceiling_gib=2.0)
    from sklearn.metrics import cohen_kappa_score

    assert len(out["x"]) == 3000
    assert out["kappa"] == pytest.approx(cohen_kappa_score(out["x"], out["y"]), abs=1e-12)
    assert out["pair_stats_built"] is False


def test_a_count_table_with_a_billion_in_a_cell_is_not_expanded():
    code = """
    import json, iaa_engine as ie
    data = ie.Annotations.from_counts([[10**9, 10**9], [3, 1], [0, 5]])
    print(json.dumps({"fleiss": ie.fleiss_kappa(data), "n": data.n_annotations,
                      "p": ie.joint_probability(data)}))
    """
    out = result_of(code, ceiling_gib=1.5)
    rows = [[Fraction(10**9), Fraction(10**9)], [Fraction(3), Fraction(1)], [Fraction(0), Fraction(5)]]
    p_i = [(sum(x * x for x in r) - sum(r)) / (sum(r) * (sum(r) - 1)) for r in rows]
    p_bar = sum(p_i) / 3
    p_k = [sum(r[k] / sum(r) for r in rows) / 3 for k in range(2)]
    p_e = sum(p * p for p in p_k)
    assert out["n"] == 2 * 10**9 + 9
    assert out["p"] == pytest.approx(float(p_bar), abs=1e-15)
    assert out["fleiss"] == pytest.approx(float((p_bar - p_e) / (1 - p_e)), abs=1e-14)


def test_pairwise_matrices_beyond_memory_are_refused_before_allocating():
    code = """
    import numpy as np, pandas as pd, iaa_engine as ie
    n = 200_000
    frame = pd.DataFrame({"item": np.arange(n) // 2, "annotator": np.arange(n), "label": np.arange(n) % 3})
    ie.report(ie.Annotations.from_long(frame), pairwise=True)
    """
    proc = run_limited(code, ceiling_gib=2.0)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "NotEnoughMemoryError" in last and "200000 annotators" in last and "pairwise=False" in last
    assert "MemoryError: Unable to allocate" not in proc.stderr


def test_absurd_bootstrap_sizes_are_refused_at_once(tmp_path):
    from iaa_engine import cli

    path = tmp_path / "d.csv"
    path.write_text("item,annotator,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n")
    proc = run_limited(
        "",
        args=[sys.executable, "-m", "iaa_engine", "report", str(path), "--ci", "--n-boot", "1000000000"],
        ceiling_gib=2.0,
    )
    assert proc.returncode == 2
    *read, error = proc.stderr.strip().splitlines()  # how the file was read (one line), then the one error line
    assert error == "iaa: error: n_boot must be a whole number from 2 to 100000; got 1000000000"
    assert len(read) == 1 and read[0].startswith("iaa: read 2 items × 2 annotators")
    assert cli.main(["report", str(path), "--ci", "--n-boot", "100"]) == 0


# --------------------------------------------------------------------------- the annotator scorecard and the
# disagreement list with thousands of labels (a Label Studio TextArea: 3,000 tasks asked for 74.5 GiB)

SCORECARD = """
import json, numpy as np, pandas as pd, iaa_engine as ie
rng = np.random.default_rng(SEED)
FRAME
data = ie.Annotations.from_long(frame, duplicates="first")
card = ie.annotator_report(data, progress=False)
dis = ie.disagreements(data, top=20)
kept = data.to_long()
some = list(data.annotators[:3])
print(json.dumps({"item": kept["item"].astype(str).tolist(), "annotator": kept["annotator"].astype(str).tolist(),
                  "label": kept["label"].astype(str).tolist(), "n_categories": data.n_categories,
                  "table": card.table.drop(columns="flag").to_dict(orient="list"), "alpha": card.alpha,
                  "notes": card.notes, "pairs": card.pairs is None, "dis_pairs": dis.pairs.to_dict(orient="list"),
                  "dis_n": dis.n_disagreeing, "dis_ds": dis.dawid_skene,
                  "alpha_wo_refit": {a: ie.krippendorff_alpha(ie.Annotations.from_long(
                      kept[kept.annotator != a][["item", "annotator", "label"]])) for a in some}}))
"""

SIX_THOUSAND = """
n_items, n_lab = 6000, 6000
truth = rng.integers(0, n_lab, n_items)
lab = np.where(rng.random(3 * n_items) < 0.6, np.repeat(truth, 3), rng.integers(0, n_lab, 3 * n_items))
keep = rng.random(3 * n_items) < 0.9  # some items with two annotations, a few with one
frame = pd.DataFrame({"item": np.repeat(np.arange(n_items), 3), "annotator": np.tile(["a", "b", "c"], n_items),
                      "label": lab.astype(str)})[keep]
"""

THOUSAND = """
n = 200_000
truth = rng.integers(0, 1000, 40_000)
item = rng.integers(0, 40_000, n)
lab = np.where(rng.random(n) < 0.5, truth[item], rng.integers(0, 1000, n))
frame = pd.DataFrame({"item": item, "annotator": rng.integers(0, 1000, n).astype(str), "label": lab})
"""


def _nominal_alpha(df):
    """Krippendorff's nominal alpha from the long table (Krippendorff 2011, pairable values only)."""
    counts = df.groupby(["item", "label"]).size()
    m = counts.groupby(level=0).sum()
    pairable = m[m >= 2].index
    counts = counts[counts.index.get_level_values(0).isin(pairable)].astype(float)
    m = m[pairable].astype(float)
    sumsq = (counts**2).groupby(level=0).sum()
    n = m.sum()
    d_o = ((m * m - sumsq) / (m - 1.0)).sum() / n
    n_c = counts.groupby(level=1).sum()
    d_e = (n * n - (n_c**2).sum()) / (n * (n - 1.0))
    return 1.0 - d_o / d_e


def _check_scorecard(out):
    import pandas as pd

    df = pd.DataFrame({"item": out["item"], "annotator": out["annotator"], "label": out["label"]})
    table = pd.DataFrame(out["table"]).set_index("annotator")
    assert out["alpha"] == pytest.approx(_nominal_alpha(df), abs=1e-10)
    for a, refit in out["alpha_wo_refit"].items():  # the core's alpha, refitted without a
        assert table.loc[a, "alpha_without"] == pytest.approx(refit, abs=1e-10)
        assert table.loc[a, "alpha_without"] == pytest.approx(_nominal_alpha(df[df.annotator != a]), abs=1e-10)
    # agreement and kappa with the pooled others, from the counts: a's label-k item weighs (n_ik - 1)/(m_i - 1)
    # on the diagonal; the others' margin of label l gets (n_il - [l = k])/(m_i - 1)
    n_il = df.groupby(["item", "label"]).size().rename("n_il").reset_index()
    m_i = df.groupby("item").size().rename("m")
    own = df.join(m_i, on="item")
    own = own[own.m >= 2].merge(n_il, on=["item", "label"])
    agree = ((own.n_il - 1) / (own.m - 1)).groupby(own.annotator).sum()
    n_pair = own.groupby("annotator").size()
    assert table.loc[n_pair.index, "n_pairable"].to_numpy() == pytest.approx(n_pair.to_numpy())
    assert table.loc[agree.index, "agreement"].to_numpy() == pytest.approx((agree / n_pair).to_numpy(), abs=1e-12)
    oth = own[["annotator", "item", "label", "m"]].merge(n_il, on="item", suffixes=("", "_o"))
    oth["w"] = (oth.n_il - (oth.label == oth.label_o)) / (oth.m - 1)
    col = oth.groupby(["annotator", "label_o"]).w.sum()
    row = own.groupby(["annotator", "label"]).size()
    p_e = (row.rename_axis(["annotator", "l"]) * col.rename_axis(["annotator", "l"])).groupby(level=0).sum()
    p_e = p_e / n_pair**2
    p_o = agree / n_pair
    assert table.loc[p_o.index, "kappa"].to_numpy() == pytest.approx(((p_o - p_e) / (1 - p_e)).to_numpy(), abs=1e-10)
    assert np.isfinite(table["kappa_se"]).all()
    # accuracy against the majority label (unique winner, two or more annotations)
    top = n_il.sort_values("n_il").groupby("item").n_il.agg(["max", "size"])
    win = n_il.merge(top, left_on="item", right_index=True)
    win = win[win.n_il == win["max"]]
    win = win[win.groupby("item").label.transform("size") == 1].set_index("item").label
    gold = df.join(m_i, on="item")
    gold = gold[(gold.m >= 2) & gold.item.isin(win.index)]
    acc = (gold.label.to_numpy() == win[gold.item].to_numpy()).astype(float)
    acc = pd.Series(acc).groupby(gold.annotator.to_numpy()).mean()
    assert table.loc[acc.index, "accuracy"].to_numpy() == pytest.approx(acc.to_numpy(), abs=1e-12)
    # the disagreement list's top label pairs: observed coincidences o_ck = sum_i n_ic n_ik / (m_i - 1)
    pairs = pd.DataFrame(out["dis_pairs"])
    both = n_il.merge(n_il, on="item").join(m_i, on="item")
    both = both[(both.label_x < both.label_y) & (both.m >= 2)]
    o = (both.n_il_x * both.n_il_y / (both.m - 1)).groupby([both.label_x, both.label_y]).sum()
    cats = sorted(df.label.unique(), key=str)  # categories in the data's order are the sorted labels
    assert len(cats) == out["n_categories"]
    for a, b, obs in zip(pairs.label_a, pairs.label_b, pairs.observed):
        key = (str(a), str(b)) if (str(a), str(b)) in o.index else (str(b), str(a))
        assert obs == pytest.approx(o[key], abs=1e-12)
    return table


def test_scorecard_and_disagreements_with_six_thousand_labels():
    out = result_of(SCORECARD.replace("SEED", "5").replace("FRAME", textwrap.dedent(SIX_THOUSAND)))
    assert out["n_categories"] > 5000
    _check_scorecard(out)
    assert out["pairs"] is True and "pairwise marginal-homogeneity tests left out" in out["notes"][-1]
    assert out["dis_ds"] is False  # Dawid-Skene's 3 x 5000² confusion tables are left out under 'auto'


def test_scorecard_and_disagreements_with_a_thousand_annotators_and_a_thousand_labels():
    out = result_of(SCORECARD.replace("SEED", "6").replace("FRAME", textwrap.dedent(THOUSAND)))
    assert out["n_categories"] == 1000
    _check_scorecard(out)
    assert out["pairs"] is True


def test_scorecard_pairwise_true_with_too_many_label_cells_is_refused_before_allocating():
    code = """
    import numpy as np, pandas as pd, iaa_engine as ie
    n = 40_000
    frame = pd.DataFrame({"item": np.arange(n) // 2, "annotator": np.tile(["a", "b"], n // 2),
                          "label": np.arange(n) % 20_000})
    ie.annotator_report(ie.Annotations.from_long(frame), pairwise=True, progress=False)
    """
    proc = run_limited(code, ceiling_gib=2.0)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "NotEnoughMemoryError" in last and "1 pairs of annotators x 20000x20000 labels" in last
    assert "pairwise=False" in last and "Unable to allocate" not in proc.stderr


def test_dawid_skene_with_thousands_of_labels_is_refused_before_allocating_when_asked_for():
    code = """
    import numpy as np, pandas as pd, iaa_engine as ie
    rng = np.random.default_rng(0)
    n = 6000
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 3), "annotator": np.tile(["a", "b", "c"], n),
                          "label": rng.integers(0, 6000, 3 * n)})
    data = ie.Annotations.from_long(frame)
    from iaa_engine.base._policy import NotEnoughMemoryError
    for call in (lambda: ie.annotator_report(data, gold="dawid_skene", progress=False),
                 lambda: ie.disagreements(data, dawid_skene=True)):
        try:
            call()
        except NotEnoughMemoryError as err:
            print(err)
    """
    proc = run_limited(code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Dawid-Skene gold (3 annotators x ") and "use gold='majority'" in lines[0]
    assert lines[1].startswith("Dawid-Skene (3 annotators x ") and "use dawid_skene=False or 'auto'" in lines[1]


# --------------------------------------------------------------------------- the default report at every level on the
# intake shapes (issue 24): the weighted coefficients never build a categories × categories matrix

REPORT_AT = """
import json, resource, numpy as np, pandas as pd, iaa_engine as ie
from iaa_engine.stats._weights import weight_matrix
shape, level = SHAPE, LEVEL
rng = np.random.default_rng(3)
check = {}
if shape.startswith("values"):
    n = int(float(shape.split("-")[1])) // 2
    x = np.round(np.abs(rng.normal(size=2 * n)) + 0.5, 9)  # distinct values (non-negative: the ratio level too)
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "annotator": np.tile(["a", "b"], n), "label": x})
    data = ie.Annotations.from_long(frame, level=level)
    # quadratic weights on two ratings per item, from the values alone (no library code): d_i the item's difference
    a, b = x[0::2], x[1::2]
    d2, var, big_r = np.mean((a - b) ** 2), np.var(x), x.max() - x.min()
    v = np.unique(x)  # the categories (a few values coincide after rounding)
    q, s1, s2 = v.size, np.sum(v), np.sum(v * v)
    pa = 1 - d2 / big_r**2
    pe_bp = (q * q - (2 * q * s2 - 2 * s1 * s1) / big_r**2) / q**2
    check = {"fleiss_kappa": 1 - d2 / (2 * var), "brennan_prediger": (pa - pe_bp) / (1 - pe_bp),
             "multi_kappa": 1 - d2 / (np.var(a) + np.var(b) + (a.mean() - b.mean()) ** 2),
             "percent_agreement_weighted": pa}
    check = {f"{k}[quadratic]": v for k, v in check.items()}
    if level == "ratio":  # ratio weights on two ratings per item: 1 - ((a - b)/(a + b))^2 / ((M - m)/(M + m))^2
        top = ((x.max() - x.min()) / (x.max() + x.min())) ** 2
        check = {"percent_agreement_weighted[ratio]": float(np.mean(1 - ((a - b) / (a + b)) ** 2 / top))}
    distinct = int(q)
elif shape == "crowd":
    n = 200_000
    frame = pd.DataFrame({"item": rng.integers(0, 40_000, n), "annotator": rng.integers(0, 1000, n),
                          "label": rng.integers(0, 1000, n)})
    data = ie.Annotations.from_long(frame, duplicates="first", level=level)
    distinct = data.n_categories
else:
    data = ie.Annotations.from_counts([[10**9, 10**9], [3, 1], [0, 5]], level=level)
    distinct = 2
rep = ie.report(data, pairwise=False)
dense = {}
if shape != "values-1e6" and rep.kappa_weights is not None:  # the same with the family's matrix, where it fits
    w = weight_matrix(rep.kappa_weights, np.asarray(data.categories, dtype=float)) if distinct <= 2000 else None
    for key in rep.estimates:
        name = key.split("[")[0]
        if w is not None and key.endswith(f"[{rep.kappa_weights}]"):
            e = ie.estimate(data, name, weights=w)
            dense[key] = [e.estimate, e.se]
print(json.dumps({"values": rep.values, "estimates": {k: [e.estimate, e.se] for k, e in rep.estimates.items()},
                  "notes": rep.notes, "kappa_weights": rep.kappa_weights, "distinct": distinct, "check": check,
                  "dense": dense, "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""

_SLOW = pytest.mark.slow
_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _report_cases():
    for shape in ("values-1e5", "values-1e6", "crowd", "counts"):
        for level in _LEVELS:
            marks = [_SLOW] if shape == "values-1e6" else []
            yield pytest.param(shape, level, marks=marks, id=f"{shape}-{level}")


@pytest.mark.parametrize("shape, level", list(_report_cases()))
def test_the_default_report_at_every_level_on_the_intake_shapes(shape, level):
    """The report answers with the weighted coefficients (ordinal, interval: quadratic weights; ratio: ratio weights,
    which have no closed form: a note where they cannot run, never an error), under a 3 GiB address-space ceiling and
    2 GiB of peak RSS; the weighted coefficients equal an independent closed form (two ratings per item) or the same
    computation with the family's q × q matrix where it fits."""
    out = result_of(REPORT_AT.replace("SHAPE", repr(shape)).replace("LEVEL", repr(level)))
    assert out["peak_gib"] < 2.0, out["peak_gib"]
    assert np.isfinite(out["values"]["fleiss_kappa"])
    expected = {"nominal": None, "ordinal": "quadratic", "interval": "quadratic", "ratio": "ratio"}[level]
    assert out["kappa_weights"] == expected
    weighted = {k: v for k, v in out["estimates"].items() if expected and k.endswith(f"[{expected}]")}
    if expected is None:
        assert weighted == {}
    else:  # ratio weights: by the quadrature of _differences.ratio_row_sums above 4096 values, no note
        assert not any("no closed form" in n for n in out["notes"])
        names = {"percent_agreement_weighted", "fleiss_kappa", "gwet_ac1", "brennan_prediger", "multi_kappa"}
        if shape == "counts":
            names.discard("multi_kappa")  # no annotators
        assert {k.split("[")[0] for k in weighted} == names
        for key, value in out["check"].items():
            assert weighted[key][0] == pytest.approx(value, abs=1e-9), key
        for key, (est, se) in out["dense"].items():
            assert weighted[key][0] == pytest.approx(est, abs=1e-12) and weighted[key][1] == pytest.approx(
                se, abs=1e-12
            )
        if shape == "counts":  # two categories: every family is the identity, the unweighted Fleiss' kappa
            assert weighted[f"fleiss_kappa[{expected}]"][0] == pytest.approx(out["values"]["fleiss_kappa"], abs=1e-14)
        if shape == "crowd":
            assert out["dense"] and set(out["dense"]) == set(weighted)
    if level in ("interval", "ratio") and shape != "counts":
        assert {"ICC(1,1)"} <= set(out["estimates"]) or any("ICC" in n for n in out["notes"])


def test_category_kappas_with_fifty_thousand_labels_build_no_identity_matrix():
    """fleiss_kappa_by_category took the unweighted parts through np.eye(q): 18.6 GiB at q = 50,000."""
    code = """
    import json, numpy as np, pandas as pd, iaa_engine as ie
    rng = np.random.default_rng(4)
    n = 100_000
    lab = rng.integers(0, 50_000, 2 * n)
    lab[1::2] = np.where(rng.random(n) < 0.5, lab[0::2], lab[1::2])
    data = ie.Annotations.from_long(pd.DataFrame({"item": np.repeat(np.arange(n), 2), "annotator": np.tile([0, 1], n),
                                                  "label": lab}))
    by_cat = ie.fleiss_kappa_by_category(data)
    print(json.dumps({"cats": by_cat.index.tolist(), "kappa": by_cat.tolist(), "labels": lab.tolist()}))
    """
    out = result_of(code, ceiling_gib=2.0)
    lab = np.array(out["labels"]).reshape(-1, 2)
    # Fleiss (1971), eq. 11 with m = 2 ratings per item: kappa_k = 1 - sum_i x_ik (2 - x_ik) / (2 n p_k (1 - p_k))
    n = lab.shape[0]
    cats = np.array(out["cats"])
    x = (lab[:, :1] == cats[None, :100]).astype(float) + (lab[:, 1:] == cats[None, :100])
    p = x.sum(axis=0) / (2 * n)
    expected = 1 - np.sum(x * (2 - x), axis=0) / (2 * n * p * (1 - p))
    assert len(out["kappa"]) > 40_000
    np.testing.assert_allclose(out["kappa"][:100], expected, rtol=0, atol=1e-12)
