"""The one seed rule (compeval.seeds): named streams, valid for every seed 0…2³²−1, local generators only.

Every task runs at its cheapest setting with --seed 0 and --seed 4294967295 on the tiny deterministic
encoder: the same seed gives the same numbers, two seeds give different bootstrap intervals."""
from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compeval import seeds
from compeval.context import RunContext
from compeval.errors import CompevalError
from compeval.seeds import MAX_SEED, SEED_RULE, derive

SRC = Path(seeds.__file__).resolve().parent


# --- derive ------------------------------------------------------------------------------------------------

def test_derive_is_pinned_across_processes_and_hash_seeds():
    """Known values, computed once: a change of the derivation must bump SEED_RULE (and these pins)."""
    pinned = {(0, ("a",)): 2716424021, (MAX_SEED, ("a", "fold", 3)): 3108442226}
    for (seed, names), value in pinned.items():
        assert derive(seed, *names) == value
    code = ("import sys; from compeval.seeds import derive; "
            "print(derive(0, 'a'), derive(4294967295, 'a', 'fold', 3), derive(7, 'probe-has-x', 'fold', 3))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(SRC.parent), "PYTHONHASHSEED": h}).stdout
            for h in ("0", "12345")}
    assert outs == {f"2716424021 3108442226 {derive(7, 'probe-has-x', 'fold', 3)}\n"}


def test_derive_is_numpys_seed_sequence_with_the_names_as_spawn_key():
    """The reference path: SeedSequence(seed, spawn_key=...) itself, and default_rng of it."""
    ss = seeds.sequence(42, "bootstrap")
    assert ss.entropy == 42 and len(ss.spawn_key) == 4
    assert derive(42, "bootstrap") == int(np.random.SeedSequence(42, spawn_key=ss.spawn_key).generate_state(1)[0])
    assert np.array_equal(seeds.rng(42, "bootstrap").integers(0, 100, 20),
                          np.random.default_rng(np.random.SeedSequence(42, spawn_key=ss.spawn_key)).integers(0, 100, 20))


@pytest.mark.parametrize("seed", [0, 1, 2**31, MAX_SEED])
def test_every_seed_gives_valid_streams_for_every_consumer(seed):
    value = derive(seed, "x", 0)
    assert 0 <= value <= MAX_SEED and isinstance(value, int)
    np.random.RandomState(value)  # NumPy's legacy generator (scikit-learn's random_state) takes it
    from sklearn.model_selection import KFold

    list(KFold(3, shuffle=True, random_state=value).split(np.arange(9)))
    seeds.rng(seed, "x").random()
    seeds.torch_generator(seed, "x").initial_seed()


def test_names_make_independent_streams():
    values = {derive(0, *names) for names in [("a",), ("b",), ("a", "b"), ("ab",), ("a", 1), ("a", "1"), ("a", 2),
                                                  ("fold", 0), ("fold", 1), ("fold", 10), ("fold1", 0)]}
    assert len(values) == 11
    # neighbouring seeds no longer share streams (seed + k: run 0's fold 1 was run 1's fold 0)
    assert derive(0, "fold", 1) != derive(1, "fold", 0)
    draws = [seeds.rng(0, "bootstrap", s).integers(0, 2**62, 8).tolist() for s in ("all", "non", "adv")]
    assert len({tuple(d) for d in draws}) == 3


@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, True, 1.5, "3"])
def test_invalid_seeds_and_names_are_refused(bad):
    with pytest.raises(ValueError, match="must be an integer from 0 to 4294967295"):
        derive(bad, "x")


def test_a_stream_must_be_named():
    with pytest.raises(ValueError, match="at least one name"):
        derive(0)
    with pytest.raises(TypeError, match="must be a str or an int"):
        derive(0, 1.5)


def test_run_seed_range_is_checked_with_one_line():
    assert RunContext(seed=MAX_SEED).seed == MAX_SEED
    for bad in (-1, MAX_SEED + 1):
        with pytest.raises(CompevalError, match=rf"^--seed {bad}: must be an integer from 0 to 4294967295$"):
            RunContext(seed=bad)


# --- torch: local generators, forked global state ---------------------------------------------------------

def test_torch_generator_is_local_and_repeatable():
    torch = pytest.importorskip("torch")
    before = torch.random.get_rng_state()
    a = torch.rand(5, generator=seeds.torch_generator(MAX_SEED, "batch-order"))
    b = torch.rand(5, generator=seeds.torch_generator(MAX_SEED, "batch-order"))
    c = torch.rand(5, generator=seeds.torch_generator(MAX_SEED, "other"))
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert torch.equal(torch.random.get_rng_state(), before)


