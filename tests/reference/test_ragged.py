"""Ragged data: values equal the single-query functions, and memory follows the input, not its longest row.

One long ranking among many short ones, and one very long id, used to pad every other ranking or
id to their length (once 6.9 GB for 6 MB of input). Memory is measured with tracemalloc,
which counts numpy's allocations deterministically (not the process's resident size).
"""

from __future__ import annotations

import tracemalloc
from math import log2

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndcg_ref import dcg, dcg_batch, idcg, idcg_batch, ndcg, ndcg_batch
from ndcg_ref.batch import Ragged, parallel, ragged
from ndcg_ref.trec import evaluate, qrels_from_dict, read_run, reading, run_from_dict
from ndcg_ref.trec.data import Qrels, Run
from ndcg_ref.trec.ids import Ids

from strategies import fractional_grades, grades


def _small_blocks(monkeypatch, workers=2):
    """Blocks of a few rows, several threads: every path through the blocking code is taken."""
    monkeypatch.setattr(ragged, "_BLOCK_ELEMENTS", 64)
    monkeypatch.setattr(ragged, "_NARROW", 2)
    monkeypatch.setattr(parallel, "_workers", lambda: workers)


def _peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- the Ragged container -------------------------------------------------------------------------


def test_ragged_rows_take_and_dense():
    rows = Ragged.from_lists([[1, 2, 3], [], [4], [5, 6]])
    assert rows.lengths.tolist() == [3, 0, 1, 2] and len(rows) == 4
    picked = rows.take(np.array([3, 0, 1]))
    assert [picked.row(i).tolist() for i in range(3)] == [[5, 6], [1, 2, 3], []]
    assert rows.take(np.array([False, True, True, False])).offsets.tolist() == [0, 0, 1]
    assert rows.dense(np.array([2, 0]), 3).tolist() == [[4, 0, 0], [1, 2, 3]]
    assert rows.dense(np.array([0, 3]), 1).tolist() == [[1], [5]]  # cut at the width


def test_dense_rows_of_one_length_are_a_view():
    rows = Ragged.from_matrix(np.arange(12.0).reshape(4, 3))
    block = rows.dense(np.array([1, 2]), 3)
    assert np.shares_memory(block, rows.values) and block.tolist() == [[3, 4, 5], [6, 7, 8]]


@given(st.lists(st.lists(grades, max_size=9), max_size=12), st.data())
def test_take_agrees_with_python(rows, data):
    picked = data.draw(st.lists(st.integers(0, max(len(rows) - 1, 0)), max_size=15)) if rows else []
    taken = Ragged.from_lists(rows).take(np.array(picked, dtype=np.int64))
    assert [taken.row(i).tolist() for i in range(len(picked))] == [[float(g) for g in rows[i]] for i in picked]


@pytest.mark.parametrize("values, offsets", [
    (np.zeros(3), np.array([0, 2])),        # does not reach the end
    (np.zeros(3), np.array([1, 3])),        # does not start at 0
    (np.zeros(3), np.array([0, 2, 1, 3])),  # goes back
    (np.zeros((1, 3)), np.array([0, 3])),   # not flat
])
def test_ragged_refuses_offsets_that_do_not_delimit_the_values(values, offsets):
    with pytest.raises(ValueError, match=r"offsets|1-D"):
        Ragged(values, offsets)


def test_blocks_cover_every_row_once_and_stay_near_their_rows_size(monkeypatch):
    monkeypatch.setattr(ragged, "_BLOCK_ELEMENTS", 1000)
    lengths = np.random.default_rng(3).integers(0, 3000, size=500)
    lengths[::50] = 0
    blocks = ragged._blocks(lengths)
    assert sorted(np.concatenate(blocks).tolist()) == list(range(500))
    for block in blocks:  # padded to the block's longest row: about twice its rows at most
        padded = block.size * max(int(lengths[block].max()), ragged._NARROW)
        assert padded <= 2 * int(np.maximum(lengths[block], ragged._NARROW).sum())


