"""The notebook's test cells judge as the grader does.

nbgrader's own Execute (a tutor who switches the sandbox off, the reference in the tests) runs the
generated test cells with the helper cell's ``check_value``, ``check_number`` and ``check_same``;
the kit scores the same cases in its own process. Every mutant of the catalogue, every corpus
implementation and every correct style must lose the same groups both ways. (In this process:
the code is the tests' own, trusted.) One rule only the grader applies: beyond the contract, a
group counts only for a function that computes *some* DCG on the instances drawn for the
submission (``Exercise.resembles``); the notebook's cells, run in the student's own kernel on fixed
inputs, cannot, so they are compared with the grader's scoring without that rule.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
import warnings
from pathlib import Path

import pytest

from autograder.course.notebook_cells.generated_cells import helper_source, render_group
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.catalogue import CATALOGUE
from autograder.grading import scoring
from autograder.grading.definition.exercise import MAX_ROUNDING
from autograder.grading.reading import helper_cell

from corpus import CORPUS
from solutions import CORRECT_SOLUTIONS, functions_of, scored

#: The grader's scoring without the resemblance rule (see the module's docstring).
WITHOUT_RESEMBLANCE = dataclasses.replace(EXERCISE, resembles=lambda function, values: True)

SOLUTIONS = {
    **{f"{item.id}: {mutant.name}": (mutant.dcg, mutant.ndcg) for item in CATALOGUE for mutant in item.mutants},
    **{f"corpus: {i.name}": (i.dcg, i.ndcg) for i in CORPUS},
    **{f"correct: {name}": pair for name, pair in CORRECT_SOLUTIONS.items()},
    # an ndcg of its own beside a dcg that is still the stub: the ndcg's points stand
    "stub dcg, ndcg with its own DCG": (
        "def dcg(rels, k):\n    raise NotImplementedError()",
        "import math\n\n\ndef ndcg(rels, k):\n    def d(xs):\n"
        "        return sum(x / math.log2(i + 2) for i, x in enumerate(xs[:k]))\n"
        "    ideal = d(sorted(rels, reverse=True))\n    return d(rels) / ideal if ideal else 0.0",
    ),
}


def _lost_in_the_notebook(dcg_source: str, ndcg_source: str) -> set[str]:
    namespace: dict = {}
    exec(helper_source(EXERCISE), namespace)
    exec(dcg_source, namespace)
    exec(ndcg_source, namespace)
    lost = set()
    for group in EXERCISE.groups:
        try:
            exec(render_group(EXERCISE, group), dict(namespace))
        except Exception:  # an AssertionError of a check, or the student's own exception: the cell fails
            lost.add(group.grade_id)
    return lost


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_the_notebook_cells_and_the_grader_agree(name):
    dcg_source, ndcg_source = SOLUTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grader = scored(functions_of(dcg_source, ndcg_source), exercise=WITHOUT_RESEMBLANCE)
        assert _lost_in_the_notebook(dcg_source, ndcg_source) == {test.name for test in grader if not test.passed}


def test_zeros_and_constants_prove_nothing_in_the_notebook_either():
    namespace: dict = {}
    exec(helper_source(EXERCISE), namespace)
    exec("def dcg(rels, k):\n    return 0.0\n\n\ndef ndcg(rels, k):\n    return 0.0 if k == 1 else 5.0", namespace)
    check_same, check_value = namespace["check_same"], namespace["check_value"]
    check_not_vacuous = namespace["check_not_vacuous"]
    # the own ratio 0/0 is no evidence for ndcg's 0.0
    with pytest.raises(AssertionError, match="they should agree"):
        check_same(namespace["ndcg"], ([1, 2], 1), ([1, 2], 2), provenance="p", reference=1.0,
                   own=(namespace["dcg"], ([1, 2], 1), ([2, 1], 1)))
    # 0 == 2 * 0 holds, but says nothing where the definition's value is not 0
    seen = [check_same(namespace["dcg"], ([2, 2], 2), ([1, 1], 2), provenance="p", reference=3.26, factor=2.0)]
    with pytest.raises(AssertionError, match="say nothing"):
        check_not_vacuous(namespace["dcg"], seen)
    # a constant dcg divides its own values to 1: an ndcg that returns 1 matches that ratio, proving nothing
    constant, one = (lambda rels, k: 2.0), (lambda rels, k: 1.0)
    seen = [check_value(one, [1, 0, 2, 1, 0], 5, expected=0.776, provenance="p",
                        own=(constant, ([1, 0, 2, 1, 0], 5), ([2, 1, 1, 0, 0], 5)))]
    with pytest.raises(AssertionError, match="say nothing"):
        check_not_vacuous(one, seen)


def test_the_helper_cell_is_its_module_with_the_exercises_tolerances():
    source = helper_source(EXERCISE)
    tree = ast.parse(source)
    # it runs in the student's kernel: the standard library only, nothing of the grader's
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not any(isinstance(node, ast.ImportFrom) for node in ast.walk(tree))
    assert imported <= set(sys.stdlib_module_names)
    assert f"rel_tol={EXERCISE.rel_tol!r}, abs_tol={EXERCISE.abs_tol!r}" in source
    assert f"rel_tol={EXERCISE.noise_rel_tol!r}, abs_tol={EXERCISE.abs_tol!r}" in source
    assert f"range({MAX_ROUNDING})" in source
    assert not re.search(r"\b(REL_TOL|NOISE_REL_TOL|ABS_TOL|MAX_ROUNDING)\b", source)
    module_text = Path(helper_cell.__file__).read_text(encoding="utf-8")
    assert source.splitlines()[0] == module_text.partition(helper_cell.CELL_START)[2].splitlines()[0]


def test_another_tolerance_reaches_the_cell():
    looser = dataclasses.replace(EXERCISE, rel_tol=1e-4, abs_tol=1e-6)
    namespace: dict = {}
    exec(helper_source(looser), namespace)
    # 1 + 5e-5 is within the looser exercise's tolerance, not within the nDCG exercise's
    assert namespace["_close"](1.0, 1.0 + 5e-5)
    exec(helper_source(EXERCISE), namespace)
    assert not namespace["_close"](1.0, 1.0 + 5e-5)


def test_the_grader_applies_the_helper_cells_evidence_rule():
    # one implementation: the grader's scoring calls the cell's own check_not_vacuous
    assert scoring.check_not_vacuous is helper_cell.check_not_vacuous
