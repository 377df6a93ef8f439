"""Threat: the by-hand answer cell as a bomb for the grader's reader (memory, recursion, overflow).

The answer cell is read in the grader's own process on both grading paths (and by the copying
report), so the reader is bounded: any text gives an :class:`Answers` of finite numbers within the
bounds or a one-line refusal, quickly and in little memory, and never raises.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings

from autograder.exercises.ndcg.byhand.answers import MAX_MAGNITUDE, NAMES, Answers, read_answers

from strategies import answer_cells, answer_expressions

#: CPU seconds one reading may take: reading a bounded cell takes milliseconds; parsing a 7 MB one took seconds.
CPU_BOUND = 0.5
#: The issue's cell: ``DCG_AT_K = 1+1+…+1``, 7.2 MB, under the 8 MiB notebook limit.
#: The reader's words (Python's type and syntax-tree names), which a student's page must not show.
JARGON = re.compile(r"\b(found|ast|node|Call|Name|BinOp|UnaryOp|Constant|Attribute|Subscript|parser?|token|str|bool|"
                    r"int|float|NoneType|expr)\b")
SUM_7MB = "DCG_AT_K = " + "+".join(["1"] * 3_600_000)


def _well_formed(answers: Answers) -> None:
    for step in ("dcg", "idcg", "ndcg"):
        value = answers.number(step)
        assert value is None or (isinstance(value, float) and math.isfinite(value) and abs(value) <= MAX_MAGNITUDE)
    assert answers.ideal is None or all(math.isfinite(g) and abs(g) <= MAX_MAGNITUDE for g in answers.ideal)
    for where, message in answers.problems.items():
        assert where in (*NAMES, "cell") and isinstance(message, str) and "\n" not in message and len(message) < 300
        assert not JARGON.search(message), message  # the student's terms, not the reader's (issue 34.3)


def _timed(source: str) -> Answers:
    start = time.process_time()
    answers = read_answers(source)
    assert time.process_time() - start < CPU_BOUND, len(source)
    return answers


@settings(max_examples=300, deadline=None)
@given(cell=answer_cells)
def test_any_answer_cell_gives_numbers_or_a_refusal_quickly(cell):
    _well_formed(_timed(cell))


@settings(max_examples=300, deadline=None)
@given(expression=answer_expressions)
def test_any_answer_gives_a_number_or_that_step_s_refusal_quickly(expression):
    answers = _timed(f"IDEAL_RANKING = [3, 2, 1]\nDCG_AT_K = {expression}")
    _well_formed(answers)
    # what was written is read, or refused with a reason; "= None" (or "= ...") takes an answer back
    takes_back = expression.split("\n")[0].split("#")[0].strip("() \t;") in ("None", "...")
    assert answers.dcg is not None or answers.problems or takes_back, answers


@pytest.mark.parametrize("expression, says", [
    ("+".join(["1"] * 1_500), "more than 400 numbers and signs"),  # 1,500 terms: an internal grader error once
    ("9" * 400, "a number of more than 30 characters"),  # a 400-digit literal: OverflowError once
    ("1e400", "larger than any answer"),
    ("1e300 * 1e300", "larger than any answer"),
    ("1 / 0", "divides by zero"),
    ("1 / 1e-300", "larger than any answer"),
    ("(" * 300 + "1" + ")" * 300, "nests brackets and signs more than 20 deep"),
    ("-(" * 2_000 + "1" + ")" * 2_000, "nests brackets and signs more than 20 deep"),
    ("-" * 5_000 + "1", "nests brackets and signs more than 20 deep"),
    ("dcg(RELS, K)", "must be a number such as 2.43"),
    ("K", "not a name (K)"),
    ("2 ** 3", "not the operator **"),
])
def test_each_bomb_is_refused_in_the_student_s_terms(expression, says):
    answers = _timed(f"DCG_AT_K = {expression}\nIDCG_AT_K = 4.5")
    assert answers.dcg is None
    assert any(says in message for message in answers.problems.values()), answers.problems
    _well_formed(answers)


def test_a_refused_answer_costs_only_its_own_step():
    answers = read_answers("IDEAL_RANKING = [3, 2, 1]\nDCG_AT_K = " + "9" * 400 + "\nIDCG_AT_K = 4.5\nNDCG_AT_K = 0.5")
    assert answers.ideal == (3.0, 2.0, 1.0) and answers.idcg == 4.5 and answers.ndcg == 0.5
    assert set(answers.problems) == {"dcg"}


def test_the_7_mb_sum_is_refused_unparsed_in_little_memory():
    """The issue's 7.2 MB cell, read in a child whose address space is capped (the parse took 1.5 GB)."""
    child = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (600 * 1024**2, 600 * 1024**2))\n"
        "from autograder.exercises.ndcg.byhand.answers import read_answers\n"
        "answers = read_answers(sys.stdin.read())\n"
        "print(answers.dcg, answers.problems['cell'])\n"
    )
    done = subprocess.run([sys.executable, "-c", child], input=SUM_7MB, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("None the answer cell has 7,200,010 characters"), done.stdout
