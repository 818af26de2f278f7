"""``iaa spans --engine dask`` and :func:`iaa_engine.unitizing_alpha_dask` against the in-memory path (issue 35).

The data: a span table in four Parquet files, each document's spans spread over several of them, with a continuum
file (documents of different lengths, one without any span) and, for a crowd, a participants file (each document
seen by three of many annotators, some of whom marked nothing: absent is not "marked nothing"). The reference is
:func:`iaa_engine.unitizing_alpha` (itself checked against Krippendorff's published example and DKPro Agreement in
tests/test_unitizing.py) on the same rows: coefficients to 1e-12, counts exactly.

One in-process cluster serves the module; the CLI reaches it with ``--scheduler ADDRESS``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_engine as ie
from iaa_engine.cli import main

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from tests._dask_cluster import cluster_fixtures  # noqa: E402

cluster, client, address = cluster_fixtures()  # this file's own cluster, built once


def make_spans(seed=0, documents=40, annotators=30, per_document=3, crowd=True):
    """Spans around a few true units per document, each marked by ~80 % of the document's annotators, half of them
    with boundaries jittered by up to 2; 20 % of participants mark nothing. ``crowd``: each document seen by
    ``per_document`` of ``annotators``; else by all of them. Returns (spans, participants, continuum); the
    continuum also names a document without spans (``999``), and the participants a document whose annotators all
    marked nothing."""
    rng = np.random.default_rng(seed)
    rows, who_rows, lengths = [], [], []
    for d in range(documents):
        doc = f"{d:03d}"  # leading zeros: ids are text
        length = int(rng.integers(40, 160))
        lengths.append((doc, 0, length))
        who = rng.choice(annotators, size=per_document, replace=False) if crowd else np.arange(annotators)
        truth = []
        for _ in range(int(rng.integers(0, 4))):
            s = int(rng.integers(0, length - 12))
            truth.append((s, s + int(rng.integers(1, 10)), str(rng.choice(["PER", "ORG", "LOC"]))))
        for a in who:
            who_rows.append((doc, f"w{a:02d}"))
            if rng.random() < 0.2 or d == 5:  # marked nothing (document 005: nobody marked anything)
                continue
            for s, e, label in truth:
                if rng.random() < 0.8:  # half of the marks on the true boundaries, half jittered by up to 2
                    shift = rng.integers(-2, 3, size=2) * (rng.random() < 0.5)
                    s2 = max(0, s + int(shift[0]))
                    rows.append((doc, f"w{a:02d}", s2, min(length, max(s2, e + int(shift[1]))), label))
    lengths.append(("999", 0, 70))
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    return (
        spans,
        pd.DataFrame(who_rows, columns=["document", "annotator"]),
        pd.DataFrame(lengths, columns=["document", "begin", "length"]),
    )


def write_files(spans, directory, n_files=4, seed=1):
    """The rows shuffled and cut into ``n_files`` Parquet files: a document's spans land in several files."""
    directory.mkdir(parents=True, exist_ok=True)
    shuffled = spans.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    for k, part in enumerate(np.array_split(np.arange(len(shuffled)), n_files)):
        shuffled.iloc[part].to_parquet(directory / f"part-{k}.parquet", index=False)
    return directory


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    root = tmp_path_factory.mktemp("crowd")
    spans, who, lengths = make_spans()
    files = write_files(spans, root / "spans")
    spread = pd.concat([pd.read_parquet(f).assign(file=f.name) for f in sorted(files.iterdir())])
    assert (spread.groupby("document")["file"].nunique() > 1).sum() > 10  # documents split across files
    spans.to_parquet(root / "all.parquet", index=False)
    who.to_csv(root / "participants.csv", index=False)
    lengths.to_csv(root / "continuum.csv", index=False)
    return root, spans, who, lengths


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """Every annotator in every document (INCEpTION's pooling applies)."""
    root = tmp_path_factory.mktemp("team")
    spans, _, lengths = make_spans(seed=3, documents=25, annotators=4, crowd=False)
    write_files(spans, root / "spans", seed=4)
    spans.to_parquet(root / "all.parquet", index=False)
    lengths.to_csv(root / "continuum.csv", index=False)
    return root, spans, lengths


