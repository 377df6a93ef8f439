"""A class's results on disk, read back one student at a time: the coordinator's memory stays flat.

A list of every :class:`StudentResult` would hold the whole class (tens of kilobytes per student:
tests, cases, cells, diagnosis) until the last output was written. A :class:`ResultStore` keeps each
record as one JSON line in an anonymous temporary file (created unlinked, so nothing is left behind
even after ``kill -9``) and in memory only, per student, where its line is and its status. It is a
:class:`~collections.abc.Sequence`: writers and tests iterate it, index it and slice it as a list,
and each read builds a fresh record.

A record read from the store is a copy: a change to it is kept only when it is :meth:`put` back
(the steps after grading set warnings, lateness and marks that way).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import overload

from .model import Status, StudentResult


class ResultStore(Sequence[StudentResult]):
    """Student results in a fixed order, kept in a temporary file in ``folder``, one line each.

    Parameters
    ----------
    folder : Path
        Where the (unlinked) temporary file lives: a folder of the grader's own, on the disk the
        outputs go to (``OUT/.state``), never ``/tmp`` (a tmpfs would hold the class in memory).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = ResultStore(Path(folder.name))
    >>> store.put(StudentResult.without_grading("bo", Status.MISSING, "no notebook", 10.0))
    >>> store.put(StudentResult.without_grading("al", Status.MISSING, "no notebook", 10.0))
    >>> store.order(["al", "bo"])
    >>> [s.student_id for s in store], store.statuses().count(Status.MISSING)
    (['al', 'bo'], 2)
    >>> store.close(); folder.cleanup()
    """

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        # unlinked from the start: the disk space goes back when the store is closed or the grader dies
        self._file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 (open for the store's life)
        self._lock = threading.Lock()
        self._end = 0
        self._where: dict[str, tuple[int, int]] = {}  # student id -> (offset, length) of its latest line
        self._status: dict[str, Status] = {}
        self._ids: list[str] = []

    @classmethod
    def of(cls, folder: Path, results: Iterable[StudentResult]) -> ResultStore:
        """A store holding ``results`` in their order."""
        store = cls(folder)
        ids = []
        for result in results:
            store.put(result)
            ids.append(result.student_id)
        store.order(ids)
        return store

    def put(self, result: StudentResult) -> None:
        """Keep ``result`` (replacing what the store held for that student), appended as one line."""
        line = (json.dumps(result.to_json(), separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:  # appends from several threads must not interleave
            offset = self._end
            os.pwrite(self._file.fileno(), line, offset)
            self._end += len(line)
            self._where[result.student_id] = (offset, len(line))
            self._status[result.student_id] = result.status

    def order(self, student_ids: Iterable[str]) -> None:
        """Set the order of the sequence (every id must have been :meth:`put`)."""
        ids = list(student_ids)
        missing = [student for student in ids if student not in self._where]
        if missing:
            raise KeyError(f"no result stored for {missing[0]!r}")
        self._ids = ids

    def get(self, student_id: str) -> StudentResult:
        """A fresh copy of the latest result kept for ``student_id``."""
        offset, length = self._where[student_id]
        # pread: several threads read at once without sharing a file position
        return StudentResult.from_json(json.loads(os.pread(self._file.fileno(), length, offset)))

    def statuses(self) -> list[Status]:
        """Each student's status in the sequence's order, without reading their records."""
        return [self._status[student] for student in self._ids]

    @property
    def student_ids(self) -> list[str]:
        """The students' ids in the sequence's order."""
        return list(self._ids)

    def close(self) -> None:
        """Give back the disk space (the store cannot be read afterwards)."""
        self._file.close()

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> StudentResult: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[StudentResult]: ...

    def __getitem__(self, index: int | slice) -> StudentResult | Sequence[StudentResult]:
        return _View(self, self._ids)[index]

    def __iter__(self) -> Iterator[StudentResult]:
        return iter(_View(self, list(self._ids)))  # a copy: a put() while iterating changes nothing here


class _View(Sequence[StudentResult]):
    """Some of a store's students (a slice), read from the store on each access: re-iterable."""

    def __init__(self, store: ResultStore, ids: list[str]) -> None:
        self._store, self._ids = store, ids

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> StudentResult: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[StudentResult]: ...

    def __getitem__(self, index: int | slice) -> StudentResult | Sequence[StudentResult]:
        if isinstance(index, slice):
            return _View(self._store, self._ids[index])
        return self._store.get(self._ids[index])

    def __iter__(self) -> Iterator[StudentResult]:
        for student in self._ids:
            yield self._store.get(student)
