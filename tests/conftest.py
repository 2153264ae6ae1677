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
