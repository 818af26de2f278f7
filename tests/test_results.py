"""One result shape: every public result is a frozen Result with to_dict (JSON-ready), to_json, to_frame, a readable
repr and an HTML repr for notebooks."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import iaa_engine as ie


def tree_data():
    rng = np.random.default_rng(0)
    paths = ["A/x", "A/y", "B/x", "B/z"]
    rows = [(f"i{i}", f"a{a}", paths[(i + (a if rng.random() < 0.3 else 0)) % 4]) for i in range(40) for a in range(4)]
    return ie.Annotations.from_long(pd.DataFrame(rows, columns=["item", "annotator", "label"]))


def every_result():
    data = tree_data()
    return {
        "report": ie.report(data, ci=True, n_boot=20, hierarchy="/", strata=2),
        "bootstrap": ie.bootstrap(data, n_boot=20, seed=1),
        "gold": ie.gold_standard(data, rule="rat"),
        "hierarchy": ie.hierarchical_agreement(data, sep="/"),
        "strata": ie.frequency_strata(data, n_strata=2),
        "matrix": ie.cohen_kappa_matrix(data),
        "alpha_variance": ie.alpha_variance(data),
        "hierarchy_test": ie.hierarchy_test(data, n_boot=50, seed=0),
    }


@pytest.mark.parametrize("name, result", list(every_result().items()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_public_result_has_the_one_shape(name, result):
    assert isinstance(result, ie.Result)
    field = dataclasses.fields(result)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, None)
    doc = result.to_dict()
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc
    assert json.loads(result.to_json()) == doc
    assert isinstance(result.to_frame(), pd.DataFrame) and len(result.to_frame())
    assert type(result).__name__ in repr(result) or name in ("report", "matrix")
    assert result._repr_html_().lstrip().startswith("<")


def test_scalar_results_read_as_attributes_and_as_mappings():
    res = ie.alpha_variance(tree_data())
    assert res["se_delta"] == res.se_delta and set(res.keys()) >= {"alpha", "se_delta", "se_jackknife"}
    assert dict(zip(res.keys(), (res[k] for k in res))) == dataclasses.asdict(res)
    with pytest.raises(KeyError, match="AlphaVariance has no entry 'se'; it has"):
        res["se"]


def test_a_reports_repr_is_a_short_summary_and_print_keeps_the_table():
    """Issue 32: a report's raw repr (the dataclass's, every matrix and table inside) ran to 19,203 characters on
    a newcomer's data; 10,882 on the bundled crowd.csv with ci=True. It is now one line naming the size, the
    headline values and what else is inside; str (print) is the readable table as before."""
    from importlib.resources import files

    data = ie.read(files("iaa_engine") / "examples" / "crowd.csv")
    rep = ie.report(data, ci=True, n_boot=20, progress=False)
    text = repr(rep)
    assert len(text) < 600 and "\n" not in text
    assert text.startswith("Report(300 items (26 excluded), 40 annotators, 926 annotations, 4 categories, level ")
    assert f"krippendorff_alpha {rep.values['krippendorff_alpha']:.4f}" in text
    assert "3 pairwise matrices" in text and "bootstrap intervals" in text and "print() it" in text
    assert str(rep).startswith("Inter-annotator agreement report") and "Cohen's kappa per annotator pair" in str(rep)
