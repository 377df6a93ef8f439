"""The declared Python floor is true: every installed distribution admits it (Debian 12 ships 3.11.2)."""

from __future__ import annotations

import tomllib
from importlib.metadata import distributions

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from conftest import ROOT


def _floor() -> Version:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    if not declared.startswith(">="):
        raise ValueError(f"requires-python should be a floor like '>=3.11', got {declared!r}")
    return Version(declared.removeprefix(">="))


def test_every_installed_distribution_admits_the_declared_python_floor():
    floor = _floor()
    refusing = sorted(
        f"{dist.metadata['Name']} {dist.version} requires Python {dist.metadata['Requires-Python']}"
        for dist in distributions()
        if dist.metadata.get("Requires-Python")
        and not SpecifierSet(dist.metadata["Requires-Python"]).contains(floor, prereleases=True)
    )
    assert refusing == [], f"pin versions that admit Python {floor} in constraints.txt"


def test_every_pin_in_pyproject_is_in_the_lock():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = list(project["dependencies"]) + [p for extra in project["optional-dependencies"].values() for p in extra]
    lock = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
            for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").split() if "==" in line}
    for pin in pins:
        name, version = pin.split("==")
        name = name.split("[")[0]  # psycopg[binary], dask[distributed]: the extra's packages are pinned by their own names
        assert lock.get(name.lower().replace("_", "-")) == version, pin
