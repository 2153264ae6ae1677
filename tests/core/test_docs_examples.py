"""docs/contributing.md's diff (a new model family with three options, a new trainer setting) applies to
today's sources and does what the text says: each addition is one place, and everything else (parsing,
ranges, listings, ids, recorded params, the slug, training) follows from it."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "contributing.md"

CHECK = r'''
import json
import numpy as np
from compeval.errors import SpecError
from compeval.models.conformance import check_model
from compeval.models.registry import family_forms, load_model, resolve_family
from compeval.tasks.registry import get_tasks
from compeval.training.mlp import MLPJob, fit_mlps
from compeval.training.settings import AdamSettings

out = {}
plain, other, named = load_model("charngram"), load_model("charngram,n=4"), load_model("charngram,name=mine")
check_model(other)
out["ids"] = [plain.config.id, other.config.id, named.config.id]
out["params"] = [plain.config.params, other.config.params, named.config.params]
out["names"] = [plain.config.name, named.config.name]
out["form"] = family_forms(resolve_family("charngram"))
out["rows"] = {r["option"]: r["kind"] for r in resolve_family("charngram").options.rows()}
out["same"] = bool(np.array_equal(plain.encode(["a red car"]), load_model("charngram").encode(["a red car"])))
errors = []
for spec in ("charngram,n=9", "charngram,dim=0", "charngram,lowercase=maybe"):
    try:
        load_model(spec)
    except SpecError as exc:
        errors.append(str(exc))
for spec in ("probe-has-x,mlp_beta_2=1.5",):
    try:
        get_tasks(spec)
    except SpecError as exc:
        errors.append(str(exc))
out["errors"] = errors
(task,) = get_tasks("probe-has-x,mlp_beta_2=0.99")
out["task"] = {"mlp": task.params["mlp"], "slug": task.slug, "default": get_tasks("probe-has-x")[0].params["mlp"]}
rng = np.random.default_rng(0)
x = rng.standard_normal((60, 5)).astype(np.float32)
y = (x[:, 0] > 0).astype(np.float32)
job = MLPJob("h", x, y, x, seed=1)
fits = [fit_mlps([job], hidden=(4,), settings=AdamSettings(max_iter=30, beta_2=b))[0].loss for b in (0.999, 0.9)]
out["losses"] = fits
print(json.dumps(out))
'''


def diff_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- example: new-family-and-trainer-setting")
    return re.search(r"```diff\n(.*?)```", text[start:], re.S).group(1)


def test_the_contributing_diff_applies_and_does_what_it_says(tmp_path):
    patch = diff_block()
    assert {m for m in re.findall(r"^\+\+\+ b/(\S+)", patch, re.M)} == {
        "src/compeval/models/families/charngram.py", "src/compeval/training/settings.py",
        "src/compeval/training/mlp.py"}
    # the trainer setting is one field plus the one line that uses it
    files = {re.search(r"b/(\S+)", part).group(1): part for part in patch.split("diff --git ")[1:]}
    changed = {f: len(re.findall(r"^[+-](?![+-])", part, re.M)) for f, part in files.items()}
    assert changed["src/compeval/training/settings.py"] == 1  # one field
    assert changed["src/compeval/training/mlp.py"] == 2  # the one line that uses it
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tmp_path / "change.diff").write_text(patch, encoding="utf-8")
    applied = subprocess.run(["git", "apply", "--verbose", "change.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr  # the diff still fits today's sources
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src"), "COMPEVAL_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])

    plain_id, other_id, named_id = out["ids"]
    assert len({plain_id, other_id, named_id}) == 3  # n is identity; a new name is a new id
    assert out["params"][0] == {"n": 3, "dim": 64, "lowercase": True} and out["params"][1]["n"] == 4
    assert out["names"] == ["charngram", "mine"] and out["same"]
    assert out["form"].startswith("charngram[,") and out["form"].endswith("[,n=3][,dim=64][,lowercase=true]")
    assert {k: v for k, v in out["rows"].items() if k in ("n", "dim", "lowercase")} == \
        {"n": "identity", "dim": "identity", "lowercase": "identity"}
    e_n, e_dim, e_bool, e_beta = out["errors"]
    assert e_n == "charngram,n=9: option n='9' must be a whole number, at least 1 and at most 8"
    assert "dim='0'" in e_dim and "at least 1" in e_dim and "lowercase='maybe'" in e_bool
    assert e_beta == "task 'probe-has-x': option mlp_beta_2='1.5' must be a number, greater than 0 and less than 1"
    assert all("\n" not in e for e in out["errors"])

    task = out["task"]
    assert task["mlp"] == {**task["default"], "beta_2": 0.99} and task["default"]["beta_2"] == 0.999
    assert task["slug"] == "probe-has-x__mlp_beta_2-0.99"
    assert out["losses"][0] != out["losses"][1]  # the setting reaches the optimiser