# --- values: exactly the single-query functions ----------------------------------------------------


def _long_among_short(seed, short=200, long=5000):
    rng = np.random.default_rng(seed)
    rows = [list(rng.integers(0, 4, size=int(rng.integers(0, 12))).astype(float)) for _ in range(short)]
    rows.insert(short // 2, list(rng.integers(0, 4, size=long) * rng.choice([1.0, 0.37])))
    return rows


@pytest.mark.parametrize("workers", [1, 2])
def test_one_long_ranking_among_short_ones_agrees_exactly(monkeypatch, workers):
    _small_blocks(monkeypatch, workers)
    rows = _long_among_short(1)
    ideal = [row + [3.0] * (i % 3) for i, row in enumerate(rows)]  # relevant documents not retrieved
    ideal[7] = rows[7] + [2.0] * 4000  # a long ideal beside a short ranking
    ks = (1, 10, 4000, None)
    for gain in ("linear", "exponential"):
        values = ndcg_batch(rows, ks, ideal=ideal, gain=gain)
        ideals = idcg_batch(Ragged.from_lists(rows), ks, gain=gain)
        for q, row in enumerate(rows):
            assert values[q].tolist() == [ndcg(row, k, ideal=ideal[q], gain=gain) for k in ks], q
            assert ideals[q].tolist() == [idcg(row, k, gain=gain) for k in ks], q
        assert dcg_batch(rows, ks, gain=gain).tolist() == [[dcg(row, k, gain=gain) for k in ks] for row in rows]


ragged_rows = st.lists(
    st.one_of(st.lists(st.one_of(grades, fractional_grades), max_size=5),
              st.lists(st.one_of(grades, fractional_grades), min_size=20, max_size=150)),
    min_size=1, max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(ragged_rows, st.lists(st.one_of(st.none(), st.integers(1, 160)), min_size=1, max_size=3))
def test_ragged_rows_in_small_blocks_agree_exactly(rows, ks):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _small_blocks(monkeypatch)
        values, dcgs = ndcg_batch(rows, tuple(ks)), dcg_batch(rows, tuple(ks))
        for q, row in enumerate(rows):
            assert values[q].tolist() == [ndcg(row, k) for k in ks]
            assert dcgs[q].tolist() == [dcg(row, k) for k in ks]


def test_errors_name_the_first_query_in_row_order(monkeypatch):
    _small_blocks(monkeypatch)
    rows = _long_among_short(2)
    rows[150][0] = float("nan")
    rows[30].append(-1.0)
    with pytest.raises(ValueError, match=rf"rels\[30\]\[{len(rows[30]) - 1}\] is -1"):
        ndcg_batch(rows, 5)
    rows = _long_among_short(2)
    ideal = [sorted(row, reverse=True) for row in rows]
    for q in (160, 100, 40):  # 100 is the long ranking, in a block of its own
        ideal[q] = [0.5]
        rows[q].append(3.0)
    with pytest.raises(ValueError, match=r"ideal\[40\] must hold"):
        ndcg_batch(rows, 5, ideal=ideal)


# --- memory follows the input ---------------------------------------------------------------------


def _bounded_blocks(monkeypatch):
    """Blocks of 32 KiB, two threads: the temporaries of the blocks in flight are a small constant
    (the default, 4 MiB blocks on every core, would dominate inputs of a few MiB)."""
    monkeypatch.setattr(ragged, "_BLOCK_ELEMENTS", 1 << 12)
    monkeypatch.setattr(parallel, "_workers", lambda: 2)


def test_memory_of_one_long_ranking_among_short_ones_follows_the_input(monkeypatch):
    # 5,000 rankings of 10 and one of 25,000: 0.6 MB flat, 1 GB padded to the longest
    _bounded_blocks(monkeypatch)
    rng = np.random.default_rng(4)
    lengths = np.full(5_001, 10)
    lengths[2_500] = 25_000
    rows = Ragged.from_lengths(rng.integers(0, 4, size=int(lengths.sum())).astype(float), lengths)
    ideal = rows.take(np.arange(len(rows)))
    size = rows.values.nbytes + rows.offsets.nbytes
    peak = _peak(lambda: ndcg_batch(rows, (10, None), ideal=ideal))
    assert peak < 3 * size, f"peak {peak / 2**20:.1f} MiB for {size / 2**20:.1f} MiB of rankings"
    assert ndcg_batch(rows, (10, None))[2_500].tolist() == [ndcg(rows.row(2_500), 10), ndcg(rows.row(2_500))]


def _trec_inputs(lengths, rng, long_id=None):
    """A run with rankings of the given lengths (distinct scores) and qrels judging every other document."""
    qids, docnos, scores, judged_q, judged_d, grades_ = [], [], [], [], [], []
    for q, length in enumerate(lengths):
        for d in range(length):
            name = f"d{d}".encode() if long_id is None or (q, d) != (0, 0) else long_id
            qids.append(f"q{q}".encode())
            docnos.append(name)
            scores.append(float(length - d))
            if d % 2 == 0:
                judged_q.append(f"q{q}".encode())
                judged_d.append(name)
                grades_.append(int(rng.integers(0, 4)))
    run = Run(Ids.from_bytes(qids), Ids.from_bytes(docnos), np.array(scores), np.arange(1, len(scores) + 1))
    qrels = Qrels(Ids.from_bytes(judged_q), Ids.from_bytes(judged_d), np.array(grades_), np.arange(1, len(grades_) + 1))
    return run, qrels


def _size(run, qrels):
    arrays = [run.qids.data, run.qids.offsets, run.docnos.data, run.docnos.offsets, run.scores, run.lines,
              qrels.qids.data, qrels.qids.offsets, qrels.docnos.data, qrels.docnos.offsets, qrels.grades, qrels.lines]
    return sum(a.nbytes for a in arrays)


def test_trec_memory_of_one_long_ranking_follows_the_input(monkeypatch):
    # 5,000 rankings of 10 and one of 25,000: 4 MB of run and qrels, a queries x longest matrix 1 GB
    _bounded_blocks(monkeypatch)
    rng = np.random.default_rng(5)
    run, qrels = _trec_inputs([25_000] + [10] * 5_000, rng)
    size = _size(run, qrels)
    peak = _peak(lambda: evaluate(run, qrels, ["ndcg", "ndcg_cut.10"]))
    assert peak < 4 * size, f"peak {peak / 2**20:.1f} MiB for {size / 2**20:.1f} MiB of run and qrels"


def test_trec_memory_with_one_very_long_id_follows_the_input(monkeypatch):
    # one 3,000-character docno in 100,000 lines: 6 MB of run and qrels, ids padded to it 300 MB
    _bounded_blocks(monkeypatch)
    rng = np.random.default_rng(6)
    run, qrels = _trec_inputs([100] * 1000, rng, long_id=b"x" * 3000)
    size = _size(run, qrels)
    peak = _peak(lambda: evaluate(run, qrels, ["ndcg", "ndcg_cut.10"]))
    assert peak < 4 * size, f"peak {peak / 2**20:.1f} MiB for {size / 2**20:.1f} MiB of run and qrels"


# --- TREC values with ragged rankings and ids --------------------------------------------------------


def _trec_eval_ndcg(run, qrels, k=None):
    """trec_eval's rules one query at a time with the single-query reference: score (float32)
    descending, then docno descending; negative grades 0; ideal from all judged relevant documents."""
    values = {}
    for qid, judged in qrels.items():
        if qid not in run:
            continue
        ranked = sorted(run[qid].items(), key=lambda item: item[0], reverse=True)
        ranked.sort(key=lambda item: -np.float32(item[1]))  # stable: docno descending within ties
        rels = [max(judged.get(doc, 0), 0) for doc, _ in ranked]
        values[qid] = ndcg(rels, k, ideal=[g for g in judged.values() if g > 0])
    return values


def test_one_long_ranking_with_ties_and_long_ids_agrees_with_the_single_query_reference(monkeypatch):
    _small_blocks(monkeypatch)
    rng = np.random.default_rng(7)
    run, qrels = {}, {}
    for q in range(60):
        length = 3000 if q == 17 else int(rng.integers(1, 8))
        docs = [("L" * int(rng.integers(200, 2000)) if rng.random() < 0.01 else "d") + str(i) for i in range(length)]
        run[f"q{q}"] = {d: float(rng.integers(0, 20)) / 4 for d in docs}  # many ties: docno decides
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs if rng.random() < 0.5} or {docs[0]: 1}
    for k, name in ((None, "ndcg"), (10, "ndcg_cut_10")):
        ours = evaluate(run_from_dict(run), qrels_from_dict(qrels), ["ndcg", "ndcg_cut.10"]).per_query()
        expected = _trec_eval_ndcg(run, qrels, k)
        assert {q: v[name] for q, v in ours.items()} == pytest.approx(expected, abs=1e-15)


def test_a_long_id_reads_back_whole_across_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "_BLOCK", 4096)  # the long line spans several blocks
    long_id = "é" * 3000
    lines = [f"q{i // 3} Q0 {long_id if i == 4 else f'd{i}'} {i} {1 / (i + 1)!r} t" for i in range(30)]
    (tmp_path / "run").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(tmp_path / "run")
    assert list(run.docnos) == [(long_id if i == 4 else f"d{i}").encode() for i in range(30)]
    assert list(run.qids) == [f"q{i // 3}".encode() for i in range(30)]
    assert run.docnos.data.nbytes == sum(len(d) for d in run.docnos)  # no padding


