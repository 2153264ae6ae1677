"""Shared fixtures: the local data folder (``COMPEVAL_DATA_DIR``) and throw-away caches."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_dir() -> Path:
    env = os.environ.get("COMPEVAL_DATA_DIR")
    if not env or not Path(env).is_dir():
        pytest.skip("COMPEVAL_DATA_DIR is not set to the shared data folder")
    return Path(env)


@pytest.fixture()
def cache(tmp_path):
    from compeval.cache import EmbeddingCache

    c = EmbeddingCache(tmp_path / "cache")
    yield c
    c.close()


RUN_REPORT_DEFAULT = True  # compeval.runner.run's own default (test_run_output checks it)


@pytest.fixture(autouse=True)
def _no_report_from_run(monkeypatch):
    """``run()`` writes OUTPUT/report.html by default (issue 36); about a hundred tests call it for its
    results only, and each report costs 1–2 s, so here its default is off. A test that checks the report
    passes ``report=True``."""
    from compeval.runner import runner

    assert runner.run.__kwdefaults__["report"] is RUN_REPORT_DEFAULT
    monkeypatch.setitem(runner.run.__kwdefaults__, "report", False)