@pytest.fixture(scope="module")
def numbered(tmp_path_factory):
    """Documents numbered in Parquet (7, not '007'); the continuum and participants files are text, so their ids are
    matched to the numbers, and those that name no document with spans (999, and the documents where nobody marked
    anything) stay text, as the in-memory command reads them."""
    root = tmp_path_factory.mktemp("numbered")
    spans, who, lengths = make_spans(seed=11, documents=30, annotators=20)
    for table in (spans, who, lengths):
        table["document"] = table["document"].astype(int)
    write_files(spans, root / "spans", seed=5)
    spans.to_parquet(root / "all.parquet", index=False)
    who.to_csv(root / "participants.csv", index=False)
    lengths.to_csv(root / "continuum.csv", index=False)
    return root


def assert_same(memory, cluster):
    """Scalars to 1e-12 (counts exactly) and the per-category and per-document tables."""
    for name in memory.keys():
        a, b = getattr(memory, name), getattr(cluster, name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(
                a.reset_index(drop=True), b.reset_index(drop=True), rtol=1e-12, atol=0, check_dtype=False
            )
        elif isinstance(a, float):
            assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15), name
        else:
            assert a == b, name


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize("continuum", ["file", "pair"])
def test_crowd_with_participants_equals_in_memory(client, crowd, continuum):
    root, spans, who, lengths = crowd
    where = lengths if continuum == "file" else (0, 160)
    memory = ie.unitizing_alpha(spans, continuum=where, participants=who, overlaps="merge")
    cluster = ie.unitizing_alpha_dask(
        dd.read_parquet(root / "spans"), client=client, continuum=where, participants=who, overlaps="merge"
    )
    assert_same(memory, cluster)
    seen = memory.per_document.set_index("document")["n_annotators"]
    assert memory.n_participants == len(who) and seen.drop("999", errors="ignore").eq(3).all()
    if continuum == "file":  # a document only the continuum names: no participant, no span
        assert seen["999"] == 0 and "999" in set(cluster.per_document["document"])
    # participants change the value: absent is not "marked nothing"
    without = _quiet(ie.unitizing_alpha, spans, continuum=where, overlaps="merge")
    assert abs(without.estimate - memory.estimate) > 0.01


@pytest.mark.parametrize("pooling", ["documents", "inception"])
def test_every_annotator_in_every_document_both_poolings(client, team, pooling):
    root, spans, lengths = team
    memory = ie.unitizing_alpha(spans, continuum=lengths, overlaps="merge", pooling=pooling)
    cluster = ie.unitizing_alpha_dask(
        dd.read_parquet(root / "spans"), client=client, continuum=lengths, overlaps="merge", pooling=pooling
    )
    assert_same(memory, cluster)
    assert memory.estimate_inception != memory.estimate_documents  # the two poolings differ on this data


def test_no_continuum_warns_as_in_memory(client, team):
    root, spans, _ = team
    with pytest.warns(UserWarning, match="no continuum given"):
        memory = ie.unitizing_alpha(spans, overlaps="merge")
    with pytest.warns(UserWarning, match="no continuum given"):
        cluster = ie.unitizing_alpha_dask(dd.read_parquet(root / "spans"), client=client, overlaps="merge")
    assert_same(memory, cluster)


def test_inception_with_different_participants_is_refused(client, crowd):
    root, _, who, lengths = crowd
    with pytest.raises(ValueError, match="pooling='inception' lays the documents end to end"):
        ie.unitizing_alpha_dask(
            dd.read_parquet(root / "spans"), client=client, continuum=lengths, participants=who,
            overlaps="merge", pooling="inception",
        )  # fmt: skip


