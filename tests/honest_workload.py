"""What honest students run in a notebook besides their dcg/ndcg: cells the sandbox's system call
allowlist must keep working (scripts/trace_sandbox_syscalls.py traces them to derive the list;
tests/sandbox/test_threat_kernel_surface.py runs them under the filter).

Every cell ends with a check that raises when it did not do its job, so a cell that "runs" but
silently lost its work (a figure not written, a thread that never ran) is reported as failed.
Everything is written into the sandbox's scratch home only.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from grading_run import CORRECT_DCG, CORRECT_NDCG

ROOT = Path(__file__).resolve().parents[1]
WALKTHROUGH = ROOT / "release" / "walkthrough" / "ndcg_walkthrough.ipynb"

MAGICS = [
    "%matplotlib inline\nimport matplotlib.pyplot as plt\nimport numpy as np",
    "%time total = sum(range(10_000))\nassert total == 49_995_000",
    "%timeit -n 3 -r 2 sum(range(1000))",
    "%%time\nsquares = [i * i for i in range(1000)]\nassert squares[-1] == 999 * 999",
    "%precision 3\n%who\n%env",
    "%config InlineBackend.figure_format = 'png'\n%xmode Minimal",
    "%%writefile notes.txt\nwritten by a cell magic",
    "assert open('notes.txt').read().startswith('written by')",
    "%load_ext autoreload\n%autoreload 2",
    "here = %pwd\nassert here",
    "listing = !echo shell-escape\nassert listing == ['shell-escape'], listing",
    "!ls > listing.txt\nimport os\nassert os.path.exists('listing.txt')",
]

FIGURES = [
    '''import matplotlib.pyplot as plt
import numpy as np
fig, axes = plt.subplots(2, 2, figsize=(6, 4))
x = np.linspace(0, 10, 200)
axes[0, 0].plot(x, np.sin(x), label=r"$\\sin(x)$")
axes[0, 0].legend()
axes[0, 1].bar(["a", "b", "c"], [3, 1, 2])
axes[1, 0].hist(np.random.default_rng(0).normal(size=1000), bins=30)
axes[1, 1].imshow(np.arange(100).reshape(10, 10))
fig.suptitle("nDCG@k — ünïcode and $\\\\log_2$")
fig.tight_layout()
for extension in ("png", "svg", "pdf"):
    fig.savefig(f"figure.{extension}")
plt.show()
plt.close("all")
import os
assert all(os.path.getsize(f"figure.{e}") > 1000 for e in ("png", "svg", "pdf"))''',
]

NUMPY_AND_FRIENDS = [
    '''import numpy as np
rng = np.random.default_rng(42)
a = rng.normal(size=(300, 300))
assert np.allclose(a @ np.linalg.solve(a, np.ones(300)), 1)
u, s, vt = np.linalg.svd(a[:50, :50])
spectrum = np.fft.fft(rng.normal(size=4096))
big = np.ones(40_000_000 // 8)  # large enough for malloc to map (and trim) it
big[::4096] = 2.0
assert big.sum() > big.size
del big
np.save("array.npy", a)
assert np.array_equal(np.load("array.npy"), a)
mapped = np.memmap("mapped.dat", dtype="float64", mode="w+", shape=(1000,))
mapped[:] = 1.0
mapped.flush()
assert np.memmap("mapped.dat", dtype="float64", mode="r").sum() == 1000''',
    '''from sklearn.metrics import ndcg_score
import scipy.stats
assert 0 < ndcg_score([[1, 0, 2, 1, 0]], [[5, 4, 3, 2, 1]]) < 1
assert scipy.stats.spearmanr([1, 2, 3], [1, 2, 3]).statistic > 0.99''',
]

STANDARD_LIBRARY = [
    '''import threading, concurrent.futures, queue
results = queue.Queue()
threads = [threading.Thread(target=results.put, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert sorted(results.get() for _ in range(4)) == [0, 1, 2, 3]
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    assert list(pool.map(abs, [-1, -2])) == [1, 2]''',
    '''import multiprocessing
with multiprocessing.Pool(2) as pool:
    assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3]
lock = multiprocessing.Lock()
with lock:
    pass''',
    '''import subprocess, sys
done = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True, check=True)
assert done.stdout.strip() == "42"
assert subprocess.run(["sh", "-c", "exit 3"]).returncode == 3''',
    '''import datetime, getpass, hashlib, json, locale, os, pickle, platform, random, secrets, shutil
import socket, sqlite3, tempfile, time, zoneinfo, resource, signal, math, fractions, decimal
time.sleep(0.01)
assert datetime.datetime.now(zoneinfo.ZoneInfo("UTC")).year > 2000
assert len(secrets.token_hex(8)) == 16 and 0 <= random.random() < 1
with tempfile.TemporaryDirectory() as folder:
    source = os.path.join(folder, "a.txt")
    with open(source, "w") as handle:
        handle.write("x" * 100_000)
    shutil.copy(source, source + ".copy")
    assert os.path.getsize(source + ".copy") == 100_000
    assert sorted(os.listdir(folder)) == ["a.txt", "a.txt.copy"]
database = sqlite3.connect(":memory:")
assert database.execute("select 1 + 1").fetchone() == (2,)
assert pickle.loads(pickle.dumps({"a": [1, 2]})) == {"a": [1, 2]}
assert hashlib.sha256(b"x").hexdigest() and json.dumps([1])
platform.platform(); socket.gethostname(); locale.getpreferredencoding(); os.cpu_count()
resource.getrusage(resource.RUSAGE_SELF)
try:
    getpass.getuser()
except (KeyError, OSError):  # the sandbox's user id has no passwd entry as root: that is fine
    pass
signal.signal(signal.SIGALRM, lambda *a: None); signal.setitimer(signal.ITIMER_REAL, 0.01); time.sleep(0.05)
assert os.isatty(0) is False''',
]


def walkthrough_cells() -> list[str]:
    """The students' copy of the walkthrough with a correct solution in its solution cell."""
    notebook = nbformat.read(WALKTHROUGH, as_version=4)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        solution = cell.metadata.get("nbgrader", {}).get("solution", False)
        cells.append(f"{CORRECT_DCG}\n\n\n{CORRECT_NDCG}" if solution else cell.source)
    return cells


def honest_cells() -> list[str]:
    """Every cell above, in an order a notebook could have them (magics first: they load IPython)."""
    return [*MAGICS, *FIGURES, *NUMPY_AND_FRIENDS, *STANDARD_LIBRARY, *walkthrough_cells()]
