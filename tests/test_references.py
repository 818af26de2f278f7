"""Published reference values, each with its source."""

from __future__ import annotations

import numpy as np
import pytest

import iaa_engine as ie

nan = np.nan

# Krippendorff, K. (2011). "Computing Krippendorff's Alpha-Reliability". Annenberg School for Communication,
# University of Pennsylvania: the worked example with missing data, 4 observers (rows A-D) × 12 units, values 1-5,
# blanks missing, whose alpha the paper gives at all four levels.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)


@pytest.mark.parametrize(
    ("level", "published"),
    [
        ("nominal", 0.743),  # Krippendorff (2011): α_nominal = .743
        ("ordinal", 0.815),  # Krippendorff (2011): α_ordinal = .815
        ("interval", 0.849),  # Krippendorff (2011): α_interval = .849
        ("ratio", 0.797),  # Krippendorff (2011): α_ratio = .797
    ],
)
def test_krippendorff_2011_four_levels(level, published):
    data = ie.Annotations.from_wide(KRIPPENDORFF_2011, level=level)
    assert round(ie.krippendorff_alpha(data), 3) == published


def test_krippendorff_2011_pairable_values():
    """Krippendorff (2011): unit 12 has a single value and is not pairable; n.. = 40 pairable values."""
    data = ie.Annotations.from_wide(KRIPPENDORFF_2011)
    o = ie.coincidence_matrix(data)
    assert o.sum() == pytest.approx(40)
    assert int(np.sum(~data.counts.pairable)) == 1
    # the coincidence matrix is symmetric; its margins are the pairable value counts n_c (counted by hand above:
    # value 1 occurs 3× in unit 1, once in unit 6, 3× in unit 8 and twice in unit 11, so n_1 = 9, ...)
    np.testing.assert_allclose(o, o.T)
    np.testing.assert_allclose(o.sum(axis=1), [9, 13, 10, 5, 3])


# Fleiss' kappa worked example: 10 subjects, 14 raters, 5 categories (Wikipedia, "Fleiss' kappa", section
# "Worked example", table of n_ij; also statsmodels/stats/tests/test_inter_rater.py, `table1`).
# Published: P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
FLEISS_10x14 = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def test_fleiss_10x14_worked_example():
    data = ie.Annotations.from_counts(FLEISS_10x14)
    kappa = ie.fleiss_kappa(data)
    p_bar = ie.joint_probability(data)
    p_e = (p_bar - kappa) / (1 - kappa)
    assert round(p_bar, 3) == 0.378
    assert round(p_e, 3) == 0.213
    assert round(kappa, 3) == 0.210
    # the published P_i of the first two subjects: 1.000 and 0.253
    p_i = ie.item_agreement(data)
    assert round(p_i.iloc[0], 3) == 1.0 and round(p_i.iloc[1], 3) == 0.253


def test_fleiss_10x14_same_from_expanded_annotations():
    """The same table expanded to 140 annotations (14 anonymous raters per subject) gives the same kappa."""
    items, cats = np.nonzero(FLEISS_10x14)
    labels = np.repeat(cats, FLEISS_10x14[items, cats])
    subjects = np.repeat(items, FLEISS_10x14[items, cats])
    raters = np.concatenate([np.arange(14)] * 10)
    import pandas as pd

    frame = pd.DataFrame({"item": subjects, "annotator": raters, "label": labels})
    assert ie.fleiss_kappa(frame) == pytest.approx(ie.fleiss_kappa(ie.Annotations.from_counts(FLEISS_10x14)), abs=1e-15)
