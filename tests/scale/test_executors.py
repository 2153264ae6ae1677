"""Executor plumbing that needs no Ray cluster: planning, job specs, resources, errors, the shared SQLite cache."""
import importlib.util
import multiprocessing as mp
import subprocess
import sys

import numpy as np
import pytest

from compeval.cache import EmbeddingCache, EmbeddingStore
from compeval.errors import CompevalError
from compeval.models.protocol import ModelConfig
from compeval.models.registry import load_model
from compeval.runner import LocalExecutor, make_executor, plan, run
from compeval.runner.jobs import task_spec
from compeval.context import RunContext
from compeval.tasks.registry import TASKS, discover, get_tasks


def test_plan_lists_only_missing_jobs_once(data_dir, tmp_path):
    out = tmp_path / "out"
    first = run(["hashbag"], ["ks2013,bootstrap=50"], out, data_dir=data_dir, cache_dir=None)
    assert [o.status for o in first.outcomes] == ["done"]
    ctx = RunContext.for_run(out, data_dir=data_dir, cache_dir=None)
    p = plan(["hashbag", "random,dim=8", "hashbag"], ["ks2013,bootstrap=50", "gs2011,bootstrap=50",
                                                     "ks2013,bootstrap=50"], ctx)
    assert [(o.model, o.task, o.status) for o in p.skipped] == [("hashbag", "ks2013__bootstrap-50", "skipped")]
    assert [(str(j.resolved), j.task_spec) for j in p.jobs] == [
        ("hashbag", "gs2011,bootstrap=50"), ("random,dim=8", "ks2013,bootstrap=50"),
        ("random,dim=8", "gs2011,bootstrap=50")]
    assert [len(g) for g in p.by_model()] == [1, 2]
    p.cache.close()
    overwrite = plan(["hashbag"], ["ks2013,bootstrap=50"], RunContext.for_run(out, cache_dir=None, overwrite=True))
    assert len(overwrite.jobs) == 1 and not overwrite.skipped


def test_every_task_has_a_spec_that_rebuilds_it():
    discover()
    for name, cls in TASKS.items():
        assert task_spec(cls()) == name
    for spec in ["probe-has-x,n_train=200,n_test=100,classifiers=logreg", "lexcomp-nc-literality,baseline_only=true",
                 "probe-negation-scope,role_negatives=0.5", "invariance-relation,pairs_per_relation=2"]:
        (task,) = get_tasks(spec)
        (again,) = get_tasks(task_spec(task))
        assert type(again) is type(task) and again.params == task.params and again.slug == task.slug

    class Unregistered(type(get_tasks("ks2013")[0])):
        pass

    assert task_spec(Unregistered()) is None


def _pretend_ray_installed(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "ray" else real(name, *a))


def test_python_objects_run_on_the_local_executor_only(data_dir, tmp_path, monkeypatch):
    class MyEncoder:
        def encode(self, texts):
            return [[len(t), 1.0] for t in texts]

    _pretend_ray_installed(monkeypatch)
    from compeval.runner.ray_executor import RayExecutor

    with pytest.raises(CompevalError, match="Python objects.*local executor"):
        run([MyEncoder()], ["ks2013,bootstrap=50"], tmp_path, data_dir=data_dir, cache_dir=None,
            executor=RayExecutor())
    assert not list(tmp_path.glob("*/*.json"))
    (task,) = get_tasks("ks2013,bootstrap=50")

    class Custom(type(task)):
        pass

    with pytest.raises(CompevalError, match="spec strings"):
        run(["hashbag"], [Custom(bootstrap=50)], tmp_path, data_dir=data_dir, cache_dir=None, executor="ray")
    ok = run([MyEncoder()], ["ks2013,bootstrap=50"], tmp_path, data_dir=data_dir, cache_dir=None,
             executor=LocalExecutor())
    assert [o.status for o in ok.outcomes] == ["done"]


def test_without_ray_the_executor_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, find_spec says absent
    with pytest.raises(CompevalError, match=r"compeval\[ray\]"):
        make_executor("ray")
    code = ("import sys; sys.modules['ray'] = None; from compeval.cli import main; "
            f"sys.argv = ['compeval', 'run', '-m', 'hashbag', '-t', 'ks2013', '-o', {str(tmp_path)!r}, "
            "'--executor', 'ray']; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and "compeval[ray]" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--executor", "spark"], "unknown executor 'spark'"),
    (["--ray-address", "auto"], "need --executor ray"),
])
def test_cli_executor_options_are_checked(args, message, tmp_path):
    r = subprocess.run([sys.executable, "-m", "compeval.cli", "run", "-m", "hashbag", "-t", "ks2013", "-o",
                        str(tmp_path), *args], capture_output=True, text=True)
    assert r.returncode == 2 and message in " ".join(r.stderr.split()) and "Traceback" not in r.stderr


class _Fake:
    def __init__(self, family, **attrs):
        self.config = ModelConfig(family=family, name="fake")
        self.__dict__.update(attrs)

    def encode(self, texts):
        return np.ones((len(texts), 2), np.float32)


def test_job_resources_follow_the_model(monkeypatch):
    _pretend_ray_installed(monkeypatch)
    from compeval.runner.ray_executor import model_resources

    from compeval.models.families.api import ApiEncoder
    from compeval.models.families.mixed import MixedModel

    cache = EmbeddingCache(None)
    assert model_resources(load_model("hashbag", cache=cache), 2) == {"num_cpus": 2, "num_gpus": 0, "resources": {}}
    # The API family declares its slot; the runner no longer guesses it from the family's name.
    api_model = load_model("api:m,base_url=http://127.0.0.1:9", cache=cache)
    api = model_resources(api_model)
    assert api["resources"] == {"api": 1} and api["num_gpus"] == 0 and ApiEncoder.resources == {"api": 1}
    assert model_resources(cache.wrap(_Fake("api.v1")))["resources"] == {}
    assert model_resources(cache.wrap(_Fake("sbert.v1", device="cuda:0")))["num_gpus"] == 1
    custom = model_resources(cache.wrap(_Fake("x.v1", resources={"num_gpus": 0.5, "licence": 1})))
    assert custom == {"num_cpus": 1.0, "num_gpus": 0.5, "resources": {"licence": 1}}
    composite = MixedModel([load_model("hashbag", cache=cache), api_model])  # a part's needs are the whole's
    assert model_resources(cache.wrap(composite))["resources"] == {"api": 1}


def _hammer(directory, worker, barrier, n_rounds, queue):
    try:
        barrier.wait()
        store = EmbeddingStore(directory, "shared-model")  # every process creates the same new file at once
        for r in range(n_rounds):
            texts = [f"text {(worker * 7 + r * 13 + i) % 300}" for i in range(40)]
            vecs = np.array([[float(t.split()[1]), 1.0] for t in texts], np.float32)
            store.put_vectors(texts, vecs)
            got = store.get_vectors(texts)
            assert all(float(got[t][0]) == float(t.split()[1]) for t in texts)
        store.close()
        queue.put(None)
    except BaseException as exc:  # report, do not hang the parent
        queue.put(f"{type(exc).__name__}: {exc}")


def test_sqlite_cache_is_safe_across_processes(tmp_path):
    ctx = mp.get_context("spawn")
    n = 4
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_hammer, args=(tmp_path, w, barrier, 30, queue)) for w in range(n)]
    for p in procs:
        p.start()
    errors = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert errors == [None] * n
    store = EmbeddingStore(tmp_path, "shared-model")
    assert len(store) == len({(w * 7 + r * 13 + i) % 300 for w in range(n) for r in range(30) for i in range(40)})
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
