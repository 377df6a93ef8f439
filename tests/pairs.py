"""Every pair of catalogue mistakes as a solution: what the all-pairs mutation check grades.

A pair is made from the catalogue's own mutants: a dcg mistake's dcg with an ndcg mistake's ndcg;
and, for two mistakes in one function, one mutant with a second mistake put into it the way
real code makes it: a result rounded, printed, returned as an array, a crash on k beyond the
list, a guard against a zero ideal left out, the input list sorted in place, one-document lists or
grades above 2 refused. Each pair must lose exactly the union of the two mistakes' groups, unless
the catalogue declares otherwise, and why (:data:`autograder.exercises.ndcg.pairs.PAIR_COSTS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autograder.exercises.ndcg.catalogue import CATALOGUE, CORRECT_DCG, CORRECT_NDCG, Misconception, Mutant
from autograder.exercises.ndcg.pairs import PAIR_COSTS


@dataclass(frozen=True)
class Pair:
    """Two mistakes in one solution, and what grading it must find."""

    first: str
    second: str
    dcg: str
    ndcg: str
    #: The union of the groups the two mutants lose on their own.
    union: frozenset[str]

    @property
    def name(self) -> str:
        return f"{self.first} + {self.second}"

    @property
    def ids(self) -> frozenset[str]:
        return frozenset({self.first, self.second})

    def loses(self) -> frozenset[str]:
        """The groups this pair loses: the union of the two mistakes' groups, or what the catalogue declares."""
        declared = PAIR_COSTS.get(self.ids)
        return frozenset(declared.lost) if declared is not None and declared.lost is not None else self.union

    def named(self) -> frozenset[str]:
        """The IDs the diagnosis must name: both, or what the catalogue declares."""
        declared = PAIR_COSTS.get(self.ids)
        return frozenset(declared.named) if declared is not None and declared.named is not None else self.ids


def _by_id() -> dict[str, Misconception]:
    return {item.id: item for item in CATALOGUE}


def _first(item: Misconception, function: str) -> Mutant | None:
    """The item's first mutant that changes ``function``."""
    correct = CORRECT_DCG if function == "dcg" else CORRECT_NDCG
    return next((m for m in item.mutants if getattr(m, function) != correct), None)


def _groups(mistake: str, mutant: Mutant) -> set[str]:
    return set(_by_id()[mistake].groups_lost(mutant))


def _inner(source: str, function: str) -> str:
    return source.replace(f"def {function}(rels, k):", f"def _inner_{function}(rels, k):")


#: How a second mistake is put into a function another mistake's mutant already gets wrong.
DCG_WRAPPERS: dict[str, Callable[[str], str]] = {
    "rounded": lambda s: _inner(s, "dcg") + "\n\n\ndef dcg(rels, k):\n    return round(_inner_dcg(rels, k), 2)",
    "prints-not-returns": lambda s: _inner(s, "dcg") + "\n\n\ndef dcg(rels, k):\n    print(_inner_dcg(rels, k))",
    "returns-non-float": lambda s: "import numpy as np\n" + _inner(s, "dcg")
    + "\n\n\ndef dcg(rels, k):\n    return np.asarray([_inner_dcg(rels, k)]).sum(keepdims=True).squeeze()",
    "k-beyond-length": lambda s: _inner(s, "dcg")
    + "\n\n\ndef dcg(rels, k):\n    rels[k - 1]  # range(k) in the real thing\n    return _inner_dcg(rels, k)",
}
NDCG_WRAPPERS: dict[str, Callable[[str], str]] = {
    "rounded": lambda s: _inner(s, "ndcg") + "\n\n\ndef ndcg(rels, k):\n    return round(_inner_ndcg(rels, k), 2)",
    "mutates-input": lambda s: _inner(s, "ndcg")
    + "\n\n\ndef ndcg(rels, k):\n    value = _inner_ndcg(rels, k)\n    rels.sort(reverse=True)\n    return value",
    "one-document": lambda s: _inner(s, "ndcg") + "\n\n\ndef ndcg(rels, k):\n    if len(rels) < 2:\n"
    "        raise ValueError('Computing NDCG is only meaningful when there is more than 1 document.')\n"
    "    return _inner_ndcg(rels, k)",
    "grade-range": lambda s: _inner(s, "ndcg") + "\n\n\ndef ndcg(rels, k):\n    if max(rels, default=0) > 2:\n"
    "        raise ValueError('grades must be between 0 and 2')\n    return _inner_ndcg(rels, k)",
    # the guard left out: the real mistake, inside the function (a wrapper cannot remove it)
    "zero-ideal": lambda s: s.replace("if ideal == 0:\n        return 0.0\n    ", "") if "if ideal == 0:" in s else "",
}


def all_pairs() -> list[Pair]:
    """Every pair of catalogue mistakes this module can build, each once."""
    items = _by_id()
    dcg_side = {i: m for i, item in items.items() if (m := _first(item, "dcg")) is not None}
    ndcg_side = {i: m for i, item in items.items() if (m := _first(item, "ndcg")) is not None}
    pairs: dict[frozenset[str], Pair] = {}

    def add(pair: Pair) -> None:
        if pair.first != pair.second and pair.ids not in pairs:
            pairs[pair.ids] = pair

    for first, a in dcg_side.items():
        for second, b in ndcg_side.items():
            add(Pair(first, second, a.dcg, b.ndcg, frozenset(_groups(first, a) | _groups(second, b))))
    for wrapper, wrap in DCG_WRAPPERS.items():
        own = _groups(wrapper, dcg_side[wrapper])
        for other, mutant in dcg_side.items():
            if other != wrapper:
                add(Pair(other, wrapper, wrap(mutant.dcg), CORRECT_NDCG, frozenset(_groups(other, mutant) | own)))
    for wrapper, wrap in NDCG_WRAPPERS.items():
        own = _groups(wrapper, ndcg_side[wrapper])
        for other, mutant in ndcg_side.items():
            if other != wrapper and (source := wrap(mutant.ndcg)):
                add(Pair(other, wrapper, CORRECT_DCG, source, frozenset(_groups(other, mutant) | own)))
    return sorted(pairs.values(), key=lambda p: p.name)


ALL_PAIRS = all_pairs()
