"""One place for the grading settings: ``c.SandboxedExecute.*`` in nbgrader_config.py reaches ``make grade`` too.

The batch command read its own flags and nbgrader autograde the course's traitlets, so
``c.SandboxedExecute.cpu_seconds = 1200`` never reached ``make grade``. Now the command reads the
course's settings, a flag overrides one for a run, and a setting of the wrong kind is refused in one
line naming it as the tutor wrote it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading_run import add_student, grade, new_course, results

pytestmark = [pytest.mark.slow]


def _course(tmp_path: Path, *settings: str) -> Path:
    root = new_course(tmp_path / "course")
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\n" + "\n".join(settings) + "\n")
    notebook = add_student(root, "ada")
    for number in range(5):  # five files beside the notebook
        (notebook.parent / f"data-{number}.txt").write_text("x")
    return root


def test_the_courses_setting_reaches_grade_and_a_flag_overrides_it(tmp_path):
    root = _course(tmp_path, "c.SandboxedExecute.max_folder_files = 3")
    refused = grade(root, "--gradebook", "none")
    assert refused.returncode == 0, refused.stderr[-2000:]
    assert results(root)["ada"]["status"] == "error" and "3" in results(root)["ada"]["message"]
    overridden = grade(root, "--gradebook", "none", "--force", "--max-folder-files", "10")
    assert overridden.returncode == 0, overridden.stderr[-2000:]
    assert results(root)["ada"]["status"] == "graded"


@pytest.mark.parametrize("setting, named", [
    ("c.SandboxedExecute.cpu_seconds = 0", "c.SandboxedExecute.cpu_seconds"),
    ("c.SandboxedExecute.timeout = 'soon'", "timeout"),
])
def test_a_setting_of_the_wrong_kind_is_refused_in_one_line(tmp_path, setting, named):
    root = _course(tmp_path, setting)
    refused = grade(root, "--gradebook", "none")
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "Traceback" not in refused.stderr, refused.stderr[-2000:]
    assert not (root / "graded").exists()