def test_absent_annotators_warning_without_participants(client, crowd):
    root, spans, _, lengths = crowd
    with pytest.warns(ie.AbsentAnnotatorsWarning) as memory_warning:
        ie.unitizing_alpha(spans, continuum=lengths, overlaps="merge")
    with pytest.warns(ie.AbsentAnnotatorsWarning) as cluster_warning:
        ie.unitizing_alpha_dask(dd.read_parquet(root / "spans"), client=client, continuum=lengths, overlaps="merge")
    said = [
        [str(w.message) for w in caught if w.category is ie.AbsentAnnotatorsWarning]
        for caught in (memory_warning, cluster_warning)
    ]
    assert said[0] == said[1] and len(said[0]) == 1


@pytest.mark.parametrize("match", ["exact", "overlap"])
@pytest.mark.parametrize("who", ["participants", "without"])
def test_span_f1_on_the_cluster_equals_in_memory(client, crowd, team, match, who):
    """Pairwise F1 adds per-pair counts over documents: pairs, per label, per document and the matrix."""
    root, spans, *rest = crowd if who == "participants" else team
    kw = {"match": match, "threshold": 0.3, "participants": rest[0] if who == "participants" else None}
    memory = ie.span_f1(spans, **kw)
    cluster = ie.span_f1_dask(dd.read_parquet(root / "spans"), client=client, **kw)
    for name in ("estimate", "sd", "pooled"):
        assert getattr(cluster, name) == pytest.approx(getattr(memory, name), rel=1e-12, abs=1e-15), name
    for name in ("n_pairs", "n_spans", "n_duplicates", "n_annotators", "n_documents", "n_labels", "match"):
        assert getattr(cluster, name) == getattr(memory, name), name
    for name in ("pairs", "per_label", "per_document"):
        pd.testing.assert_frame_equal(getattr(memory, name), getattr(cluster, name), rtol=1e-12, check_dtype=False)
    np.testing.assert_array_equal(memory.matrix.values, cluster.matrix.values)
    np.testing.assert_array_equal(memory.matrix.n_shared, cluster.matrix.n_shared)
    assert list(memory.matrix.annotators) == list(cluster.matrix.annotators)
    assert memory.n_pairs > 3 and 0 < memory.estimate < 1


def _cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_cli_crowd_on_dask_prints_what_memory_prints(address, crowd, fmt, capsys):
    root, *_ = crowd
    common = [
        "--participants", str(root / "participants.csv"), "--continuum", str(root / "continuum.csv"),
        "--overlaps", "merge", "--per-document", "--f1", "--f1-match", "overlap", "--format", fmt,
    ]  # fmt: skip
    code, memory, memory_err = _cli(["spans", str(root / "all.parquet"), *common], capsys)
    assert code == 0
    code, cluster, cluster_err = _cli(
        ["spans", str(root / "spans"), *common, "--engine", "dask", "--scheduler", address], capsys
    )
    assert code == 0, cluster_err
    if fmt == "json":
        memory_doc, cluster_doc = json.loads(memory), json.loads(cluster)
        assert memory_doc.pop("file") == "all.parquet" and cluster_doc.pop("file") == "spans"
        assert _json_close(memory_doc, cluster_doc)
    else:
        assert cluster == memory
    # the same read line (spans, annotators, documents) but for the file's name
    assert memory_err.splitlines()[0].replace("'all.parquet'", "X") == cluster_err.splitlines()[0].replace(
        "'spans'", "X"
    )


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_cli_numbered_documents_on_dask_print_what_memory_prints(address, numbered, fmt, capsys):
    files = ["--participants", str(numbered / "participants.csv"), "--continuum", str(numbered / "continuum.csv")]
    common = [*files, "--overlaps", "merge", "--per-document", "--f1", "--format", fmt]
    code, memory, _ = _cli(["spans", str(numbered / "all.parquet"), *common], capsys)
    assert code == 0
    dask_args = ["spans", str(numbered / "spans"), *common, "--engine", "dask", "--scheduler", address]
    code, cluster, err = _cli(dask_args, capsys)
    assert code == 0, err
    if fmt == "json":
        memory_doc, cluster_doc = json.loads(memory), json.loads(cluster)
        memory_doc.pop("file"), cluster_doc.pop("file")
        assert _json_close(memory_doc, cluster_doc)
        documents = [row["document"] for row in cluster_doc["unitizing_alpha"]["per_document"]]
        assert 7 in documents and "999" in documents  # a number, and text that names no numbered document
    else:
        assert cluster == memory


