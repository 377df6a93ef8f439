"""TREC files and trec_eval's nDCG rules: agreement with pytrec-eval-terrier, parsing, command line.

pytrec-eval-terrier is trec_eval 9.0.8 inside: it compares scores as 32-bit floats, so every
comparison with it uses ``score_precision="float32"`` (trec_eval 10.0's doubles are the default;
its own test suite is in test_trec_eval_parity.py, the reading rules in test_trec_rules.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from math import log2

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcg_ref.trec import (
    TrecFormatError,
    evaluate,
    evaluate_files,
    joining,
    qrels_from_dict,
    read_qrels,
    read_run,
    reading,
    run_from_dict,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = (1, 3, 5, 10, 20, 50)
MEASURES = ["ndcg", "ndcg_cut." + ",".join(map(str, CUTS))]
NAMES = ["ndcg"] + [f"ndcg_cut_{k}" for k in CUTS]


def random_collection(seed: int, queries: int = 250):
    """Runs and qrels with ties, unjudged documents, negative grades and queries missing on either side."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        qid = f"{rng.integers(0, 10**6)}-{q}"
        docs = [f"doc{rng.integers(0, 99)}-{i}" for i in range(int(rng.integers(1, 40)))]
        if rng.random() < 0.85:
            # grade -1 only: pytrec-eval-terrier 0.5.11 crashes (segfault) on grades below -1
            judged = {d: int(rng.integers(-1, 5)) for d in docs if rng.random() < 0.6}
            qrels[qid] = judged or {docs[0]: 0}  # some queries have no relevant document at all
        if rng.random() < 0.85:
            scores = {d: float(rng.integers(0, 6)) / 2 for d in docs if rng.random() < 0.8}  # many ties
            run[qid] = scores or {docs[-1]: 0.5}
    return run, qrels


