"""Which ranked list a student computes by hand: derived from the student's id and a published salt.

Standard library only, and written so that the functions below can be copied verbatim into the
release's read-only derivation cell (:mod:`.cells` does, and a test checks the copy): the student's
kernel and the grader then derive the same list from the same id and salt. Nothing here computes a
DCG: the cell picks a list from the pool of fair lists (:mod:`.pool`, computed by the kit with
``ndcg_ref``) and shows it, so reading the cell gives away no value.

The salt is published with the release; it is *not* the course's secret that seeds the hidden
tests' fresh instances (:mod:`autograder.course.setup.secret`): knowing it lets anyone recompute any
student's list, which is harmless, since the list is shown to that student anyway.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import pwd
import textwrap
import zlib

#: The shape every student's list has: its length, the cut-off k, how many documents are relevant
#: (grades 1 .. TOP_GRADE; the others 0). More relevant documents than k, so that an ideal ranking
#: not cut at k always shows.
LENGTH = 9
CUTOFF = 5
RELEVANT = 7
TOP_GRADE = 3


def universe_size() -> int:
    """How many lists of the shape exist: positions of the relevant documents times their grades."""
    return len(list(itertools.combinations(range(LENGTH), RELEVANT))) * int(TOP_GRADE**RELEVANT)


def candidate(index: int) -> tuple[int, ...]:
    """The list number ``index`` (0 <= index < universe_size()) of the shape, in a fixed order."""
    combos = list(itertools.combinations(range(LENGTH), RELEVANT))
    where, grades = divmod(index, TOP_GRADE**RELEVANT)
    ranking = [0] * LENGTH
    for position in combos[where]:
        grades, digit = divmod(grades, TOP_GRADE)
        ranking[position] = digit + 1
    return tuple(ranking)


def fair_indices(pool: str) -> list[int]:
    """The universe's fair lists, from the pool as published (a zlib-compressed bitmap in base64)."""
    bits = zlib.decompress(base64.b64decode(pool))
    return [i for i in range(universe_size()) if bits[i >> 3] >> (i & 7) & 1]


def fair_pick(student: str, salt: str, fair: list[int]) -> int:
    """The universe index of the list ``student`` gets: a hash of the salt and the id picks one of ``fair``.

    An id from a folder name that is not UTF-8 (``os.fsdecode`` keeps its bytes as surrogates) is
    hashed as those bytes, so the grader derives a list for it too.
    """
    digest = hashlib.sha256(f"{salt}\n{student}".encode("utf-8", "surrogateescape")).digest()
    return fair[int.from_bytes(digest[:8], "big") % len(fair)]


def student_list(student: str, salt: str, pool: str) -> tuple[int, ...]:
    """The list ``student`` computes: one of the pool's fair lists, picked by :func:`fair_pick`."""
    return candidate(fair_pick(student, salt, fair_indices(pool)))


def login_name() -> str:
    """The id ``nbgrader submit`` files a submission under here: the login name of the kernel's user.

    The rule of nbgrader 0.9's ``nbgrader.utils.get_username``: the login name, except that the
    container user ``jovyan`` (JupyterHub's Docker images) is replaced by ``JUPYTERHUB_USER``.
    """
    login = pwd.getpwuid(os.getuid())[0]
    if login == "jovyan":
        return os.environ.get("JUPYTERHUB_USER", "jovyan")
    return login


def current_student() -> str:
    """The id the list is derived from while nbgrader's own autograde runs the notebook, else :func:`login_name`.

    While nbgrader's own autograde runs the notebook (``NBGRADER_EXECUTION=autograde``), the kernel
    is the tutor's and its working folder ``autograded/<student_id>/<assignment>``: the id is that
    folder's parent's name, the id the submission is filed under.
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return os.path.basename(os.path.dirname(os.getcwd()))
    return login_name()


def id_problem(typed: object) -> str | None:
    """What is wrong with ``STUDENT_ID`` as the student typed it, in their words; None when nothing is.

    Under nbgrader's autograde nothing is (the id is the submission's folder's). Elsewhere the id must
    not be empty, and where the login is known to be the id the notebook is handed in under (on
    JupyterHub, and while ``nbgrader validate`` checks the notebook before ``nbgrader submit``) it
    must be the login. On a laptop, whose login is no student id, it may differ (nothing tells a
    laptop's login from a student's account, so ``validate`` there says so too, and the message
    says when to ignore it).
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return None
    problem = _id_problem(typed)
    # lines short enough for nbgrader validate, which cuts each line of an error at 90 characters
    return None if problem is None else textwrap.fill(problem, 64)


def _id_problem(typed: object) -> str | None:
    """:func:`id_problem` before its lines are wrapped."""
    student = typed.strip() if isinstance(typed, str) else ""
    if not student:
        return ('Type your student id in the cell STUDENT_ID = "..." above Task 1.2\'s list (the login name you '
                "hand in under: your JupyterHub or course-machine account), run it, then run the cells below it.")
    login = login_name()
    if student == login:
        return None
    if os.environ.get("JUPYTERHUB_USER"):
        return (f"STUDENT_ID is {student!r}, but you are logged in to JupyterHub as {login!r}, the id your "
                f"notebook is handed in under: type your own id, STUDENT_ID = {login!r}.")
    if os.environ.get("NBGRADER_EXECUTION") == "validate":
        return (f"STUDENT_ID is {student!r}, but nbgrader submit from this account hands your notebook in as "
                f"{login!r}, and Task 1.2 is graded against the list of the id it is handed in under. Type your own "
                f"id; if you work on your own computer and hand in from the account {student!r}, ignore this.")
    return None


def notebook_student(typed: object) -> str:
    """The id whose list the notebook shows: ``STUDENT_ID`` as typed (the submission's id under autograde).

    Raises
    ------
    ValueError
        With :func:`id_problem`'s words, if it finds a problem.
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return current_student()
    problem = id_problem(typed)
    if problem is not None:
        raise ValueError(problem)
    student = str(typed).strip()
    login = login_name()
    if student != login:
        print(f"Note: STUDENT_ID is {student!r} and this computer's login is {login!r}. That is fine on your own "
              f"computer: hand the notebook in from your account {student!r} (the hub or the course's machine).")
    return student