def _json_close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        return all(_json_close(a[k], b[k], f"{path}.{k}") for k in a)
    if isinstance(a, list):
        assert len(a) == len(b), path
        return all(_json_close(x, y, f"{path}[{k}]") for k, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15), path
        return True
    assert a == b, path
    return True


def test_cli_inception_pooling_and_output_file(address, team, tmp_path, capsys):
    root, *_ = team
    common = ["--continuum", str(root / "continuum.csv"), "--overlaps", "merge", "--pooling", "inception", "--f1"]
    memory_csv, cluster_csv = tmp_path / "memory.csv", tmp_path / "cluster.csv"
    flags = ["--per-document", "--format", "csv", "-o"]
    assert main(["spans", str(root / "all.parquet"), *common, *flags, str(memory_csv)]) == 0
    args = ["spans", str(root / "spans"), *common, *flags, str(cluster_csv), "--engine", "dask", "--scheduler", address]
    assert main(args) == 0
    capsys.readouterr()
    memory, cluster = pd.read_csv(memory_csv), pd.read_csv(cluster_csv)
    pd.testing.assert_frame_equal(memory, cluster, rtol=1e-12)
    assert set(memory["scope"]) >= {"pooled", "category", "document"}


@pytest.mark.parametrize("flag", [["--gamma"]])
def test_cli_refuses_what_it_does_not_distribute_in_one_line(address, crowd, flag, capsys):
    root, *_ = crowd
    code, out, err = _cli(["spans", str(root / "spans"), *flag, "--engine", "dask", "--scheduler", address], capsys)
    assert code != 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and flag[0] in err and "--engine dask" in err


@pytest.mark.parametrize("who", ["participants", "without"])
def test_per_annotator_on_the_cluster_equals_in_memory(client, crowd, team, who):
    """Each annotator's documents, units and lengths add over documents; the pooled α_U without each annotator is
    finished from every partition's histograms without them (memory: from the sums with everyone,
    metrics._unitizing._leave_one_out, itself checked against recomputation in tests/test_unitizing.py)."""
    root, spans, *rest = crowd if who == "participants" else team
    kw = {"continuum": rest[-1], "participants": rest[0] if who == "participants" else None, "overlaps": "merge"}
    memory = _quiet(ie.unitizing_alpha, spans, per_annotator=True, **kw)
    cluster = _quiet(ie.unitizing_alpha_dask, dd.read_parquet(root / "spans"), client=client, per_annotator=True, **kw)
    assert_same(memory, cluster)
    table = memory.per_annotator
    assert len(table) == memory.n_annotators and table["alpha_without"].nunique() == len(table)


def test_per_annotator_refusals_are_one_line(client, crowd, team):
    root, _, who, lengths = crowd
    frame = dd.read_parquet(root / "spans")
    with pytest.raises(ValueError, match=r"at most 5 annotators; this study has \d\d") as many:
        import iaa_engine.engines._dask_spans as module

        bound, module.PER_ANNOTATOR_MAX = module.PER_ANNOTATOR_MAX, 5
        try:
            ie.unitizing_alpha_dask(frame, client=client, continuum=lengths, participants=who, per_annotator=True)
        finally:
            module.PER_ANNOTATOR_MAX = bound
    assert "\n" not in str(many.value)


