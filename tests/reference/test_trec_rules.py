"""trec_eval 10.0's reading and ranking rules, one at a time: C numbers, comments, extra fields, -M,
score precision, refusals, query ids as bytes, the order of the output.

Expected values come from C's definitions (strtod, strtol) and from nDCG's formula written out
in each test, never from a run of ndcg_ref.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from math import log2

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcg_ref.trec import (
    NothingToEvaluateError,
    TrecFormatError,
    evaluate,
    evaluate_files,
    qrels_from_dict,
    read_qrels,
    read_run,
    run_from_dict,
)
from ndcg_ref.trec.cnumbers import c_atof, c_atol


def _cli(*args: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ndcg_ref", *map(str, args)], capture_output=True)


def _files(tmp_path, run: bytes, qrels: bytes):
    (tmp_path / "run").write_bytes(run)
    (tmp_path / "qrels").write_bytes(qrels)
    return tmp_path / "run", tmp_path / "qrels"


# --- C's atof and atol, written from the C standard's grammar --------------------------------

_STRTOD_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_STRTOD_HEX = re.compile(rb"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)")
_STRTOD_WORD = re.compile(rb"([+-]?)(inf|nan)", re.IGNORECASE)
_STRTOL = re.compile(rb"[+-]?[0-9]+")


def strtod(token: bytes) -> float:
    """C's strtod of a token (no leading blanks): its longest prefix that is a number, else 0."""
    if word := _STRTOD_WORD.match(token):
        sign = -1.0 if word.group(1) == b"-" else 1.0
        return sign * float("inf") if word.group(2).lower() == b"inf" else float("nan")
    if hexadecimal := _STRTOD_HEX.match(token):
        value = float.fromhex(hexadecimal.group(2).decode())
        return -value if hexadecimal.group(1) == b"-" else value
    decimal = _STRTOD_DECIMAL.match(token)  # greedy, and an "e" counts only with digits after it
    return float(decimal.group()) if decimal else 0.0


def strtol(token: bytes) -> int:
    """glibc's atol (strtol base 10): the longest [+-]digits prefix, clamped to long, else 0."""
    match = _STRTOL.match(token)
    return min(max(int(match.group()), -(2**63)), 2**63 - 1) if match else 0


@pytest.mark.parametrize("token, value", [
    (b"1_0", 1.0), (b"10", 10.0), (b"1e", 1.0), (b"1e+", 1.0), (b"1e-3x", 0.001), (b".5.5", 0.5),
    (b"5.", 5.0), (b"-.e1", 0.0), (b"+", 0.0), (b"e5", 0.0), (b"1d5", 1.0), (b"high", 0.0),
    (b"0x1p-2", 0.25), (b"-0x10", -16.0), (b"0x", 0.0), (b"0xg", 0.0), (b"0x.8", 0.5),
    (b"INFINITY", float("inf")), (b"-Inf", float("-inf")), (b"infinite", float("inf")), (b"in", 0.0),
    (b"1e999", float("inf")), (b"1e-999", 0.0), (b"  2.129133"[2:], 2.129133),
])
def test_scores_are_read_as_c_atof_reads_them(token, value):
    assert c_atof(np.array([token])).tolist() == [value] == [strtod(token)]


@pytest.mark.parametrize("token, value", [
    # trec_eval's own test/qrels.test.with-floats: 1.5, 0.3, 1e+8, 1.1.11 and 0x37 as relevance
    (b"1.5", 1), (b"0.3", 0), (b"1e+8", 1), (b"1.1.11", 1), (b"0x37", 0),
    (b"1_0", 1), (b"-7x", -7), (b"+3", 3), (b"--3", 0), (b"-", 0), (b"high", 0), (b"007", 7),
    (b"99999999999999999999", 2**63 - 1), (b"-99999999999999999999", -(2**63)),
])
def test_relevance_is_read_as_c_atol_reads_it(token, value):
    assert c_atol(np.array([token])).tolist() == [value] == [strtol(token)]


number_bytes = st.sampled_from(list(b"0123456789+-.eExXpPaAfFiInN_ d"))
number_tokens = st.lists(number_bytes, min_size=1, max_size=14).map(bytes).map(bytes.strip).filter(bool)


@given(st.lists(number_tokens, min_size=1, max_size=40))
def test_atof_and_atol_agree_with_the_c_grammar_on_any_token(tokens):
    array = np.array(tokens)
    expected = [strtod(t) for t in tokens]
    got = c_atof(array).tolist()
    assert [str(g) for g in got] == [str(e) for e in expected]  # str: NaN equals NaN, -0.0 is not 0.0
    assert c_atol(array).tolist() == [strtol(t) for t in tokens]


