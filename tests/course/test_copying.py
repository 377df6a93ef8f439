"""The copying report: a copied by-hand answer is flagged with whose list it fits; similar code pairs listed."""

from __future__ import annotations

from byhand_answers import answer_cell, submit_by_hand

from autograder.byhand.copied import gather, write_report
from autograder.byhand.salt import release_variant
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE
from autograder.exercises.ndcg.byhand.steps import every_steps

from grading_run import CORRECT_DCG, CORRECT_NDCG, add_student, new_course, notebook_path
from solutions import CORRECT_SOLUTIONS

#: ada's solution with every name changed and comments added: the same code to a fingerprint
RENAMED_DCG = "import math\n\n\ndef dcg(grades, cut):\n    # sum of discounted grades\n" \
              "    return sum(grades[j] / math.log2(j + 2) for j in range(min(cut, len(grades))))"


def _by_hand(course, student: str, answers: str) -> None:
    submit_by_hand(notebook_path(course, student), student, None, answers)


def test_copied_answers_and_code_are_listed_and_honest_work_is_not(tmp_path):
    course = new_course(tmp_path / "course")
    salt, pool = release_variant(course, NDCG)
    ways = {s: every_steps(student_list(s, salt, pool), CUTOFF) for s in ("ada", "bob", "cyd")}
    add_student(course, "ada", CORRECT_DCG, CORRECT_NDCG)
    add_student(course, "bob", RENAMED_DCG, CORRECT_NDCG)
    add_student(course, "cyd", *CORRECT_SOLUTIONS["recursion"])
    _by_hand(course, "ada", answer_cell(ways["ada"]["right"]))
    _by_hand(course, "bob", answer_cell(ways["ada"]["right"]))  # bob hands in ada's numbers
    _by_hand(course, "cyd", answer_cell(ways["cyd"]["natural log"]))  # a mistake of cyd's own: no evidence
    found = gather(course, NDCG, course / "submitted")
    assert "raise NotImplementedError" in found.stub and CORRECT_DCG in found.code["ada"]
    summary = write_report(course, NDCG, course / "submitted", course / "graded" / "copying.html", 0.8)
    assert summary.startswith("3 students: 1 copied by-hand answers, 1 similar code pairs")
    page = (course / "graded" / "copying.html").read_text(encoding="utf-8")
    answers = page.split('id="copied-answers"')[1].split("</table>")[0]
    assert "<td>bob</td><td>ada</td>" in answers and "DCG_AT_K" in answers and "cyd" not in answers
    pairs = page.split('id="code-pairs"')[1].split("</table>")[0]
    assert "<td>ada</td><td>bob</td>" in pairs and "cyd" not in pairs


def test_copied_answers_are_found_for_every_pair_and_honest_mistakes_never():
    from autograder.exercises.ndcg.byhand.hook import copied_answers
    from autograder.exercises.ndcg.byhand.steps import HAND_MISTAKES

    salt, pool = "test", POOL_FILE.read_text(encoding="ascii").strip()
    ids = [f"s{n:02d}" for n in range(30)]
    ways = {s: every_steps(student_list(s, salt, pool), CUTOFF) for s in ids}
    answers = {}
    for n, student in enumerate(ids):
        if n % 2:  # the odd ones hand in the previous student's right numbers
            answers[student] = answer_cell(ways[ids[n - 1]]["right"])
        else:  # the even ones work their own list out, some with a common mistake
            way = "right" if n % 4 == 0 else HAND_MISTAKES[n % len(HAND_MISTAKES)].name
            answers[student] = answer_cell(ways[student][way])
    flagged = {(row.student_id, row.source_id) for row in copied_answers(answers, salt, pool)}
    copied = {(ids[n], ids[n - 1]) for n in range(1, 30, 2)}
    assert copied <= flagged
    # another row only names a list whose values are those copied (same top k, same grades)
    for student, source in flagged - copied:
        true_source = ids[ids.index(student) - 1]
        assert (student, true_source) in copied
        assert round(ways[source]["right"].dcg, 2) == round(ways[true_source]["right"].dcg, 2)