def test_per_annotator_with_inception_pooling_equals_in_memory(client, team):
    """Memory recomputes each annotator's concatenated study (metrics._unitizing._per_annotator); the cluster
    finishes it from every partition's runs and histograms without them."""
    root, spans, lengths = team
    kw = {"continuum": lengths, "overlaps": "merge", "pooling": "inception", "per_annotator": True}
    memory = ie.unitizing_alpha(spans, **kw)
    cluster = ie.unitizing_alpha_dask(dd.read_parquet(root / "spans"), client=client, **kw)
    assert_same(memory, cluster)
    documents = ie.unitizing_alpha(spans, **(kw | {"pooling": "documents"})).per_annotator["alpha_without"]
    assert (memory.per_annotator["alpha_without"] - documents).abs().min() > 1e-6  # the poolings differ here


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_cli_per_annotator_on_dask_prints_what_memory_prints(address, crowd, fmt, capsys):
    root, *_ = crowd
    common = [
        "--participants", str(root / "participants.csv"), "--continuum", str(root / "continuum.csv"),
        "--overlaps", "merge", "--per-annotator", "--format", fmt,
    ]  # fmt: skip
    code, memory, _ = _cli(["spans", str(root / "all.parquet"), *common], capsys)
    assert code == 0
    dask_args = ["spans", str(root / "spans"), *common, "--engine", "dask", "--scheduler", address]
    code, cluster, err = _cli(dask_args, capsys)
    assert code == 0, err
    if fmt == "json":
        memory_doc, cluster_doc = json.loads(memory), json.loads(cluster)
        memory_doc.pop("file"), cluster_doc.pop("file")
        assert _json_close(memory_doc, cluster_doc) and len(cluster_doc["unitizing_alpha"]["per_annotator"]) > 20
    else:
        assert cluster == memory and "w00" in cluster


def _apart(spans):
    """The spans without those that overlap an earlier one of the same annotator in the document (the family needs
    each annotator's units apart, whatever their labels)."""
    spans = spans.sort_values(["document", "annotator", "start", "end"], kind="stable").reset_index(drop=True)
    keep = []
    for _, rows in spans.groupby(["document", "annotator"], sort=False):
        last = -np.inf
        for k, start, end in zip(rows.index, rows["start"], rows["end"]):
            if start >= last:
                keep.append(k)
                last = end
    return spans.loc[sorted(keep)].reset_index(drop=True)


@pytest.mark.parametrize("who", ["participants", "without"])
def test_family_on_the_cluster_equals_in_memory(client, crowd, team, who):
    """The 2016 family's coincidence matrix, S_c and S*_c are sums over documents (stats/_unitizing_family.py), so
    uα, |uα, cuα and (k)uα per label are finished from the partitions' sums; each document's row from its
    partition (memory: ie.unitizing_family, checked against Krippendorff et al. 2016 in its own tests)."""
    root, spans, *rest = crowd if who == "participants" else team
    with pytest.raises(ValueError, match="the 2016 unitizing family needs each annotator's units apart"):
        _quiet(ie.unitizing_family_dask, dd.read_parquet(root / "spans"), client=client, overlaps="merge")
    spans = _apart(spans)
    kw = {"continuum": rest[-1], "participants": rest[0] if who == "participants" else None, "overlaps": "merge"}
    memory = _quiet(ie.unitizing_family, spans, **kw)
    cluster = _quiet(ie.unitizing_family_dask, dd.from_pandas(spans, npartitions=4), client=client, **kw)
    for name in ("estimate", "binary", "coding", "coding_coverage", "d_o", "d_e", "length"):
        a, b = getattr(memory, name), getattr(cluster, name)
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15), name
    for name in ("n_units", "n_annotators", "n_documents", "n_categories"):
        assert getattr(memory, name) == getattr(cluster, name), name
    for name in ("coincidence", "expected", "per_value", "per_document"):
        pd.testing.assert_frame_equal(getattr(memory, name), getattr(cluster, name), rtol=1e-12, check_dtype=False)
    assert 0 < memory.estimate < 1 and memory.per_value["alpha"].notna().all()


