"""Helpers of the executor tests: the small grid (2 packaged models × one cheap task per landed suite).
Results folders are compared with ``compeval.results.compare.differences``."""
from __future__ import annotations

import os

import pytest

MODELS = ["glove-6b-50d", "all-MiniLM-L6-v2"]
# One cheap task per suite (sts, modifiers, probing, invariance, structure, lexcomp). Lexcomp runs its
# majority baselines only (they still load the task's data): training its heads on MiniLM takes minutes.
GRID = [
    "ks2013,bootstrap=200",
    "modifiers-test3,n_resamples=200",
    "probe-has-x,n_train=200,n_test=100,classifiers=logreg",
    "invariance-relation,pairs_per_relation=2,bootstrap=200",
    "minimal-pairs,n_bases=10,bootstrap=200",
    "lexcomp-nc-literality,baseline_only=true",
]
N_JOBS = len(MODELS) * len(GRID)


def require_ray():
    """Ray, or a skip when it is not installed (unless COMPEVAL_REQUIRE_RAY=1, as in CI)."""
    if os.environ.get("COMPEVAL_REQUIRE_RAY") == "1":
        import ray

        return ray
    return pytest.importorskip("ray", reason="Ray is not installed (pip install 'compeval[ray]')")
