"""The course's late-work settings read as nbgrader reads them; lateness in words; its JSON round trip."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from nbgrader.preprocessors import AssignLatePenalties
from traitlets.config import Config

from autograder.course_config import course_config
from autograder.errors import CourseError
from autograder.gradebook.late_penalties import CourseLatePenalties, extended_due, late_step
from autograder.grading import Lateness, Status, StudentResult
from autograder.output.late_words import duration, lateness_text

from grading_run import ROOT, new_course

DUE = datetime(2026, 12, 1, 17, 0, 0)


def test_the_course_config_runs_the_course_step_with_nbgraders_plugin():
    config = course_config(ROOT)
    assert late_step(config) is CourseLatePenalties
    step = CourseLatePenalties(config=config)
    assert step.plugin_class.__name__ == "LateSubmissionPlugin"  # nbgrader's own plugin, unless configured
    assert step.plugin_class(parent=step).penalty_method == "none"  # nbgrader's default, written out


def test_nbgraders_default_list_has_its_own_step():
    assert late_step(Config()) is AssignLatePenalties
    assert late_step(course_config(None)) is AssignLatePenalties


def test_an_extension_is_a_due_date_in_nbgraders_format():
    granted = {"ndcg": {"ada": "2026-12-08 12:00:00 UTC", "bo": "2026-12-08 13:00:00 Europe/Berlin"}}
    assert extended_due(granted, "ndcg", "ada") == DUE + timedelta(days=6, hours=19)
    assert extended_due(granted, "ndcg", "bo") == datetime(2026, 12, 8, 12, 0, 0)  # CET is UTC+1 in December
    assert extended_due(granted, "ndcg", "cy") is None and extended_due(granted, "cg", "ada") is None


@pytest.mark.parametrize("text", ["next monday", "2026-12-08 12:00:00 :../etc/passwd", "2026-13-45"])
def test_a_bad_extension_is_one_line_naming_it(text):
    with pytest.raises(CourseError) as error:
        extended_due({"ndcg": {"ada": text}}, "ndcg", "ada")
    message = str(error.value)
    assert "\n" not in message and "c.CourseLatePenalties.extensions['ndcg']['ada']" in message


def test_a_config_that_does_not_load_is_one_line(tmp_path):
    course = new_course(tmp_path / "course")
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.CourseLatePenalties.extensions = {\n")
    with pytest.raises(CourseError, match=r"cannot load .*nbgrader_config\.py: SyntaxError"):
        course_config(course)


def test_lateness_in_words():
    assert lateness_text(None) == ""
    assert lateness_text(Lateness(DUE, None, DUE - timedelta(minutes=1), 0.0, 0.0)) == "on time"
    late = Lateness(DUE, None, DUE + timedelta(seconds=29), 29.0, 10.0)
    assert lateness_text(late) == "late 29 s, penalty 10"
    assert lateness_text(Lateness(DUE, None, DUE + timedelta(hours=3), 3 * 3600.0, 0.0)) == "late 3 h, no penalty"
    assert "unknown" in lateness_text(Lateness(DUE, None, None, None, 0.0))
    assert duration(86400 + 59) == "1 d" and duration(0) == "0 s" and duration(61) == "1 min 1 s"


def test_lateness_round_trips_through_json_and_takes_the_penalty_off():
    late = Lateness(DUE, DUE + timedelta(days=2), DUE + timedelta(days=2, seconds=5), 5.0, 4.0)
    student = StudentResult(student_id="ada", status=Status.GRADED, score=7.0, max_score=10.0, late=late)
    data = student.to_json()
    assert data["final_score"] == pytest.approx(7.0 - 4.0)
    assert StudentResult.from_json(data).late == late
    student.late = Lateness(DUE, None, DUE, 0.0, 9.0)  # a penalty above the score never goes below 0
    assert student.final_score == 0.0
    assert StudentResult.from_json(StudentResult(student_id="bo", status=Status.MISSING, score=0, max_score=10).to_json()).late is None
