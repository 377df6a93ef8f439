"""Paper exams: a sheet per student with their own list, the tutors' key with every step and mistake."""

from __future__ import annotations

import html
import shutil

import nbformat
import pytest

import ndcg_ref
from autograder.byhand.exam import read_roster, write_variants
from autograder.byhand.salt import release_variant
from autograder.errors import CourseError, UsageError
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant
from autograder.exercises.ndcg.byhand.steps import HAND_MISTAKES

from conftest import ROOT
from grading_run import whole_course


def test_each_student_gets_their_own_list_and_the_key_every_value(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name\nada,Ada\n<img src=x onerror=alert(1)>,Mallory\n", encoding="utf-8")
    summary = write_variants(ROOT, NDCG, roster, tmp_path / "paper")
    assert summary.startswith("2 sheets")
    sheets = (tmp_path / "paper" / "sheets.html").read_text(encoding="utf-8")
    key = (tmp_path / "paper" / "key.html").read_text(encoding="utf-8")
    assert "<img src=x" not in sheets + key and html.escape("<img src=x onerror=alert(1)>") in sheets
    salt, pool = release_variant(ROOT, NDCG)
    ada = student_list("ada", salt, pool)
    assert "".join(f"<td>{rel}</td>" for rel in ada) in sheets.replace("\n", "")
    ada_key = key.split(f"ada: {list(ada)}, k = {CUTOFF}")[1].split("<h2")[0]
    for value in (ndcg_ref.dcg(ada, CUTOFF), ndcg_ref.idcg(ada, CUTOFF), ndcg_ref.ndcg(ada, CUTOFF)):
        assert f"{value:.2f}" in ada_key
    assert all(m.mistake in ada_key and m.name in html.unescape(ada_key) for m in HAND_MISTAKES)
    assert salt in key


@pytest.mark.parametrize("text, problem", [("", "names no student"), ("student_id\nada\nada\n", "more than once")])
def test_a_bad_roster_is_one_line(tmp_path, text, problem):
    roster = tmp_path / "roster.csv"
    roster.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=problem):
        read_roster(roster)


def test_choose_salt_separates_the_roster_and_writes_the_source(tmp_path):
    course = whole_course(tmp_path / "course")
    roster = tmp_path / "roster.csv"
    roster.write_text("\n".join(f"s{n:03d}" for n in range(200)), encoding="utf-8")
    before, _ = published_variant(nbformat.read(course / "source" / "ndcg" / "ndcg.ipynb", as_version=4))
    summary = write_variants(course, NDCG, roster, tmp_path / "paper", choose=True)
    salt, pool = published_variant(nbformat.read(course / "source" / "ndcg" / "ndcg.ipynb", as_version=4))
    assert f"salt {salt} written" in summary and salt != before
    assert len({student_list(f"s{n:03d}", salt, pool) for n in range(200)}) == 200
    # drawn from the offering's id, not a fixed base: another offering's roster never gets the same lists
    assert salt.startswith("ir-ranking-evaluation-byhand-") and salt != "ir-ranking-evaluation-byhand-0"


@pytest.mark.parametrize("header", ["id,first_name,last_name,email", "student_id,email", None])
def test_the_roster_nbgrader_imports_is_read_as_it_is(tmp_path, header):
    # `nbgrader db student import` reads a CSV whose ids are in the column `id`: the same file serves here
    roster = tmp_path / "roster.csv"
    rows = [("alice", "Alice", "Archer", "a@example.org"), ("bob", "Bob", "Baker", "b@example.org")]
    lines = [header] if header else []
    lines += [",".join(row) if header != "student_id,email" else f"{row[0]},{row[3]}" for row in rows]
    roster.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_roster(roster) == ["alice", "bob"]


def test_choose_salt_is_refused_once_students_have_handed_in_unless_forced(tmp_path):
    # issue 33.8: a new salt gives everyone another list; answers handed in for the old one would be marked wrong
    course = whole_course(tmp_path / "course")
    handed_in = course / "submitted" / "alice" / "ndcg"
    handed_in.mkdir(parents=True)
    shutil.copy(course / "release" / "ndcg" / "ndcg.ipynb", handed_in)
    roster = tmp_path / "roster.csv"
    roster.write_text("alice\nbob\n", encoding="utf-8")
    source = course / "source" / "ndcg" / "ndcg.ipynb"
    before = source.read_bytes()
    with pytest.raises(CourseError, match=r"already has submissions \(1 in submitted/\).*--force"):
        write_variants(course, NDCG, roster, tmp_path / "paper", choose=True)
    assert source.read_bytes() == before  # nothing written
    summary = write_variants(course, NDCG, roster, tmp_path / "paper", choose=True, force=True)
    salt, _ = published_variant(nbformat.read(source, as_version=4))
    assert f"the salt {salt} already gives every student a list of their own: kept" in summary  # nothing to change