def test_torch_scope_seeds_module_init_and_restores_the_global_state():
    torch = pytest.importorskip("torch")
    before = torch.random.get_rng_state()
    weights = []
    for _ in range(2):
        with seeds.torch_scope(MAX_SEED, "lexcomp-vpc", "top", "none"):
            weights.append(torch.nn.Linear(4, 3).weight.detach().clone())
            torch.nn.functional.dropout(torch.ones(10), 0.5, training=True)
    assert torch.equal(weights[0], weights[1])
    assert torch.equal(torch.random.get_rng_state(), before)
    with seeds.torch_scope(0, "lexcomp-vpc", "top", "none"):
        assert not torch.equal(torch.nn.Linear(4, 3).weight, weights[0])


def test_library_scope_keeps_a_librarys_global_seeding_inside():
    torch = pytest.importorskip("torch")
    py, legacy, cpu = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    with seeds.library_scope():  # what transformers' set_seed does
        random.seed(1), np.random.seed(1), torch.manual_seed(1)
    assert random.getstate() == py and torch.equal(torch.random.get_rng_state(), cpu)
    assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
               for x, y in zip(np.random.get_state(), legacy))


# --- no global seeding, no unnamed streams -----------------------------------------------------------------

#: Calls that seed a process-wide generator.
GLOBAL_SEEDING = {"manual_seed", "manual_seed_all", "seed", "set_seed", "seed_all", "enable_full_determinism"}
#: Calls that make a generator of their own seed: anywhere in compeval they come from compeval.seeds, except
#: training/mlp.py's RandomState (scikit-learn's MLP initialisation, reproduced exactly; callers hand it seeds
#: from ``derive``), the ``static`` family's tensor projection (``default_rng`` of the model's ``seed`` option,
#: frozen with the model's id) and api.py's unseeded retry jitter (timing, never a number of a result).
OWN_STREAMS = {"default_rng", "RandomState", "Generator", "Random", "SeedSequence", "PCG64"}
ALLOWED = {("training/mlp.py", "RandomState"), ("models/families/static.py", "default_rng"),
           ("models/families/api.py", "Random")}


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name:
                yield node.lineno, name, ast.unparse(func)


def test_no_module_seeds_a_global_generator():
    found = [f"{p.relative_to(SRC)}:{line}: {text}()" for p in SRC.rglob("*.py") if p.name != "seeds.py"
             for line, name, text in _calls(p) if name in GLOBAL_SEEDING and text != "super().seed"]
    # graphs/metrics.py: _SeededRandom.seed() overrides smatch's clock reseeding of its private generator
    assert found == []


def test_every_stream_comes_from_the_seed_rule():
    found = [f"{rel}:{line}: {text}()" for p in SRC.rglob("*.py") if p.name != "seeds.py"
             for line, name, text in _calls(p)
             if name in OWN_STREAMS and ((rel := p.relative_to(SRC).as_posix()), name) not in ALLOWED]
    assert found == []


def test_keyed_values_are_the_frozen_content_hash():
    """keyed() is what the baseline models' vectors always were (their ids depend on it): an independent
    SHA-256 → default_rng path gives the same vectors."""
    import hashlib

    from compeval.models.families.toy import hashed_gaussian

    for key in ("0:dog", "7\x00a sentence", "check:é"):
        ref = np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little"))
        np.testing.assert_array_equal(hashed_gaussian(key, 8), ref.standard_normal(8).astype(np.float32))
    assert seeds.keyed("0:dog") == int.from_bytes(hashlib.sha256(b"0:dog").digest()[:8], "little")


def _named_seed(node) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name.endswith("seed")


def test_no_stream_is_an_offset_seed():
    """``seed + k`` (overlapping streams between runs; past 2³²−1 for the largest seed) is gone."""
    found = [f"{p.relative_to(SRC)}:{node.lineno}: {ast.unparse(node)}" for p in SRC.rglob("*.py")
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.BitXor))
             and (_named_seed(node.left) or _named_seed(node.right))]
    # the Trainer's epoch order (Accelerate's sampler), reproduced for fine-tuning: seeds.trainer_epoch_order
    found = [f for f in found if not (f.startswith("seeds.py:") and f.endswith(": data_seed + epoch"))]
    assert found == []