def test_cli_family_on_dask_prints_what_memory_prints(address, crowd, tmp_path, capsys):
    root, spans, *_ = crowd
    spans = _apart(spans)
    spans.to_parquet(tmp_path / "all.parquet", index=False)
    write_files(spans, tmp_path / "spans")
    common = [
        "--participants", str(root / "participants.csv"), "--continuum", str(root / "continuum.csv"),
        "--overlaps", "merge", "--family", "--f1", "--per-document", "--format", "json",
    ]  # fmt: skip
    code, memory, _ = _cli(["spans", str(tmp_path / "all.parquet"), *common], capsys)
    assert code == 0
    dask_args = ["spans", str(tmp_path / "spans"), *common, "--engine", "dask", "--scheduler", address]
    code, cluster, err = _cli(dask_args, capsys)
    assert code == 0, err
    memory_doc, cluster_doc = json.loads(memory), json.loads(cluster)
    memory_doc.pop("file"), cluster_doc.pop("file")
    assert _json_close(memory_doc, cluster_doc) and "unitizing_family" in cluster_doc
    assert list(cluster_doc)[1:] == list(memory_doc)[1:]  # the family before F1, as in memory


@pytest.mark.parametrize("who", ["participants", "without"])
def test_cli_html_on_dask_is_the_in_memory_page(address, crowd, tmp_path, who, capsys):
    """The page is fed from the combined results and the drawn documents' spans alone (brought back by a filter on
    the dataset): the same page as in memory but for the file's name. Without participants the page keeps the crowd
    warning (AbsentAnnotatorsWarning), which the partitions' counts give."""
    root, *_ = crowd
    common = ["--continuum", str(root / "continuum.csv"), "--overlaps", "merge", "--f1", "--top", "5"]
    if who == "participants":
        common += ["--participants", str(root / "participants.csv")]
    memory_html, cluster_html = tmp_path / "memory.html", tmp_path / "cluster.html"
    ordered = tmp_path / "ordered.parquet"  # the rows in the dataset's order: the spans are drawn in it
    pd.concat([pd.read_parquet(f) for f in sorted((root / "spans").iterdir())]).to_parquet(ordered, index=False)
    code, _, err = _cli(["spans", str(ordered), *common, "--html", str(memory_html)], capsys)
    assert code == 0, err
    dask_args = ["--engine", "dask", "--scheduler", address, "--html", str(cluster_html)]
    code, _, err = _cli(["spans", str(root / "spans"), *common, *dask_args], capsys)
    assert code == 0, err
    memory, cluster = memory_html.read_text(encoding="utf-8"), cluster_html.read_text(encoding="utf-8")
    assert cluster.replace("Span agreement: spans", "X") == memory.replace("Span agreement: ordered.parquet", "X")
    assert cluster.count("<svg") == 5 and ("absent-annotators" in cluster) == (who == "without")


def test_cli_scheduler_needs_engine_dask(address, crowd, capsys):
    root, *_ = crowd
    code, _, err = _cli(["spans", str(root / "all.parquet"), "--scheduler", address], capsys)
    assert code != 0 and "--scheduler needs --engine dask" in err


