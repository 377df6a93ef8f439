"""Benchmark: ndcg_ref against pytrec-eval-terrier, ranx and scikit-learn, in memory and from files.

Synthetic data: Q queries x 100 documents, grades 0-3, random scores (no ties). Every tool gets
the same data converted to its own input format; conversion is timed apart from evaluation.
Each evaluation is run `--repeat` times, and short ones until 0.5 s is spent (at most 100 runs,
as timeit does), for every tool alike; the best time is kept (the machine is shared).
All tools' mean nDCG values are checked to agree (to 1e-5 in memory, where trec_eval's 32-bit
scores make pytrec-eval tie nearly equal scores; to 1e-9 from files, 5e-5 against trec_eval's
four printed decimals); the script fails if not.

In memory, nDCG@10 from grades and scores end to end is also set beside the memory floor (one
`.sum()` over the grades and the scores: the time to read them once, this machine's bandwidth)
and a plain 15-line numpy baseline (`numpy_baseline`: argsort per row, gather, discount sum),
all measured in the same run.

From files, `--trec-eval PATH` also runs a trec_eval binary (build it by hand, outside the
project) and `python -m ndcg_ref` as a program beside it (both with their start-up); without
the option, or when PATH is not an executable, trec_eval is skipped.

    make .venv-bench/.installed        # the kit and the other tools, apart from the course's .venv
    .venv-bench/bin/python scripts/bench_ndcg.py                 # 10,000 and 100,000 queries
    .venv-bench/bin/python scripts/bench_ndcg.py --queries 10000 --ranx-max 0   # without ranx
    .venv-bench/bin/python scripts/bench_ndcg.py --trec-eval ~/trec_eval-10.0/trec_eval
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ndcg_ref import ndcg_batch, ndcg_from_scores, rank_by_score  # noqa: E402
from ndcg_ref.trec import evaluate_files  # noqa: E402

DOCS = 100


#: Short timings are repeated until this much time is spent (as timeit's autorange does), so
#: that a few-millisecond run is not judged on three samples of a noisy machine.
MIN_TOTAL_S = 0.5
MAX_RUNS = 100


def best_of(function, repeat: int):
    """Best time of at least ``repeat`` runs, more for short runs (same rule for every tool)."""
    best, result, spent, runs = float("inf"), None, 0.0, 0
    while runs < repeat or (spent < MIN_TOTAL_S and runs < MAX_RUNS):
        gc.collect()
        started = time.perf_counter()
        result = function()
        elapsed = time.perf_counter() - started
        best, spent, runs = min(best, elapsed), spent + elapsed, runs + 1
    return best, result


def make_data(queries: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(queries, DOCS)).astype(np.float64)
    scores = rng.random((queries, DOCS))
    return grades, scores


def to_dicts(grades, scores):
    qrels = {f"q{q}": {f"d{d}": int(g) for d, g in enumerate(row)} for q, row in enumerate(grades)}
    run = {f"q{q}": {f"d{d}": float(s) for d, s in enumerate(row)} for q, row in enumerate(scores)}
    return qrels, run


def write_files(folder: Path, grades, scores):
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    with open(run_path, "w") as run_file, open(qrels_path, "w") as qrels_file:
        for q in range(grades.shape[0]):
            order = np.argsort(-scores[q])
            run_file.write("".join(f"q{q} Q0 d{d} {r + 1} {float(scores[q, d])!r} bench\n" for r, d in enumerate(order)))
            qrels_file.write("".join(f"q{q} 0 d{d} {int(grades[q, d])}\n" for d in range(DOCS)))
    return run_path, qrels_path


def numpy_baseline(grades, scores, k: int = 10):
    """nDCG@k as one would write it with numpy in 15 lines: argsort per row, gather, discount sum."""
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    order = np.argsort(-scores, axis=1)[:, :k]
    ranked = np.take_along_axis(grades, order, axis=1)
    dcg = ranked @ discounts
    ideal = -np.sort(-grades, axis=1)[:, :k]
    idcg = ideal @ discounts
    return np.divide(dcg, idcg, out=np.zeros(len(dcg)), where=idcg > 0)


def from_scores(queries: int, repeat: int) -> tuple[float, list[tuple[str, float, float]], int]:
    """nDCG@10 from grades and scores, end to end: the memory floor's seconds, ``(tool, seconds,
    mean)`` rows (ndcg_from_scores first), and the input bytes."""
    grades, scores = make_data(queries, seed=2)
    from sklearn.metrics import ndcg_score

    floor, _ = best_of(lambda: grades.sum() + scores.sum(), repeat)  # read both arrays once
    tools = [
        ("ndcg_ref ndcg_from_scores(grades, scores, 10)", lambda: float(ndcg_from_scores(grades, scores, 10).mean())),
        ("ndcg_ref ndcg_batch(rank_by_score(grades, scores), 10)",
         lambda: float(ndcg_batch(rank_by_score(grades, scores), 10).mean())),
        ("ndcg_ref ndcg_batch(rank_by_score(grades, scores, k=10), 10, ideal=grades)",
         lambda: float(ndcg_batch(rank_by_score(grades, scores, k=10), 10, ideal=grades).mean())),
        ("numpy baseline (argsort per row + gather + discount sum)", lambda: float(numpy_baseline(grades, scores).mean())),
        ("scikit-learn ndcg_score(..., k=10, ignore_ties=True)",
         lambda: float(ndcg_score(grades, scores, k=10, ignore_ties=True))),
    ]
    return floor, [(name, *best_of(function, repeat)) for name, function in tools], grades.nbytes + scores.nbytes


def peak_memory(function) -> int:
    gc.collect()
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def in_memory(queries: int, repeat: int, skip_ranx: bool) -> list[tuple]:
    grades, scores = make_data(queries)
    rows = []  # (tool, measure, conversion s, evaluation s, mean)
    conversion, ranked = best_of(lambda: rank_by_score(grades, scores), repeat)
    for measure, k in (("nDCG@10", 10), ("nDCG", None)):
        evaluation, values = best_of(lambda k=k: ndcg_batch(ranked, k), repeat)
        rows.append(("ndcg_ref", measure, conversion, evaluation, float(values.mean())))
    from sklearn.metrics import ndcg_score

    for measure, k in (("nDCG@10", 10), ("nDCG", None)):
        evaluation, value = best_of(lambda k=k: ndcg_score(grades, scores, k=k, ignore_ties=True), repeat)
        rows.append(("scikit-learn ndcg_score", measure, 0.0, evaluation, float(value)))
    import pytrec_eval

    conversion, (qrels, run) = best_of(lambda: to_dicts(grades, scores), 1)
    for measure, name, key in (("nDCG@10", "ndcg_cut.10", "ndcg_cut_10"), ("nDCG", "ndcg", "ndcg")):
        evaluation, result = best_of(lambda name=name: pytrec_eval.RelevanceEvaluator(qrels, {name}).evaluate(run), repeat)
        rows.append(("pytrec-eval-terrier", measure, conversion, evaluation, float(np.mean([v[key] for v in result.values()]))))
    if not skip_ranx:
        import ranx

        ranx.evaluate(ranx.Qrels({"a": {"x": 1}}), ranx.Run({"a": {"x": 1.0}}), ["ndcg@10", "ndcg"])  # numba compile
        started = time.perf_counter()
        ranx_qrels, ranx_run = ranx.Qrels(qrels), ranx.Run(run)
        ranx_conversion = conversion + time.perf_counter() - started
        for measure, name in (("nDCG@10", "ndcg@10"), ("nDCG", "ndcg")):
            evaluation, value = best_of(lambda name=name: ranx.evaluate(ranx_qrels, ranx_run, name, make_comparable=False), repeat)
            rows.append(("ranx", measure, ranx_conversion, evaluation, float(value)))
    input_bytes = grades.nbytes + scores.nbytes
    peak = peak_memory(lambda: ndcg_batch(rank_by_score(grades, scores), (10, None)))
    return rows, peak, input_bytes


def program_means(command: list[str]) -> tuple[float, float]:
    """Run a trec_eval-style program; its ``ndcg_cut_10`` and ``ndcg`` lines for ``all``."""
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    means = {fields[0]: float(fields[2]) for fields in map(str.split, done.stdout.splitlines())
             if len(fields) == 3 and fields[1] == "all"}
    return means["ndcg_cut_10"], means["ndcg"]


def from_files(queries: int, repeat: int, trec_eval: Path | None) -> list[tuple]:
    grades, scores = make_data(queries, seed=1)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ndcg-bench-") as folder:
        run_path, qrels_path = write_files(Path(folder), grades, scores)
        elapsed, result = best_of(lambda: evaluate_files(
            run_path, qrels_path, ["ndcg_cut.10", "ndcg"], score_precision="float32"  # pytrec-eval compares float32
        ), repeat)
        rows.append(("ndcg_ref (evaluate_files, in this process)", elapsed, result.means["ndcg_cut_10"], result.means["ndcg"]))
        if trec_eval is not None:  # both as programs, with their start-up, so that they compare fairly
            # (trec_eval 10.0 compares scores as doubles, as python -m ndcg_ref does by default)
            command = [sys.executable, "-m", "ndcg_ref", str(run_path), str(qrels_path), "-m", "ndcg_cut.10", "-m", "ndcg"]
            elapsed, (cut, full) = best_of(lambda: program_means(command), repeat)
            rows.append(("python -m ndcg_ref (a program)", elapsed, cut, full))
            command = [str(trec_eval), "-m", "ndcg_cut.10", "-m", "ndcg", str(qrels_path), str(run_path)]
            elapsed, (cut, full) = best_of(lambda: program_means(command), repeat)
            rows.append(("trec_eval (a program)", elapsed, cut, full))
        import pytrec_eval

        def with_pytrec():
            with open(qrels_path) as q, open(run_path) as r:
                qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
            values = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "ndcg"}).evaluate(run).values()
            return np.mean([v["ndcg_cut_10"] for v in values]), np.mean([v["ndcg"] for v in values])

        elapsed, (cut, full) = best_of(with_pytrec, repeat)
        rows.append(("pytrec-eval-terrier (parse_run/parse_qrel)", elapsed, cut, full))
        import ir_measures

        def with_ir_measures():
            qrels = ir_measures.read_trec_qrels(str(qrels_path))
            run = ir_measures.read_trec_run(str(run_path))
            result = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.nDCG], qrels, run)
            return result[ir_measures.nDCG @ 10], result[ir_measures.nDCG]

        elapsed, (cut, full) = best_of(with_ir_measures, repeat)
        rows.append(("ir-measures (read_trec_*, calc_aggregate)", elapsed, cut, full))
        size = os.path.getsize(run_path) + os.path.getsize(qrels_path)
    return rows, size


def disagreements(rows: list[tuple[str, str, float]], tolerance: float) -> list[str]:
    """``(tool, measure, mean)`` rows whose mean differs from ndcg_ref's by more than ``tolerance``."""
    ours = {measure: mean for tool, measure, mean in rows if tool.startswith("ndcg_ref")}
    return [f"{tool} {measure}: {mean!r} vs ndcg_ref {ours[measure]!r}"
            for tool, measure, mean in rows if abs(mean - ours[measure]) > tolerance]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranx-max", type=int, default=10_000,
                        help="run ranx only up to this many queries: its conversion from dicts takes minutes (default 10,000)")
    parser.add_argument("--skip-files", action="store_true")
    parser.add_argument("--trec-eval", type=Path, help="a trec_eval binary to compare with from files (skipped when absent)")
    args = parser.parse_args()
    trec_eval = args.trec_eval if args.trec_eval and os.access(args.trec_eval, os.X_OK) else None
    if args.trec_eval and trec_eval is None:
        print(f"trec_eval: {args.trec_eval} is not an executable file, skipped")
    import platform

    import numpy

    print(f"cores: {os.cpu_count()}; Python {platform.python_version()}; numpy {numpy.__version__}; "
          f"documents per query: {DOCS}; best of >= {args.repeat} runs (short ones: until {MIN_TOTAL_S} s is spent)")
    problems: list[str] = []
    for queries in args.queries:
        rows, peak, input_bytes = in_memory(queries, args.repeat, skip_ranx=queries > args.ranx_max)
        print(f"\n## in memory, {queries:,} queries x {DOCS} documents\n")
        print("| tool | measure | conversion s | evaluation s | queries/s (evaluation) | mean | evaluation ratio vs ndcg_ref | end-to-end ratio |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        ours = {m: (c, e) for tool, m, c, e, _ in rows if tool == "ndcg_ref"}
        for tool, measure, conversion, evaluation, mean in rows:
            ratio = evaluation / ours[measure][1]
            total = (conversion + evaluation) / sum(ours[measure])
            print(f"| {tool} | {measure} | {conversion:.3f} | {evaluation:.3f} | {queries / evaluation:,.0f} | {mean:.6f} | {ratio:.1f}x | {total:.1f}x |")
        problems += disagreements([(tool, measure, mean) for tool, measure, _, _, mean in rows], 1e-5)
        print(f"\nndcg_ref peak memory (rank_by_score + ndcg_batch for @10 and full): {peak / 2**20:.0f} MiB "
              f"= {peak / input_bytes:.2f}x the input arrays ({input_bytes / 2**20:.0f} MiB)")
        floor, score_rows, score_bytes = from_scores(queries, args.repeat)
        print(f"\n## nDCG@10 from grades and scores, end to end, {queries:,} queries x {DOCS} documents "
              f"({score_bytes / 2**20:.0f} MiB of float64)\n")
        print("| tool | s | x memory floor | ratio vs ndcg_from_scores | mean |")
        print("|---|---:|---:|---:|---:|")
        print(f"| memory floor: grades.sum() + scores.sum() | {floor:.4f} | 1.0x | {floor / score_rows[0][1]:.2f}x | |")
        for tool, elapsed, mean in score_rows:
            print(f"| {tool} | {elapsed:.4f} | {elapsed / floor:.1f}x | {elapsed / score_rows[0][1]:.2f}x | {mean:.6f} |")
        print(f"\nmemory floor: {score_bytes / floor / 1e9:.1f} GB/s read")
        reference = score_rows[0][2]
        problems += [f"{tool}: nDCG@10 {mean!r} vs ndcg_from_scores {reference!r}"
                     for tool, _, mean in score_rows if abs(mean - reference) > 1e-12]
        if not args.skip_files:
            file_rows, size = from_files(queries, max(1, args.repeat - 1), trec_eval)
            print(f"\n## from files, {queries:,} queries x {DOCS} documents ({size / 2**20:.0f} MiB of run + qrels)\n")
            print("| tool | end-to-end s | queries/s | nDCG@10 | nDCG | ratio vs ndcg_ref |")
            print("|---|---:|---:|---:|---:|---:|")
            base = file_rows[0][1]
            for tool, elapsed, cut, full in file_rows:
                print(f"| {tool} | {elapsed:.2f} | {queries / elapsed:,.0f} | {cut:.6f} | {full:.6f} | {elapsed / base:.1f}x |")
            problems += disagreements(
                [(tool, m, float(v)) for tool, _, cut, full in file_rows if "program" not in tool
                 for m, v in (("nDCG@10", cut), ("nDCG", full))], 1e-9
            )
            problems += disagreements(  # programs print four decimals
                [(tool, m, float(v)) for tool, _, cut, full in file_rows if "program" in tool or tool == file_rows[0][0]
                 for m, v in (("nDCG@10", cut), ("nDCG", full))], 5e-5
            )
    if problems:
        print("\nTOOLS DISAGREE:\n" + "\n".join(problems), file=sys.stderr)
        return 1
    print("\nall tools' means agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
