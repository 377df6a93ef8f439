"""The LMS plugins in-process, on an nbgrader gradebook: what they warn about and what they refuse.

The files themselves, written by the real ``nbgrader export``, are read back in test_lms_export.py.
"""

from __future__ import annotations

import csv
import logging

import pytest
from nbgrader.api import Gradebook

from autograder.course.handback.lms_export import CanvasExportPlugin, ExportError, MoodleExportPlugin, read_final_scores

pytestmark = pytest.mark.filterwarnings("ignore:Object of type:sqlalchemy.exc.SAWarning")


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory):
    with Gradebook(f"sqlite:///{tmp_path_factory.mktemp('lms') / 'gradebook.db'}") as book:
        book.add_assignment("ndcg")
        book.add_notebook("ndcg", "ndcg")
        book.add_grade_cell("test_dcg", "ndcg", "ndcg", max_score=4, cell_type="code")
        book.add_grade_cell("essay", "ndcg", "ndcg", max_score=6, cell_type="markdown")
        for student in ("ann", "-rm"):
            book.add_student(student)
            book.add_submission("ndcg", student)
            book.find_grade("test_dcg", "ndcg", "ndcg", student).auto_score = 4
            book.find_grade("test_dcg", "ndcg", "ndcg", student).needs_manual_grade = False
        # ann's essay is graded by hand; -rm's essay still waits in formgrader
        book.find_grade("essay", "ndcg", "ndcg", "ann").manual_score = 5
        book.find_grade("essay", "ndcg", "ndcg", "ann").needs_manual_grade = False
        book.db.commit()
        yield book


def test_final_scores_come_from_the_gradebook(gradebook):
    table = read_final_scores(gradebook)
    assert [a.max_score for a in table.assignments] == [4 + 6]
    scores = {s.student_id: s.scores[0] for s in table.students}
    assert scores["ann"].final == pytest.approx(4 + 5)
    assert scores["-rm"].final == pytest.approx(4) and scores["-rm"].needs_manual_grade


def test_unknown_assignment_or_student_is_refused_by_name(gradebook):
    with pytest.raises(ExportError, match="no assignment 'ndgc' in the gradebook \\(it has: ndcg\\)"):
        read_final_scores(gradebook, assignments=["ndgc"])
    with pytest.raises(ExportError, match="no student 'bo'"):
        read_final_scores(gradebook, students=["bo"])


def test_export_warns_about_ungraded_work_and_ids_that_cannot_match(gradebook, tmp_path, caplog):
    target = tmp_path / "canvas.csv"
    plugin = CanvasExportPlugin(to=str(target))
    plugin.log.propagate = True
    with caplog.at_level(logging.WARNING):
        plugin.export(gradebook)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("'-rm: ndcg still needs manual grading" in w for w in warnings), warnings
    assert any("'-rm: the identifier '-rm' was written as \"'-rm\"" in w and "will not match" in w
               for w in warnings), warnings
    with target.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert [row[3] for row in rows[2:]] == ["'-rm", "ann"]


def test_a_grade_item_for_an_assignment_not_exported_is_refused(gradebook, tmp_path):
    plugin = MoodleExportPlugin(to=str(tmp_path / "moodle.csv"), grade_items={"ndgc": "nDCG"})
    with pytest.raises(SystemExit) as stop:
        plugin.export(gradebook)
    assert stop.value.code == 1 and not (tmp_path / "moodle.csv").exists()
