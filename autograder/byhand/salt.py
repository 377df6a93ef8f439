"""Task 1.2 (nDCG by hand) for the course: its salt in the source, the salt and pool of the release.

The cells themselves are the exercise's (:mod:`..exercises.ndcg.byhand.notebook`, written by the
part's ``sync`` hook); this module publishes a roster's salt in them (``variants``, ``new-offering``)
and reads back what the release publishes, which every student's list came from.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ..errors import CourseError
from ..exercises.ndcg import EXERCISE
from ..exercises.ndcg.byhand.notebook import DEFAULT_SALT, POOL_FILE, by_hand_cells, published_variant, sync_by_hand

ASSIGNMENT, NOTEBOOK = EXERCISE.assignment, EXERCISE.notebook

__all__ = ["DEFAULT_SALT", "POOL_FILE", "by_hand_cells", "published_variant", "release_variant", "source_salt",
           "sync_by_hand", "write_salt"]


def write_salt(root: Path, salt: str, *, keep_earlier: bool = False) -> Path:
    """Publish ``salt`` in the source notebook's derivation cell; return the notebook's path.

    ``keep_earlier``: the salt it replaces stays valid for what students handed in (:func:`sync_by_hand`).
    """
    path = root / "source" / ASSIGNMENT / NOTEBOOK
    sync_by_hand(path, salt, keep_earlier=keep_earlier)
    return path


def source_salt(root: Path) -> str:
    """The salt the source notebook publishes now (a new offering's, or one chosen for a roster)."""
    return published_variant(nbformat.read(root / "source" / ASSIGNMENT / NOTEBOOK, as_version=4))[0]


def release_variant(root: Path) -> tuple[str, str]:
    """The salt and pool of ``release/ndcg/ndcg.ipynb``: what every student's list came from."""
    path = root / "release" / ASSIGNMENT / NOTEBOOK
    if not path.is_file():
        raise CourseError(f"no released notebook at {path}: run `python -m autograder release` first")
    return published_variant(nbformat.read(path, as_version=4))
