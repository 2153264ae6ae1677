"""Helpers of the executor tests: the small grid (2 packaged models × one cheap task per landed suite) and
the comparison of two results folders that ignores only timings, dates, cache counters and the environment."""
from __future__ import annotations

import json
import os
from pathlib import Path

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

_VOLATILE = {"started_at", "environment", "cache", "token_cache"}


def require_ray():
    """Ray, or a skip when it is not installed (unless COMPEVAL_REQUIRE_RAY=1, as in CI)."""
    if os.environ.get("COMPEVAL_REQUIRE_RAY") == "1":
        import ray

        return ray
    return pytest.importorskip("ray", reason="Ray is not installed (pip install 'compeval[ray]')")


def _stable(x):
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if k not in _VOLATILE and not k.endswith("seconds")}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


def result_files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in Path(root).glob("*/*") if p.is_file() and not p.name.startswith("."))


def differences(a: Path, b: Path) -> list[str]:
    """What differs between two results folders, apart from timings, dates, cache counters, environment."""
    fa, fb = result_files(a), result_files(b)
    if fa != fb:
        return [f"files differ: only in {a}: {sorted(set(fa) - set(fb))}; only in {b}: {sorted(set(fb) - set(fa))}"]
    out = []
    for rel in fa:
        if rel.suffix == ".json":
            ja, jb = json.loads((a / rel).read_text()), json.loads((b / rel).read_text())
            if ja["main_score"] != jb["main_score"] or ja["scores"] != jb["scores"]:
                out.append(f"{rel}: main_score or scores differ")
            elif _stable(ja) != _stable(jb):
                out.append(f"{rel}: differs outside timings/cache/environment")
        elif (a / rel).read_bytes() != (b / rel).read_bytes():
            out.append(f"{rel}: predictions differ")
    return out
