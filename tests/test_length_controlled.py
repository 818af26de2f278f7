"""The length-controlled win rate (issue 34, item 3; Dubois et al. 2024): ie.length_controlled_winrate against
statsmodels' GLM (the exact maximum-likelihood fit) and against AlpacaEval's own GLM code.

AlpacaEval (https://github.com/tatsu-lab/alpaca_eval at cd543a1, ``src/alpaca_eval/metrics/glm_winrate.py``):
its ``make_dmatrix_for_model`` and ``fit_LogisticRegressionCV`` were run in a scratch directory under /tmp (not
copied) on :func:`judgments` with the ``length_controlled_minimal`` formula, the data prepared as its
``_get_featurized_data`` does (``std_delta_len = delta / delta.std()``, a tie 0.5), without cross-validation and with
a penalty too weak to matter (``n_splits=0, C=1e12, tol=1e-12``; scikit-learn 1.9.1, liblinear): the
length-controlled rate is the mean of its predictions at ``std_delta_len = 0``. liblinear stops short of the exact
maximum (its coefficients differ from statsmodels' in the fourth digit), hence the tolerance.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie

#: AlpacaEval's length-controlled rate and length coefficient on judgments(seed), run as the module says.
ALPACA_EVAL = {0: (0.4518731530319538, 1.2883705535574594), 1: (0.4809812241577263, 0.9927271617336648),
               2: (0.5596326275013911, 0.8430545607735425)}  # fmt: skip


def judgments(seed: int, n: int = 300) -> pd.DataFrame:
    """A model against a base model, the model's responses longer; the judge prefers length; 10% ties."""
    rng = np.random.default_rng(seed)
    la, lb = rng.normal(1200, 350, n).round(), rng.normal(1000, 250, n).round()
    eta = 0.3 * (seed - 1) + 1.2 * np.tanh((la - lb) / 400)
    u = rng.random(n)
    pref = np.where(u < 0.1, 0.5, np.where(rng.random(n) < 1 / (1 + np.exp(-eta)), 1.0, 0.0))
    label = np.where(pref == 1, "A", np.where(pref == 0, "B", "tie"))
    return pd.DataFrame({"item": range(n), "response_a": "model", "response_b": "base", "label": label,
                         "length_a": la, "length_b": lb})  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_alpaca_eval_and_statsmodels(seed):
    import statsmodels.api as sm

    t = judgments(seed)
    row = ie.length_controlled_winrate(t, baseline="base").table.iloc[0]
    lc, coef = ALPACA_EVAL[seed]
    assert row["lc_win_rate"] == pytest.approx(lc, abs=2e-5)
    assert row["length_coef"] == pytest.approx(coef, abs=2e-3)
    y = t["label"].map({"A": 1.0, "B": 0.0, "tie": 0.5}).to_numpy()
    delta = (t["length_a"] - t["length_b"]).to_numpy()
    x = np.column_stack([np.ones(len(t)), np.tanh(delta / delta.std(ddof=1))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels: non-integer successes of the binomial family
        glm = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-14)
    assert row["theta"] == pytest.approx(glm.params[0], abs=1e-12)
    assert row["length_coef"] == pytest.approx(glm.params[1], abs=1e-12)
    p = 1 / (1 + np.exp(-glm.params[0]))
    assert row["lc_se"] == pytest.approx(p * (1 - p) * glm.bse[0], rel=1e-10)
    assert row["win_rate"] == pytest.approx(y.mean()) and row["n"] == 300
    assert (row["wins"], row["ties"], row["losses"]) == ((y == 1).sum(), (y == 0.5).sum(), (y == 0).sum())


def test_the_order_shown_does_not_matter():
    t = judgments(0)
    swap = t.assign(response_a=t.response_b, response_b=t.response_a, length_a=t.length_b, length_b=t.length_a,
                    label=t.label.map({"A": "B", "B": "A", "tie": "tie"}))  # fmt: skip
    half = pd.concat([t.iloc[::2], swap.iloc[1::2]])
    a = ie.length_controlled_winrate(t, baseline="base").table
    b = ie.length_controlled_winrate(half, baseline="base").table
    pd.testing.assert_frame_equal(a, b, rtol=1e-12)


def test_several_models_undefined_cases_and_errors():
    t = judgments(1)
    always = t.assign(response_a="winner", label="A").iloc[:20]
    third = t.assign(response_a="x", response_b="y").iloc[:5]
    res = ie.length_controlled_winrate(pd.concat([t, always, third]), baseline="base")
    table = res.table.set_index("model")
    assert list(table.index) == ["model", "winner"]
    assert np.isnan(table.loc["winner", "lc_win_rate"]) and "won every judgment" in table.loc["winner", "reason"]
    assert table.loc["winner", "win_rate"] == 1.0
    assert any("other than the baseline" in n for n in res.notes) and "undefined" in str(res)
    with pytest.raises(ValueError, match="no judgment compares"):
        ie.length_controlled_winrate(t, baseline="nobody")
    with pytest.raises(ValueError, match="lengths must be numbers"):
        ie.length_controlled_winrate(t.assign(length_a="long"), baseline="base")
    # the message shows what the file held, not numpy's reprs of the coerced values ("np.float64(nan)")
    na = t.astype({"length_a": object})
    na.iloc[2, na.columns.get_loc("length_a")] = None
    length_b = re.escape(repr(str(t["length_b"].iloc[2])))
    with pytest.raises(ValueError, match=rf"^row 3: the lengths must be numbers; got blank and {length_b}$"):
        ie.length_controlled_winrate(na, baseline="base")
    with pytest.raises(ValueError, match=r"got 'long' and"):
        ie.length_controlled_winrate(t.assign(length_a="long"), baseline="base")
    with pytest.raises(ValueError, match="column 'length_b'"):
        ie.length_controlled_winrate(t.drop(columns="length_b"), baseline="base")