def write_files(tmp_path, run, qrels, shuffle_seed=None):
    lines = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if shuffle_seed is not None:
        np.random.default_rng(shuffle_seed).shuffle(lines)
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    # the rank column is deliberately nonsense: it must be ignored
    run_path.write_text("".join(f"{q} Q0 {d} {7 - i % 5} {s!r} tag\n" for i, (q, d, s) in enumerate(lines)))
    qrels_path.write_text("".join(f"{q}\t0\t{d}\t{g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return run_path, qrels_path


def pytrec(run, qrels):
    measures = {"ndcg"} | {f"ndcg_cut.{k}" for k in CUTS}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_pytrec_eval_in_memory(seed):
    run, qrels = random_collection(seed)
    theirs = pytrec(run, qrels)
    ours = evaluate(run_from_dict(run), qrels_from_dict(qrels), MEASURES, score_precision="float32").per_query()
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        for name in NAMES:
            assert ours[qid][name] == pytest.approx(values[name], abs=1e-12), (qid, name)


@pytest.mark.parametrize("seed", [4, 5])
def test_agrees_with_pytrec_eval_from_files(tmp_path, seed):
    run, qrels = random_collection(seed)
    theirs = pytrec(run, qrels)
    paths = write_files(tmp_path, run, qrels, shuffle_seed=seed)
    ours = evaluate_files(*paths, MEASURES, score_precision="float32").per_query()
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        for name in NAMES:
            assert ours[qid][name] == pytest.approx(values[name], abs=1e-12), (qid, name)


def test_small_blocks_give_the_same_result(tmp_path, monkeypatch):
    run, qrels = random_collection(6, queries=60)
    paths = write_files(tmp_path, run, qrels)
    whole = evaluate_files(*paths, MEASURES)
    monkeypatch.setattr(reading, "_BLOCK", 97)
    pieces = evaluate_files(*paths, MEASURES)
    assert whole.qids == pieces.qids and np.array_equal(whole.values, pieces.values)


@pytest.mark.parametrize("bits", [0, 3])
def test_hash_collisions_cost_time_never_a_wrong_grade(tmp_path, monkeypatch, bits):
    run, qrels = random_collection(7, queries=80)
    honest = evaluate(run_from_dict(run), qrels_from_dict(qrels), MEASURES)

    def few_keys(query_index, docnos):
        """A hash with 2**bits values: almost every run line collides with qrels lines of other documents."""
        if not bits:
            return np.zeros(query_index.size, np.uint64)
        return query_index.astype(np.uint64) & np.uint64(2**bits - 1)

    monkeypatch.setattr(joining, "_keys", few_keys)
    colliding = evaluate(run_from_dict(run), qrels_from_dict(qrels), MEASURES)
    assert colliding.qids == honest.qids and np.array_equal(colliding.values, honest.values)
    # a document twice, with other documents of the same key in between, is still found
    (tmp_path / "run").write_text("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\nq Q0 a 4 0 t\n")
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    with pytest.raises(TrecFormatError, match=r"run, lines 1 and 4: document 'a' appears twice"):
        evaluate_files(tmp_path / "run", tmp_path / "qrels", ["ndcg"])


def test_ties_are_broken_by_docno_descending_and_rank_is_ignored(tmp_path):
    (tmp_path / "run").write_text("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\n")
    (tmp_path / "qrels").write_text("q 0 c 2\nq 0 a 1\n")
    result = evaluate_files(tmp_path / "run", tmp_path / "qrels", ["ndcg_cut.1"])
    assert result.means["ndcg_cut_1"] == pytest.approx(1.0)  # c > b > a: c (grade 2) comes first


@pytest.mark.parametrize("first, second, expected", [
    (0.9732648856389701, 0.9732648569856578, 0.5),  # equal as 32-bit floats: a tie, docno decides
    (0.97326489, 0.97326480, 0.0),  # different as 32-bit floats: the score decides
])
def test_float32_scores_compare_as_in_pytrec_eval(first, second, expected):
    run = {"q": {"d1": first, "d88": second, "d5": 0.1}}
    qrels = {"q": {"d1": 0, "d88": 1, "d5": 2}}
    result = evaluate(run_from_dict(run), qrels_from_dict(qrels), ["ndcg_cut.1"], score_precision="float32")
    assert result.means["ndcg_cut_1"] == expected == pytrec(run, qrels)["q"]["ndcg_cut_1"]


def test_ideal_uses_unretrieved_documents_and_negative_grades_count_zero():
    run = run_from_dict({"q": {"a": 3.0, "b": 2.0}})
    qrels = qrels_from_dict({"q": {"a": -3, "b": 1, "z": 2}})
    value = evaluate(run, qrels, ["ndcg"]).means["ndcg"]
    assert value == pytest.approx((1 / log2(3)) / (2 + 1 / log2(3)))


def test_queries_only_in_the_run_are_ignored_and_complete_counts_missing_ones():
    run = run_from_dict({"q1": {"a": 1.0}, "q9": {"a": 1.0}})
    qrels = qrels_from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    plain = evaluate(run, qrels, ["ndcg"])
    assert plain.qids == ["q1"] and plain.means["ndcg"] == 1.0
    complete = evaluate(run, qrels, ["ndcg"], complete=True)
    assert complete.qids == ["q1", "q2", "q3"]
    assert complete.means["ndcg"] == pytest.approx((1.0 + 0.0 + 0.0) / 3)


def test_query_without_relevant_documents_scores_zero_and_counts():
    run = run_from_dict({"q1": {"a": 1.0}, "q2": {"b": 1.0}})
    qrels = qrels_from_dict({"q1": {"a": 2}, "q2": {"b": 0}})
    result = evaluate(run, qrels, ["ndcg_cut.10"])
    assert result.per_query() == {"q1": {"ndcg_cut_10": 1.0}, "q2": {"ndcg_cut_10": 0.0}}
    assert result.means["ndcg_cut_10"] == 0.5


@pytest.mark.parametrize(
    "run_text, qrels_text, words",
    [
        ("q Q0 a 1 1.0 t\nq Q0 b 2 1.0\n", "q 0 a 1\n", r"run, line 2: expected at least 6 columns"),
        ("q Q0 a 1 nan t\n", "q 0 a 1\n", r"run, line 1: score 'nan' reads as NaN"),
        ("q Q0 a 1 1.0 t\n", "q 0 a 1\n\nq 0 b 1 x\n", r"qrels, line 3: expected 4 columns"),
        ("q Q0 a 1 1.0 t\n", "q 0 a\n", r"qrels, line 1: expected 4 columns"),
        ("q Q0 a 1 1.0 t\nq Q0 a 2 0.5 t\n", "q 0 a 1\n", r"run, lines 1 and 2: document 'a' appears twice"),
        ("q Q0 a 1 1.0 t\n", "q 0 a 1\nq 0 a 2\n", r"qrels, lines 1 and 2: document 'a' appears twice"),
        # both files bad: the run's format first, then the qrels' duplicates (as trec_eval reads them)
        ("q Q0 a 1 1.0 t\nq Q0 b\n", "q 0 a\n", r"run, line 2: expected at least 6 columns"),
        ("q Q0 a 1 1.0 t\nq Q0 a 2 0.5 t\n", "q 0 a 1\nq 0 a 2\n", r"qrels, lines 1 and 2: document 'a' appears twice"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, run_text, qrels_text, words):
    (tmp_path / "run").write_text(run_text)
    (tmp_path / "qrels").write_text(qrels_text)
    with pytest.raises(TrecFormatError, match=words):
        evaluate_files(tmp_path / "run", tmp_path / "qrels", ["ndcg"])


def test_first_bad_line_is_reported_when_blocks_are_parsed_in_parallel(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "_BLOCK", 64)
    lines = [f"q{i // 10} Q0 d{i} {i} {1.0 / (i + 1)!r} t" for i in range(200)]
    lines[57] = "q5 Q0 d57 58 nan t"
    lines[150] = "q15 Q0 d150"
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    with pytest.raises(TrecFormatError, match=r"run, line 58: score 'nan' reads as NaN"):
        read_run(tmp_path / "run")


def test_blank_lines_and_crlf_are_accepted(tmp_path):
    (tmp_path / "run").write_bytes(b"q Q0 a 1 1.0 t\r\n\r\nq Q0 b 2 0.5 t\r\n")
    (tmp_path / "qrels").write_bytes(b"q 0 b 1\r\n")
    assert read_run(tmp_path / "run").scores.tolist() == [1.0, 0.5]
    assert read_qrels(tmp_path / "qrels").grades.tolist() == [1]
    assert evaluate_files(tmp_path / "run", tmp_path / "qrels", ["ndcg"]).means["ndcg"] == pytest.approx(1 / log2(3))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ndcg_ref", *map(str, args)], capture_output=True, text=True)


def test_command_line_prints_trec_eval_lines(tmp_path):
    run, qrels = random_collection(7, queries=30)
    run_path, qrels_path = write_files(tmp_path, run, qrels)
    theirs = pytrec(run, qrels)
    done = _cli(run_path, qrels_path, "-m", "ndcg_cut.10", "-m", "ndcg", "-q", "--score-precision", "float32")
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert [r[0].strip() for r in rows if r[1] == "all"] == ["ndcg", "ndcg_cut_10"]  # trec_eval's order
    for name, qid, value in rows:
        if qid != "all":
            assert float(value) == pytest.approx(theirs[qid][name.strip()], abs=5e-5)
    mean = np.mean([v["ndcg_cut_10"] for v in theirs.values()])
    assert f"ndcg_cut_10           \tall\t{mean:.4f}" in done.stdout


def test_command_line_json_and_errors(tmp_path):
    (tmp_path / "run").write_text("q Q0 a 1 1.0 t\n")
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    done = _cli(tmp_path / "run", tmp_path / "qrels", "-m", "ndcg", "--json", "-q")
    document = json.loads(done.stdout)
    assert document["all"] == {"ndcg": 1.0} and document["queries"] == {"q": {"ndcg": 1.0}} and document["num_q"] == 1
    bad = _cli(tmp_path / "run", tmp_path / "missing")
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr
    unknown = _cli(tmp_path / "run", tmp_path / "qrels", "-m", "map")
    assert unknown.returncode == 2 and "unknown measure 'map'" in unknown.stderr


def test_run_already_in_trec_order_takes_the_fast_path_correctly(tmp_path):
    # grouped by query, scores descending (with ties), qids whose text order differs from file order
    run, qrels = random_collection(8, queries=80)
    renamed = {qid: str(len(run) - i) for i, qid in enumerate(run)}
    run = {renamed[q]: docs for q, docs in run.items()}
    qrels = {renamed.get(q, q): docs for q, docs in qrels.items()}
    lines = []
    for qid, docs in run.items():
        for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda item: -item[1])):
            lines.append(f"{qid} Q0 {doc} {rank + 1} {score!r} tag\n")
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    theirs = pytrec(run, qrels)
    ours = evaluate_files(tmp_path / "run", tmp_path / "qrels", MEASURES, score_precision="float32").per_query()
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        for name in NAMES:
            assert ours[qid][name] == pytest.approx(values[name], abs=1e-12), (qid, name)


short_tokens = st.text(alphabet="-+0123456789.a ", min_size=1, max_size=4).map(str.strip).filter(bool)


@given(st.lists(short_tokens, min_size=1, max_size=30))
def test_fast_integer_parsing_agrees_with_python(tokens):
    from ndcg_ref.trec.reading import _small_integers

    fast = _small_integers(np.array([t.encode() for t in tokens]))
    try:
        expected = [int(t) for t in tokens]
    except ValueError:
        expected = None
    if fast is not None:  # the fast path may decline (then astype decides), but never disagree
        assert expected is not None and fast.tolist() == expected


def test_ids_of_different_lengths_in_run_and_qrels_still_join(tmp_path):
    # the issue's reproducer: the longest docno of the run ("d22") is longer than the qrels' ("d1");
    # padding bytes were hashed, so every query scored 0 where trec_eval says 1
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d22 2 1 t\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "ndcg_ref", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), "-m", "ndcg"],
        capture_output=True, text=True, check=True,
    )
    assert done.stdout.split() == ["ndcg", "all", "1.0000"]
    result = evaluate(run_from_dict({"q1": {"d1": 2.0, "d22": 1.0}}), qrels_from_dict({"q1": {"d1": 1}}))
    assert result.means["ndcg"] == 1.0


