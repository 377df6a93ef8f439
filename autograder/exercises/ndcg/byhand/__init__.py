"""The by-hand part of the exam notebook: every student computes nDCG@k of their own list.

:mod:`.derive` picks the list from the student's id and the published salt (its functions are
copied into the notebook's read-only cell), :mod:`.steps` gives the right values (``ndcg_ref``) and
each hand mistake's, :mod:`.pool` the fair lists and a salt for a roster, :mod:`.marking` grades the
four steps with follow-through and names the mistakes.
"""

from __future__ import annotations

from .derive import CUTOFF, LENGTH, current_student, student_list
from .steps import HAND_MISTAKES, TOLERANCE, Steps, every_steps, is_fair, right_steps

__all__ = [
    "CUTOFF", "HAND_MISTAKES", "LENGTH", "TOLERANCE", "Steps", "current_student", "every_steps", "is_fair",
    "right_steps", "student_list",
]
