"""Each task is built once per run: the plan keeps the tasks it built, workers (``--isolate``, Ray) receive
them pickled, and a user task reads and hashes its file once, when it is built."""
from __future__ import annotations

import csv
import os
import pickle
import sys
from collections import Counter
from pathlib import Path

from compeval.runner import plan, run
from compeval.runner.jobs import Reporter
from compeval.context import RunContext
from compeval.tasks.base import Task
from compeval.tasks.registry import TASKS, discover, get_tasks

MODELS = ["hashbag", "random,dim=8"]
TASKS_RUN = ["ks2013,bootstrap=50", "gs2011,bootstrap=50"]


def _count_builds(builds: Counter):
    """Wrap ``Task.__init__`` (every task's construction passes it; unpickling does not)."""
    real = Task.__init__

    def counting(self, **options):
        builds[type(self).metadata.name] += 1
        real(self, **options)

    return real, counting


def test_a_local_run_builds_each_task_once(data_dir, tmp_path, monkeypatch):
    builds: Counter = Counter()
    monkeypatch.setattr(Task, "__init__", _count_builds(builds)[1])
    summary = run(MODELS, TASKS_RUN, tmp_path / "out", data_dir=data_dir, cache_dir=None, report=False)
    assert [o.status for o in summary.outcomes] == ["done"] * 4
    assert builds == {"ks2013": 1, "gs2011": 1}


def counting_run_here(resolved, tasks, ctx, reporter):
    """An isolated worker's body that counts the tasks it builds (written to OUTPUT/builds-PID.txt)."""
    from compeval.runner.runner import run_model_here

    builds: Counter = Counter()
    Task.__init__ = _count_builds(builds)[1]
    report = run_model_here(resolved, tasks, ctx, reporter)
    (Path(ctx.output_dir) / f"builds-{os.getpid()}.txt").write_text(str(sum(builds.values())))
    return report


def test_isolated_workers_receive_the_tasks_and_build_none(data_dir, tmp_path, monkeypatch):
    """--isolate: the driver builds each task once; each model's worker process builds none."""
    import compeval.runner.isolation as isolation

    monkeypatch.setattr(isolation, "PRELOAD", ["compeval.runner.runner"])  # no torch: toy models only
    monkeypatch.syspath_prepend(str(Path(__file__).parent))  # the worker imports this module by name
    builds: Counter = Counter()
    monkeypatch.setattr(Task, "__init__", _count_builds(builds)[1])
    ctx = RunContext.for_run(tmp_path / "out", data_dir=data_dir, cache_dir=tmp_path / "cache")
    the_plan = plan(MODELS, TASKS_RUN, ctx)
    try:
        report = isolation.IsolatedExecutor(run_here=sys.modules[__name__].counting_run_here).execute(
            the_plan, ctx, Reporter())
    finally:
        the_plan.cache.close()
    assert sorted((o.task, o.status) for o in report.outcomes) == sorted(
        (t.replace(",bootstrap=50", "__bootstrap-50"), "done") for t in TASKS_RUN for _ in MODELS), \
        [o.error for o in report.outcomes]
    assert builds == {"ks2013": 1, "gs2011": 1}
    workers = sorted((tmp_path / "out").glob("builds-*.txt"))
    assert len(workers) == len(MODELS) and [p.read_text() for p in workers] == ["0"] * len(MODELS)


def test_every_registered_task_travels_pickled():
    discover()
    for name, cls in TASKS.items():
        task = cls()
        again = pickle.loads(pickle.dumps(task))
        assert (type(again), again.params, again.slug) == (cls, task.params, task.slug)
    (task,) = get_tasks("invariance-qa,subset_model=hashbag,bootstrap=40")
    again = pickle.loads(pickle.dumps(task))
    assert again.spec == task.spec == "invariance-qa,bootstrap=40,subset_model=hashbag"
    assert again.options._subset == task.options._subset and str(task.options._subset) == "hashbag"


def test_a_user_task_reads_and_hashes_its_file_once_per_run(tmp_path):
    """Opening the file is what reading and hashing both need: the task built once opens it once, and a
    second run that reuses the stored results takes the digest the task read instead of hashing again."""
    data = tmp_path / "pairs.csv"
    with data.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["a", "b", "gold"])
        w.writerows([(f"a {i} dog", f"a {i} cat", i % 5) for i in range(12)])
    opened: list[str] = []
    sys.addaudithook(lambda event, args: opened.append(str(args[0]))
                     if event == "open" and str(args[0]).endswith("pairs.csv") else None)
    spec = f"pairs:{data},a=a,b=b,score=gold,bootstrap=40"
    for status in ("done", "skipped"):
        opened.clear()
        summary = run(MODELS, [spec], tmp_path / "out", cache_dir=None, report=False)
        assert [o.status for o in summary.outcomes] == [status] * 2, summary.failed
        assert len(opened) == 1, (status, opened)