_alphabets = st.sampled_from(["ab", "0123456789", "xyzXYZ-_.", "ä€🙂"])


@st.composite
def _ids(draw, alphabet_strategy=_alphabets):
    alphabet = draw(alphabet_strategy)
    return draw(st.text(alphabet, min_size=1, max_size=draw(st.integers(1, 30))))


@given(
    judged=st.lists(_ids(), min_size=1, max_size=12, unique=True),
    unjudged=st.lists(_ids(), max_size=12, unique=True),
    data=st.data(),
)
def test_grades_do_not_depend_on_how_ids_are_spelled_or_padded(judged, unjudged, data):
    # renaming every document to ids of one fixed width must not change any grade: scores are
    # distinct (no tie-break by docno), so nDCG depends only on the grades by rank
    unjudged = [d for d in unjudged if d not in judged]
    documents = judged + unjudged
    grades = {d: data.draw(st.integers(0, 3)) for d in judged}
    scores = dict(zip(documents, data.draw(st.permutations(range(len(documents)))), strict=True))
    renamed = {d: f"doc{i:06d}" for i, d in enumerate(documents)}
    measures = ["ndcg", "ndcg_cut.3"]
    original = evaluate(run_from_dict({"q": {d: float(s) for d, s in scores.items()}}),
                        qrels_from_dict({"q": grades}), measures)
    fixed = evaluate(run_from_dict({"q": {renamed[d]: float(s) for d, s in scores.items()}}),
                     qrels_from_dict({"q": {renamed[d]: g for d, g in grades.items()}}), measures)
    for measure in ("ndcg", "ndcg_cut_3"):
        assert original.means[measure] == fixed.means[measure]
