"""The grid on a local Ray cluster started here gives the local executor's results, file for file."""
import pytest

from grid_support import GRID, MODELS, N_JOBS, require_ray

from compeval.results.compare import differences, result_files, same

pytestmark = pytest.mark.integration
ray = require_ray()  # skips this module without Ray (fails instead with COMPEVAL_REQUIRE_RAY=1)


@pytest.fixture(scope="module")
def ray_cluster():
    # Workers would inherit OMP_NUM_THREADS=2 from a driver set for the local executor (as in the benchmarks).
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             resources={"api": 1}, runtime_env={"env_vars": {"OMP_NUM_THREADS": "2"}})
    yield ray
    ray.shutdown()


def test_grid_on_ray_matches_local(local_grid, ray_cluster, data_dir, tmp_path):
    from compeval.runner import run

    local_dir, local = local_grid
    summary = run(MODELS, GRID, tmp_path / "results", data_dir=data_dir, cache_dir=tmp_path / "cache",
                  executor="ray")
    assert summary.executor == "ray"
    assert sorted(o.status for o in summary.outcomes) == ["done"] * N_JOBS, summary.failed
    assert differences(local_dir, tmp_path / "results") == []
    # The same results (docs/architecture.md, "Reproducibility"): 1-CPU Ray jobs encode on one thread, the
    # local executor on the machine's, so floats agree within the tolerance, not bit for bit.
    ray_scores = {(o.model, o.task, o.n_items): o.main_score for o in summary.outcomes}
    local_scores = {(o.model, o.task, o.n_items): o.main_score for o in local.outcomes}
    assert same(ray_scores, local_scores), (ray_scores, local_scores)
    # Workers' counters add up to the local run's: every text encoded exactly once per model.
    assert (summary.requested, summary.unique, summary.encoded) == (local.requested, local.unique, local.encoded)
    assert summary.encoded == summary.unique > 0 and summary.from_cache == 0

    # A finished job is never redone: the re-run skips all of them and touches no file.
    before = {p: (tmp_path / "results" / p).stat().st_mtime_ns for p in result_files(tmp_path / "results")}
    again = run(MODELS, GRID, tmp_path / "results", data_dir=data_dir, cache_dir=tmp_path / "cache",
                executor="ray")
    assert [o.status for o in again.outcomes] == ["skipped"] * N_JOBS and again.encoded == 0
    assert {p: (tmp_path / "results" / p).stat().st_mtime_ns for p in result_files(tmp_path / "results")} == before


def test_toy_models_and_failures_on_ray_are_the_local_ones(ray_cluster, data_dir, tmp_path):
    """Without a disk cache, a task option that normalises over the pairs (norm=zscore) and a pair scorer too;
    a job that fails (no token vectors for lexcomp; norm for a pair scorer) fails alone, with the same
    message. Counters match: nothing is encoded twice."""
    from compeval.runner import run

    models = ["hashbag", "overlap"]
    # sts3k and sts3k-pilot read different files of one data source: each result lists only its own.
    tasks = ["gs2011,bootstrap=50", "sts3k-pilot,bootstrap=50", "sts3k,bootstrap=50", "gs2011,bootstrap=50,norm=zscore",
             "lexcomp-nc-literality,encoders=none,layers=top,max_epochs=1"]
    local = run(models, tasks, tmp_path / "local", data_dir=data_dir, cache_dir=None)
    remote = run(models, tasks, tmp_path / "ray", data_dir=data_dir, cache_dir=None, executor="ray")

    def table(s):
        return sorted((o.model, o.task, o.status, o.error) for o in s.outcomes)

    assert table(remote) == table(local)
    assert sorted((o.model, o.task.split("__")[0]) for o in local.outcomes if o.status == "failed") == [
        ("hashbag", "lexcomp-nc-literality"), ("overlap", "gs2011"), ("overlap", "lexcomp-nc-literality")]
    assert differences(tmp_path / "local", tmp_path / "ray") == []
    assert (remote.requested, remote.unique, remote.encoded) == (local.requested, local.unique, local.encoded)


def test_jobs_use_as_many_threads_as_the_cpus_they_hold(ray_cluster):
    """Two 1-CPU jobs on a 2-core node must not run two threads each (the cluster's env says 2)."""
    from compeval.runner.ray_executor import _with_threads

    def threads_in_worker():  # defined here so that Ray ships it by value (workers cannot import tests)
        import os

        import threadpoolctl
        import torch

        pools = {p["internal_api"]: p["num_threads"] for p in threadpoolctl.threadpool_info()}
        return os.environ["OMP_NUM_THREADS"], torch.get_num_threads(), pools

    fn = ray.remote(threads_in_worker)
    one = ray.get(fn.options(**_with_threads({"num_cpus": 1, "num_gpus": 0, "resources": {}})).remote())
    assert one[0] == "1" and one[1] == 1 and set(one[2].values()) == {1}
    two = ray.get(fn.options(**_with_threads({"num_cpus": 2, "num_gpus": 0, "resources": {}})).remote())
    assert two[0] == "2" and two[1] == 2
    assert ray.get(fn.remote())[0] == "2"  # what the jobs got before: the inherited setting