def test_a_score_of_1_0_ranks_as_1_not_as_10(tmp_path):
    # C reads "1_0" as 1, below b's 2: a (the relevant one) comes second. Python would read 10.
    paths = _files(tmp_path, b"q Q0 a 1 1_0 t\nq Q0 b 2 2 t\n", b"q 0 a 1\n")
    assert evaluate_files(*paths, ["ndcg"]).means["ndcg"] == pytest.approx(1 / log2(3))


def test_a_relevance_of_1_5_is_grade_1(tmp_path):
    paths = _files(tmp_path, b"q Q0 a 1 2 t\nq Q0 b 2 1 t\n", b"q 0 a 0.5\nq 0 b 1.5\n")
    assert evaluate_files(*paths, ["ndcg"]).means["ndcg"] == pytest.approx((1 / log2(3)) / 1)


def test_a_nan_score_is_refused_naming_the_line(tmp_path):
    paths = _files(tmp_path, b"q Q0 a 1 1 t\nq Q0 b 2 -NaN(1) t\n", b"q 0 a 1\n")
    with pytest.raises(TrecFormatError, match=r"run, line 2: score '-NaN\(1\)' reads as NaN"):
        evaluate_files(*paths, ["ndcg"])


# --- lines: comments, fields after the tag, C's whitespace ------------------------------------


def test_comment_lines_are_skipped_and_line_numbers_still_count_them(tmp_path):
    run = b"# a comment\n   # after blanks: a comment in a run\nq Q0 a 1 2 t\n#\nq Q0 b 2 1 t\n"
    qrels = b"#c 0 x 9\n# two comment lines\n# in a row\nq 0 b 1\n"
    paths = _files(tmp_path, run, qrels)
    assert read_run(paths[0]).lines.tolist() == [3, 5]
    assert read_qrels(paths[1]).lines.tolist() == [4]
    assert evaluate_files(*paths, ["ndcg"]).means["ndcg"] == pytest.approx(1 / log2(3))
    (tmp_path / "run").write_bytes(run + b"q Q0 c\n")
    with pytest.raises(TrecFormatError, match=r"run, line 6: expected at least 6 columns"):
        read_run(tmp_path / "run")


