"""A re-run of ``python -m autograder grade`` touches only what changed: files and gradebook rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from grading_run import add_student, grade, new_course, results

pytestmark = pytest.mark.slow  # end to end: starts the grader and the sandbox

STUDENTS = ("alice", "bob", "carol")


def _outputs(course: Path) -> dict[Path, int]:
    """Every output file of the run (the resume cache aside) with its mtime in nanoseconds."""
    return {path.relative_to(course): path.stat().st_mtime_ns
            for folder in ("autograded", "feedback", "graded") for path in (course / folder).rglob("*")
            if path.is_file() and ".state" not in path.parts}


def _whose(path: Path) -> str | None:
    return next((student for student in STUDENTS if student in path.parts or path.stem == student), None)


def test_a_rerun_rewrites_only_the_changed_students_outputs_and_gradebook_rows(tmp_path):
    course = new_course(tmp_path / "course")
    for student in STUDENTS:
        add_student(course, student)
    first = grade(course)
    assert first.returncode == 0, first.stderr[-2000:]
    before = _outputs(course)
    assert {_whose(path) for path in before} >= set(STUDENTS), "each student has files of their own"
    # the gradebook's writes, logged by the database itself
    with sqlite3.connect(course / "gradebook.db") as db:
        db.executescript("""
            CREATE TABLE test_log (grade_id TEXT);
            CREATE TRIGGER test_grade_updated AFTER UPDATE ON grade BEGIN INSERT INTO test_log VALUES (NEW.id); END;
            CREATE TRIGGER test_grade_added AFTER INSERT ON grade BEGIN INSERT INTO test_log VALUES (NEW.id); END;
        """)

    again = grade(course)  # nothing changed: every result reused
    assert again.returncode == 0, again.stderr[-2000:]
    assert _outputs(course) == before, "an unchanged re-run rewrote files"

    add_student(course, "alice", dcg="def dcg(rels, k):\n    return 0.0")
    changed = grade(course)
    assert changed.returncode == 0, changed.stderr[-2000:]
    assert results(course)["alice"]["score"] < results(course)["bob"]["score"]
    after = _outputs(course)
    rewritten = {path for path, mtime in before.items() if after.get(path) != mtime}
    assert {_whose(path) for path in rewritten} <= {"alice", None}, sorted(map(str, rewritten))
    alice = {path for path in before if _whose(path) == "alice"}
    assert {path for path in alice if path.suffix in (".ipynb", ".html")} <= rewritten
    with sqlite3.connect(course / "gradebook.db") as db:
        written = {row[0] for row in db.execute(
            "SELECT DISTINCT sa.student_id FROM test_log JOIN grade g ON g.id = test_log.grade_id "
            "JOIN submitted_notebook sn ON sn.id = g.notebook_id JOIN submitted_assignment sa ON sa.id = sn.assignment_id")}
    assert written == {"alice"}
