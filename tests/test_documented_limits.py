"""The numbers in docs/security.md are the code's (the sandbox's, collect's total): a changed default fails here until the page says it."""

from __future__ import annotations

import re

from autograder.course.autograde.collect import DEFAULT_MAX_TOTAL_MB, ENTRY_COST
from autograder.sandbox.resources.limits import FIRST_SANDBOX_UID, Limits

from conftest import ROOT

SECURITY = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
LIMITS = Limits()


def _section(title: str) -> str:
    """The bullet of docs/security.md that starts with ``title`` (up to the next bullet)."""
    start = SECURITY.index(f"- **{title}")
    end = SECURITY.find("\n- **", start + 1)
    return " ".join(SECURITY[start:end].split())


def _bytes(amount: str, unit: str) -> int:
    return int(amount) * {"MiB": 1024**2, "GiB": 1024**3}[unit]


def test_the_scratch_size_is_the_codes():
    found = re.search(r"each a fresh tmpfs of at most (\d+) (MiB|GiB)", " ".join(SECURITY.split()))
    assert found is not None
    assert _bytes(*found.groups()) == LIMITS.scratch_bytes


def test_the_limits_per_sandbox_are_the_codes():
    text = _section("Limits per sandbox")
    memory = re.search(r"(\d+) (MiB|GiB) of memory for all its processes", text)
    tasks = re.search(r"(\d+) tasks \(processes and threads", text)
    cores = re.search(r"at most (one|\d+) CPU cores?", text)
    assert memory and tasks and cores, text
    assert _bytes(*memory.groups()) == LIMITS.memory_bytes
    assert int(tasks.group(1)) == LIMITS.processes
    assert (1.0 if cores.group(1) == "one" else float(cores.group(1))) == LIMITS.cpu_cores


def test_the_limits_per_process_are_the_codes():
    text = _section("Limits per process")
    found = re.search(
        r"(\d+) (MiB|GiB) address space, (\d+) s CPU time, (\d+) (MiB|GiB) per file, (\d+) open files, "
        r"no core dumps, and (\d+) processes", text,
    )
    assert found is not None, text
    memory, memory_unit, cpu, file_size, file_unit, open_files, processes = found.groups()
    assert _bytes(memory, memory_unit) == LIMITS.memory_bytes
    assert int(cpu) == LIMITS.cpu_seconds
    assert _bytes(file_size, file_unit) == LIMITS.file_bytes
    assert int(open_files) == LIMITS.open_files
    assert int(processes) == LIMITS.processes
    assert f"plus {LIMITS.processes}" in text


def test_the_sandbox_user_ids_are_the_codes():
    assert f"({FIRST_SANDBOX_UID} + slot)" in " ".join(_section("As root").split())


def test_the_limit_settings_are_documented():
    from autograder.cli import LIMIT_OPTIONS
    from autograder.sandbox.resources.limits import SETTINGS

    guide = (ROOT / "docs" / "tutor-guide.md").read_text(encoding="utf-8")
    for page in (SECURITY, guide):
        named = [option for option in LIMIT_OPTIONS if not re.search(f"`{option}[` ]", page)]
        named += [name for name in SETTINGS if not re.search(f"(`|SandboxedExecute\\.){name}[` ]", page)]
        assert not named, named


def test_the_by_hand_reader_s_bounds_are_the_codes():
    from autograder.exercises.ndcg.byhand import answers

    start = SECURITY.index("**The by-hand reader is bounded.**")
    text = " ".join(SECURITY[start:SECURITY.index("\n\n", start)].split())
    numbers = {
        r"at most ([\d,]+) characters;": answers.MAX_CELL_CHARS, r"at most (\d+) tokens a line": answers.MAX_LINE_TOKENS,
        r"nested at most (\d+) deep": answers.MAX_DEPTH, r"at most (\d+) nodes": answers.MAX_NODES,
        r"literal at most (\d+) characters": answers.MAX_LITERAL, r"a ranking at most (\d+) grades": answers.MAX_LIST,
    }
    for pattern, value in numbers.items():
        found = re.search(pattern, text)
        assert found is not None and int(found.group(1).replace(",", "")) == value, pattern
    assert "at most 10⁹ in size" in text and answers.MAX_MAGNITUDE == 1e9


def test_the_readers_bounds_are_the_codes():
    from autograder.grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
    from autograder.grading.reading.notebook_shape import MAX_DEPTH, MAX_VALUES

    text = " ".join(SECURITY.split())
    start = text.index("### A notebook's shape and its folder")
    section = text[start:text.index("### ", start + 4)]
    assert f"at most **{MAX_DEPTH} levels**" in section and f"**{MAX_VALUES:,} values**" in section
    assert f"Over **{DEFAULT_MAX_FOLDER_FILES} entries** or **{DEFAULT_MAX_FOLDER_BYTES // 1024**2} MiB**" in section


def test_collects_total_is_the_codes():
    text = _section("A total per run")
    total = re.search(r"`c\.CourseCollect\.max_total_mb` MiB \(default \*\*(\d+)\*\*", text)
    entry = re.search(r"plus (\d+) KiB for each file and folder", text)
    assert total and entry, text
    assert float(total.group(1)) == DEFAULT_MAX_TOTAL_MB
    assert int(entry.group(1)) * 1024 == ENTRY_COST


def test_the_compiled_record_s_bounds_are_the_codes():
    from autograder.sandbox.runs.protocol import MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL

    found = re.search(r"\((\d+) texts, (\d+) KiB each, (\d+) KiB of JSON in all;", " ".join(SECURITY.split()))
    assert found is not None
    texts, each, total = (int(group) for group in found.groups())
    assert (texts, each * 1024, total * 1024) == (MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL)
