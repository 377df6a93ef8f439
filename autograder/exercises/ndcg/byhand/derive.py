"""Which ranked list a student computes by hand: derived from the student's id and a published salt.

Standard library only, and written so that the functions below can be copied verbatim into the
release's read-only derivation cell (:mod:`.cells` does, and a test checks the copy): the student's
kernel and the grader then derive the same list from the same id and salt. Nothing here computes a
DCG: the cell picks a list from the pool of fair lists (:mod:`.pool`, computed by the kit with
``ndcg_ref``) and shows it, so reading the cell gives away no value.

The salt is published with the release; it is *not* the course's secret that seeds the hidden
tests' fresh instances (:mod:`autograder.course.secret`): knowing it lets anyone recompute any
student's list, which is harmless, since the list is shown to that student anyway.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import pwd
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


def current_student() -> str:
    """The id ``nbgrader submit`` files a submission under: the login name of the kernel's user.

    The rule of nbgrader 0.9's ``nbgrader.utils.get_username``: the login name, except that the
    container user ``jovyan`` (JupyterHub's Docker images) is replaced by ``JUPYTERHUB_USER``.
    While nbgrader's own autograde runs the notebook (``NBGRADER_EXECUTION=autograde``), the kernel
    is the tutor's and its working folder ``autograded/<student_id>/<assignment>``: the id is that
    folder's parent's name, so the cell shows (and the step cells check) the student's own list.
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return os.path.basename(os.path.dirname(os.getcwd()))
    login = pwd.getpwuid(os.getuid())[0]
    if login == "jovyan":
        return os.environ.get("JUPYTERHUB_USER", "jovyan")
    return login
