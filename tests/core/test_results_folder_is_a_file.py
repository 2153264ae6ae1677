"""A file where the results folder should be (``results-quick`` left as a file) is named as a file in one line,
before any work, not as the operating system's bare 'File exists'."""
from __future__ import annotations

import os

from cli_process import cli

DATA = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")


def test_a_file_named_like_the_quick_results_folder_is_refused_in_one_line(tmp_path):
    (tmp_path / "results-quick").write_text("")
    r = cli("run", "--quick", "-m", "hashbag", "--no-cache", "--no-report", "--offline", cwd=tmp_path,
            COMPEVAL_DATA_DIR=DATA)
    assert r.returncode == 2
    line = next(x for x in r.stderr.splitlines() if "results-quick" in x and "error" in x.lower())
    assert "is a file, not a folder" in line and "Traceback" not in r.stderr, r.stderr
