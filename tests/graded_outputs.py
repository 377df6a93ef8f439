"""Shared by the final-score tests: every score a grading run's outputs show, read back as a tutor sees them.

Each reader parses one output of ``python -m autograder grade`` (``--out``, default ``graded/``) as
written: ``results.json``, ``grades.csv``, the terminal table (from ``results.json``'s records), the
report's roster, its "who needs a look" table, its statistics and its histogram's text, each
student's page. The tests compare them with the final scores they expect, so that no output can
show another number.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

from bs4 import BeautifulSoup

from autograder.grading import BatchResult, StudentResult
from autograder.output.results import score_table

SCORED = ("graded", "timeout")


def soup(path: Path) -> BeautifulSoup:
    """The page at ``path``, parsed."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def students(out: Path) -> list[dict]:
    """``results.json``'s students."""
    return json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]


def roster_scores(out: Path) -> dict[str, float]:
    """The report's roster: each student's score ("7.5 / 15")."""
    rows = soup(out / "report.html").find(id="roster").find_all("tr")[1:]
    return {row.find("a").get_text(): float(row.find_all("td")[2].get_text().split("/")[0]) for row in rows}


def table_rows(table: str) -> dict[str, str]:
    """The rows of a terminal table (:func:`score_table`, or a run's output holding it) by student: a row's
    further lines (indented, the notes that did not fit) joined to it by a space, as one line."""
    rows: dict[str, str] = {}
    last = ""
    for line in table.splitlines()[1:]:
        if line[:1].isspace():
            if last:  # else the heading's second line (a table with long ids)
                rows[last] += " " + line.strip()
        elif line.strip():
            last = line.split()[0]
            rows[last] = line
        else:
            last = ""  # the table ended (a run's summary follows)
    return rows


def table_scores(out: Path) -> dict[str, float]:
    """The terminal table (:func:`score_table`) of ``results.json``'s records: each student's score column."""
    records = [StudentResult.from_json(entry) for entry in students(out)]
    batch = BatchResult("ndcg", "ndcg.ipynb", "", records[0].max_score if records else 0.0, "", [], records)
    lines = [line for line in score_table(batch).splitlines()[1:] if not line[:1].isspace()]
    return {record.student_id: float(_table_column(line, record.status.value))
            for record, line in zip(records, lines, strict=True)}


def _table_column(line: str, status: str) -> str:
    """The score in one line of the table: the first field after the status."""
    return line[line.index(f" {status} ") + len(status) + 2:].split()[0]


def grades_csv_scores(out: Path) -> dict[str, float]:
    """``grades.csv``'s ``final_score`` column."""
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student_id"]: float(row["final_score"]) for row in csv.DictReader(handle)}


def page_scores(out: Path) -> dict[str, float]:
    """Each student's page (``feedback/<id>/ndcg.html``): the score at its top."""
    found = {}
    for page in sorted((out / "feedback").glob("*/ndcg.html")):
        found[page.parent.name] = float(soup(page).find(id="final-score").get_text().split("/")[0])
    return found


def every_output(out: Path) -> dict[str, dict[str, float]]:
    """Every student's score as each output shows it, by output."""
    return {
        "results.json": {s["student_id"]: s["final_score"] for s in students(out)},
        "grades.csv": grades_csv_scores(out),
        "terminal table": table_scores(out),
        "report roster": roster_scores(out),
        "feedback pages": page_scores(out),
    }


def statistics_rows(out: Path) -> list[list[float]]:
    """The report's statistics table: per row students, mean, median, min, max."""
    rows = soup(out / "report.html").find(id="statistics").find_all("tr")[1:]
    return [[float(td.get_text()) for td in row.find_all("td")[1:]] for row in rows]


def expected_statistics(finals: dict[str, float], statuses: dict[str, str]) -> list[list[float]]:
    """What the statistics table must say of these final scores: over the scored submissions, then everyone."""
    scored = [finals[name] for name, status in statuses.items() if status in SCORED]
    everyone = list(finals.values())
    return [[len(values), statistics.mean(values), statistics.median(values), min(values), max(values)]
            for values in (scored, everyone)]


def histogram_counts(out: Path) -> dict[float, int]:
    """The score histogram's bars, from its text alternative ("...: 0: 1; 15: 2")."""
    image = soup(out / "report.html").find("img", alt=lambda alt: bool(alt) and alt.startswith("Students per"))
    alt = image["alt"]
    bars = alt[alt.index("): ") + 3:]
    return {} if bars == "none" else {float(bar.split(": ")[0]): int(bar.split(": ")[1]) for bar in bars.split("; ")}


def trouble_scores(out: Path) -> dict[str, float]:
    """The report's "timeouts, errors and missing notebooks" table: each student's score."""
    rows = soup(out / "report.html").find(id="trouble").find_all("tr")[1:]
    return {row.find("a").get_text(): float(row.find_all("td")[2].get_text()) for row in rows if row.find("a")}


def needs_a_look(out: Path) -> dict[str, list[str]]:
    """The report's "Who needs a look" section: by student id, the text of each entry (list item or row) naming them.

    Read from the section's heading to the next one of its level, whatever lists or tables it is made of.
    """
    report = soup(out / "report.html")
    heading = report.find(lambda tag: tag.name == "h2" and "Who needs a look" in tag.get_text())
    found: dict[str, list[str]] = {}
    for element in heading.find_all_next(["h2", "li", "tr"]):
        if element.name == "h2":
            break
        if (link := element.find("a")) is not None:
            found.setdefault(link.get_text(strip=True), []).append(" ".join(element.get_text(" ").split()))
    return found
