"""An exercise's cases as an author writes them: the lecture's lists as Python lists.

A ``Call`` is a dictionary key (the reference values are cached per call), so its list arguments are
kept as tuples; an author who writes lists gets the same call, not a ``TypeError`` at ``make sync``.
"""

from __future__ import annotations

from autograder.grading import Call, Case, Diagnosis, Exercise, TestGroup


def _precision(call: Call) -> float:
    rels, k = call.args
    return sum(1 for rel in rels[:k] if rel > 0) / k  # P@k, written out: the relevant share of the top k


def test_lists_in_a_call_are_kept_as_tuples_and_the_call_is_a_key():
    written = Call("p", ([1, 0, [2, 3]], 2))
    assert written.args == ((1, 0, (2, 3)), 2)
    assert written == Call("p", ((1, 0, (2, 3)), 2)) and len({written, Call("p", ((1, 0, (2, 3)), 2))}) == 1
    assert written.text == "p([1, 0, [2, 3]], 2)"  # shown to students as they write it


def test_an_exercise_written_with_lists_gives_each_case_its_reference_value():
    cases = (Case(Call("p", ([1, 0, 1], 2)), "half the top 2"), Case(Call("p", ([0, 0], 2)), "none relevant"))
    exercise = Exercise(
        assignment="p", notebook="p.ipynb", title="P@k", groups=(TestGroup("test_p", "p", "P@k", 1, True, cases),),
        reference=_precision, probes=(Call("p", [[1, 1], 1]),), diagnose=lambda records: Diagnosis(), catalogue=(),
        definition_html="<p>P@k</p>",
    )
    assert [exercise.expected(case) for case in cases] == [0.5, 0.0]
    assert exercise.probes[0].args == ((1, 1), 1)
