"""Threat: a student attacks the kit's environment that the sandbox binds back under its own /tmp or home.

A kit cloned under /tmp (or in the sandbox's home) has its venv inside a folder on which every run
gets a fresh tmpfs; the sandbox binds the venv back on it (cold: bubblewrap's order of mounts;
warm: zygote.py carries the binds over). Those mount points must be as solid as any other bind:
a student's code must not write into the venv, replace a module, remove or rename the mount point
or its parents, mount over it or unmount it — and the next student, forked from the same zygote,
must get full marks. The venv here is an overlay of this environment whose changes would land in
the test's own ``layer/upper`` folder (the canary): the attacks reach nothing else.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.sandbox.isolation.zygotes import COLD_VARIABLE

from grading_run import CGROUP_PROBLEM, add_student, needs_bwrap, new_course, results
from install_location import kit_elsewhere

pytestmark = [pytest.mark.slow, needs_bwrap]

CANARY = "kit-canary.txt"
#: How the kernel refuses each attempt: a read-only folder, no right to it, no capability, a busy mount point.
REFUSED = {"EROFS", "EACCES", "EPERM", "EBUSY"}
#: Each attempt on the venv the run sees at ``sys.prefix``; the cell raises with what each got (an errno name, or "done").
ATTACKS = f'''import ctypes, errno, json, os, sys
import numpy
venv = sys.prefix
kit = os.path.dirname(venv)
private = os.path.dirname(kit)
libc = ctypes.CDLL(None, use_errno=True)


def attempt(action):
    try:
        result = action()
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    if isinstance(result, int) and result != 0:
        return errno.errorcode.get(ctypes.get_errno(), "failed")
    return "done"


def overwrite(path):
    with open(path, "w") as file:
        file.write("replaced by a student")


got = {{
    "write": attempt(lambda: overwrite(os.path.join(venv, {CANARY!r}))),
    "create": attempt(lambda: overwrite(os.path.join(venv, "planted.py"))),
    "module": attempt(lambda: open(numpy.__file__, "a").close()),
    "remove": attempt(lambda: os.remove(os.path.join(venv, {CANARY!r}))),
    "rmdir": attempt(lambda: os.rmdir(venv)),
    "rename": attempt(lambda: os.rename(venv, venv + ".moved")),
    "rename_kit": attempt(lambda: os.rename(kit, kit + ".moved")),
    "rename_private": attempt(lambda: os.rename(private, private + ".moved")),
    "mount": attempt(lambda: libc.mount(b"tmpfs", venv.encode(), b"tmpfs", 0, None)),
    "umount": attempt(lambda: libc.umount2(venv.encode(), 2)),
}}
raise RuntimeError("ATTACKS" + json.dumps(got, separators=(",", ":")))'''
MAGIC_CELLS = ("%matplotlib inline\nimport matplotlib.pyplot as plt\nimport numpy as np", "%time LOG_OFFSET = 2")
MAGIC_DCG = '''def dcg(rels, k):
    return float(sum(rel / np.log2(i + LOG_OFFSET) for i, rel in enumerate(rels[:k])))'''


def _layer_files(layer: Path) -> dict[str, bytes]:
    upper = layer / "upper"
    return {str(path.relative_to(upper)): path.read_bytes() for path in upper.rglob("*") if path.is_file()}


@pytest.mark.parametrize("start", ["warm", "cold"])
@pytest.mark.parametrize("name", ["tmp", "sandbox-home"])
def test_a_student_cannot_touch_the_venv_bound_back_under_its_scratch(tmp_path, name, start):
    if start == "warm" and CGROUP_PROBLEM is not None:
        pytest.skip(f"warm starts need cgroups: {CGROUP_PROBLEM}")
    course = new_course(tmp_path / "course")
    add_student(course, "mallory", extra=(ATTACKS,))
    add_student(course, "zoe", dcg=MAGIC_DCG, extra=MAGIC_CELLS)  # after mallory, from the same zygote
    layer = tmp_path / "layer"
    layer.mkdir()
    with kit_elsewhere(name, layer) as kit:
        (layer / "upper" / CANARY).write_text("the venv as installed")
        before = _layer_files(layer)
        done = kit.run(
            ["python", "-m", "autograder", "grade", "--gradebook", "none", "--sandbox", "required", "--workers", "1"],
            cwd=course, env={COLD_VARIABLE: "1"} if start == "cold" else {},
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "warm starts are off" not in done.stderr, done.stderr[-3000:]
    assert _layer_files(layer) == before  # nothing written, removed, renamed or planted in the venv
    graded = results(course)
    found = re.search(r"ATTACKS(\{.*?\})", graded["mallory"]["message"])
    assert found is not None, graded["mallory"]["message"]  # the attacks ran, and said what each got
    got = json.loads(found.group(1))
    assert len(got) == 10 and set(got.values()) <= REFUSED, got  # each refused by the kernel, none "done"
    assert got["mount"] == got["umount"] == "EPERM", got
    record = graded["zoe"]
    assert (record["status"], record["score"]) == ("graded", EXERCISE.max_score), record["message"]
