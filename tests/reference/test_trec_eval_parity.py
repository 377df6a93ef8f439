"""trec_eval 10.0's own test suite: `python -m ndcg_ref` prints its ndcg and ndcg_cut lines byte for byte.

The data and expected outputs are NIST's (``test/`` of trec_eval 10.0), kept in ``trec_eval_data/``
beside this file (see its README.md: where they come from, their licence, which trec_eval arguments
made which file).
The expected lines are read from those files; nothing here is an output of ours.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ndcg_ref.trec import evaluate_files, read_qrels, read_run

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "trec_eval_data"
#: Kept gzip-compressed in the repository (2.8 MB as text); read from a decompressed copy.
COMPRESSED = ("results.comment.test",)

#: The ndcg lines of trec_eval's output (not ndcg_rel, ndcg_p, Rndcg...).
NDCG_LINE = re.compile(rb"^ndcg(?:_cut_\d+)?[ \t]")


@pytest.fixture(scope="module")
def trec_folder(tmp_path_factory) -> Path:
    """trec_eval's test folder as trec_eval has it: the data files, the compressed one decompressed."""
    folder = tmp_path_factory.mktemp("trec_eval_test")
    for path in DATA.iterdir():
        if path.name.endswith(".gz") and path.name.removesuffix(".gz") in COMPRESSED:
            with gzip.open(path) as source, (folder / path.name.removesuffix(".gz")).open("wb") as target:
                shutil.copyfileobj(source, target)
        elif path.suffix != ".md":
            shutil.copyfile(path, folder / path.name)
    return folder


def _cli(*args: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ndcg_ref", *map(str, args)], capture_output=True, cwd=ROOT)


def expected_ndcg_lines(name: str) -> bytes:
    lines = (DATA / name).read_bytes().splitlines(keepends=True)
    return b"".join(line for line in lines if NDCG_LINE.match(line))


# (expected output, run, qrels, our options): the trec_eval arguments of each file, from the
# README of trec_eval_data/; -m all_trec includes ndcg and ndcg_cut with the default cut-offs
CASES = [
    ("out.test.a", "results.test", "qrels.test", []),
    ("out.test.aq", "results.test", "qrels.test", ["-q"]),
    ("out.test.aqc", "results.trunc", "qrels.test", ["-q", "-c"]),
    ("out.test.aqcM", "results.trunc", "qrels.test", ["-q", "-c", "-M100"]),
    # the same judgements with comment lines (and a "#" inside a docno): trec_eval's numbers for qrels.test
    ("out.test.aq", "results.test", "qrels.test.with-comments", ["-q"]),
    # grades -1 to 4; trec_eval's -l2 (made with -l2 -mrelstring.20) sets the relevance level of its
    # binary measures, and ndcg's gains are the grades themselves, so no option of ours corresponds
    ("out.test.aql", "results.test", "qrels.rel_level", ["-q"]),
]


@pytest.mark.parametrize("expected, run, qrels, options", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_ndcg_lines_are_trec_eval_s_byte_for_byte(trec_folder, expected, run, qrels, options):
    done = _cli(trec_folder / run, trec_folder / qrels, "-m", "ndcg", "-m", "ndcg_cut", *options)
    assert done.returncode == 0, done.stderr.decode()
    wanted = expected_ndcg_lines(expected)
    assert wanted.count(b"\n") >= 10  # the filter found trec_eval's lines (10 measures, "all" at least)
    assert done.stdout == wanted


def test_results_trunc_has_fields_after_the_tag_which_are_ignored(trec_folder):
    # the reason out.test.aqc needs them ignored: lines of results.trunc with more than six fields
    widths = {len(line.split()) for line in (trec_folder / "results.trunc").read_bytes().splitlines() if line.strip()}
    assert max(widths) > 6 and min(widths) == 6
    assert read_run(trec_folder / "results.trunc").qids.size == sum(
        1 for line in (trec_folder / "results.trunc").read_bytes().splitlines() if line.strip()
    )


def test_qrels_with_comments_reads_as_qrels_test(trec_folder):
    plain = evaluate_files(trec_folder / "results.test", trec_folder / "qrels.test", ["ndcg", "ndcg_cut"])
    commented = evaluate_files(trec_folder / "results.test", trec_folder / "qrels.test.with-comments", ["ndcg", "ndcg_cut"])
    assert commented.qids == plain.qids and np.array_equal(commented.values, plain.values)
    # its comment lines are skipped, and "CR#93E-1860" (a "#" inside a field) is a document
    text = (trec_folder / "qrels.test.with-comments").read_bytes().splitlines()
    comments = [line for line in text if line.startswith(b"#")]
    qrels = read_qrels(trec_folder / "qrels.test.with-comments")
    assert len(comments) == 3 and qrels.qids.size == len(text) - len(comments)
    assert b"CR#93E-1860" in set(qrels.docnos.tolist())


def test_ids_containing_a_hash_are_ids_not_comments(trec_folder):
    # MS MARCO v2.1 ids ("msmarco_v2.1_doc_00_880019750#4_1633802806"): every line is a judgement
    # or a result. trec_eval 10.0's test/out.comment.test for this pair says num_q 31.
    run, qrels = read_run(trec_folder / "results.comment.test"), read_qrels(trec_folder / "qrels.comment.test")
    for path, table in ((trec_folder / "results.comment.test", run), (trec_folder / "qrels.comment.test", qrels)):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        assert table.qids.size == len(lines)
        assert all(b"#" in docno for docno in table.docnos.tolist()[:100])
    result = evaluate_files(trec_folder / "results.comment.test", trec_folder / "qrels.comment.test", ["ndcg"])
    assert len(result.qids) == 31
