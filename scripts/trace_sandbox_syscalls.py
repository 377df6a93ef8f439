"""Which system calls sandboxed code makes: strace around every sandbox of an honest batch.

The seccomp allowlist (``autograder/sandbox/syscall_filter/seccomp_policy.py``) was derived with this script and
must be re-checked with it when Python, numpy, matplotlib, IPython, glibc or bubblewrap change:

    python scripts/trace_sandbox_syscalls.py            # needs strace, bubblewrap; a few minutes

It grades the correct solutions, the corpus (tests/corpus.py) and the honest example submissions
with the real grader, and runs the honest workload (tests/honest_workload.py: IPython
magics, matplotlib figures, numpy, threads, processes, the walkthrough) in the real sandbox, each
sandbox under ``strace -f``. It prints every system call made *after* bubblewrap installed the
filter (in the sandbox's init and in the command and its children), with the values of the
arguments the filter checks (fcntl and ioctl commands, prctl options, clone flags, socket
families, madvise advice), and how often each was refused. Compare with the allowlist; a call
that honest code needs and the filter refuses shows up as refused with EPERM.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from autograder.course.materials.demo_course import stage_examples  # noqa: E402
from autograder.exercises.ndcg import EXERCISE  # noqa: E402
from autograder.pipeline import GradeOptions, grade_course  # noqa: E402
from autograder.sandbox import CellOutcome, Limits, run_submission  # noqa: E402
from autograder.sandbox.isolation.bubblewrap import Bubblewrap as _Bubblewrap  # noqa: E402

from corpus import CORPUS  # noqa: E402
from grading_run import add_student, new_course  # noqa: E402
from honest_workload import honest_cells  # noqa: E402
from solutions import CORRECT_SOLUTIONS  # noqa: E402

#: One strace line: pid, then a call (or the end of one that was interrupted), its text, its result.
LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")
#: Which argument the filter looks at, as strace prints it.
ARGUMENTS = {
    "fcntl": re.compile(r"^\d+, (\w+)"),
    "ioctl": re.compile(r"^\d+, (\w+)"),
    "prctl": re.compile(r"^(\w+)"),
    "clone": re.compile(r"flags=([\w|]+)"),
    "clone3": re.compile(r"flags=([\w|]+)"),
    "socket": re.compile(r"^(\w+)"),
    "madvise": re.compile(r"^0x[0-9a-f]+, \d+, (\w+)"),
    "personality": re.compile(r"^([\w|]+)"),
}
INSTALLS_FILTER = ("PR_SET_SECCOMP", "SECCOMP_SET_MODE_FILTER")
FORKS = ("clone", "clone3", "fork", "vfork")


@dataclasses.dataclass
class Seen:
    """System calls made under the filter, over all traces."""

    calls: Counter[str] = dataclasses.field(default_factory=Counter)
    arguments: dict[str, Counter[str]] = dataclasses.field(default_factory=lambda: defaultdict(Counter))
    refused: Counter[str] = dataclasses.field(default_factory=Counter)
    unknown: Counter[str] = dataclasses.field(default_factory=Counter)

    def read(self, trace: Path) -> None:
        filtered: set[str] = set()
        for text in trace.read_text(errors="replace").splitlines():
            match = LINE.match(text)
            if match is None:
                continue
            pid, resumed, name, rest = match[1], match[2], match[3], match[4]
            if pid not in filtered:
                if any(marker in text for marker in INSTALLS_FILTER):
                    filtered.add(pid)
                continue
            call = resumed or name
            if name:  # the arguments are on the line where the call starts
                self.calls[call] += 1
                if call in ARGUMENTS and (found := ARGUMENTS[call].search(rest)):
                    self.arguments[call][found[1]] += 1
            if "= -1 EPERM" in text:
                self.refused[call] += 1
            if "= -1 ENOSYS" in text:
                self.unknown[call] += 1
            child = re.search(r"= (\d+)$", text)
            if call in FORKS and child:
                filtered.add(child[1])


class TracedBubblewrap(_Bubblewrap):
    """The real sandbox, its whole launch command under ``strace -f``."""

    def __init__(self, folder: Path, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.folder = folder
        self.count = 0

    def launch(self, scratch, slot):  # type: ignore[no-untyped-def]
        launch = super().launch(scratch, slot)
        self.count += 1
        trace = self.folder / f"trace-{slot}-{self.count}.txt"
        return dataclasses.replace(launch, argv=["strace", "-f", "-qq", "-s", "0", "-o", str(trace), *launch.argv])


def _grade_honest_batch(course: Path, folder: Path) -> None:
    for name, (dcg, ndcg) in CORRECT_SOLUTIONS.items():
        add_student(course, f"correct_{name}", dcg=dcg, ndcg=ndcg)
    for number, implementation in enumerate(CORPUS):
        add_student(course, f"corpus_{number}", dcg=implementation.dcg, ndcg=implementation.ndcg)
    stage_examples(ROOT, course / "submitted", hostile=False)
    import autograder.pipeline as pipeline

    real = pipeline.choose_sandbox

    def traced(mode: str):  # type: ignore[no-untyped-def]
        chosen = real(mode)
        return TracedBubblewrap(folder, chosen.bwrap, chosen.limits, chosen.cgroups, chosen.resource_warning)

    pipeline.choose_sandbox = traced  # type: ignore[assignment]
    try:
        grade_course(GradeOptions(
            EXERCISE, submitted=course / "submitted", out=course / "graded", workers=1, timeout=60,
            sandbox="required", gradebook="none", progress=False, course_root=course,
        ))
    finally:
        pipeline.choose_sandbox = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="keep the traces in this folder (default: a temporary one)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = options.out or Path(scratch) / "traces"
        folder.mkdir(parents=True, exist_ok=True)
        _grade_honest_batch(new_course(Path(scratch) / "course"), folder)
        workload = run_submission(
            TracedBubblewrap(folder, "bwrap", Limits()), honest_cells(), [], timeout=120, budget=900
        )
        failed = {i: c for i, c in workload.cells.items() if c.outcome is not CellOutcome.OK}
        print(f"honest workload: {len(workload.cells)} cells, failed: {failed or 'none'}")
        seen = Seen()
        for trace in sorted(folder.glob("trace-*.txt")):
            seen.read(trace)
    print(f"{len(seen.calls)} system calls made under the filter:")
    print(" ".join(sorted(seen.calls)))
    for call, values in sorted(seen.arguments.items()):
        print(f"{call}: " + ", ".join(f"{value} ({count})" for value, count in values.most_common()))
    for what, counts in (("refused with EPERM", seen.refused), ("answered ENOSYS", seen.unknown)):
        print(f"{what}: " + (", ".join(f"{c} ({n})" for c, n in counts.most_common()) or "nothing"))


if __name__ == "__main__":
    main()
