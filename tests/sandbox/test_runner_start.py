"""The runner starts without the ``site`` module (``python -I -S``) and a notebook sees no difference.

``site`` cost about 17 ms of each of a submission's three starts; the runner now adds the
site-packages folders itself, named in an environment variable it removes (``sandbox/launch.py``:
``runner_command``). A notebook must still find numpy, IPython's magics, ``exit`` and ``help``, and
see ``sys.argv`` and the environment as before; what ``.pth`` files
add (the kit's editable install, whose import hook names the tutor's folders) is not there.
"""

from __future__ import annotations

import ast
import shutil

import pytest

from autograder.sandbox import Budget, CallOrder, CellOutcome, choose_sandbox, run_submission

pytestmark = pytest.mark.slow

PROBE = '''import sys
import numpy
facts = {
    "argv": [len(sys.argv), sys.argv[0].endswith("runner.py")],  # paths are redacted in reports
    "no_site": sys.flags.no_site,
    "isolated": sys.flags.isolated,
    "exit": callable(exit) and callable(quit) and callable(help),
    "numpy": float(numpy.log2(4.0)),
    "editable_hook": sorted(name for name in sys.modules if "editable" in name),
    "site_on_path": any(p.endswith("-packages") for p in sys.path),
    "variable": "NDCG_SITE_PACKAGES" in __import__("os").environ,
}
try:
    import autograder  # the grader's own package: neither mounted nor on the path
    facts["autograder"] = "importable"
except ImportError:
    facts["autograder"] = "absent"
raise ValueError(repr(facts))
'''

MAGIC = "%time total = sum(range(10))\n"


@pytest.mark.parametrize("mode", ["required", "none"])
def test_a_notebook_sees_packages_exit_and_argv_as_before(mode: str) -> None:
    if mode == "required" and shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap (.ci/run installs it)")
    sandbox = choose_sandbox(mode)
    calls = [CallOrder(0, "total_of", ())]
    cells = [PROBE, MAGIC, "def total_of():\n    return float(total)\n"]
    outcome = run_submission(sandbox, cells, calls, timeout=20, budget=Budget(120))
    assert outcome.fatal is None, outcome.fatal
    probe = outcome.cells[0]
    assert probe.outcome is CellOutcome.ERROR and probe.message is not None
    facts = ast.literal_eval(probe.message)  # data from the sandbox: parsed, never evaluated
    assert facts["argv"] == [1, True]
    assert facts["no_site"] == 1 and facts["isolated"] == 1
    assert facts["exit"] is True and facts["site_on_path"] is True and facts["variable"] is False
    assert facts["numpy"] == pytest.approx(2.0)  # log2(4)
    assert facts["editable_hook"] == [] and facts["autograder"] == "absent"
    assert outcome.cells[1].outcome is CellOutcome.OK  # IPython's %time, imported from site-packages
    assert outcome.calls[0].value == pytest.approx(sum(range(10)))
