"""``compeval tasks NAME`` lists a task's options (type and range, default, description) as ``compeval models
FAMILY`` lists a family's, so a user learns them before the error of an unknown option."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from compeval.options import field_notes
from compeval.tasks.registry import TASKS, get_tasks, suites

SRC = str(Path(__import__("compeval").__file__).resolve().parents[1])


def cli(*args, columns=80, ok=True):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
           "COLUMNS": str(columns), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert (r.returncode == 0) == ok, r.stderr
    return r.stdout + r.stderr


def test_json_listing_is_every_option_the_task_accepts():
    listing = json.loads(cli("tasks", "probe-has-x", "--format", "json"))
    rows = {r["option"]: r for r in listing["probe-has-x"]["options"]}
    assert set(rows) == set(TASKS["probe-has-x"].Options.flat_fields())  # the parser's names, groups flattened
    assert rows["n_train"] == {"option": "n_train", "default": "1000", "values": "integer >= 10",
                                    "kind": "identity", "help": "items per probe choice, rounded down to an even number"}
    assert rows["p_passive"]["values"] == "number >= 0 <= 1"
    assert rows["mlp_lr"]["help"].startswith("Adam's learning rate")  # a trainer's setting, from its own class
    assert rows["words"]["default"] == "school+professor+dog"
    for name, row in rows.items():  # each default, as listed, is a value the task accepts and keeps
        if row["default"]:
            (task,) = get_tasks(f"probe-has-x,{name}={row['default']}")
            assert task.options.non_default() == {}, name


def test_text_listing_fits_80_columns_and_a_suite_lists_each_task():
    text = cli("tasks", "modifiers")
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in suites()["modifiers"]:
        assert f"{name} (modifiers)\n" in text
        for option in TASKS[name].Options.flat_fields():
            assert option in text, (name, option)
    assert "ignore_distance_ge1" in text and "Give options after the task name" in text


def test_an_unknown_task_is_one_line_with_a_suggestion():
    text = cli("tasks", "sts3kk", ok=False)
    assert "unknown task 'sts3kk'; did you mean sts3k?" in text and len(text.strip().splitlines()) == 1


def test_field_notes_read_the_comment_beside_or_above_a_field():
    from pydantic import BaseModel

    from compeval.tasks.probing.tasks import GeneratedProbeOptions

    notes = field_notes(GeneratedProbeOptions)
    assert notes["n_train"] == "items per probe choice, rounded down to an even number"  # beside
    assert notes["p_passive"].startswith("grammar: share of transitive clauses")  # the line above
    assert notes["aspects"] == "grammar.ASPECT_SETS"  # a type: ignore before it is not part of the text

    class Declared(BaseModel):
        # the x,
        # in two lines
        x: int = 1
        y: int = 2  # the y
        z: int = 3

    assert field_notes(Declared) == {"x": "the x, in two lines", "y": "the y"}  # none written for z: none invented
