"""Benchmark: `python -m ndcg_ref` on ragged TREC files, time and peak memory of a child process.

Two shapes that a queries x longest-ranking layout (or ids padded to the longest id) blows up:

- long-query: many short rankings (``--short-queries`` x ``--short-docs``) and one ranking of
  ``--long-docs`` documents;
- long-id: ``--id-lines`` run lines (100 documents per query) and one document id of
  ``--id-length`` characters.

Each evaluation runs in a child process (``python -m ndcg_ref RUN QRELS -m ndcg -m ndcg_cut.10``);
its wall time and peak resident memory (``ru_maxrss`` from ``os.wait4``, that child's own) are
printed beside the size of the input files. ``--trec-eval PATH`` also runs a trec_eval binary on
the same files (skipped when not given, or when the path is not an executable) and checks that the
means agree to 5e-5 (four printed decimals). ``--package-root DIR`` evaluates with the ``ndcg_ref``
of another checkout (e.g. an older commit's worktree), and ``--memory-limit GB`` caps the child's
address space, so that a layout that blows up fails fast instead of exhausting the machine.

    .venv/bin/python scripts/bench_ragged.py
    .venv/bin/python scripts/bench_ragged.py --trec-eval ~/trec_eval-10.0/trec_eval
    .venv/bin/python scripts/bench_ragged.py --package-root /path/to/old/worktree --memory-limit 4
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measured:
    """One child process: wall seconds, peak resident bytes, exit code, and its output."""

    seconds: float
    peak_rss: int
    returncode: int
    stdout: str
    stderr: str


def run_child(command: list[str], env: dict[str, str], cwd: Path, memory_limit: int | None) -> Measured:
    """Run ``command``; peak RSS is this child's own (``os.wait4``), not the maximum over all children."""

    def limit() -> None:
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd, preexec_fn=limit)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait for it again
        out.seek(0)
        err.seek(0)
        return Measured(seconds, usage.ru_maxrss * 1024, process.returncode,
                        out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def write_long_query(folder: Path, short_queries: int, short_docs: int, long_docs: int) -> tuple[Path, Path]:
    """Many short rankings and one long one; every other document of each query is judged (grades 0-3)."""
    rng = np.random.default_rng(13)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q in range(short_queries + 1):
            docs = long_docs if q == short_queries else short_docs
            scores = np.sort(rng.random(docs))[::-1]
            grades = rng.integers(0, 4, size=docs)
            run.write("".join(f"q{q} Q0 d{q}-{d} {d + 1} {float(scores[d])!r} bench\n" for d in range(docs)))
            qrels.write("".join(f"q{q} 0 d{q}-{d} {grades[d]}\n" for d in range(0, docs, 2)))
    return run_path, qrels_path


def write_long_id(folder: Path, lines: int, id_length: int) -> tuple[Path, Path]:
    """``lines`` run lines, 100 documents per query, one of them with an id of ``id_length`` characters."""
    rng = np.random.default_rng(14)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    docs = 100
    long_id = "x" * id_length
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q in range(-(-lines // docs)):
            count = min(docs, lines - q * docs)
            names = [f"d{d}" for d in range(count)]
            if q == 0:
                names[0] = long_id
            scores = np.sort(rng.random(count))[::-1]
            grades = rng.integers(0, 4, size=count)
            run.write("".join(f"q{q} Q0 {names[d]} {d + 1} {float(scores[d])!r} bench\n" for d in range(count)))
            qrels.write("".join(f"q{q} 0 {names[d]} {grades[d]}\n" for d in range(0, count, 2)))
    return run_path, qrels_path


def means(stdout: str) -> dict[str, float]:
    """``measure -> value`` of the ``all`` lines of trec_eval-style output."""
    found = {}
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all" and fields[0].startswith("ndcg"):
            found[fields[0]] = float(fields[2])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short-queries", type=int, nargs="+", default=[5_000, 20_000])
    parser.add_argument("--short-docs", type=int, default=10)
    parser.add_argument("--long-docs", type=int, default=50_000)
    parser.add_argument("--id-lines", type=int, default=1_000_000)
    parser.add_argument("--id-length", type=int, default=3_000)
    parser.add_argument("--trec-eval", type=Path, help="a trec_eval binary to compare with (skipped when absent)")
    parser.add_argument("--package-root", type=Path, default=ROOT, help="the checkout whose ndcg_ref is measured")
    parser.add_argument("--memory-limit", type=float, help="address-space limit of each child, in GB")
    parser.add_argument("--only", choices=["long-query", "long-id"], help="run one shape only")
    args = parser.parse_args()
    trec_eval = args.trec_eval if args.trec_eval and os.access(args.trec_eval, os.X_OK) else None
    if args.trec_eval and trec_eval is None:
        print(f"trec_eval: {args.trec_eval} is not an executable file, skipped")
    env = dict(os.environ, PYTHONPATH=str(args.package_root.resolve()), PYTHONDONTWRITEBYTECODE="1")
    limit = None if args.memory_limit is None else int(args.memory_limit * 2**30)
    commit = subprocess.run(["git", "-C", str(args.package_root), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"ndcg_ref from {args.package_root} ({commit or 'no git'}); cores: {os.cpu_count()}; "
          f"memory limit per child: {'none' if limit is None else f'{args.memory_limit:g} GB'}\n")
    print("| shape | input | tool | wall s | peak RSS MiB | nDCG@10 | nDCG |")
    print("|---|---|---|---:|---:|---:|---:|")
    shapes = []
    if args.only in (None, "long-query"):
        shapes += [(f"{q:,} queries x {args.short_docs} + 1 x {args.long_docs:,}",
                    lambda folder, q=q: write_long_query(folder, q, args.short_docs, args.long_docs))
                   for q in args.short_queries]
    if args.only in (None, "long-id"):
        shapes.append((f"{args.id_lines:,} lines, one id of {args.id_length:,} characters",
                       lambda folder: write_long_id(folder, args.id_lines, args.id_length)))
    failed = False
    for name, write in shapes:
        with tempfile.TemporaryDirectory(prefix="ndcg-ragged-") as folder:
            run_path, qrels_path = write(Path(folder))
            size = (run_path.stat().st_size + qrels_path.stat().st_size) / 2**20
            tools = [("python -m ndcg_ref",
                      [sys.executable, "-m", "ndcg_ref", str(run_path), str(qrels_path), "-m", "ndcg_cut.10", "-m", "ndcg"])]
            if trec_eval is not None:
                tools.append(("trec_eval", [str(trec_eval), "-m", "ndcg_cut.10", "-m", "ndcg", str(qrels_path), str(run_path)]))
            results = {}
            for tool, command in tools:
                measured = run_child(command, env, args.package_root, limit)  # python -m puts the cwd first on sys.path
                results[tool] = means(measured.stdout)
                if measured.returncode != 0:
                    failed = True
                    reason = (measured.stderr.strip().splitlines() or ["killed"])[-1][:80]
                    print(f"| {name} | {size:.0f} MiB | {tool} | {measured.seconds:.2f} | {measured.peak_rss / 2**20:,.0f} "
                          f"| failed (exit {measured.returncode}: {reason}) | |")
                    continue
                value = results[tool]
                print(f"| {name} | {size:.0f} MiB | {tool} | {measured.seconds:.2f} | {measured.peak_rss / 2**20:,.0f} "
                      f"| {value.get('ndcg_cut_10', float('nan')):.4f} | {value.get('ndcg', float('nan')):.4f} |")
            if len(results) == 2 and all(results.values()):
                ours, theirs = results.values()
                if any(abs(ours[m] - theirs[m]) > 5e-5 for m in theirs):
                    print(f"  DISAGREE: ndcg_ref {ours} vs trec_eval {theirs}", file=sys.stderr)
                    failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
