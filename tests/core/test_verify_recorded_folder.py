"""``verify`` without ``--data-dir`` reads the data folder each result recorded; when that folder is gone, its
line names that folder (the one to restore or pass), not the cache it fell back to."""
from __future__ import annotations

import os
import shutil

import pytest

from cli_process import cli

DATA = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")


@pytest.mark.parametrize("gone", ["deleted", "renamed", "a file"])
def test_verify_names_the_recorded_data_folder_when_it_is_gone(tmp_path, gone):
    data = tmp_path / "mydata"
    shutil.copytree(f"{DATA}/sts3k", data / "sts3k")
    env = dict(HOME=str(tmp_path / "home"), COMPEVAL_DATA_DIR="", COMPEVAL_CACHE_DIR="", COLUMNS="200")
    run = cli("run", "-m", "hashbag", "-t", "sts3k-pilot", "--data-dir", "mydata", "--no-cache", "--no-report",
              "--offline", cwd=tmp_path, **env)
    assert run.returncode == 0, run.stderr
    if gone == "deleted":
        shutil.rmtree(data)
    else:
        data.rename(tmp_path / "elsewhere")
        if gone == "a file":
            data.write_text("")
    bad = cli("verify", "results", "--no-cache", cwd=tmp_path, **env)
    assert bad.returncode == 1
    text = bad.stdout + bad.stderr
    assert str(data) in text, text
    assert "--data-dir" in text, text
