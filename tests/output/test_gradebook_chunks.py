"""The gradebook step a chunk of students at a time: every student recorded and read back as the whole class.

The writer and the reader hold one chunk's rows (500 students) at a time, so that the grader's
memory does not grow with the class; here a chunk is 2 students, so 7 students cross chunk
borders everywhere. Read back through nbgrader's own ``Gradebook``.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.exercises.ndcg import EXERCISE
from autograder.gradebook import read_back as marks
from autograder.gradebook import rows as gradebook_rows
from autograder.gradebook.scores import record_scores

from records import batch_of, graded_result

STUDENTS = [f"s{i}" for i in range(7)]


def _scores(url: str) -> dict[str, float]:
    with warnings.catch_warnings(), Gradebook(url) as gradebook:
        warnings.simplefilter("ignore")
        return {student: gradebook.find_submission(EXERCISE.assignment, student).score for student in STUDENTS}


def test_chunks_record_and_read_back_every_student(tmp_path, monkeypatch):
    monkeypatch.setattr(gradebook_rows, "CHUNK", 2)
    monkeypatch.setattr(marks, "CHUNK", 2)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    groups = len(EXERCISE.graded_groups)
    batch = batch_of([graded_result(student, i % (groups + 1)) for i, student in enumerate(STUDENTS)])
    assert record_scores(url, EXERCISE, batch).count == len(STUDENTS)
    assert _scores(url) == pytest.approx({s.student_id: s.score for s in batch.students})

    # a re-record with one student changed in the middle of a chunk: only they change
    changed = batch_of([replace(s, tests=[replace(s.tests[0], points=0.25), *s.tests[1:]]) if s.student_id == "s3"
                        else s for s in batch.students])
    assert record_scores(url, EXERCISE, changed).count == len(STUDENTS)
    assert _scores(url) == pytest.approx({s.student_id: sum(t.points for t in s.tests) for s in changed.students})

    notebook = Path(EXERCISE.notebook).stem
    views = marks.read_gradebook_views(url, EXERCISE.assignment, notebook, [*STUDENTS, "nobody"])
    assert sorted(views) == STUDENTS  # each once, across chunks; one without a submission left out
    assert {student: view.manual.score for student, view in views.items()} == pytest.approx(_scores(url))
