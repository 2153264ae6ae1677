"""The one job loop (``runner.loop``) without a cluster: reports that travel and merge, tasks loaded once for
every model, the Ray executor's split (encode in one process, evaluate in others) equal to one local loop,
and a model spec parsed once by the plan."""
from __future__ import annotations

import pickle

from compeval.cache import EmbeddingCache
from compeval.results.compare import differences
from compeval.results.store import ResultStore
from compeval.runner import LocalExecutor, plan
from compeval.runner.jobs import ExecutionReport, Reporter, text_digest
from compeval.runner.loop import TaskLoader, encode_model_texts, rebuild_model, run_model_jobs
from compeval.context import RunContext
from compeval.models.registry import ResolvedModel

MODELS = ["hashbag", "random,dim=8"]
TASKS = ["ks2013,bootstrap=50", "gs2011,bootstrap=50"]


def test_local_loop_loads_each_task_once_and_its_reports_merge_to_the_cache_totals(data_dir, tmp_path, monkeypatch):
    ctx = RunContext.for_run(tmp_path / "out", data_dir=data_dir, cache_dir=None)
    p = plan(MODELS, TASKS, ctx)
    loads = []
    for task in p.tasks:
        real = task.load
        monkeypatch.setattr(task, "load", lambda data, real=real, slug=task.slug: (loads.append(slug), real(data))[1])
    context = ctx.with_builder(p.builder)
    loader, store = TaskLoader(context), ResultStore(ctx.output_dir)
    reports = [run_model_jobs(p.models[jobs[0].model_id], [j.task for j in jobs], context, store, Reporter(),
                              loader=loader) for jobs in p.by_model()]
    assert sorted(loads) == sorted(t.slug for t in p.tasks)  # two models, each task loaded once
    assert [[(o.task, o.status) for o in r.outcomes] for r in reports] == [
        [(t.slug, "done") for t in p.tasks]] * len(MODELS)
    # One report per model; merged (after a trip through pickle, as from a worker) they are the run's counters.
    merged = ExecutionReport()
    for r in reports:
        merged.merge(pickle.loads(pickle.dumps(r)))
    totals = p.cache.totals()
    assert merged.stats.as_dict() == totals.as_dict() and totals.unique > 0
    assert set(merged.counters) == set(p.models)
    assert len(merged.outcomes) == len(MODELS) * len(TASKS)
    p.cache.close()


def test_merge_counts_a_text_two_workers_saw_once():
    a, b = ExecutionReport(load_seconds=1.0), ExecutionReport(task_load_seconds=2.0)
    a.count("m", {"requested": 3, "unique": 2, "encoded": 2}, {text_digest("x"), text_digest("y")})
    b.count("m", {"requested": 2, "unique": 2, "encoded": 0}, {text_digest("y"), text_digest("z")})
    b.count("n", {"requested": 1, "unique": 1}, {text_digest("x")})
    merged = a.merge(b)
    assert merged is a
    assert (merged.stats.requested, merged.stats.unique, merged.stats.encoded) == (6, 4, 2)  # x y z under m, x under n
    assert (merged.load_seconds, merged.task_load_seconds) == (1.0, 2.0)


def test_encode_in_one_process_then_evaluate_in_others_is_the_local_loop(data_dir, tmp_path):
    """The Ray executor's two stages, each with a cache of its own (separate workers), give the local
    executor's result files and counters: every text encoded once, by the encode stage."""
    local_ctx = RunContext.for_run(tmp_path / "local", data_dir=data_dir, cache_dir=None)
    local_plan = plan(["hashbag"], TASKS, local_ctx)
    local = LocalExecutor().execute(local_plan, local_ctx, Reporter())
    local_plan.cache.close()

    ctx = RunContext.for_run(tmp_path / "split", data_dir=data_dir, cache_dir=None)
    p = plan(["hashbag"], TASKS, ctx)
    (jobs,) = p.by_model()
    assert isinstance(jobs[0].resolved, ResolvedModel) and jobs[0].model is p.models[jobs[0].model_id].config
    p.cache.close()
    sent = lambda: pickle.loads(pickle.dumps([j.task for j in jobs]))  # noqa: E731 - as a worker receives them
    cache, model, builder = rebuild_model(ctx, jobs[0].resolved, jobs[0].model)
    try:
        encoded, declared, payload = encode_model_texts(model, sent(), ctx.with_builder(builder))
    finally:
        cache.close()
    assert sorted(declared) == sorted(j.task_slug for j in jobs) and payload is not None
    split = pickle.loads(pickle.dumps(encoded))
    for task in sent():  # one worker per job, the vectors in hand
        cache, model, builder = rebuild_model(ctx, jobs[0].resolved, jobs[0].model)
        try:
            split.merge(run_model_jobs(model, [task], ctx.with_builder(builder),
                                       ResultStore(ctx.output_dir), Reporter(), shared=payload, encode_one=False))
        finally:
            cache.close()
    assert differences(tmp_path / "local", tmp_path / "split") == []
    assert sorted((o.task, o.status, o.main_score) for o in split.outcomes) == \
        sorted((o.task, o.status, o.main_score) for o in local.outcomes)
    assert (split.stats.unique, split.stats.encoded) == (local.stats.unique, local.stats.encoded)
    assert split.stats.encoded == split.stats.unique > 0


