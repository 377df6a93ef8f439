"""Fresh hidden instances are fair: every draw costs each mistake exactly the groups it costs.

A hidden input can leak (the kernel's page cache outlives every sandbox), so each hidden group
also holds instances drawn per submission from templates (:mod:`autograder.exercises.ndcg.fresh`).
The points table in docs/misconceptions.md must stay true on every draw: each template is drawn
many times and every catalogue mutant, corpus implementation and correct style must pass each
instance unless it loses the group anyway; and whole draws, scored with the evidence rule, must
cost each of them exactly the declared groups.
"""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.catalogue import CATALOGUE
from autograder.grading import draw_label, draw_seed, drawn_groups

from corpus import CORPUS
from solutions import CORRECT_SOLUTIONS, functions_of, instance_passes, lost_groups

#: Every solution the suite knows, with the groups it loses on the fixed cases.
SOLUTIONS: dict[str, tuple[str, str, frozenset[str]]] = {
    **{f"{item.id}: {m.name}": (m.dcg, m.ndcg, frozenset(item.groups_lost(m))) for item in CATALOGUE for m in item.mutants},
    **{f"corpus: {i.name}": (i.dcg, i.ndcg, i.loses) for i in CORPUS},
    **{f"correct: {name}": (d, n, frozenset()) for name, (d, n) in CORRECT_SOLUTIONS.items()},
}
TEMPLATES = [(group, number, template) for group in EXERCISE.groups for number, template in enumerate(group.templates)]
INSTANCES_PER_TEMPLATE = 150


def test_every_hidden_group_has_templates_and_no_visible_group_has():
    for group in EXERCISE.groups:
        assert bool(group.templates) == (not group.visible), group.grade_id


@pytest.mark.parametrize(
    ("group", "number", "template"), TEMPLATES, ids=[f"{g.grade_id}-{n}" for g, n, _ in TEMPLATES]
)
def test_each_instance_of_a_template_is_passed_by_everyone_who_keeps_its_group(group, number, template):
    rng = random.Random(f"{group.grade_id}/{number}")
    instances = [template.instance(rng) for _ in range(INSTANCES_PER_TEMPLATE)]
    # some edge cases have few instances (nothing relevant: lists of zeros); none is a fixed input
    assert len({case.call for case in instances}) >= 20, "a template that barely varies"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (dcg_source, ndcg_source, loses) in SOLUTIONS.items():
            if group.grade_id in loses:
                continue
            functions = functions_of(dcg_source, ndcg_source)
            for case in instances:
                assert instance_passes(functions, case), (name, case.call.text, case.companion and case.companion.text)


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32))
def test_every_draw_costs_each_solution_exactly_its_declared_groups(seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (dcg_source, ndcg_source, loses) in SOLUTIONS.items():
            assert lost_groups(dcg_source, ndcg_source, seed) == loses, name


def test_the_same_submission_draws_the_same_instances_and_another_draws_others():
    cells = ["import math", "def dcg(rels, k):\n    return 0.0"]
    seed = draw_seed(b"course secret", "alice", cells)
    assert drawn_groups(EXERCISE, seed) == drawn_groups(EXERCISE, draw_seed(b"course secret", "alice", list(cells)))
    others = [
        draw_seed(b"another course", "alice", cells),
        draw_seed(b"course secret", "bob", cells),
        draw_seed(b"course secret", "alice", [*cells, "# one more line"]),
    ]
    fresh = [c for g in drawn_groups(EXERCISE, seed) for c in g.cases if c.drawn]
    for other in others:
        assert draw_label(other) != draw_label(seed)
        theirs = [c for g in drawn_groups(EXERCISE, other) for c in g.cases if c.drawn]
        assert [c.provenance for c in theirs] == [c.provenance for c in fresh]
        assert sum(a.call != b.call for a, b in zip(fresh, theirs, strict=True)) > len(fresh) // 2


def test_a_student_id_that_is_not_utf8_still_draws():
    name = b"j\xf6rg".decode("utf-8", "surrogateescape")  # what unzip leaves from an old archive
    assert draw_seed(b"k", name, []) != draw_seed(b"k", "j\u00f6rg", [])


def test_drawn_cases_keep_the_fixed_cases_first_and_are_marked():
    groups = drawn_groups(EXERCISE, b"\0" * 32)
    for fixed, drawn in zip(EXERCISE.groups, groups, strict=True):
        assert drawn.cases[: len(fixed.cases)] == fixed.cases
        assert all(case.drawn for case in drawn.cases[len(fixed.cases):])
        assert len(drawn.cases) == len(fixed.cases) + len(fixed.templates)
