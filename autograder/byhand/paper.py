"""Paper exams: one printable sheet per student and the tutors' key, from typed records.

The course layer (:mod:`..byhand.exam`) derives each student's list with the same generator as
the notebook and fills these records; this module only writes the pages (Jinja2, autoescaping on),
so a student id with markup in it prints as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomic
from ..output.templating import render  # the pages' templates: output/templates/paper_*.html.j2


@dataclass(frozen=True)
class StepValues:
    """One way of working a list out: its name and the four values it writes down."""

    #: "right", or the mistake's name.
    name: str
    #: The catalogue ID of the mistake ("" for the right calculation).
    mistake: str
    ideal: tuple[float, ...]
    dcg: float
    idcg: float
    ndcg: float


@dataclass(frozen=True)
class Sheet:
    """One student's exam sheet and key entry."""

    student_id: str
    rels: tuple[int, ...]
    k: int
    #: The right values first, then each common mistake's.
    ways: tuple[StepValues, ...]


def write_paper(sheets: list[Sheet], out: Path, *, salt: str, tolerance: float, wording: str) -> tuple[Path, Path]:
    """Write ``sheets.html`` (one page per student) and ``key.html`` (the tutors' key) into ``out``.

    Parameters
    ----------
    sheets : list of Sheet
        The students, in the roster's order.
    out : Path
        The folder to write to (created if missing).
    salt : str
        The salt the lists come from, printed on the key so that it can be re-derived.
    tolerance : float
        How close an answer must be, printed on the sheets and the key.
    wording : str
        The exam's task text (plain text; escaped).

    Returns
    -------
    tuple of Path
        The sheets' page and the key's page.
    """
    out.mkdir(parents=True, exist_ok=True)
    sheets_page, key_page = out / "sheets.html", out / "key.html"
    write_atomic(sheets_page, render("paper_sheets.html.j2", sheets=sheets, tolerance=tolerance, wording=wording))
    write_atomic(key_page, render("paper_key.html.j2", sheets=sheets, tolerance=tolerance, salt=salt))
    return sheets_page, key_page
