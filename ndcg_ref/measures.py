"""Cumulative gain, discounted cumulative gain and its normalised form for one ranked list."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ._validate import Relevances, as_cutoff, as_relevances

Gain = Literal["linear", "exponential"]

__all__ = ["cg", "dcg", "idcg", "ndcg"]


def _gains(grades: NDArray[np.float64], gain: str) -> NDArray[np.float64]:
    if gain == "linear":
        return grades
    if gain == "exponential":
        return np.exp2(grades) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")


def _discounts(n: int) -> NDArray[np.float64]:
    """``1 / log2(i + 1)`` for the 1-based ranks ``i = 1 .. n``."""
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def _dcg_of(grades: NDArray[np.float64], k: int | None, gain: str) -> float:
    """Gain times discount, summed in rank order (the same arithmetic as the batch functions)."""
    top = grades[:k]
    if top.size == 0:
        return 0.0
    return float(np.cumsum(_gains(top, gain) * _discounts(top.size))[-1])


def _ideal_grades(grades: NDArray[np.float64], ideal: Relevances | None) -> NDArray[np.float64]:
    """The ideal ranking: ``ideal`` (or the ranking itself) sorted by grade, descending."""
    if ideal is None:
        return np.sort(grades)[::-1]
    best = np.sort(as_relevances(ideal, "ideal"))[::-1]
    ranked = np.sort(grades)[::-1]
    width = max(best.size, ranked.size)
    padded_best = np.pad(best, (0, width - best.size))
    padded_ranked = np.pad(ranked, (0, width - ranked.size))
    if np.any(padded_ranked > padded_best):
        raise ValueError(
            "ideal must hold the grades of all relevant documents of the query, but the ranking "
            f"has grades {_show(ranked[ranked > 0])} that ideal {_show(best[best > 0])} does not cover"
        )
    return best


def _show(grades: NDArray[np.float64]) -> str:
    return "[" + ", ".join(f"{g:g}" for g in grades) + "]"


def cg(rels: Relevances, k: int | None = None) -> float:
    r"""Cumulative gain of the top ``k`` documents: the sum of their grades, order ignored.

    Parameters
    ----------
    rels : list, tuple or 1-D numpy array of float
        Graded relevance of the documents in ranked order (rank 1 first). Grades are finite
        and non-negative; 0 means not relevant.
    k : int or None, optional
        Cut-off: only the top ``k`` ranks count. ``None`` (the default) means the whole list;
        a ``k`` larger than the list also means the whole list.

    Returns
    -------
    float
        :math:`CG@k`; 0.0 for an empty list.

    Raises
    ------
    TypeError
        If ``rels`` is not a sequence of numbers, or ``k`` is not an integer (bools included).
    ValueError
        If a grade is negative, NaN or infinite, ``rels`` is nested, or ``k < 1``.

    Notes
    -----
    .. math:: CG@k = \sum_{i=1}^{\min(k, n)} rel_i

    Examples
    --------
    >>> cg([1, 0, 2, 1, 0], k=3)
    3.0
    >>> cg([2, 1, 0, 1, 0], k=3)  # same documents in the top 3, other order
    3.0
    """
    grades = as_relevances(rels)
    return float(np.sum(grades[: as_cutoff(k)]))


def dcg(rels: Relevances, k: int | None = None, *, gain: Gain = "linear") -> float:
    r"""Discounted cumulative gain of a ranked list at cut-off ``k``.

    Parameters
    ----------
    rels : list, tuple or 1-D numpy array of float
        Graded relevance of the documents in ranked order (rank 1 first). Grades are finite
        and non-negative; 0 means not relevant. The input is never modified.
    k : int or None, optional
        Cut-off: only the top ``k`` ranks count. ``None`` (the default) means the whole list;
        a ``k`` larger than the list also means the whole list.
    gain : {"linear", "exponential"}, keyword-only
        ``"linear"`` (the course's definition) uses the grade itself as gain;
        ``"exponential"`` uses :math:`2^{rel} - 1` (Burges et al.).

    Returns
    -------
    float
        :math:`DCG@k`; 0.0 for an empty list.

    Raises
    ------
    TypeError
        If ``rels`` is not a sequence of numbers, or ``k`` is not an integer (bools included).
    ValueError
        If a grade is negative, NaN or infinite, ``rels`` is nested, ``k < 1``, or ``gain`` is
        unknown.

    Notes
    -----
    With 1-based rank :math:`i`, rank 1 is undiscounted (:math:`\log_2 2 = 1`):

    .. math:: DCG@k = \sum_{i=1}^{\min(k, n)} \frac{rel_i}{\log_2(i + 1)}

    With ``gain="exponential"`` the numerator is :math:`2^{rel_i} - 1`.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
       ACM TOIS 20(4), 2002.
    .. [2] C. Burges et al., "Learning to rank using gradient descent", ICML 2005.

    Examples
    --------
    The lecture example, relevances 1, 0, 2, 1, 0:

    >>> round(dcg([1, 0, 2, 1, 0], k=5), 4)  # 1/log2(2) + 2/log2(4) + 1/log2(5)
    2.4307
    >>> dcg([3, 2], k=1)
    3.0
    >>> round(dcg([1, 0, 2, 1, 0], k=5, gain="exponential"), 4)  # 1 + 3/2 + 1/log2(5)
    2.9307
    """
    return _dcg_of(as_relevances(rels), as_cutoff(k), gain)


def idcg(
    rels: Relevances,
    k: int | None = None,
    *,
    ideal: Relevances | None = None,
    gain: Gain = "linear",
) -> float:
    r"""Ideal DCG: the DCG@k of the best possible ordering.

    Parameters
    ----------
    rels : list, tuple or 1-D numpy array of float
        Graded relevance of the documents in ranked order. Without ``ideal`` the ideal ranking
        is ``rels`` sorted by grade, descending.
    k : int or None, optional
        Cut-off, as in :func:`dcg`. The ideal ranking is cut at the same ``k``.
    ideal : list, tuple or 1-D numpy array of float, keyword-only, optional
        The grades of *all* relevant documents of the query, in any order, retrieved or not
        (the lecture's "only 3 relevant documents exist overall" case; this is how trec_eval
        builds its ideal ranking). It must cover every relevant grade in ``rels``.
    gain : {"linear", "exponential"}, keyword-only
        As in :func:`dcg`.

    Returns
    -------
    float
        :math:`iDCG@k`.

    Raises
    ------
    TypeError, ValueError
        As in :func:`dcg`; also ``ValueError`` if ``ideal`` does not cover the grades in ``rels``.

    Notes
    -----
    With :math:`rel^*` the ideal grades sorted descending:

    .. math:: iDCG@k = \sum_{i=1}^{\min(k, n^*)} \frac{rel^*_i}{\log_2(i + 1)}

    Examples
    --------
    >>> round(idcg([1, 0, 2, 1, 0], k=5), 4)  # ideal 2, 1, 1, 0, 0: 2 + 1/log2(3) + 1/log2(4)
    3.1309
    >>> idcg([0, 0, 1], k=2, ideal=[2, 1])  # a grade-2 document exists but was not retrieved
    2.6309297535714578
    """
    grades = as_relevances(rels)
    return _dcg_of(_ideal_grades(grades, ideal), as_cutoff(k), gain)


def ndcg(
    rels: Relevances,
    k: int | None = None,
    *,
    ideal: Relevances | None = None,
    gain: Gain = "linear",
) -> float:
    r"""Normalised DCG: DCG@k divided by the DCG@k of the ideal ranking.

    Parameters
    ----------
    rels : list, tuple or 1-D numpy array of float
        Graded relevance of the documents in ranked order (rank 1 first). The input is never
        modified.
    k : int or None, optional
        Cut-off: only the top ``k`` ranks count, for the ranking and for the ideal ranking.
        ``None`` (the default) means the whole list; a larger ``k`` also means the whole list.
    ideal : list, tuple or 1-D numpy array of float, keyword-only, optional
        The grades of all relevant documents of the query (see :func:`idcg`). By default the
        ideal ranking is ``rels`` sorted descending.
    gain : {"linear", "exponential"}, keyword-only
        As in :func:`dcg`.

    Returns
    -------
    float
        :math:`nDCG@k` in :math:`[0, 1]`; 0.0 when the ideal DCG is 0 (nothing relevant).

    Raises
    ------
    TypeError, ValueError
        As in :func:`idcg`.

    Notes
    -----
    .. math:: nDCG@k = \frac{DCG@k}{iDCG@k}, \qquad nDCG@k = 0 \text{ if } iDCG@k = 0

    Examples
    --------
    The lecture example: DCG@5 = 2.4307, iDCG@5 = 3.1309.

    >>> round(ndcg([1, 0, 2, 1, 0], k=5), 4)
    0.7763
    >>> ndcg([2, 1, 0], k=2)  # already ideal
    1.0
    >>> ndcg([0, 0, 0], k=3)  # nothing relevant: iDCG is 0
    0.0
    >>> round(ndcg([1, 0, 2, 1, 0], k=5, ideal=[2, 2, 1, 1]), 4)  # a second grade-2 document exists
    0.5798
    """
    grades = as_relevances(rels)
    cutoff = as_cutoff(k)
    ideal_value = _dcg_of(_ideal_grades(grades, ideal), cutoff, gain)
    if ideal_value == 0.0:
        return 0.0
    return _dcg_of(grades, cutoff, gain) / ideal_value