# --- every task, two extreme seeds ------------------------------------------------------------------------

def _cheap():
    """The cheapest options each task declares (``Task.conformance_options``) and the tasks that train the
    model itself (``Task.trains_model``), from the registry."""
    from compeval.tasks.registry import TASKS

    return ({n: cls.conformance_options for n, cls in TASKS.items()},
            {n for n, cls in TASKS.items() if cls.trains_model})


def _task_names():
    from compeval.tasks.registry import TASKS, discover

    discover()
    return sorted(TASKS)


def _intervals(out):
    return {(s.subset, s.metric): (s.ci_low, s.ci_high) for s in out.scores if s.ci_low is not None}


@pytest.mark.parametrize("name", _task_names())
def test_every_task_at_seed_0_and_max(name, data_dir):
    """Same seed → same numbers; seed 0 and seed 2³²−1 → valid outputs with different bootstrap intervals."""
    from compeval.cache.cached import EmbeddingCache
    from compeval.data.registry import DataContext
    from compeval.tasks.conformance import CheckEncoder, _numbers, check_output
    from compeval.tasks.registry import get_tasks

    cheap, trains = _cheap()
    if name in trains:
        pytest.skip("fine-tunes the model itself: tests/structure/test_fulltune.py runs it on a tiny model")
    (task,) = get_tasks(f"{name},{cheap[name]}")
    if task.missing_requirements():
        pytest.skip(task.missing_requirements())
    task.load(DataContext(data_dir, download=False))
    model = EmbeddingCache(None).wrap(CheckEncoder())
    low = task.evaluate(model, seed=0)
    high = task.evaluate(model, seed=MAX_SEED)
    check_output(task, low), check_output(task, high)
    assert _numbers(task.evaluate(model, seed=MAX_SEED)) == _numbers(high)
    a, b = _intervals(low), _intervals(high)
    common = a.keys() & b.keys()  # a trained head's per-label scores depend on what it predicts
    assert common
    assert any(a[k] != b[k] for k in common), "two seeds gave the same bootstrap intervals everywhere"


# --- results record the rule; another rule is recomputed --------------------------------------------------

def test_a_result_of_another_seed_rule_is_recomputed(data_dir, tmp_path):
    from compeval.results.store import ResultStore, content_checksum
    from compeval.runner import run

    out, task = tmp_path / "out", "gs2011,bootstrap=50"
    run(["hashbag"], [task], out, data_dir=data_dir, cache_dir=None, seed=MAX_SEED)
    [(path, result)] = list(ResultStore(out).iter_results())
    assert result.seed == MAX_SEED and result.seed_rule == SEED_RULE
    assert run(["hashbag"], [task], out, data_dir=data_dir, cache_dir=None, seed=MAX_SEED).outcomes[0].status \
        == "skipped"
    data = json.loads(Path(path).read_text())
    del data["seed_rule"]  # as written before the rule was recorded
    data["checksum"] = content_checksum(data)
    Path(path).write_text(json.dumps(data))
    from compeval.cli.verify import verify_folder

    [finding], _ = verify_folder(out, data_dir=data_dir)
    assert any(f"seed rule 0 → {SEED_RULE}" in p for p in finding.problems)
    again = run(["hashbag"], [task], out, data_dir=data_dir, cache_dir=None, seed=MAX_SEED)
    assert again.outcomes[0].status == "done"
    assert any(f"seed rule 0 → {SEED_RULE}" in w and "recomputing" in w for w in again.warnings)
    assert list(ResultStore(out).iter_results())[0][1].seed_rule == SEED_RULE


def test_the_cli_takes_the_largest_seed_and_refuses_the_next_in_one_line(data_dir, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "COMPEVAL_DATA_DIR": str(data_dir)}
    base = [sys.executable, "-m", "compeval.cli", "run", "-m", "hashbag", "-t", "gs2011,bootstrap=50", "--no-cache",
            "-o", str(tmp_path / "out")]
    bad = subprocess.run([*base, "--seed", str(MAX_SEED + 1)], capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--seed 4294967296: must be an integer from 0 to 4294967295")
    good = subprocess.run([*base, "--seed", str(MAX_SEED)], capture_output=True, text=True, env=env, timeout=300)
    assert good.returncode == 0, good.stderr[-2000:]
    [result] = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*/gs2011*.json")]
    assert result["seed"] == MAX_SEED and result["seed_rule"] == SEED_RULE
