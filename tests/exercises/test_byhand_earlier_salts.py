"""A salt changed after students handed in (issue 33.8): a notebook fetched before is marked against its list.

The release keeps the replaced salt as one of its ``EARLIER_SALTS``; the grader reads the handed-in
notebook's derivation cell as data and, where its salt is one of them, marks the list that notebook showed.
Any other salt there (an edit, a made-up one) changes nothing: the release's own salt marks the answers.
"""

from __future__ import annotations

import nbformat
import pytest

import ndcg_ref
from autograder.exercises.ndcg.byhand.answered_part import mark_answers
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, DERIVATION_ID, derivation_source, earlier_salts
from autograder.exercises.ndcg.byhand.derive import CUTOFF
from autograder.exercises.ndcg.byhand.marking import STEPS
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE, published_variant, sync_by_hand
from autograder.exercises.ndcg.byhand.pool import list_for

from conftest import ROOT

POOL = POOL_FILE.read_text(encoding="ascii").strip()
STUDENT = "ada"
OLD, NEW = "salt-before", "salt-after"


def _answers(salt: str) -> str:
    """The right answers for ``STUDENT``'s list under ``salt``, as a student writes them (from ndcg_ref)."""
    rels = [float(g) for g in list_for(STUDENT, salt, POOL)]
    ideal = sorted(rels, reverse=True)
    return (f"IDEAL_RANKING = {[int(g) for g in ideal]}\nDCG_AT_K = {ndcg_ref.dcg(rels, CUTOFF):.4f}\n"
            f"IDCG_AT_K = {ndcg_ref.dcg(ideal, CUTOFF):.4f}\nNDCG_AT_K = {ndcg_ref.ndcg(rels, CUTOFF):.4f}\n")


def _score(handed_in_salt: str, answers_for: str, earlier: tuple[str, ...] = (OLD,)) -> float:
    release = {DERIVATION_ID: derivation_source(NEW, POOL, earlier)}
    cells = {DERIVATION_ID: derivation_source(handed_in_salt, POOL), ANSWERS_ID: _answers(answers_for)}
    return mark_answers(STUDENT, cells, release).score


def test_the_lists_differ_so_the_test_can_tell_them_apart():
    assert list_for(STUDENT, OLD, POOL) != list_for(STUDENT, NEW, POOL)
    assert _score(NEW, OLD) < _score(NEW, NEW)


def test_a_notebook_of_the_earlier_release_is_marked_against_the_list_it_showed():
    full = _score(NEW, NEW)
    assert full == sum(step.points for step in STEPS)  # the answers are right: every step
    assert _score(OLD, OLD) == full  # handed in before the change: its own list, full marks
    result = mark_answers(STUDENT, {DERIVATION_ID: derivation_source(OLD, POOL), ANSWERS_ID: _answers(OLD)},
                          {DERIVATION_ID: derivation_source(NEW, POOL, (OLD,))})
    assert result.tests[0].message.startswith("Your notebook came from a release before")


@pytest.mark.parametrize("claimed", ["made-up-salt", NEW])
def test_any_other_salt_in_the_handed_in_cell_is_marked_against_the_release(claimed):
    assert _score(claimed, claimed) == (_score(NEW, NEW) if claimed == NEW else _score(NEW, "made-up-salt"))
    assert _score(OLD, OLD, earlier=()) == _score(NEW, OLD)  # without EARLIER_SALTS the old list counts for nothing


def test_a_forced_salt_change_keeps_the_replaced_one_and_a_new_offering_none(tmp_path):
    notebook = tmp_path / "ndcg.ipynb"
    notebook.write_bytes((ROOT / "source" / "ndcg" / "ndcg.ipynb").read_bytes())
    first, _ = published_variant(nbformat.read(notebook, as_version=4))
    sync_by_hand(notebook, "second", keep_earlier=True)
    sync_by_hand(notebook, "third", keep_earlier=True)
    assert _kept(notebook) == (first, "second")
    sync_by_hand(notebook)  # a plain sync keeps them
    assert _kept(notebook) == (first, "second")
    sync_by_hand(notebook, "fourth")  # a new offering's salt: none kept
    assert _kept(notebook) == ()


def _kept(path) -> tuple[str, ...]:
    cells = nbformat.read(path, as_version=4).cells
    return earlier_salts(next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == DERIVATION_ID))
