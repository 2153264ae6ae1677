"""A task declared in a TOML file and the same task on the command line: one id, the same numbers."""
from __future__ import annotations

import json

import pytest

from compeval.models.protocol import as_model
from compeval.tasks.registry import get_tasks

from .helpers import BigramEncoder, role_rows, write_csv
from .test_malformed import run_cli

TOML = """\
kind = "triplets"
name = "roles"
description = "role reversal: the passive paraphrase against the swapped roles"
citation = "generated for the tests"
source = "data/roles.csv"

[columns]
anchor = "sentence"
closer = "paraphrase"
farther = "swap"
category = "verb"

[options]
bootstrap = 200
"""
SPEC = "triplets:{path},anchor=sentence,closer=paraphrase,farther=swap,category=verb,bootstrap=200,name=roles"


@pytest.fixture()
def declared(tmp_path):
    (tmp_path / "data").mkdir()
    rows = role_rows()[::4]
    for k, r in enumerate(rows):
        if k % 3 == 0:
            r["paraphrase"], r["swap"] = r["swap"], r["paraphrase"]
    data = write_csv(tmp_path / "data" / "roles.csv", rows)
    (tmp_path / "tasks").mkdir()
    toml = tmp_path / "tasks" / "roles.toml"
    toml.write_text(TOML.replace("data/roles.csv", "../data/roles.csv"))
    return toml, data


def test_file_and_command_line_give_one_id_and_the_same_numbers(declared):
    toml, data = declared
    (from_file,), (from_spec,) = get_tasks(str(toml)), get_tasks(SPEC.format(path=data))
    assert from_file.slug == from_spec.slug and from_file.params == from_spec.params
    assert from_file.metadata.reference == "generated for the tests"
    model = as_model(BigramEncoder())
    for t in (from_file, from_spec):
        t.load(None)
    a, b = from_file.evaluate(model, seed=3), from_spec.evaluate(model, seed=3)
    assert [s.model_dump() for s in a.scores] == [s.model_dump() for s in b.scores]


def test_the_id_follows_the_data_and_the_options_not_the_path(declared, tmp_path):
    toml, data = declared
    (base,) = get_tasks(SPEC.format(path=data))
    copy = tmp_path / "copy.csv"
    copy.write_bytes(data.read_bytes())
    assert get_tasks(SPEC.format(path=copy))[0].slug == base.slug
    assert get_tasks(SPEC.format(path=data).replace("bootstrap=200", "bootstrap=300"))[0].slug != base.slug
    copy.write_text(data.read_text().replace("lawyer", "judge"))
    assert get_tasks(SPEC.format(path=copy))[0].slug != base.slug


def test_both_forms_through_compeval_run_write_one_result(declared, tmp_path, monkeypatch, capsys):
    toml, data = declared
    before = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.rglob("*") if p.is_file())
    out = tmp_path / "out"
    code, _ = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", str(toml), "-o", str(out), "--no-report",
                      "--no-cache")
    assert code == 0
    (result,) = out.glob("*/roles__*.json")
    first = json.loads(result.read_text())
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", SPEC.format(path=data), "-o", str(out),
                          "--no-report", "--no-cache")
    assert code == 0 and any("1 skipped" in line for line in lines), lines  # the same id: already present
    assert first["task"]["suite"] == "user" and first["counts"]["data_sha256"]
    after = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.rglob("*")
                   if p.is_file() and out not in p.parents)
    assert after == before  # nothing of the user's data written back, nothing written beside it


def test_tasks_path_lists_the_folder(declared, monkeypatch, capsys):
    toml, _ = declared
    monkeypatch.setattr("sys.argv", ["compeval", "tasks", "--path", str(toml.parent), "--format", "json"])
    from compeval.cli import main

    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["name"], row["kind"], row["suite"]) == ("roles", "triplets", "user")
    assert row["id"] == get_tasks(str(toml))[0].slug


@pytest.mark.parametrize("text, line, message", [
    ('kind = "triplets"\nsource = "x.csv\n', 2, "not valid TOML"),
    ('kind = "triplets"\nsource = "../data/roles.csv"\ncolour = "red"\n', 3, "unknown key 'colour'"),
    ('source = "../data/roles.csv"\n', 1, "'kind' must be given as a string"),
    ('kind = "quadruplets"\nsource = "../data/roles.csv"\n', 1, "kind 'quadruplets': choose pairs, triplets"),
    ('kind = "triplets"\nsource = "../data/roles.csv"\n[columns]\nbootstrap = "x"\n[options]\nbootstrap = 5\n', 4,
     "'bootstrap' is given under [columns] and [options]"),
    ('kind = "triplets"\nsource = "../data/roles.csv"\ncolumns = 3\n', 3, "'columns' must be a table"),
])
def test_a_malformed_task_file_is_one_line_and_exit_2(declared, monkeypatch, capsys, text, line, message):
    toml, _ = declared
    toml.write_text(text)
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", str(toml), "-o", str(toml.parent / "o"))
    assert (code, len(lines)) == (2, 1), lines
    assert lines[0].startswith(f"error: {toml}:{line}: {message}"), lines[0]


def test_an_unknown_option_in_a_task_file_names_it(declared, monkeypatch, capsys):
    toml, _ = declared
    toml.write_text(TOML.replace("../data", "data").replace("data/roles.csv", "../data/roles.csv")
                    .replace("bootstrap = 200", "boostrap = 200"))
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", str(toml), "-o", str(toml.parent / "o"))
    assert (code, len(lines)) == (2, 1) and "boostrap" in lines[0], lines
