"""The pool of fair lists published in the release, and a salt that gives a roster distinct lists.

The pool is computed by the kit (:func:`.steps.is_fair`, values from ``ndcg_ref``) and published in
the derivation cell as a compressed bitmap over the universe of lists (:mod:`.derive`), so that the
cell itself computes nothing but a hash.
"""

from __future__ import annotations

import base64
import functools
import zlib
from collections.abc import Iterable

from ....errors import UsageError
from .derive import CUTOFF, candidate, fair_indices, fair_pick, universe_size
from .steps import is_fair


def compute_pool() -> str:
    """The fair lists of the universe as a zlib-compressed bitmap in base64 (about 15 s)."""
    size = universe_size()
    bits = bytearray((size + 7) // 8)
    for index in range(size):
        if is_fair(candidate(index), CUTOFF):
            bits[index >> 3] |= 1 << (index & 7)
    return base64.b64encode(zlib.compress(bytes(bits), 9)).decode("ascii")


def pool_size(pool: str) -> int:
    """How many fair lists ``pool`` holds."""
    return len(fair_indices(pool))


def collisions(roster: Iterable[str], salt: str, pool: str) -> dict[tuple[int, ...], list[str]]:
    """The lists that more than one student of ``roster`` would get with ``salt``."""
    holders: dict[tuple[int, ...], list[str]] = {}
    for student in roster:
        holders.setdefault(list_for(student, salt, pool), []).append(student)
    return {ranking: ids for ranking, ids in holders.items() if len(ids) > 1}


def choose_salt(roster: Iterable[str], pool: str, base: str, tries: int = 20_000) -> str:
    """The first salt ``base-N`` that gives every student of ``roster`` a list of their own.

    Raises
    ------
    UsageError
        When no salt of ``tries`` does: the roster is too large for the pool (a class of ``n``
        needs a pool well above ``n**2 / 2``; a longer list gives a larger one).
    """
    students = sorted(set(roster))
    fair = _fair(pool)
    for attempt in range(tries):
        salt = f"{base}-{attempt}"
        if not _collide(students, salt, fair):
            return salt
    raise UsageError(
        f"no salt in {tries} gives the {len(students)} students distinct lists from a pool of {len(fair)}: "
        "the class is too large for the list's shape"
    )


def _collide(students: list[str], salt: str, fair: list[int]) -> bool:
    seen: set[int] = set()
    for student in students:
        index = fair_pick(student, salt, fair)
        if index in seen:
            return True
        seen.add(index)
    return False


@functools.lru_cache(maxsize=8)
def _fair(pool: str) -> list[int]:
    return fair_indices(pool)


def list_for(student: str, salt: str, pool: str) -> tuple[int, ...]:
    """:func:`.derive.student_list`, the pool decoded once per process, not once per student (10 ms each)."""
    return candidate(fair_pick(student, salt, _fair(pool)))
