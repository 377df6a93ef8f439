"""The results of a batch on disk, read back a student at a time (``grading/store.py``)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from autograder.grading import Status, StudentResult
from autograder.grading.store import ResultStore

MAX = 10.0


def _result(student: str, status: Status = Status.GRADED, score: float = 5.0) -> StudentResult:
    return StudentResult(student_id=student, status=status, score=score, max_score=MAX, message="graded",
                         warnings=[f"about {student}"])


def test_the_store_gives_back_each_record_in_the_order_set_not_the_order_put(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    for student, score in (("cy", 3.0), ("al", 1.0), ("bo", 2.0)):
        store.put(_result(student, score=score))
    store.order(["al", "bo", "cy"])
    assert [s.student_id for s in store] == ["al", "bo", "cy"]
    assert [s.to_json() for s in store] == [_result(n, score=v).to_json() for n, v in (("al", 1.0), ("bo", 2.0),
                                                                                       ("cy", 3.0))]
    assert store[-1].student_id == "cy" and len(store) == 3


def test_a_record_read_is_a_copy_and_put_replaces_it(tmp_path: Path) -> None:
    store = ResultStore.of(tmp_path, [_result("al"), _result("bo")])
    copy = store[0]
    copy.warnings.append("not recorded in the gradebook: a reason")
    assert store[0].warnings == ["about al"]  # unchanged until put back
    store.put(copy)
    assert store[0].warnings == ["about al", "not recorded in the gradebook: a reason"]
    assert [s.student_id for s in store] == ["al", "bo"]  # the order stays


def test_slices_are_reread_on_every_pass(tmp_path: Path) -> None:
    store = ResultStore.of(tmp_path, [_result(f"s{i}") for i in range(10)])
    part = store[1::4]
    assert [s.student_id for s in part] == ["s1", "s5", "s9"]
    assert [s.student_id for s in part] == ["s1", "s5", "s9"]  # a writer reads it twice (results and CSV)
    assert part[-1].student_id == "s9" and [s.student_id for s in part[::2]] == ["s1", "s9"]


def test_statuses_without_reading_the_records(tmp_path: Path) -> None:
    store = ResultStore.of(tmp_path, [_result("al"), _result("bo", Status.MISSING), _result("cy", Status.TIMEOUT)])
    assert store.statuses() == [Status.GRADED, Status.MISSING, Status.TIMEOUT]
    store.put(_result("bo", Status.ERROR))
    assert store.statuses() == [Status.GRADED, Status.ERROR, Status.TIMEOUT]


def test_order_names_a_student_that_was_never_put(tmp_path: Path) -> None:
    store = ResultStore.of(tmp_path, [_result("al")])
    with pytest.raises(KeyError, match="'zed'"):
        store.order(["al", "zed"])


def test_the_store_leaves_no_file_behind(tmp_path: Path) -> None:
    """Its file is unlinked from the start: nothing to clean after a crash of the grader either."""
    store = ResultStore.of(tmp_path, [_result("al")])
    assert os.listdir(tmp_path) == []
    assert store[0].student_id == "al"
    store.close()
    assert os.listdir(tmp_path) == []


def test_threads_put_and_read_at_once(tmp_path: Path) -> None:
    """The steps after grading read slices in threads while the gradebook step puts records back."""
    students = [f"s{i:03d}" for i in range(200)]
    store = ResultStore.of(tmp_path, [_result(s) for s in students])
    seen: list[list[str]] = []

    def reader(k: int) -> None:
        seen.append([s.student_id for s in store[k::4]])

    def writer() -> None:
        for student in students[::3]:
            record = store.get(student)
            record.warnings.append("marked")
            store.put(record)

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(4)] + [threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(s for part in seen for s in part) == students
    assert [s.warnings[-1] == "marked" for s in store] == [i % 3 == 0 for i in range(200)]
