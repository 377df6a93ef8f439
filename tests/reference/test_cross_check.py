"""Agreement with independent implementations (trec_eval via pytrec-eval-terrier, scikit-learn).

Each test draws random rankings and compares to 1e-12. Scores are distinct so that the other
tool's tie handling (trec_eval: docno descending; scikit-learn: averaging) does not come into play.
"""

from __future__ import annotations

import numpy as np
import pytest

from ndcg_ref import ndcg

pytrec_eval = pytest.importorskip("pytrec_eval")
sklearn_metrics = pytest.importorskip("sklearn.metrics")

CUTOFFS = (1, 3, 5, 10, 20, 50)


def _random_queries(seed: int, count: int):
    """Yield (judged grades per docno, ranked docnos) pairs for random queries."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        pool = int(rng.integers(1, 40))
        docs = [f"d{i}" for i in range(pool)]
        judged = {d: int(rng.integers(0, 4)) for d in docs if rng.random() < 0.7}
        retrieved = list(rng.permutation(docs)[: int(rng.integers(1, pool + 1))])
        yield judged, retrieved


def test_agrees_with_trec_eval_ndcg_cut():
    qrels, run, expected_inputs = {}, {}, {}
    for q, (judged, retrieved) in enumerate(_random_queries(seed=2017, count=400)):
        if not any(judged.values()):
            judged[retrieved[0]] = 1  # trec_eval skips queries without relevant documents differently
        qid = f"q{q}"
        qrels[qid] = judged
        run[qid] = {doc: float(len(retrieved) - rank) for rank, doc in enumerate(retrieved)}
        rels = [judged.get(doc, 0) for doc in retrieved]
        ideal = [g for g in judged.values() if g > 0]
        expected_inputs[qid] = (rels, ideal)
    measures = {"ndcg"} | {f"ndcg_cut.{k}" for k in CUTOFFS}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for qid, (rels, ideal) in expected_inputs.items():
        assert results[qid]["ndcg"] == pytest.approx(ndcg(rels, ideal=ideal), abs=1e-12), qid
        for k in CUTOFFS:
            assert results[qid][f"ndcg_cut_{k}"] == pytest.approx(ndcg(rels, k, ideal=ideal), abs=1e-12), (qid, k)


def test_agrees_with_scikit_learn_ndcg_score():
    rng = np.random.default_rng(1718)
    for _ in range(400):
        n = int(rng.integers(2, 30))
        truth = rng.integers(0, 4, size=n).astype(float)
        if rng.random() < 0.3:
            truth = truth + rng.random(n).round(2)  # fractional grades too
        scores = rng.permutation(n).astype(float)  # distinct scores: no ties
        rels = truth[np.argsort(-scores, kind="stable")]
        for k in (None, 1, 2, 5, 10, 40):
            theirs = sklearn_metrics.ndcg_score(truth[None, :], scores[None, :], k=k)
            assert theirs == pytest.approx(ndcg(rels, k), abs=1e-12), (truth.tolist(), scores.tolist(), k)
