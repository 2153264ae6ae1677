"""Fixtures of the executor tests: the local-executor reference results of the grid."""
from __future__ import annotations

import pytest

from grid_support import GRID, MODELS, N_JOBS


@pytest.fixture(scope="session")
def local_grid(data_dir, tmp_path_factory):
    """The grid run by the local executor into a fresh folder with a fresh cache: the reference."""
    from compeval.runner import run

    root = tmp_path_factory.mktemp("local_grid")
    summary = run(MODELS, GRID, root / "results", data_dir=data_dir, cache_dir=root / "cache")
    assert [o.status for o in summary.outcomes] == ["done"] * N_JOBS, summary.failed
    return root / "results", summary
