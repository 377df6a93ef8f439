"""Measure: disk written by `nbgrader collect` (the course's config) of made-up ids that each hand in a sparse file.

Whoever can write the inbound exchange may hand in under ids that keep the id rule but are in no
roster; each entry may hold up to the per-entry bound (72 MiB of apparent bytes by default), and a
sparse file costs its writer almost no disk. This builds a throw-away course (``generate_assignment``
once) whose inbound exchange holds, for each of N made-up ids, the released notebook and one sparse
file of S MiB (a few bytes of data at its start, the rest a hole), then runs
``nbgrader collect ndcg`` as a tutor runs it, with this code and with each ``--baseline`` revision's
(``git archive``, put first on ``PYTHONPATH`` of the nbgrader command), each into an empty
``submitted/``. It prints the disk the inbound entries use and the disk and apparent bytes written
to ``submitted/`` (disk: ``st_blocks`` * 512, what the file system allocated), the ids collected and
refused, and the wall time.

    .venv/bin/python scripts/bench_collect_sparse.py                                 # 4 ids x 70 MiB
    .venv/bin/python scripts/bench_collect_sparse.py -n 4 -n 20 --baseline main      # 20 ids pass the total
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_grading import code_at  # noqa: E402

from autograder.course.materials.nbgrader_commands import run_nbgrader  # noqa: E402
from autograder.gradebook.scores import tool_environment  # noqa: E402

COURSE_ID = "ir-ranking-evaluation"
STAMP = "2026-11-30 10:15:00.000000 UTC"


def build_course(folder: Path) -> Path:
    """The course (released ``ndcg``), with its exchange's inbound folder made; that folder."""
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    shutil.copytree(ROOT / "source", folder / "source")
    run_nbgrader(folder, "generate_assignment", "ndcg", "--force")
    inbound = folder / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True, exist_ok=True)
    return inbound


def fill_inbound(course: Path, inbound: Path, ids: int, mib: float) -> None:
    """``inbound`` holding exactly ``ids`` made-up entries, each the release and one sparse ``mib`` MiB file."""
    for entry in inbound.iterdir():
        shutil.rmtree(entry)
    for number in range(ids):
        entry = inbound / f"madeup{number:03}+ndcg+{STAMP}+{number}"
        entry.mkdir()
        shutil.copy(course / "release" / "ndcg" / "ndcg.ipynb", entry)
        (entry / "timestamp.txt").write_text(STAMP)
        with open(entry / "pad.bin", "wb") as handle:
            handle.write(b"data at the start; the rest is a hole")
            handle.truncate(int(mib * 1024**2))


def usage(folder: Path) -> tuple[int, int]:
    """Disk allocated (``st_blocks`` * 512) and apparent bytes of the files under ``folder``."""
    disk = apparent = 0
    for path in folder.rglob("*"):
        info = path.lstat()
        disk += info.st_blocks * 512
        apparent += info.st_size if path.is_file() and not path.is_symlink() else 0
    return disk, apparent


def collect(course: Path, code: Path) -> tuple[float, int, int, str]:
    """``nbgrader collect ndcg`` into an empty ``submitted/`` with the kit in ``code``: seconds, collected, refused."""
    shutil.rmtree(course / "submitted", ignore_errors=True)
    env = {**tool_environment(), "PYTHONPATH": str(code)}
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "collect", "ndcg"], cwd=course, env=env,
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    log = done.stdout + done.stderr
    collected = len(os.listdir(course / "submitted")) if (course / "submitted").is_dir() else 0
    refusals = [line for line in log.splitlines() if "Not collected" in line]
    return elapsed, collected, len(refusals), (refusals[-1].split("] ", 1)[-1] if refusals else "")[:300]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, action="append", help="made-up ids in the inbound exchange (repeatable; 4)")
    parser.add_argument("--mib", type=float, default=70.0, help="each entry's sparse file, apparent MiB (70)")
    parser.add_argument("--baseline", action="append", default=[], help="also measure git revision REV's kit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-collect-sparse-") as scratch:
        course = Path(scratch) / "course"
        course.mkdir()
        inbound = build_course(course)
        codes = {"this": ROOT, **{rev: code_at(rev, Path(scratch) / f"code-{i}") for i, rev in enumerate(args.baseline)}}
        print(f"nbgrader collect of N made-up ids, one sparse {args.mib:g} MiB file each (disk = st_blocks * 512)")
        print(f"{'code':<8} {'N':>4} {'inbound disk':>14} {'submitted disk':>16} {'apparent':>16} "
              f"{'collected':>9} {'refused':>7} {'wall':>7}")
        for ids in args.n or [4]:
            fill_inbound(course, inbound, ids, args.mib)
            inbound_disk, _ = usage(inbound)
            for label, code in codes.items():
                seconds, collected, refused, last = collect(course, code)
                disk, apparent = usage(course / "submitted") if (course / "submitted").is_dir() else (0, 0)
                print(f"{label:<8} {ids:>4} {inbound_disk:>14,} {disk:>16,} {apparent:>16,} {collected:>9} "
                      f"{refused:>7} {seconds:>6.1f}s")
                if last:
                    print(f"         last refusal: {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
