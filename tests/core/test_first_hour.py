"""The first hour of a new user: quick results kept apart from full ones, one headline number per task in every
view, progress lines in a log, an honest ★, ``verify`` reading the run's data, ``--plan`` writing nothing."""
from __future__ import annotations

import os

from cli_process import cli

DATA = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")


def test_quick_run_then_full_run_keep_reduced_results_out_of_the_default_folder(tmp_path):
    quick = cli("run", "--quick", "-m", "hashbag", "--no-cache", "--no-report", "--offline", cwd=tmp_path,
                COMPEVAL_DATA_DIR=DATA, COLUMNS="80")
    assert quick.returncode == 0, quick.stderr
    assert not (tmp_path / "results").exists()
    reduced = sorted(p.stem for p in (tmp_path / "results-quick").rglob("*.json") if "__n_" in p.stem)
    assert reduced, "the quick run wrote its reduced-size results into results-quick/"
    full = cli("run", "-m", "hashbag", "-t", "minimal-pairs", "-t", "sts3k-pilot", "--no-cache", "--no-report",
               "--offline", cwd=tmp_path, COMPEVAL_DATA_DIR=DATA, COLUMNS="80")
    assert full.returncode == 0, full.stderr
    written = sorted(p.stem for p in (tmp_path / "results").rglob("*.json") if p.parent.name != "results")
    assert written == ["minimal-pairs", "sts3k-pilot"], written
    board = cli("results", "results", "--leaderboard", "--format", "csv", cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    header = board.stdout.splitlines()[0]
    assert "minimal-pairs" in header and "n_bases" not in header and "n-bases" not in header
    # the end-of-run ranking: one minimal-pairs row, from the full-size result
    rows = [line for line in full.stdout.splitlines() if line.startswith("minimal-pairs")]
    assert len(rows) == 1 and "invariance" not in full.stdout and "probe-x-as-agent" not in full.stdout
