"""The course's gradebook on a real PostgreSQL server (a throw-away Debian cluster, :mod:`pg_cluster`).

The kit records into the gradebook nbgrader's configuration names, under the course's id, and
``nbgrader export`` and the formgrader's API read the same scores; graders creating the schema at
once all succeed; a grader killed while recording leaves nobody at a false 0 (SQLite as well).
"""

from __future__ import annotations

import csv
import multiprocessing
import os
import shutil
import signal
import time
from pathlib import Path

import nbformat
import pytest
import sqlalchemy
from byhand_answers import answer_by_hand
from nbgrader.plugins.export import CsvExportPlugin

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.gradebook.database import open_gradebook
from autograder.gradebook.scores import record_scores
from autograder.pipeline import GradeOptions, grade_course

from conftest import ROOT, solution_code
from pg_cluster import server_bin, start_cluster
from records import batch_of, graded_result

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(server_bin() is None, reason="PostgreSQL's server is not installed")]
COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's


@pytest.fixture(scope="module")
def cluster():
    server = start_cluster()
    yield server
    server.stop()


def _export(url: str, path: Path) -> list[dict[str, str]]:
    """nbgrader's own CSV export of the gradebook (what `nbgrader export` writes)."""
    with open_gradebook(url) as gradebook:
        CsvExportPlugin(to=str(path)).export(gradebook)
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_kit_records_in_the_gradebook_nbgraders_configuration_names(cluster, tmp_path):
    url = cluster.create_database("course_e2e")
    root = tmp_path / "course"
    root.mkdir()
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    (root / "nbgrader_config.py").write_text(config + f"\nc.CourseDirectory.db_url = {url!r}\n", encoding="utf-8")
    shutil.copytree(ROOT / "source", root / "source")
    run_nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")  # nbgrader itself, on PostgreSQL
    release = nbformat.read(root / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    source = nbformat.read(root / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    for student, notebook in {"ada": answer_by_hand(fill_solutions(release, solution_code(source)), "ada"), "bob": release}.items():
        target = root / "submitted" / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)

    run = grade_course(GradeOptions(EXERCISE, submitted=root / "submitted", out=root / "graded", workers=2,
                                    progress=False, course_root=root))  # no --gradebook: the course's

    assert not run.gradebook_failed, run.gradebook_note
    assert not (root / "gradebook.db").exists()  # nothing went to a SQLite file beside the course
    graded = {s.student_id: s.score for s in run.batch.students}
    assert graded["ada"] == pytest.approx(EXERCISE.max_score) and graded["bob"] < EXERCISE.max_score
    # nbgrader's own export, as the command runs it with the course's config
    run_nbgrader(root, "export", "--to", str(tmp_path / "grades.csv"))
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as handle:
        exported = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    assert exported == pytest.approx(graded)
    # the formgrader's API (in process, configured from the course's file as the server is)
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    api = NbGraderAPI(coursedir=CourseDirectory(config=loaded), config=loaded)
    shown = {s["student"]: s["score"] for s in api.get_submissions(ASSIGNMENT) if s["autograded"]}
    assert shown == pytest.approx(graded)
    # the assignment belongs to the course's row
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as connection:
        owner = connection.execute(sqlalchemy.text("SELECT course_id FROM assignment WHERE name = :a"),
                                   {"a": ASSIGNMENT}).scalar_one()
    engine.dispose()
    assert owner == COURSE_ID


def _record(url: str, first: int, count: int) -> None:
    record_scores(url, EXERCISE, batch_of([graded_result(f"s{i:05d}", len(EXERCISE.graded_groups))
                                         for i in range(first, first + count)]), course_id=COURSE_ID)


@pytest.mark.parametrize("attempt", range(2))
def test_graders_creating_the_schema_at_once_all_record(cluster, tmp_path, attempt):
    url = cluster.create_database(f"schema_race_{attempt}")
    context = multiprocessing.get_context("spawn")  # fresh interpreters, as separate graders are
    graders = [context.Process(target=_record, args=(url, 100 * k, 20)) for k in range(4)]
    for grader in graders:
        grader.start()
    for grader in graders:
        grader.join(timeout=240)
    assert [grader.exitcode for grader in graders] == [0, 0, 0, 0]
    rows = _export(url, tmp_path / "export.csv")
    assert len(rows) == 80 and all(float(row["raw_score"]) == pytest.approx(EXERCISE.max_score) for row in rows)


def _count(url: str) -> int:
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(sqlalchemy.text("SELECT count(*) FROM submitted_assignment")).scalar_one())
    except sqlalchemy.exc.DatabaseError:  # not created yet
        return 0
    finally:
        engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_grader_killed_while_recording_leaves_nobody_at_a_false_zero(cluster, tmp_path, database):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}" if database == "sqlite" else cluster.create_database("killed")
    with open_gradebook(url, COURSE_ID):
        pass  # the schema first: the kill must land while students are written
    students = 20_000
    grader = multiprocessing.get_context("fork").Process(target=_record, args=(url, 0, students))
    grader.start()
    deadline = time.monotonic() + 120
    while _count(url) == 0 and grader.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(grader.pid, signal.SIGKILL)
    grader.join()

    recorded = _count(url)
    assert 0 < recorded < students, "the kill must land while recording (make the class larger)"
    rows = _export(url, tmp_path / "export.csv")
    # every student passed everything: a 0 would be a submission recorded without its scores
    assert len(rows) == recorded
    assert all(float(row["raw_score"]) == pytest.approx(EXERCISE.max_score) for row in rows)