@pytest.mark.parametrize("shape", ["one annotator", "zero-length units"])
def test_undefined_follows_the_policy_and_names_the_callers_line(client, shape):
    """As tests/test_params.py holds every in-memory coefficient: the replacement, and one UndefinedMetricWarning
    pointing at the caller's line."""
    rows = (
        {"document": ["d"], "annotator": ["a"], "start": [0], "end": [2], "label": ["x"]}
        if shape == "one annotator"
        else {"document": ["d", "d"], "annotator": ["a", "b"], "start": [1, 1], "end": [1, 1], "label": ["x", "x"]}
    )
    spans = pd.DataFrame(rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        memory = ie.unitizing_alpha(spans, continuum=5, replace_undefined_by=-7.0)
        cluster = ie.unitizing_alpha_dask(
            dd.from_pandas(spans, npartitions=1), client=client, continuum=5, replace_undefined_by=-7.0
        )
    assert memory.estimate == cluster.estimate == -7.0
    said = [w for w in caught if issubclass(w.category, ie.UndefinedMetricWarning)]
    assert len(said) == 2 and said[0].message.args == said[1].message.args
    assert all(w.filename == __file__ for w in said)


def test_cli_a_missing_dataset_or_document_column_is_one_line(address, team, tmp_path, capsys):
    root, spans, _ = team
    code, out, err = _cli(["spans", str(tmp_path / "nowhere"), "--engine", "dask", "--scheduler", address], capsys)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1 and "nowhere" in err
    spans.drop(columns="document").to_parquet(tmp_path / "one.parquet", index=False)
    code, out, err = _cli(["spans", str(tmp_path / "one.parquet"), "--engine", "dask", "--scheduler", address], capsys)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1 and "document" in err


def _as_rows(spans, lengths, who):
    """The frame :func:`_union` builds (span rows, continuum rows, participant rows), in pandas."""
    from iaa_engine.engines._dask_spans import _COLUMNS, _CONTINUUM, _PARTICIPANT, _SPAN

    pieces = [spans.assign(start=spans["start"].astype(float), end=spans["end"].astype(float), _kind=_SPAN)]
    pieces.append(lengths.assign(_kind=_CONTINUUM, _begin=lengths["begin"], _length=lengths["length"]))
    if who is not None:
        pieces.append(who.assign(_kind=_PARTICIPANT))
    for piece in pieces[1:]:
        piece["_order"] = np.arange(len(piece))
    rows = pd.concat(pieces, ignore_index=True)
    return rows.reindex(columns=_COLUMNS).astype({"_kind": np.int8})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    marks=st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 30), st.integers(0, 8), st.integers(0, 2)),
        min_size=1,
        max_size=40,
    ),
    lengths=st.lists(st.integers(0, 45), min_size=6, max_size=6),
    seen=st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=6, max_size=6),
    split=st.lists(st.integers(0, 2), min_size=6, max_size=6),
    crowd=st.booleans(),
    pooling=st.sampled_from(["documents", "inception"]),
)
def test_any_split_of_whole_documents_gives_the_in_memory_alpha(marks, lengths, seen, split, crowd, pooling):
    """:func:`_finish_alpha` of :func:`_part_sums` over any assignment of whole documents to partitions equals
    :func:`iaa_engine.unitizing_alpha` (no cluster: the partitions' functions called directly): zero-length units and
    documents, documents without spans, annotators who marked nothing, both poolings."""
    from iaa_engine.engines._dask_spans import _finish_alpha, _part_sums

    docs = [f"d{k}" for k in range(6)]
    rows = [(docs[d], f"a{a}", min(s, lengths[d]), min(s + n, lengths[d]), "xyz"[c]) for d, a, s, n, c in marks]
    spans = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "label"])
    table = pd.DataFrame({"document": docs, "begin": 0.0, "length": np.asarray(lengths, float)})
    who = None
    if crowd:  # each document's participants: those marked seen, and everyone with a span there
        pairs = {(docs[d], f"a{a}") for d in range(6) for a in range(4) if seen[d][a]}
        pairs |= set(zip(spans["document"], spans["annotator"]))
        who = pd.DataFrame(sorted(pairs), columns=["document", "annotator"])
    kw = {"continuum": table, "participants": who, "overlaps": "merge"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            memory = ie.unitizing_alpha(spans, pooling=pooling, **kw)
        except ValueError as exc:  # inception with different participants: refused on both paths
            assert "pooling='inception'" in str(exc)
            return
        annotators = sorted(set(spans["annotator"]) | (set(who["annotator"]) if who is not None else set()))
        categories = pd.Index(sorted(set(spans["label"])))
        rows = _as_rows(spans, table, who)
        where = rows["document"].map(lambda d: split[docs.index(d)])
        parts = [
            _part_sums(rows[where == k], "file", crowd, None if crowd else annotators, categories, "merge", True)
            for k in range(3)
        ]
        cluster = _finish_alpha([p for p in parts if p is not None], annotators, categories, crowd, pooling, np.nan)
    assert_same(memory, cluster)