def test_comments_and_extra_fields_read_the_same_in_small_blocks(tmp_path, monkeypatch):
    from ndcg_ref.trec import reading

    lines = [b"# header"] + [
        b"%s%d Q0 d#%d %d %.3f tag%s" % (b"  " if i % 7 == 0 else b"", i // 9, i, i, 1 / (i + 1), b" x y" * (i % 3))
        for i in range(300)
    ]
    lines[40:40] = [b"   # a comment in the middle", b""]
    (tmp_path / "run").write_bytes(b"\n".join(lines) + b"\n")
    whole = read_run(tmp_path / "run")
    monkeypatch.setattr(reading, "_BLOCK", 61)
    pieces = read_run(tmp_path / "run")
    # the 41st result is on line 1 (header) + 2 (comment, blank line) + 41
    assert whole.qids.size == 300 and whole.lines[40] == 1 + 2 + 41
    for field in ("qids", "docnos", "scores", "lines"):
        assert np.array_equal(getattr(whole, field), getattr(pieces, field)), field


def test_a_hash_inside_or_after_the_first_field_is_data(tmp_path):
    # a qrels comment starts at the line's first byte (trec_eval's get_qrels): " #q" is a query id
    paths = _files(tmp_path, b"#q Q0 d 1 1 t\nq#1 Q0 d#2 1 1 t#\n", b" #q 0 d 1\nq#1 0 d#2 1\n")
    assert read_run(paths[0]).qids.tolist() == [b"q#1"]
    assert read_qrels(paths[1]).qids.tolist() == [b"#q", b"q#1"]
    assert evaluate_files(*paths, ["ndcg"]).per_query() == {"q#1": {"ndcg": 1.0}}


def test_fields_after_the_run_tag_are_ignored_but_qrels_have_exactly_four(tmp_path):
    paths = _files(tmp_path, b"q Q0 a 1 2 t more junk at\nq Q0 b 2 1 t\n", b"q 0 b 1\n")
    run = read_run(paths[0])
    assert run.docnos.tolist() == [b"a", b"b"] and run.scores.tolist() == [2.0, 1.0]
    (tmp_path / "qrels").write_bytes(b"q 0 b 1 extra\n")
    with pytest.raises(TrecFormatError, match=r"qrels, line 1: expected 4 columns .* found 5"):
        read_qrels(tmp_path / "qrels")


def test_fields_are_separated_by_c_whitespace_only(tmp_path):
    # isspace(): space \t \n \v \f \r; any other control byte is part of a field
    paths = _files(tmp_path, b"q\x0bQ0\x0ca 1 2 t\r\nq\x01 Q0 b 1 1 t\n", b"q\t0\ta\t1\n")
    run = read_run(paths[0])
    assert run.qids.tolist() == [b"q", b"q\x01"] and run.docnos.tolist() == [b"a", b"b"]


def test_a_nul_byte_is_refused(tmp_path):
    paths = _files(tmp_path, b"q Q0 a 1 2 t\nq Q0 b\x00 2 1 t\n", b"q 0 a 1\n")
    with pytest.raises(TrecFormatError, match=r"run, line 2: a NUL byte"):
        read_run(paths[0])


# --- -M: the first M documents after trec_eval's sort, not the first M lines -----------------


def test_max_docs_keeps_the_top_of_trec_eval_s_order(tmp_path):
    # file order a, b, c; trec_eval's order: b (3), c (2), a (1)
    paths = _files(tmp_path, b"q Q0 a 1 1 t\nq Q0 b 2 3 t\nq Q0 c 3 2 t\n", b"q 0 a 2\nq 0 c 1\n")
    ideal = 2 + 1 / log2(3)
    assert evaluate_files(*paths, ["ndcg"], max_docs=1).means["ndcg"] == 0.0  # b only: not relevant
    assert evaluate_files(*paths, ["ndcg"], max_docs=2).means["ndcg"] == pytest.approx((1 / log2(3)) / ideal)
    assert evaluate_files(*paths, ["ndcg"], max_docs=3).means["ndcg"] == pytest.approx(
        (1 / log2(3) + 2 / log2(4)) / ideal
    )
    # the first 2 lines (a, b) would give a at rank 2: 2 / log2(3); that is not -M's answer
    assert evaluate_files(*paths, ["ndcg"], max_docs=2).means["ndcg"] != pytest.approx((2 / log2(3)) / ideal)


def test_max_docs_cuts_ties_by_docno_descending_and_keeps_the_ideal_whole():
    run = run_from_dict({"q": {"a": 1.0, "b": 1.0, "z": 0.5}})
    qrels = qrels_from_dict({"q": {"a": 1, "b": 0, "z": 3}})
    # order b, a, z (the tie a/b by docno, descending); -M1 keeps b; the ideal still has z and a
    assert evaluate(run, qrels, ["ndcg"], max_docs=1).means["ndcg"] == 0.0
    assert evaluate(run, qrels, ["ndcg"], max_docs=2).means["ndcg"] == pytest.approx((1 / log2(3)) / (3 + 1 / log2(3)))


@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_max_docs_must_be_a_whole_number_of_at_least_one(value):
    with pytest.raises(ValueError, match="max_docs"):
        evaluate(run_from_dict({"q": {"a": 1.0}}), qrels_from_dict({"q": {"a": 1}}), max_docs=value)


# --- score precision: doubles (trec_eval 10.0) or 32-bit floats (9.0.8, pytrec_eval) ---------


def test_a_tie_in_float32_is_no_tie_in_float64(tmp_path):
    high, low = 0.9732648856389701, 0.9732648569856578
    assert np.float32(high) == np.float32(low) and high > low  # the case is what it claims to be
    # d1 (grade 0) scores higher in float64; in float32 the tie goes to the docno, descending: d88 (grade 1)
    run, qrels = {"q": {"d1": high, "d88": low, "d5": 0.1}}, {"q": {"d1": 0, "d88": 1, "d5": 2}}
    ideal_at_1 = 2  # d5
    for precision, first_grade in (("float64", 0), ("float32", 1)):
        result = evaluate(run_from_dict(run), qrels_from_dict(qrels), ["ndcg_cut.1"], score_precision=precision)
        assert result.means["ndcg_cut_1"] == first_grade / ideal_at_1
    assert evaluate(run_from_dict(run), qrels_from_dict(qrels), ["ndcg_cut.1"]).means["ndcg_cut_1"] == 0.0
    paths = _files(tmp_path, f"q Q0 d1 1 {high!r} t\nq Q0 d88 2 {low!r} t\nq Q0 d5 3 0.1 t\n".encode(),
                   b"q 0 d1 0\nq 0 d88 1\nq 0 d5 2\n")
    for options, value in (([], b"0.0000"), (["--score-precision", "float32"], b"0.5000")):
        done = _cli(*paths, "-m", "ndcg_cut.1", *options)
        assert done.returncode == 0 and done.stdout.split() == [b"ndcg_cut_1", b"all", value]
    assert _cli(*paths, "--score-precision", "float16").returncode == 2


# --- nothing to evaluate: one line on stderr, exit status 2 ----------------------------------


@pytest.mark.parametrize("run, qrels, words", [
    (b"", b"q 0 a 1\n", "run: no run lines"),
    (b"\n  \n\t\n", b"q 0 a 1\n", "run: no run lines"),
    (b"# only a comment\n", b"q 0 a 1\n", "run: no run lines"),
    (b"q Q0 a 1 1 t\n", b"", "qrels: no judgements"),
    (b"q Q0 a 1 1 t\n", b"\n\n", "qrels: no judgements"),
    (b"q1 Q0 a 1 1 t\n", b"q1.X 0 a 1\n", "share no query"),
])
@pytest.mark.parametrize("complete", [[], ["-c"]])
def test_nothing_to_evaluate_is_refused_with_one_line_and_status_2(tmp_path, run, qrels, words, complete):
    paths = _files(tmp_path, run, qrels)
    done = _cli(*paths, "-m", "ndcg", *complete)
    assert done.returncode == 2 and done.stdout == b""
    message = done.stderr.decode()
    assert message.count("\n") == 1 and message.startswith("error: ") and words in message, message
    with pytest.raises(NothingToEvaluateError):
        evaluate_files(*paths, ["ndcg"], complete=bool(complete))


def test_dicts_with_nothing_to_evaluate_are_refused_too():
    with pytest.raises(NothingToEvaluateError, match="no run lines"):
        evaluate(run_from_dict({}), qrels_from_dict({"q": {"a": 1}}))
    with pytest.raises(NothingToEvaluateError, match=r"share no query \(run: 1 queries, e.g. 'a'; qrels: 1"):
        evaluate(run_from_dict({"a": {"d": 1.0}}), qrels_from_dict({"b": {"d": 1}}))


# --- query ids are bytes end to end ------------------------------------------------------------


def test_query_ids_that_are_not_utf8_stay_distinct_in_lines_and_json(tmp_path):
    run = b"q\xff Q0 a 1 2 t\nq\xff Q0 b 2 1 t\nq\xfe Q0 a 1 2 t\nq\xfe Q0 b 2 1 t\n"
    qrels = b"q\xff 0 a 1\nq\xfe 0 b 1\n"
    paths = _files(tmp_path, run, qrels)
    values = {b"q\xfe": 1 / log2(3), b"q\xff": 1.0}  # q\xfe's relevant b is second
    done = _cli(*paths, "-m", "ndcg", "-q")
    assert done.returncode == 0
    rows = [line.split(b"\t") for line in done.stdout.splitlines()]
    assert [qid for _, qid, _ in rows] == [b"q\xfe", b"q\xff", b"all"]  # strcmp's order: 0xfe < 0xff
    for _, qid, value in rows[:2]:
        assert value == b"%.4f" % values[qid]
    document = json.loads(_cli(*paths, "-m", "ndcg", "-q", "--json").stdout)
    queries = {key.encode("utf-8", "surrogateescape"): v["ndcg"] for key, v in document["queries"].items()}
    assert queries == pytest.approx(values) and document["num_q"] == 2


def test_query_ids_round_trip_through_the_python_api():
    ids = [b"q\xff".decode("utf-8", "surrogateescape"), b"q\xfe".decode("utf-8", "surrogateescape"), "q\u00e9"]
    result = evaluate(run_from_dict({q: {"a": 1.0} for q in ids}), qrels_from_dict({q: {"a": 1} for q in ids}))
    assert result.qid_bytes() == [b"q\xc3\xa9", b"q\xfe", b"q\xff"] and len(result.per_query()) == 3


# --- the order of the output -------------------------------------------------------------------


def test_per_query_output_is_grouped_by_query_with_cut_offs_increasing(tmp_path):
    paths = _files(tmp_path, b"9 Q0 a 1 1 t\n10 Q0 a 1 1 t\nZ Q0 a 1 1 t\n", b"9 0 a 1\n10 0 a 1\nZ 0 a 1\n")
    done = _cli(*paths, "-m", "ndcg_cut.10,5", "-m", "ndcg", "-q")
    rows = [line.split(b"\t") for line in done.stdout.splitlines()]
    measures = [b"ndcg", b"ndcg_cut_5", b"ndcg_cut_10"]
    # queries as C's strcmp orders them ("10" < "9" < "Z"), each with all its measures, then all
    assert [(m.strip(), q) for m, q, _ in rows] == [(m, q) for q in (b"10", b"9", b"Z", b"all") for m in measures]
    assert all(len(m) == 22 for m, _, _ in rows)  # "%-22s", as trec_eval pads the measure
