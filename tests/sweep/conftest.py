"""Fixtures: the pinned sweep's replicas (and fault replicas) in an offline Hub cache (see sweep_replicas.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))



@pytest.fixture(scope="session")
def replicas(tmp_path_factory):
    """{name: spec} of the pinned list's Hub models and the fault replicas, in an offline Hub cache that
    this session's environment points at (HF_HUB_CACHE, HF_HUB_OFFLINE=1, HF_MODULES_CACHE)."""
    pytest.importorskip("torch")
    pytest.importorskip("mteb")
    from sweep_replicas import build_replica_cache

    from compeval.models import hub

    root = tmp_path_factory.mktemp("sweep-replicas")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_CACHE", str(root / "hub"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("HF_MODULES_CACHE", str(root / "modules"))
        hub._snapshot.cache_clear()
        specs = build_replica_cache(root)
        yield specs
    hub._snapshot.cache_clear()