def test_the_plan_parses_each_model_spec_once(data_dir, tmp_path, monkeypatch):
    import compeval.models.registry as registry

    parsed = []
    real = registry.parse_spec
    monkeypatch.setattr(registry, "parse_spec", lambda text: (parsed.append(text), real(text))[1])
    p = plan(MODELS + ["glove-6b-50d"], TASKS, RunContext.for_run(tmp_path / "out", data_dir=data_dir, cache_dir=None))
    p.cache.close()
    assert sorted(t for t in parsed if t in MODELS + ["glove-6b-50d"]) == sorted(MODELS + ["glove-6b-50d"])
    assert [str(j.resolved) for j in p.jobs] == [m for m in MODELS + ["glove-6b-50d"] for _ in TASKS]


def test_a_ray_job_stage_recomputes_a_stale_result_and_skips_what_its_first_attempt_wrote(data_dir, tmp_path):
    """A Ray stage decides by the planner's rule: the result planned because it is stale (another seed) is
    computed again, not kept because its file exists; a retried stage skips what the first attempt wrote."""
    from compeval.runner.ray_executor import jobs_stage

    first = RunContext.for_run(tmp_path, data_dir=data_dir, cache_dir=None, seed=0)
    p = plan(["hashbag"], TASKS[:1], first)
    LocalExecutor().execute(p, first, Reporter())
    p.cache.close()
    ctx = RunContext.for_run(tmp_path, data_dir=data_dir, cache_dir=None, seed=1)
    p = plan(["hashbag"], TASKS[:1], ctx)
    p.cache.close()
    (job,) = p.jobs  # planned again: the stored result has seed 0
    report = jobs_stage(job.resolved, job.model, [job.task], ctx, None)
    assert [o.status for o in report.outcomes] == ["done"]
    assert ResultStore(tmp_path).load(report.outcomes[0].path).seed == 1
    again = jobs_stage(job.resolved, job.model, [job.task], ctx, None)
    assert [o.status for o in again.outcomes] == ["skipped"]


def test_the_command_line_parses_each_model_spec_once_and_builds_each_task_once(data_dir, tmp_path, monkeypatch):
    """``compeval run``: the data step parses and checks the model specs and builds the tasks; the runner
    takes them as they are."""
    import sys as _sys

    from typer.testing import CliRunner

    import compeval.specs
    import compeval.tasks.registry as task_registry
    from compeval.cli import app

    calls: list[str] = []
    parse, get = compeval.specs.parse_spec, task_registry.get_tasks

    def counting_parse(text, *a, **k):
        calls.append(f"model:{text}")
        return parse(text, *a, **k)

    def counting_get(spec, *a, **k):
        calls.append(f"task:{spec}")
        return get(spec, *a, **k)

    for module in [m for name, m in list(_sys.modules.items()) if name.startswith("compeval") and m is not None]:
        if getattr(module, "parse_spec", None) is parse:
            monkeypatch.setattr(module, "parse_spec", counting_parse)
        if getattr(module, "get_tasks", None) is get:
            monkeypatch.setattr(module, "get_tasks", counting_get)
    monkeypatch.setenv("COMPEVAL_DATA_DIR", str(data_dir))
    r = CliRunner().invoke(app, ["run", "-m", "hashbag", "-m", "random,dim=8", "-t", "ks2013,bootstrap=50",
                                 "--no-cache", "--no-report", "-o", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    models = [c for c in calls if c in ("model:hashbag", "model:random,dim=8")]  # parse_spec reads tasks too
    assert sorted(models) == ["model:hashbag", "model:random,dim=8"]
    assert [c for c in calls if c.startswith("task:")] == ["task:ks2013,bootstrap=50"]
