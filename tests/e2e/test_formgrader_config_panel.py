"""The formgrader's Manage Assignments page keeps the course's configuration to itself.

nbgrader 0.9.6's formgrader shows its whole configuration there by default (``FormgradeExtension.debug``):
the gradebook's URL (with a PostgreSQL password where a course put one in it, which every other message of
the kit shows as ``***``) and every preprocessor, and it logs "Formgrader config is not serializable" on each
visit. The course's ``nbgrader_config.py`` turns that off; checked against a real JupyterLab server.
"""

from __future__ import annotations

import urllib.request

import pytest

from e2e_support import jupyter_lab
from grading_run import generated_course

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_manage_assignments_shows_no_configuration_and_logs_no_warning(tmp_path):
    course = generated_course(tmp_path / "course")
    with jupyter_lab(course, tmp_path / "jupyter") as lab:
        request = urllib.request.Request(f"{lab.url}/formgrader/manage_assignments",
                                         headers={"Authorization": f"token {lab.token}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            page = response.read().decode()
        log = lab.log.read_text(encoding="utf-8", errors="replace")
    assert "Manage Assignments" in page  # the page itself, not a login form
    assert "Current configuration" not in page and "gradebook.db" not in page, page[-3000:]
    assert "not serializable" not in log, log[-3000:]
