"""The leak detector (``leaks.py``) finds a hidden list in any spelling, and nothing in honest text.

The hostile suite and the output tests use it on every page and file the grader writes: if it
could be fooled by formatting, those tests could pass while a leak is there.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.exercises.ndcg import EXERCISE

from grading_run import RELEASE
from leaks import hidden_sequences, leaked, number_runs
from strategies import spelled_sequences

SECRETS = hidden_sequences()


def test_there_are_hidden_lists_to_look_for() -> None:
    # most hidden lists are evidence: the ones inside a visible call or a probe are few
    hidden = {case.call.args[0] for group in EXERCISE.groups if not group.visible for case in group.cases}
    assert len(SECRETS) > len(hidden) // 2


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_spelling_of_a_hidden_list_is_found(data: st.DataObject) -> None:
    secret = data.draw(st.sampled_from(SECRETS))
    text = data.draw(spelled_sequences(secret))
    assert secret in leaked([text], SECRETS), text


def test_one_number_a_line_and_numpy_arrays_are_found() -> None:
    secret = max(SECRETS, key=len)
    assert leaked(["\n".join(str(v) for v in secret)], [secret]) == [secret]
    numpy_repr = "array([" + ", ".join(f"{v:.1f}" for v in secret) + "])"
    assert leaked([numpy_repr], [secret]) == [secret]


def test_numbers_with_words_between_them_are_not_a_sequence() -> None:
    assert number_runs("k=3 for 0 documents and 1, 2 more") == [(3.0,), (0.0,), (1.0, 2.0)]
    assert number_runs("sha256 0123456789abcdef") == [(123456789.0,)]
    assert number_runs("dcg([1, 0, 2], 3) == 2.5") == [(1.0, 0.0, 2.0), (3.0,), (2.5,)]


def test_the_released_notebook_and_the_definition_show_no_hidden_list() -> None:
    assert leaked([RELEASE.read_text(encoding="utf-8"), EXERCISE.definition_html]) == []
