"""Every name -> thing mapping is a ``compeval.registry.Registry``: the task kinds on a user's data, the task
file suffixes and the object adapters refuse a second registration naming both origins, and a results
store reads a folder alike whether or not the task registry was imported before it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import compeval
from compeval.errors import RegistryError
from compeval.models.protocol import OBJECT_ADAPTERS, register_object_adapter
from compeval.registry import Registry
from compeval.results.store import ResultStore
from compeval.runner import run
from compeval.tasks.registry import DECLARATIONS, SPEC_KINDS, result_slug

SRC = Path(compeval.__file__).parents[1]


@pytest.fixture()
def restored():
    registries = (SPEC_KINDS, DECLARATIONS, OBJECT_ADAPTERS)
    for r in registries:
        r.load()
    saved = [r.snapshot() for r in registries]
    yield
    for r, state in zip(registries, saved):
        r.restore(state)


class OtherPairs:
    kind = "pairs"


def other_toml(path):
    raise AssertionError("never built")


def other_mteb(obj):
    return None


@pytest.mark.parametrize("register, first, second", [
    (lambda: SPEC_KINDS.register("pairs", OtherPairs), "compeval.tasks.user.pairs:UserPairs",
     "test_registry_kinds:OtherPairs"),
    (lambda: DECLARATIONS.register(".toml", other_toml), "compeval.tasks.user.declare:from_file",
     "test_registry_kinds:other_toml"),
    (lambda: register_object_adapter("mteb")(other_mteb), "compeval.models.families.mteb_models:from_mteb_object",
     "test_registry_kinds:other_mteb"),
], ids=["task kind", "task file suffix", "object adapter"])
def test_a_second_registration_names_both_origins(restored, register, first, second):
    with pytest.raises(RegistryError) as info:
        register()
    message = str(info.value)
    assert "is registered twice" in message and "\n" not in message
    assert message.index(first) < message.index(second), message


def test_each_registry_is_the_one_kind_and_the_first_registration_stands(restored):
    for registry in (SPEC_KINDS, DECLARATIONS, OBJECT_ADAPTERS):
        assert isinstance(registry, Registry)
    with pytest.raises(RegistryError):
        SPEC_KINDS.register("pairs", OtherPairs)
    assert SPEC_KINDS["pairs"].__name__ == "UserPairs"
    assert sorted(SPEC_KINDS) == ["modifiers", "pairs", "probe", "triplets"]


def test_the_task_kinds_are_read_without_any_task_read_first():
    """Reading the kinds first discovers them (no reliance on ``TASKS`` or ``get_tasks`` having run)."""
    code = ("import json, sys\n"
            "from compeval.tasks.registry import DECLARATIONS, SPEC_KINDS\n"
            "from compeval.models.protocol import OBJECT_ADAPTERS\n"
            "print(json.dumps([sorted(SPEC_KINDS), sorted(DECLARATIONS), sorted(OBJECT_ADAPTERS)]))\n")
    assert json.loads(_python(code)) == [["modifiers", "pairs", "probe", "triplets"], [".toml"], ["mteb"]]


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> tuple[Path, str, str]:
    """A results folder with one result also copied under the file name of other options."""
    out = tmp_path_factory.mktemp("kinds") / "out"
    summary = run(["hashbag"], ["minimal-pairs,n_bases=8,bootstrap=200"], out, cache_dir=None, download=False,
                  report=False)
    assert not summary.failed
    [original] = list(out.glob("*/minimal-pairs__*.json"))
    copy = original.with_name("minimal-pairs__bootstrap-200__n_bases-9.json")
    shutil.copy(original, copy)
    return out, original.name, copy.name


def _listing(imports: str, out: Path) -> dict:
    code = (f"{imports}\nimport json, sys\nfrom compeval.results.store import ResultStore\n"
            f"store = ResultStore({str(out)!r})\n"
            "read = sorted(p.name for p, _ in store.iter_results())\n"
            "print(json.dumps({'read': read, 'left out': sorted(p.name for p, _ in store.unreadable),"
            " 'tasks imported': 'compeval.tasks.registry' in sys.modules}))\n")
    return json.loads(_python(code))


def test_a_store_reads_alike_whatever_was_imported_before_it(copied):
    out, original, copy = copied
    alone = _listing("import compeval.results", out)
    after_tasks = _listing("import compeval.tasks.registry", out)
    assert alone["tasks imported"] is False and after_tasks["tasks imported"] is True
    # without a task_slug only the task name is checked, in both processes alike
    assert {k: v for k, v in alone.items() if k != "tasks imported"} == \
        {k: v for k, v in after_tasks.items() if k != "tasks imported"} == \
        {"read": sorted([original, copy]), "left out": []}


def test_the_exact_file_name_is_checked_where_result_slug_is_passed(copied):
    out, original, copy = copied
    store = ResultStore(out, result_slug)
    assert [p.name for p, _ in store.iter_results()] == [original]
    [(path, why)] = store.unreadable
    assert path.name == copy
    assert why.startswith(f"it holds task {original[:-5]} (its recorded options), which does not belong in file {copy}")
