"""Fixtures shared by the sandbox tests."""

from __future__ import annotations

import pytest

from autograder.sandbox import choose_sandbox


@pytest.fixture(scope="module")
def sandbox():
    """A bubblewrap sandbox that forks its runs from warm zygotes (ended after the module)."""
    chosen = choose_sandbox("required")
    if chosen.zygotes is None:
        pytest.fail("a bubblewrap sandbox with cgroups and seccomp must fork its runs from a zygote")
    yield chosen
    chosen.zygotes.close()


@pytest.fixture
def acquired(sandbox, monkeypatch):
    """Every zygote the ``sandbox`` fixture's pool lends a run from now on (None where it lent none)."""
    taken = []
    acquire = sandbox.zygotes.acquire

    def recording(trial):
        zygote = acquire(trial)
        taken.append(zygote)
        return zygote

    monkeypatch.setattr(sandbox.zygotes, "acquire", recording)
    return taken