# --- Ids ------------------------------------------------------------------------------------------


ids_lists = st.lists(st.binary(max_size=40), max_size=30)


@given(ids_lists, ids_lists, st.data())
def test_ids_equal_and_hash_agree_with_python(left, right, data):
    a, b = Ids.from_bytes(left), Ids.from_bytes(right)
    assert list(a) == left and [a[i] for i in range(len(left))] == left
    if left and right:
        i = np.array(data.draw(st.lists(st.integers(0, len(left) - 1), max_size=20)), dtype=np.int64)
        j = np.array(data.draw(st.lists(st.integers(0, len(right) - 1), min_size=i.size, max_size=i.size)),
                     dtype=np.int64)
        assert a.equal(i, b, j).tolist() == [left[x] == right[y] for x, y in zip(i, j, strict=True)]
    both = Ids.concatenate([a, b])
    hashes = both.hash()
    for x, item in enumerate(left + right):  # equal ids hash equally, wherever they are stored
        assert hashes[x] == Ids.from_bytes([item]).hash()[0]
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(both), max_size=len(both))), dtype=bool)
    assert list(both[mask]) == [item for item, keep in zip(left + right, mask, strict=True) if keep]


def test_ids_refuse_selection_by_index_array():
    with pytest.raises(TypeError, match="boolean mask"):
        Ids.from_bytes([b"a", b"b"])[np.array([1, 0])]


def test_ideal_of_the_long_ranking_uses_unretrieved_documents():
    run = run_from_dict({"long": {f"d{i}": float(-i) for i in range(5000)}, "short": {"a": 1.0}})
    qrels = qrels_from_dict({"long": {"d4999": 2, "unretrieved": 1}, "short": {"a": 1}})
    value = evaluate(run, qrels, ["ndcg"]).per_query()["long"]["ndcg"]
    assert value == pytest.approx((2 / log2(5001)) / (2 + 1 / log2(3)), abs=1e-15)
