"""An environment with nbgrader and Jupyter but without the kit: a JupyterHub's usual one, made for real.

A new venv that sees this venv's installed packages (nbgrader, nbconvert, Jupyter, JupyterHub)
through a ``.pth`` line but not the kit's editable install (that is a ``.pth`` file of its own,
which Python reads only in a site folder, not in a folder a ``.pth`` line adds). Nothing is
downloaded. Its ``etc/jupyter`` and ``share/jupyter`` hold what those packages installed there
(nbgrader's server extensions enabled, nbconvert's templates: pip writes them into the environment
the packages are installed in; the shared folder is a link, 25 MB), and its
``bin/jupyterhub-singleuser`` is the script pip would write there, so a hub service's command names
it as it names the course venv's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

#: The script pip writes for ``jupyterhub-singleuser`` (its ``#!`` line names the environment's Python).
SINGLEUSER_SCRIPT = """#!{python}
import sys
from jupyterhub.singleuser import main
if __name__ == "__main__":
    sys.exit(main())
"""


def make_environment_without_the_kit(home: Path) -> Path:
    """Make the environment in ``home`` (a new folder); its Python, checked to import nbgrader but not the kit.

    Raises
    ------
    RuntimeError
        If the new environment can import the kit after all (the test would prove nothing).
    """
    venv.create(home, with_pip=False, symlinks=True)
    site = Path(sysconfig.get_paths(vars={"base": str(home), "platbase": str(home)})["purelib"])
    (site / "course-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    shutil.copytree(Path(sys.prefix) / "etc" / "jupyter", home / "etc" / "jupyter")
    (home / "share").mkdir()
    (home / "share" / "jupyter").symlink_to(Path(sys.prefix) / "share" / "jupyter")
    python = home / "bin" / "python"
    script = home / "bin" / "jupyterhub-singleuser"
    script.write_text(SINGLEUSER_SCRIPT.format(python=python), encoding="utf-8")
    script.chmod(0o755)
    probe = subprocess.run(
        [python, "-I", "-c", "import importlib.util as u, nbgrader, jupyter_server; print(u.find_spec('autograder'))"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    if probe.stdout.strip() != "None":
        raise RuntimeError(f"the environment without the kit imports it ({sys.prefix}): {probe.stdout}")
    return python
