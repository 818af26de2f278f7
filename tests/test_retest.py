"""ie.retest: test-retest agreement and Eliasziw et al.'s (1994) inter/intra-rater decomposition (issue 27, item 4).

Reference: R irr 0.84.1's ``relInterIntra`` (https://github.com/cran/irr, ``R/relInterIntra.R``, commit 3229aa5).
Its documentation (``man/relInterIntra.Rd``) gives the goniometer example of Eliasziw et al. (1994), table 4 — 29
subjects, 2 goniometers ('universal', 'Lamoreux') × 3 measurements — but prints no output. The expected values
below are irr 0.84.1's own ``R/relInterIntra.R`` ``source``d and run on that example in R 4.2.2 (irr is not
installed here; the function uses only base R's ``aov``, ``pf`` and ``qf``), printed with ``options(digits=15)``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie
from iaa_engine.analysis._retest import eliasziw

# man/relInterIntra.Rd: matrix(c(...), ncol=6): columns universal m1..m3, Lamoreux m1..m3 (29 subjects)
TABLE4 = np.array([
    -2, 16, 5, 11, 7, -7, 18, 4, 0, 0, -3, 3, 7, -6, 1, -13, 2, 4, -10, 8, 7, -3, -5, 5, 0, 7, -8, 1, -3,
    0, 16, 6, 10, 8, -8, 19, 5, -3, 0, -2, -1, 9, -7, 1, -14, 1, 4, -9, 9, 6, -2, -5, 5, -1, 6, -8, 1, -3,
    1, 15, 6, 10, 6, -8, 19, 5, -2, -2, -2, 1, 9, -6, 0, -14, 0, 3, -10, 8, 7, -4, -7, 5, -1, 6, -8, 2, -3,
    2, 12, 4, 9, 5, -9, 17, 5, -7, 1, -4, -1, 4, -8, -2, -12, -1, 7, -10, 2, 8, -5, -6, 3, -4, 4, -10, 1, -5,
    1, 14, 4, 7, 6, -10, 17, 5, -6, 2, -3, -2, 4, -10, -2, -12, 0, 6, -11, 8, 7, -5, -8, 4, -3, 4, -11, -1, -4,
    1, 13, 4, 8, 6, -9, 17, 5, -5, 1, -3, 1, 2, -9, -3, -12, 0, 4, -10, 8, 7, -5, -7, 4, -4, 4, -10, 0, -5,
], dtype=float).reshape(6, 29).T  # fmt: skip

# relInterIntra(x=table4, nrater=2, raterLabels=c('universal','Lamoreux')) in R 4.2.2 (irr 0.84.1's source)
R_VALUES = {
    "rho_inter_random": 0.945065704196461,
    "rho_intra_random": 0.984249114673392,
    "rho_inter_fixed": 0.961251443214779,
    "rho_intra_fixed": 0.983979355948605,
    "rho_intra_random_per_rater": [0.986438933579531, 0.982068996692559],
    "rho_intra_fixed_per_rater": [0.986206153348779, 0.981762591857534],
    "f_inter": 17.3735406785844,
    "f_intra": 14.0484917766797,
    "f_intra_per_rater": [16.3533224587912, 12.3130898513252],
    "lower_inter_random": 0.853592283119829,
    "lower_inter_fixed": 0.935356881665683,
    "lower_intra": 0.973051501584253,
    "lower_intra_per_rater": [0.976790844808306, 0.969331047117566],
    "sem_intra": 0.925376593112480,
    "sem_intra_per_rater": [0.857690027870237, 0.988438917815801],
    "sem_inter_random": 1.728175349411679,
    "sem_inter_fixed": 1.439150756085376,
}


def _goniometer_long(shuffle: int | None = None) -> pd.DataFrame:
    rows = [
        (subject, rater, rep + 1, TABLE4[subject, r * 3 + rep])
        for subject in range(29)
        for r, rater in enumerate(("universal", "Lamoreux"))
        for rep in range(3)
    ]
    table = pd.DataFrame(rows, columns=["subject", "goniometer", "measurement", "degrees"])
    if shuffle is not None:
        table = table.sample(frac=1.0, random_state=shuffle).reset_index(drop=True)
    return table


@pytest.fixture(scope="module")
def goniometer():
    return ie.retest(_goniometer_long(), item="subject", annotator="goniometer", label="degrees",
                     occasion="measurement")  # fmt: skip


@pytest.mark.parametrize("key", sorted(R_VALUES))
def test_irr_relinterintra_goniometer_example(key, goniometer):
    got = goniometer.decomposition[key]
    assert got == pytest.approx(R_VALUES[key], abs=1e-12, rel=1e-13)


def test_irr_relinterintra_p_values(goniometer):
    d = goniometer.decomposition
    # R prints 2.04033456796537e-11 from 1 - pf(...), which loses digits to cancellation near 1 (an absolute
    # error of about 1e-16); our upper tail is computed directly, so they agree to that absolute error
    assert d["p_inter"] == pytest.approx(2.04033456796537e-11, abs=5e-16)
    # R's 0, 0 and 1.44e-15 are 1 - pf underflowing: the true tails are below 1e-14
    assert d["p_intra"] < 1e-14 and max(d["p_intra_per_rater"]) < 1e-14
    assert (d["n_items"], d["n_raters"], d["n_repeats"]) == (29, 2, 3)
    assert d["raters"] == ["universal", "Lamoreux"]


def test_the_decomposition_does_not_depend_on_row_order(goniometer):
    shuffled = ie.retest(_goniometer_long(shuffle=4), item="subject", annotator="goniometer", label="degrees",
                         occasion="measurement")  # fmt: skip
    a, b = shuffled.decomposition, goniometer.decomposition
    order = [a["raters"].index(name) for name in b["raters"]]  # raters in order of first appearance
    for key in R_VALUES:
        got = np.asarray(a[key])[order] if key.endswith("per_rater") else a[key]
        assert np.allclose(got, b[key], rtol=1e-12, atol=1e-13), key


def test_a_small_example_against_r():
    # relInterIntra(cbind(c(3,5,1,4), c(3,4,2,4), c(2,5,1,5), c(3,5,1,4)), nrater=2) in R 4.2.2 (irr 0.84.1 source)
    y = np.array([[[3, 3], [2, 3]], [[5, 4], [5, 5]], [[1, 2], [1, 1]], [[4, 4], [5, 4]]], dtype=float)
    d = eliasziw(y)
    assert d["rho_inter_fixed"] == pytest.approx(0.892307692307692, abs=1e-14)
    assert d["rho_intra_fixed"] == pytest.approx(0.907692307692308, abs=1e-14)
    assert d["lower_inter_random"] == pytest.approx(0.686415307095498, abs=1e-13)
    assert d["lower_inter_fixed"] == pytest.approx(0.634902783246591, abs=1e-13)
    assert d["lower_intra"] == pytest.approx(0.504246745237506, abs=1e-13)
    assert d["sem_inter_fixed"] == pytest.approx(0.540061724867322, abs=1e-14)


def test_mean_squares_against_a_brute_force_sum_of_squares():
    rng = np.random.default_rng(2)
    y = rng.normal(size=(7, 3, 4)) + rng.normal(size=(7, 1, 1)) * 2
    d = eliasziw(y)["mean_squares"]
    n, t, m = y.shape
    total = np.sum((y - y.mean()) ** 2)
    ss = {
        "subjects": sum(t * m * (y[i].mean() - y.mean()) ** 2 for i in range(n)),
        "raters": sum(n * m * (y[:, j].mean() - y.mean()) ** 2 for j in range(t)),
        "error": sum(np.sum((y[i, j] - y[i, j].mean()) ** 2) for i in range(n) for j in range(t)),
    }
    ss["interaction"] = total - ss["subjects"] - ss["raters"] - ss["error"]  # the two-way table's remainder
    df = {"subjects": n - 1, "raters": t - 1, "interaction": (n - 1) * (t - 1), "error": n * t * (m - 1)}
    for key in ss:
        assert d[key] == pytest.approx(ss[key] / df[key], rel=1e-12)


def test_intra_rater_values_are_the_librarys_coefficients_on_each_annotators_occasions(goniometer):
    table = _goniometer_long()
    row = goniometer.intra.set_index("annotator").loc["universal"]
    own = table[table["goniometer"] == "universal"]
    wide = own.pivot(index="subject", columns="measurement", values="degrees")
    data = ie.Annotations.from_wide(wide, annotators_as="columns", level="interval")
    assert row["n_items"] == 29 and row["n_labels"] == 87
    assert row["alpha"] == pytest.approx(ie.krippendorff_alpha(data), abs=1e-12)
    assert row["icc"] == pytest.approx(ie.icc(data, "ICC(2,1)").estimate, abs=1e-12)
    # every occasion (issue 32): Conger's kappa with quadratic weights on the degrees; exact repeats over all pairs
    assert row["kappa"] == pytest.approx(ie.multi_kappa(data, weights="quadratic"), abs=1e-12)
    same = ((wide[1] == wide[2]).astype(int) + (wide[1] == wide[3]) + (wide[2] == wide[3])) / 3
    assert row["percent_agreement"] == pytest.approx(float(same.mean()), abs=1e-15)
    first = goniometer.inter.set_index("occasion").loc[1]
    occ1 = table[table["measurement"] == 1].pivot(index="subject", columns="goniometer", values="degrees")
    d1 = ie.Annotations.from_wide(occ1, annotators_as="columns", level="interval")
    assert first["alpha"] == pytest.approx(ie.krippendorff_alpha(d1), abs=1e-12)
    assert first["icc"] == pytest.approx(ie.icc(d1, "ICC(2,1)").estimate, abs=1e-12)
    assert first["fleiss_kappa"] == pytest.approx(ie.fleiss_kappa(d1, weights="quadratic"), abs=1e-12)


NOMINAL = pd.DataFrame({
    "item": ["a", "b", "c", "d", "a", "b", "c", "d", "a", "b", "c", "d", "a", "b"],
    "annotator": ["x"] * 4 + ["y"] * 4 + ["x"] * 4 + ["y"] * 2,
    "label": ["pos", "neg", "neg", "pos", "pos", "neg", "pos", "pos", "pos", "neg", "pos", "pos", "pos", "pos"],
})  # fmt: skip


def test_without_an_occasion_column_the_table_order_numbers_the_repeats():
    r = ie.retest(NOMINAL)
    x = r.intra.set_index("annotator").loc["x"]
    assert x["n_items"] == 4 and x["percent_agreement"] == 0.75  # c: neg then pos
    y = r.intra.set_index("annotator").loc["y"]
    assert y["n_items"] == 2 and y["percent_agreement"] == 0.5  # a: pos pos, b: neg pos
    assert r.decomposition is None and "not numbers" in r.notes[0]
    assert "icc" not in r.intra.columns
    assert list(r.inter["n_items"]) == [4, 4]


def test_timestamps_order_the_repeats():
    stamped = NOMINAL.assign(when=pd.date_range("2026-01-01", periods=len(NOMINAL), freq="D"))
    reversed_rows = stamped.iloc[::-1].reset_index(drop=True)
    a = ie.retest(stamped, occasion="when")
    b = ie.retest(reversed_rows, occasion="when")
    pd.testing.assert_frame_equal(a.intra, b.intra)
    c = ie.retest(reversed_rows)  # no occasion column: reversed order, other first labels
    assert not c.inter.equals(a.inter)


def test_unbalanced_items_are_left_out_of_the_decomposition_with_a_note():
    table = _goniometer_long()
    table = table[~((table["subject"] == 0) & (table["goniometer"] == "Lamoreux") & (table["measurement"] == 3))]
    r = ie.retest(table, item="subject", annotator="goniometer", label="degrees", occasion="measurement")
    assert r.decomposition["n_items"] == 28 and r.decomposition["n_repeats"] == 3
    assert any("28 of 29 items" in n for n in r.notes)


def test_result_shape(goniometer):
    out = json.loads(goniometer.to_json())
    assert out["n_occasions"] == 3 and len(out["intra"]) == 2 and len(out["inter"]) == 3
    assert out["decomposition"]["rho_inter_random"] == pytest.approx(R_VALUES["rho_inter_random"])
    assert list(goniometer.to_frame()["annotator"]) == ["universal", "Lamoreux"]
    assert "Eliasziw" in repr(goniometer)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="labelled an item twice"):
        ie.retest(NOMINAL.drop_duplicates(["item", "annotator"]))
    with pytest.raises(ValueError, match=r"column\(s\) \['when'\] not found"):
        ie.retest(NOMINAL, occasion="when")
    with pytest.raises(TypeError, match="DataFrame"):
        ie.retest(NOMINAL.to_numpy())
    with pytest.raises(ie.InvalidParameterError, match="^occasion must be"):
        ie.retest(NOMINAL, occasion=3)
    with pytest.raises(ie.InvalidParameterError, match="^rho0_inter must be"):
        ie.retest(NOMINAL, rho0_inter=1.5)


def test_an_undefined_intra_kappa_is_nan_not_an_error():
    same = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["x"] * 4, "label": ["a"] * 4})
    r = ie.retest(same)
    assert r.intra.loc[0, "percent_agreement"] == 1.0 and math.isnan(r.intra.loc[0, "kappa"])


# --- iaa retest ----------------------------------------------------------------------------------------------


def _run(argv, capsys):
    from iaa_engine.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


COLS = ["--item-col", "subject", "--annotator-col", "goniometer", "--label-col", "degrees"]


def test_cli_retest_reproduces_the_decomposition_from_a_csv(tmp_path, capsys):
    path = tmp_path / "gonio.csv"
    _goniometer_long(shuffle=2).to_csv(path, index=False)
    code, out, _ = _run(["retest", str(path), *COLS, "--occasion-col", "measurement", "--format", "json"], capsys)
    assert code == 0
    d = json.loads(out)["decomposition"]
    for key in ("rho_inter_random", "rho_intra_fixed", "lower_inter_random", "sem_inter_fixed"):
        assert d[key] == pytest.approx(R_VALUES[key], abs=1e-12)
    code, out, _ = _run(["retest", str(path), *COLS, "--occasion-col", "measurement"], capsys)
    assert code == 0 and "Eliasziw et al. (1994) on 29 items x 2 raters x 3" in out and "inter rho 0.9451" in out


def test_cli_retest_orders_dates_as_dates_and_writes_safe_csv(tmp_path, capsys):
    table = _goniometer_long()
    # weeks 9 and 10 of a text column would sort '10' before '9': dates are ordered as dates
    table["when"] = table["measurement"].map({1: "2026-03-02", 2: "2026-03-09", 3: "2026-03-16"})
    path = tmp_path / "gonio.csv"
    table.drop(columns="measurement").iloc[::-1].to_csv(path, index=False)
    code, out, _ = _run(["retest", str(path), *COLS, "--occasion-col", "when", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(__import__("io").StringIO(out)).set_index("annotator")
    ref = ie.retest(_goniometer_long(), item="subject", annotator="goniometer", label="degrees",
                    occasion="measurement").intra.set_index("annotator")  # fmt: skip
    assert got.loc["universal", "kappa"] == pytest.approx(ref.loc["universal", "kappa"], abs=1e-12)
    numbered = tmp_path / "numbered.csv"
    table.assign(week=table["measurement"] + 8).drop(columns=["when"]).to_csv(numbered, index=False)
    code, out, _ = _run(["retest", str(numbered), *COLS, "--occasion-col", "week", "--format", "json"], capsys)
    assert json.loads(out)["decomposition"]["rho_inter_random"] == pytest.approx(R_VALUES["rho_inter_random"])


def test_cli_retest_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "gonio.csv"
    _goniometer_long().to_csv(path, index=False)
    code, out, err = _run(["retest", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("iaa: error: column(s) ['item', 'annotator', 'label'] not found") and "--item-col" in err
    assert err.count("\n") == 1
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"item": [1, 1], "annotator": ["a", "a"], "label": [1, 2], "when": ["x", "y"]}).to_csv(bad)
    code, _, err = _run(["retest", str(bad), "--occasion-col", "when"], capsys)
    assert code == 2 and err == "iaa: error: --occasion-col 'when' must hold numbers or dates; got 'x'\n"


# --- issue 32, item 2: numeric measurements are not read as categories by the kappas


def test_numeric_measurements_show_icc_and_alpha_first_and_weighted_kappas(goniometer, tmp_path, capsys):
    """The goniometer example in degrees printed unweighted kappas of 0.02-0.28 beside ICCs of 0.92-0.98 (any two
    different degrees disagreed fully). Now the ICC and alpha come first, the kappas are quadratic-weighted (close
    to the ICC, as Fleiss & Cohen 1973 show they must be), with a one-line note, and the intra-rater kappa uses
    all three occasions and says so."""
    r = goniometer
    assert r.kappa_weights == "quadratic" and r.to_dict()["kappa_weights"] == "quadratic"
    assert list(r.intra.columns[3:6]) == ["icc", "icc_lower", "icc_upper"]
    assert list(r.inter.columns[3:9]) == ["icc", "icc_lower", "icc_upper", "alpha", "alpha_lower", "alpha_upper"]
    for frame, kappa in ((r.intra, "kappa"), (r.inter, "fleiss_kappa")):
        assert (frame[kappa] > 0.9).all() and ((frame[kappa] - frame["icc"]).abs() < 0.01).all()
    assert any(n.startswith("numeric labels: the ICC and alpha") and "quadratic weights" in n for n in r.notes)
    path = tmp_path / "gonio.csv"
    _goniometer_long().to_csv(path, index=False)
    code, out, _ = _run(["retest", str(path), *COLS, "--occasion-col", "measurement"], capsys)
    head = out.splitlines()[1]
    assert code == 0 and head.index("ICC(2,1)") < head.index("alpha") < head.index("kappa")
    assert "kappa (all 3 occasions, quadratic weights)" in head and "note: numeric labels" in out


def test_the_intra_rater_kappa_uses_every_occasion_and_is_cohens_with_two():
    """Conger's kappa over an annotator's occasions is Cohen's kappa of occasion 1 against 2 when there are two
    (Conger 1980), and reads the third when there is one; nominal labels keep unweighted kappas, and no note."""
    two = NOMINAL.assign(label=NOMINAL["label"])
    r = ie.retest(two)
    x = two[two["annotator"] == "x"].assign(occasion=[1, 1, 1, 1, 2, 2, 2, 2])
    pair = ie.Annotations.from_long(x, annotator="occasion")
    assert r.kappa_weights == "identity" and not any(n.startswith("numeric") for n in r.notes)
    assert r.intra.set_index("annotator").loc["x", "kappa"] == pytest.approx(ie.cohen_kappa(pair), abs=1e-12)
    third = pd.concat([two, pd.DataFrame({"item": ["a", "b", "c", "d"], "annotator": "x",
                                          "label": ["neg", "neg", "pos", "pos"]})])  # fmt: skip
    x3 = third[third["annotator"] == "x"].assign(occasion=[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
    three = ie.Annotations.from_long(x3, annotator="occasion")
    got = ie.retest(third).intra.set_index("annotator").loc["x"]
    assert got["kappa"] == pytest.approx(ie.multi_kappa(three), abs=1e-12) and got["kappa"] != pytest.approx(
        ie.cohen_kappa(pair)
    )
    assert "kappa (all 3 occasions)" in str(ie.retest(third))


# --- issue 32, item 3: an occasion column is read by one rule, in Python as on the command line


def _weeks(when):
    """Annotators x and y label items a, b, c in weeks ``when`` (one per pair of rows, in the table's order): in the
    first week they agree exactly (inter-rater ICC 1), later not."""
    x = pd.DataFrame({"item": ["a", "b", "c"] * 3, "annotator": "x", "label": [1, 2, 3, 1, 3, 3, 2, 3, 4],
                      "week": np.repeat(np.asarray(when, dtype=object)[::2], 3)})  # fmt: skip
    y = x.assign(annotator="y", label=[1, 2, 3, 3, 1, 2, 4, 1, 1])
    return pd.concat([x, y], ignore_index=True)


def test_a_text_occasion_column_of_numbers_is_ordered_as_numbers():
    """Weeks '9', '10', '11' as text: as text '10' < '11' < '9' made week 9 the last occasion. The first occasion
    (labels 1, 2 for a, b) must be week 9 whatever the column's type."""
    ref = ie.retest(_weeks([9, 9, 10, 10, 11, 11]), occasion="week")
    assert ref.inter.loc[0, "icc"] == 1.0  # week 9 first: the two annotators agreed exactly then
    text = ie.retest(_weeks(["9", "9", "10", "10", "11", "11"]), occasion="week")
    pd.testing.assert_frame_equal(ref.intra, text.intra)
    pd.testing.assert_frame_equal(ref.inter, text.inter)
    dates = ie.retest(_weeks(["2026-03-02", "2026-03-02", "2026-03-09", "2026-03-09", "2026-03-16 08:00",
                              "2026-03-16 08:00"]), occasion="week")  # fmt: skip
    pd.testing.assert_frame_equal(ref.intra, dates.intra)


@pytest.mark.parametrize(
    ("when", "message"),
    [
        (
            [9, 9, None, 10, 11, 11],
            r"^occasion column 'week' is blank in 6 of 18 labelled rows \(the first: item "
            r"'a', annotator 'x'\); give every label its occasion, or leave out occasion=",
        ),
        (["9", "9", " ", "10", "11", "11"], "^occasion column 'week' is blank in 6 of 18"),
        (
            ["1", "1", "2026-03-09", "2026-03-09", "3", "3"],
            r"^occasion column 'week' mixes numbers and dates \('1' and '2026-03-09'\); use one or the other$",
        ),
        (
            ["first", "first", "second", "second", "third", "third"],
            "^occasion column 'week' must hold numbers or dates; got 'first'$",
        ),
    ],
)
def test_blank_mixed_or_unreadable_occasions_are_refused_plainly(when, message):
    """They were accepted: a blank occasion silently dropped its label, dates mixed with numbers sorted as text."""
    with pytest.raises(ValueError, match=message):
        ie.retest(_weeks(when), occasion="week")


def test_a_blank_occasion_names_a_numeric_item_as_the_user_wrote_it():
    """Integer item ids were shown as numpy's repr: "(the first: item np.int64(0), annotator 'x')"."""
    data = _weeks([9, 9, None, 10, 11, 11])
    data["item"] = pd.factorize(data["item"])[0] + 7
    with pytest.raises(ValueError, match=r"\(the first: item 7, annotator 'x'\);"):
        ie.retest(data, occasion="week")


def test_the_command_line_uses_the_same_rule_with_its_flag_names(tmp_path, capsys):
    path = tmp_path / "weeks.csv"
    _weeks(["1", "1", "2026-03-09", "2026-03-09", "3", "3"]).to_csv(path, index=False)
    code, out, err = _run(["retest", str(path), "--occasion-col", "week"], capsys)
    assert code == 2 and out == ""
    assert (
        err
        == "iaa: error: --occasion-col 'week' mixes numbers and dates ('1' and '2026-03-09'); use one or the other\n"
    )
    _weeks([9, 9, None, 10, 11, 11]).to_csv(path, index=False)
    code, _, err = _run(["retest", str(path), "--occasion-col", "week"], capsys)
    assert code == 2 and err.startswith("iaa: error: --occasion-col 'week' is blank in 6 of 18 labelled rows")
    assert "leave out --occasion-col" in err


def test_a_value_a_function_refuses_is_undefined_with_the_refusal_as_its_note():
    """Every "undefined (see notes)" has its note: a coefficient that refuses the data (here the ICC on
    categories) leaves nan and its message, prefixed with whose value it is."""
    from iaa_engine.analysis._retest import _icc_row, _reasons

    notes: list[str] = []
    data = ie.Annotations.from_long(pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]}))
    with _reasons("annotator z", notes):
        row = _icc_row(data, 0.95)
    assert all(math.isnan(v) for v in row.values())
    assert notes == ["annotator z: ICC(2,1) is undefined: the ICC needs numeric ratings; got categories ['x', 'y'] "
                     "(for categories use a kappa or Krippendorff's alpha)"]  # fmt: skip
