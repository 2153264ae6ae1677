"""End to end through the CLI and the Python API: results files, re-runs, formats, error exits."""
import json
import subprocess
import sys

import pandas as pd
import pytest

from compeval.results import ResultStore, results_frame
from compeval.runner import run


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "compeval.cli", *args], capture_output=True, text=True, env=env)


def test_run_writes_results_and_rerun_encodes_nothing(data_dir, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    first = run(["hashbag", "random,dim=16"], ["gs2011", "ks2013,bootstrap=200"], out, data_dir=data_dir,
                cache_dir=cache)
    assert [o.status for o in first.outcomes] == ["done"] * 4
    assert first.encoded == first.unique > 0
    # The time accounts the benchmark relies on: each part is measured and none exceeds the wall time.
    parts = (first.load_seconds, first.task_load_seconds, first.encode_seconds,
             sum(o.seconds for o in first.outcomes))
    assert all(p > 0 for p in parts) and sum(parts) <= first.seconds
    store = ResultStore(out)
    path = next(out.glob("hashbag-*/gs2011.json"))  # folders are named by configuration id
    result = store.load(path)
    assert result.n_items == 199 and result.data[0].verified and result.environment["numpy"]
    assert result.model["id"].startswith("hashbag-") and result.seed == 0
    preds = store.predictions(path)
    assert len(preds) == 199 and {"sentence_1", "gold", "score"} <= set(preds.columns)
    again = run(["hashbag", "random,dim=16"], ["gs2011", "ks2013,bootstrap=200"], out, data_dir=data_dir,
                cache_dir=cache)
    assert [o.status for o in again.outcomes] == ["skipped"] * 4 and again.encoded == 0
    assert again.task_load_seconds == 0  # skipped jobs load nothing
    fresh = run(["hashbag"], ["gs2011"], tmp_path / "out2", data_dir=data_dir, cache_dir=cache)
    assert fresh.encoded == 0 and fresh.from_cache == fresh.unique > 0


def test_python_api_accepts_any_object_with_encode(data_dir, tmp_path):
    class MyEncoder:
        def encode(self, texts):
            return [[len(t), t.count("e") + 1.0] for t in texts]

    summary = run([MyEncoder()], ["ks2013,bootstrap=50"], tmp_path, data_dir=data_dir, cache_dir=None)
    assert summary.outcomes[0].status == "done"
    df = results_frame(tmp_path)
    # A Python object is named by its class plus a fingerprint of what it computes (see test_identity.py).
    (model,) = set(df["model"])
    assert model.startswith("MyEncoder,fp=") and (df["n"] == 108).all()


def test_cli_results_formats(data_dir, tmp_path):
    env = {**__import__("os").environ, "COMPEVAL_DATA_DIR": str(data_dir), "COMPEVAL_CACHE_DIR": str(tmp_path / "c")}
    r = cli("run", "--model", "hashbag", "--task", "sts3k,bootstrap=100", "-o", str(tmp_path / "o"), env=env)
    assert r.returncode == 0, r.stderr
    assert "encoded" in r.stderr and "summary" in r.stderr
    rows = json.loads(cli("results", str(tmp_path / "o"), "--format", "json").stdout)
    assert {(x["subset"], x["metric"]) for x in rows} >= {("adv", "spearman"), ("non_minus_adv", "spearman")}
    assert set(rows[0]) == {"model", "task", "params", "subset", "metric", "value", "ci_low", "ci_high", "n"}
    assert all("bootstrap=100" in x["params"] for x in rows)  # the task's options travel with each row
    csv = cli("results", str(tmp_path / "o"), "--format", "csv").stdout
    assert pd.read_csv(__import__("io").StringIO(csv)).shape[0] == len(rows)
    md = cli("results", str(tmp_path / "o"), "--format", "markdown").stdout
    assert md.splitlines()[0].startswith("| model | task |")
    rerun = cli("run", "--model", "hashbag", "--task", "sts3k,bootstrap=100", "-o", str(tmp_path / "o"), env=env)
    assert "0 encoded" in rerun.stderr and "1 skipped" in rerun.stderr


@pytest.mark.parametrize("args, message", [
    (["run", "--model", "no-such-model", "--task", "gs2011"], "unknown model 'no-such-model'"),
    (["run", "--model", "hashbag", "--task", "gs2011", "--data-dir", "/nonexistent/x"], "does not exist"),
    (["run", "--model", "hashbag", "--task", "no-such-task"], "unknown task"),
    (["results", "/nonexistent/results"], "does not exist"),
])
def test_cli_errors_are_one_clear_line(args, message, tmp_path):
    r = cli(*args, "-o", str(tmp_path)) if args[0] == "run" else cli(*args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
