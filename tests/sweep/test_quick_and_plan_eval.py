"""``compeval run --quick`` picks one task per default suite at reduced sizes; ``--plan`` counts each task's
measured evaluation cost at the model's width, on the device kind the run would use."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from compeval.runner.cost import (ASSUMED_WIDTH, EVAL_CORES, EVAL_MEASURED_ON, default_plan_device, format_plan,
                                  plan_costs)
from compeval.tasks.base import EvalCost
from compeval.tasks.registry import TASKS, discover, get_tasks, quick_tasks


def _default_suites() -> set[str]:
    discover()
    return {cls.metadata.suite for cls in TASKS.values() if cls.default_run}


def test_quick_mode_runs_one_default_task_per_suite_at_reduced_sizes():
    specs = quick_tasks()
    tasks = [get_tasks(spec)[0] for spec in specs]  # every spec is a valid task spec
    suites = [t.metadata.suite for t in tasks]
    assert sorted(suites) == sorted(_default_suites()) and len(set(suites)) == len(suites)
    assert all(type(t).default_run for t in tasks)
    for spec, task in zip(specs, tasks):
        full = get_tasks(task.name)[0]
        # reduced sizes are options, so they name the result apart from the full task's
        assert (task.slug != full.slug) == ("," in spec), spec
    probe = next(t for t in tasks if t.metadata.suite == "probing")
    assert probe.options.n_train < type(probe)().options.n_train


def test_quick_mode_says_which_settings_it_reduces(data_dir):
    """The quick mode's output names every task it runs at reduced settings, with those settings, so a quick
    result is not read as the papers' protocol (``--plan``: the same selection, no weights loaded)."""
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "--quick", "--plan", "--offline", "-m", "glove-6b-50d",
                        "--data-dir", str(data_dir)], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "300"})
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in (r.stdout + r.stderr).splitlines() if x.startswith("quick mode:")]
    reduced = [s for s in quick_tasks() if "," in s]
    assert reduced and "reduced settings" in line
    for spec in reduced:
        name, options = spec.split(",", 1)
        assert f"{name} {options}" in line, (spec, line)


def test_quick_and_task_together_are_one_line_error():
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "--quick", "--task", "sts3k-pilot", "--offline"],
                       capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"})
    assert r.returncode != 0 and "--quick" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_eval_cost_is_the_power_law_through_its_two_measured_points():
    cost = EvalCost(at_50=1.0, at_384=(384 / 50) ** 2)  # grows with the square of the width
    assert cost.seconds(50) == pytest.approx(1.0)
    assert cost.seconds(384) == pytest.approx((384 / 50) ** 2)
    assert cost.seconds(768) == pytest.approx(4 * cost.seconds(384))
    flat = EvalCost(at_50=2.0, at_384=2.0)
    assert flat.seconds(16) == flat.seconds(4096) == pytest.approx(2.0)


def test_every_default_task_declares_a_measured_cost():
    discover()
    missing = sorted(n for n, cls in TASKS.items() if cls.default_run and cls.eval_cost is None)
    assert not missing, f"declare eval_cost (benchmarks/eval_vs_encode.py --costs measures it): {missing}"


PLAN_TASKS = ["probe-has-x,n_train=10,n_test=10", "minimal-pairs,n_bases=6"]  # generated: no data needed


def test_plan_counts_each_tasks_evaluation_at_the_models_width():
    plan = plan_costs(["glove-6b-50d", "all-MiniLM-L6-v2", "random,dim=768", "hashbag"], PLAN_TASKS,
                      device=EVAL_MEASURED_ON)
    classes = [type(get_tasks(t)[0]) for t in PLAN_TASKS]
    glove, minilm, wide, unknown = plan.rows
    assert (glove.width, minilm.width, wide.width, unknown.width) == (50, 384, 768, None)
    # a task that stages its heads shares the cores with the others' (runner/loop.py): its cost counts 1/EVAL_CORES
    share = [1 / EVAL_CORES if c.stages() else 1.0 for c in classes]
    assert [c.stages() for c in classes] == [True, False]  # a probe stages its heads; minimal pairs has none
    assert glove.eval_seconds == pytest.approx(sum(c.eval_cost.at_50 * k for c, k in zip(classes, share)))
    assert minilm.eval_seconds == pytest.approx(sum(c.eval_cost.at_384 * k for c, k in zip(classes, share)))
    assert wide.eval_seconds == pytest.approx(sum(c.eval_cost.seconds(768) * k for c, k in zip(classes, share)))
    assert unknown.eval_seconds == pytest.approx(minilm.eval_seconds)  # counted at the assumed width, said so
    assert f"evaluation counted at {ASSUMED_WIDTH}" in unknown.note
    # both generate their texts from generator_seed at load, so both count encoding and evaluation
    assert plan.tasks == [get_tasks(t)[0].slug for t in PLAN_TASKS]
    assert plan.eval_minutes == pytest.approx(sum(r.eval_seconds for r in plan.rows) / 60)
    text = format_plan(plan)
    assert text.startswith(f"device kind: {EVAL_MEASURED_ON}")
    total = plan.total_minutes + plan.eval_minutes
    assert f"est. {total:.1f} min on {EVAL_MEASURED_ON}: encoding {plan.total_minutes:.1f} + evaluation " \
           f"{plan.eval_minutes:.1f}" in text


def test_plan_on_another_device_kind_does_not_guess_evaluation():
    plan = plan_costs(["all-MiniLM-L6-v2"], PLAN_TASKS, device="h100")
    assert plan.rows[0].eval_seconds is None and plan.eval_minutes is None
    text = format_plan(plan)
    assert "evaluation not estimated" in text and f"measured on {EVAL_MEASURED_ON}" in text


def test_plan_defaults_to_the_device_the_run_would_use():
    assert default_plan_device("cpu") == EVAL_MEASURED_ON
    import torch

    if not torch.cuda.is_available():
        assert default_plan_device("auto") == EVAL_MEASURED_ON
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "--plan", "--device", "cpu", "-m", "glove-6b-50d",
                        "-t", PLAN_TASKS[0]], capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"device kind: {EVAL_MEASURED_ON}") and "evaluation" in r.stdout
