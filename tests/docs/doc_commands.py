"""The commands of README.md and docs/tutor-guide.md, read as the docs test runs them.

The convention (stated in docs/tutor-guide.md, "The commands in this guide and in the README are
tested"):

- every line of a ``bash`` block that is not empty or a comment is a command, run in order from the
  course directory as the tutor;
- a ``bash`` block whose first line starts with ``# as a student`` is run in each simulated
  student's home, as that student; one whose first line holds ``on a laptop`` (an install of
  minutes, the same for every student) in the first simulated student's home only;
- a block whose info string holds ``file=NAME`` is written to NAME in the course directory;
- every fenced block names its language (``text`` for output and synopses), so that a command
  cannot hide in an unmarked block;
- a code span in the text whose first word is a program (:data:`COMMAND_WORDS`), with an argument, runs where it first
  appears, as the tutor, unless a ``bash`` block of the same document holds the same command (it
  runs there) or :data:`NOT_RUN` lists it with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/tutor-guide.md")
STUDENT_MARK = "# as a student"
#: A student's block with this in its first line runs for the first simulated student only.
LAPTOP_MARK = "on a laptop"

#: A code span is a command when its first word is one of these (or a program in .venv/bin/).
COMMAND_WORDS = frozenset({
    "nbgrader", "make", "python", "python3", "jupyter", "pip", "apt-get", "mkdir", "cp", "export",
    "sqlite3", "git", "rm", "chmod", "cd", "sudo", "bash", "curl", "pytest",
})

#: Commands the docs test does not run, each with the reason. A command of the docs that is neither
#: run nor listed here fails the test, and so does an entry here that the docs no longer hold.
NOT_RUN: dict[str, str] = {
    # installs and machine-wide changes: a test never changes the machine
    "apt-get install bubblewrap": "installs a system package (the test machine has it; make test installs it)",
    "apt-get install chromium": "installs a system package (the e2e suite skips without it)",
    "mkdir -p -m 1777 /srv/nbgrader/exchange": "creates a machine folder as root; tests never touch real folders "
    "(the scratch course uses its default exchange/)",
    "python -m autograder student-config --hub > hub_nbgrader_config.py": "refuses the scratch course's exchange, "
    "which is inside the course folder (as it must); tests/hub/test_hub.py runs it on a course whose exchange is the "
    "hub's and starts a real hub with it, tests/course/test_student_config.py checks the refusal",
    "nbgrader fetch_assignment ndcg --course ir-ranking-evaluation --Exchange.root=/srv/nbgrader/exchange":
        "the same flags against a scratch exchange are run by tests/course/test_exchange.py",
    "cp student_nbgrader_config.py constraints.txt /srv/nbgrader/": "writes a machine folder as root; the docs "
    "test hands both files out into each simulated student's home instead",
    "pip install -c constraints.txt -e '.[postgresql]'": "reinstalls the course's package: run from a scratch "
    "course it would point the shared .venv at the scratch copy (the test extra has the driver already)",
    "python -m autograder new-offering ir-ws2027": "tests/course/test_new_offering.py runs it; here it would rename "
    "the scratch course that the guide's later commands name ir-ranking-evaluation",
    # the test suite itself, and what it already runs
    "make test": "the docs test is part of it",
    "make lint": "make test runs it first",
    "make check": "lint and the fast tests: make test runs both (the docs test is one of its slow tests)",
    "make e2e": "the browser suite (tests/e2e), part of make test",
    "make demo": "= python -m autograder demo, run by tests/grading/test_grader.py (test_demo_never_touches_the_course)",
    "python -m autograder demo": "run by tests/grading/test_grader.py (test_demo_never_touches_the_course)",
    "make bench": "installs .venv-bench (numba, pandas, …) and runs minutes of benchmarks (docs/benchmarks.md)",
    ".venv/bin/python scripts/bench_gradebook.py": "a benchmark, minutes of work (docs/benchmarks.md), not a check",
    ".venv/bin/python scripts/bench_gradebook.py 2000": "a benchmark, minutes of work (docs/benchmarks.md), not a check",
    "make lock": "rewrites constraints.txt, which the scratch course shares with the repository",
    "make venv": "the scratch course shares the repository's .venv; make venv there would only re-check it",
    "nbgrader submit ndcg --student alice": "a simulated student's id on one account; the docs test sets the same id in "
    "each student's settings (c.CourseDirectory.student_id), tests/course/test_semester.py passes it on the command line",
    # programs that wait for a person
    "sqlite3 gradebook.db": "an interactive shell, named as an example of a program holding the gradebook",
    # names of commands in a sentence, not commands to type (their runnable form is run elsewhere)
    "nbgrader autograde": "names the command; `nbgrader autograde ndcg` is run",
    "nbgrader fetch_assignment": "names the command; `nbgrader fetch_assignment ndcg` is run",
    "python -m autograder grade": "names the command that `make grade` runs (with every option: run in the guide)",
    "nbgrader generate_assignment ndcg --force": "what `make release` runs (said in the guide), run by it",
    "nbgrader collect": "names the command; `nbgrader collect ndcg` is run",
    "nbgrader submit": "names the command; `nbgrader submit ndcg` is run",
    "nbgrader release_feedback": "names the command; `nbgrader release_feedback ndcg` is run",
    "nbgrader fetch_feedback": "names the command; `nbgrader fetch_feedback ndcg` is run",
    "nbgrader db student import": "names the command; `nbgrader db student import roster.csv` is run",
    "make release ASSIGNMENT=<id>": "a synopsis (`<id>` stands for an exercise's id); tests/docs/test_make_assignment.py "
    "runs make's ASSIGNMENT with real ids",
    "python -m ndcg_ref": "names the reference's command line (docs/reference.md), which needs TREC files",
}

#: Commands that run until stopped: the test starts them, checks them with the function of this name
#: in the test module, and stops them.
LONG_RUNNING = {"make formgrader": "check_formgrader"}


@dataclass(frozen=True)
class Step:
    """One thing the docs test does, in the document's order."""

    kind: str  # "tutor", "student", "laptop" (a student's, for the first student only), "file"
    text: str  # the command, or the file's content
    line: int  # 1-based line in the document
    path: str = ""  # for "file": where it goes, relative to the course directory


