"""The command line's Dask options: refused in one line when they cannot be used, before anything is written."""

from __future__ import annotations

from autograder.cli import main


def test_scheduler_and_processes_exclude_each_other(tmp_path, capsys):
    (tmp_path / "submitted").mkdir()
    code = main(["grade", "--submitted", str(tmp_path / "submitted"), "--out", str(tmp_path / "out"),
                 "--scheduler", "tls://127.0.0.1:8786", "--dask-processes", "2", "--quiet"])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1 and "--scheduler and --dask-processes exclude each other" in error
    assert not (tmp_path / "out").exists()


def test_a_negative_number_of_processes_is_refused(tmp_path, capsys):
    (tmp_path / "submitted").mkdir()
    code = main(["grade", "--submitted", str(tmp_path / "submitted"), "--processes", "-1", "--quiet"])
    assert code == 2 and "--dask-processes must be at least 1, got -1" in capsys.readouterr().err
