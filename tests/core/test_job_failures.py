"""One job's crash fails that job only (issue 20). The catching itself belongs to the executors (the
``session`` branch); this file checks the outcome from the outside, through the CLI's Python API."""
import numpy as np
import pytest

from compeval.results import ResultStore
from compeval.runner import run

TASKS = ["gs2011,bootstrap=50", "ks2013,bootstrap=50"]


class Exploding:
    """A user's model with a bug: every encode raises a plain ValueError (not a compeval error)."""

    def encode(self, texts):
        raise ValueError("shapes (3,) and (4,) not aligned")


def test_a_python_model_raising_valueerror_costs_only_its_own_jobs(data_dir, tmp_path):
    summary = run([Exploding(), "glove-6b-50d"], TASKS, tmp_path, data_dir=data_dir, cache_dir=None)
    by_model = {}
    for o in summary.outcomes:
        by_model.setdefault(o.model, []).append(o)
    assert [o.status for o in by_model["Exploding"]] == ["failed", "failed"]
    assert all("ValueError" in o.error and "not aligned" in o.error for o in by_model["Exploding"])
    glove = by_model["glove-6b-50d"]
    assert [o.status for o in glove] == ["done", "done"]
    store = ResultStore(tmp_path)
    for o in glove:
        result = store.load(o.path)
        assert result.model["name"] == "glove-6b-50d" and np.isfinite(result.main_score)
    written = {p.parent.name.split("-")[0] for p in tmp_path.glob("*/*.json")}
    assert written == {"glove"}