@dataclass(frozen=True)
class Document:
    """A document's steps, the unmarked blocks and the command spans it has."""

    name: str
    steps: tuple[Step, ...]
    unmarked_blocks: tuple[int, ...]  # lines of fenced blocks without a language
    spans: tuple[str, ...]  # every command span, in order (repeats included)
    not_run: frozenset[str]  # commands of this document that NOT_RUN lists


_FENCE = re.compile(r"^(\s*)(`{3,})(.*)$")
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_TRAILING_COMMENT = re.compile(r"\s+#\s.*$")


def is_command(span: str) -> bool:
    """Whether a code span is a command: a known program (its first word) with an argument.

    A program's name alone (`make`, `python`) names it in a sentence; it is not a command to type.
    """
    words = span.split()
    return len(words) > 1 and (words[0] in COMMAND_WORDS or words[0].startswith(".venv/bin/"))


def command_of(line: str) -> str:
    """A block line without its trailing comment, as the docs' spans would quote it."""
    return _TRAILING_COMMENT.sub("", line).strip()


def _spans(prose: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The code spans of a stretch of prose, each with the line it starts on; whitespace collapsed."""
    text = "\n".join(line for _, line in prose)
    starts = [number for number, _ in prose]
    found = []
    for match in _SPAN.finditer(text):
        line = starts[text.count("\n", 0, match.start())]
        found.append((line, " ".join(match.group(2).split())))
    return found


def read_document(name: str) -> Document:
    """Parse ``name`` (relative to the repository) into the steps the docs test runs."""
    lines = (ROOT / name).read_text(encoding="utf-8").split("\n")
    raw: list[tuple[str, int, str, str]] = []  # (kind, line, text, path) before spans are placed
    prose: list[tuple[int, str]] = []
    spans: list[tuple[int, str]] = []
    unmarked: list[int] = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if not fence:
            prose.append((index + 1, lines[index]))
            index += 1
            continue
        spans += _spans(prose)
        prose = []
        indent, ticks, info = len(fence.group(1)), fence.group(2), fence.group(3).strip()
        start = index + 1
        index += 1
        body: list[tuple[int, str]] = []
        while index < len(lines) and not lines[index].strip().startswith(ticks):
            body.append((index + 1, lines[index][indent:]))
            index += 1
        index += 1  # the closing fence
        words = info.split()
        if not words:
            unmarked.append(start)
        elif any(word.startswith("file=") for word in words):
            path = next(word for word in words if word.startswith("file="))[len("file="):]
            raw.append(("file", start, "\n".join(text for _, text in body) + "\n", path))
        elif words[0] in ("bash", "sh", "shell"):
            student = bool(body) and body[0][1].strip().startswith(STUDENT_MARK)
            kind = ("laptop" if LAPTOP_MARK in body[0][1] else "student") if student else "tutor"
            for number, text in body:
                if text.strip() and not text.strip().startswith("#"):
                    raw.append((kind, number, text.strip(), ""))
    spans += _spans(prose)

    in_blocks = {command_of(text) for kind, _, text, _ in raw if kind != "file"}
    commands = [(line, span) for line, span in spans if is_command(span)]
    seen: set[str] = set()
    for line, span in commands:
        if span in NOT_RUN or span in in_blocks or span in seen:
            continue
        seen.add(span)
        raw.append(("tutor", line, span, ""))
    raw.sort(key=lambda step: step[1])
    used = {span for _, span in commands} | in_blocks
    return Document(
        name=name,
        steps=tuple(Step(kind, text, line, path) for kind, line, text, path in raw
                    if kind == "file" or command_of(text) not in NOT_RUN),
        unmarked_blocks=tuple(unmarked),
        spans=tuple(span for _, span in commands),
        not_run=frozenset(command for command in NOT_RUN if command in used),
    )
