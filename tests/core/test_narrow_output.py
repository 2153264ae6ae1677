"""Readable at 80 columns (issue 36, item 5): ``compeval results DIR``, ``compeval models``, the end-of-run
ranking and ``run --help`` fit 80 columns, and no model name, task, option or number is cut in two; ``--wide``
prints one line per row with every column; help text keeps every option's full description."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compeval.cli.tables import tokens
from compeval.runner import run

SRC = str(Path(__import__("compeval").__file__).resolve().parents[1])
MODELS = ["hashbag", "hashbag,name=a-very-long-model-name-for-tables", "random,dim=8", "overlap",
          "glove-6b-50d,tok=sts3k", "glove-6b-50d"]


def cli(*args, columns=80):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
           "COLUMNS": str(columns), "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def results(tmp_path_factory, data_dir):
    out = tmp_path_factory.mktemp("narrow") / "out"
    summary = run(MODELS, ["gs2011,bootstrap=50", "minimal-pairs,bootstrap=50"], out, data_dir=data_dir,
                  cache_dir=None, report=False)
    assert not summary.failed
    from compeval.results.store import results_frame

    return out, sorted({o.model for o in summary.outcomes}), sorted(set(results_frame(out)["task"]))


def whole(text: str, word: str) -> bool:
    """Every token of ``word`` (the pieces between breaks after a space , ; | > /) appears unbroken."""
    return all(t.strip() in text for t in tokens(word))


def test_results_fit_80_columns_without_cutting_a_name(results, tmp_path, data_dir):
    out, models, tasks = results
    text = cli("results", str(out))
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in models + tasks:
        assert whole(text, name), name
    for name in models:  # a model's name is its table's heading: one line, whole
        assert any(line.strip() == name for line in text.splitlines()), name
    assert "params" not in text  # left out: it does not fit, and no task ran with two sets of options
    import shutil

    out = Path(shutil.copytree(out, tmp_path / "copy"))
    again = run(["hashbag"], ["gs2011,bootstrap=60"], out, data_dir=data_dir, cache_dir=None, report=False)
    assert not again.failed
    hashbag = cli("results", str(out)).split("\nhashbag\n", 1)[1].split("\n\n")[0]
    assert "params" in hashbag and "bootstrap=60;" in hashbag and "bootstrap=50;" in hashbag


def test_results_wide_is_one_line_per_row_with_every_column(results):
    out, models, tasks = results
    text = cli("results", str(out), "--wide")
    lines = text.splitlines()
    header = lines[0].split()
    assert header == ["model", "task", "params", "subset", "metric", "value", "ci_low", "ci_high", "n"]
    from compeval.results.store import results_frame

    assert len(lines) == 1 + len(results_frame(out))
    assert all(any(line.startswith(m) for m in models) for line in lines[1:])


def test_the_leaderboard_and_the_ranking_fit_80_columns(results):
    out, models, _ = results
    text = cli("results", str(out), "--leaderboard")
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in models:
        assert whole(text, name), name
    from rich.console import Console

    from compeval.cli.summary import _print_ranking
    from compeval.runner.jobs import JobOutcome

    console = Console(width=80, record=True, file=open(os.devnull, "w"), force_terminal=True)  # (a log: one line a row)
    present = [JobOutcome("", "", "done", p) for p in out.glob("*/*.json")]
    _print_ranking(present, out, console, console)
    ranking = console.export_text()
    table = ranking[:ranking.index("★ best of the row")]
    assert max(len(line) for line in table.splitlines()) <= 80
    for name in models:
        assert whole(table, name), name
    assert "-0." in table or "0." in table


def test_the_end_of_run_ranking_fits_80_columns_in_a_pipe_and_wide_is_one_line(results, tmp_path, data_dir):
    """`make run > log`: the ranking a pipe gets fits COLUMNS=80, each value above its interval, neither cut;
    --wide gives one line per headline."""
    import re
    import shutil

    out, models, _ = results
    out = Path(shutil.copytree(out, tmp_path / "copy"))
    args = ["run", *sum((["-m", m] for m in MODELS), []), "-t", "gs2011,bootstrap=50", "-t",
            "minimal-pairs,bootstrap=50", "-o", str(out), "--no-report", "--cache-dir", str(tmp_path / "c")]
    text = cli(*args)  # every result is on disk: the run reuses them and prints the ranking
    table = text[:text.index("★ best of the row")]
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in models:
        assert whole(table, name), name
    intervals = re.findall(r"\[-?\d\.\d{2}, -?\d\.\d{2}\]", table)
    assert len(intervals) >= 2 * (len(MODELS) + 1)  # two headlines × (models + chance), each interval whole
    wide = cli(*args, "--wide")
    rows = [line for line in wide.splitlines() if re.search(r"[↑↓]", line) and "best" not in line]
    assert len(rows) == 2 and all(len(re.findall(r"-?\d\.\d{3} \[-?\d\.\d{2}, -?\d\.\d{2}\]", r)) >= len(MODELS)
                                  for r in rows), wide
    assert max(len(line) for line in wide.splitlines()) > 80


def test_plan_fits_80_columns_and_wide_is_one_line_per_model(tmp_path):
    args = ["run", "--plan", "--device", "cpu", *sum((["-m", m] for m in MODELS), []), "-t", "gs2011",
            "-o", str(tmp_path / "o")]
    text = cli(*args)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert text.startswith("device kind: cpu-2core")
    for name in MODELS:
        assert whole(text, name), name
    assert "est. " in text and "6 models" in text
    wide = cli(*args, "--wide").splitlines()
    assert sum(any(line.startswith(m + " ") for m in MODELS) for line in wide) == len(MODELS)
    assert any("no transformer forward pass" in line and line.startswith("hashbag ") for line in wide)


def test_models_fit_80_columns_and_keep_every_spec_token():
    from compeval.models.registry import list_models

    text = cli("models")
    assert max(len(line) for line in text.splitlines()) <= 80
    for row in list_models():
        assert row["name"] in text
        for t in tokens(row["spec"]):
            assert t.strip() in text, (row["spec"], t)
    wide = cli("models", "--wide")
    for row in list_models():
        assert any(row["spec"] in line and line.startswith(row["name"]) for line in wide.splitlines()), row


def test_run_help_keeps_every_description_at_80_columns():
    import typer.main

    from compeval.cli import app

    text = cli("run", "--help")
    assert max(len(line) for line in text.splitlines()) <= 80
    squeezed = "".join(text.split())
    command = typer.main.get_command(app).commands["run"]
    for p in command.params:
        if p.help:
            assert "".join(p.help.split()) in squeezed, p.help


def test_a_cell_wraps_only_between_tokens():
    from compeval.cli.tables import Col, fitted_tables, wrap
    from rich.console import Console

    assert wrap("sbert:ORG/NAME[,pooling=mean|cls][,dtype=float32]", 20).splitlines() == \
        ["sbert:ORG/NAME[,", "pooling=mean|cls][,", "dtype=float32]"]
    rows = [["all-MiniLM-L6-v2"] + ["0.705 [0.64, 0.77]"] * 7]
    cols = [Col("model", key=True), Col("a"), Col("b"), Col("c"), Col("d"), Col("e"), Col("f"), Col("g")]
    tables = fitted_tables(cols, rows, 40)
    assert len(tables) > 1  # split, each repeating the key column
    console = Console(width=40, record=True, file=open(os.devnull, "w"))
    for t in tables:
        console.print(t)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 40
    assert text.count("all-MiniLM-L6-v2") == len(tables) and text.count("0.705") == text.count("[0.64,") == 7


@pytest.mark.parametrize("columns", [0, 1])
def test_a_zero_or_tiny_width_still_shows_every_name_and_finishes(columns, tmp_path, data_dir):
    """COLUMNS=0 is a width rich takes as written: at width 0 textwrap refuses the ranking's notes and a printed
    line (the model's name above its table) vanishes. A width below the floor is the floor."""
    out = tmp_path / "out"
    text = cli("run", "-m", "hashbag", "-t", "gs2011,bootstrap=40", "-o", str(out), "--no-report", "--no-cache",
               "--data-dir", str(data_dir), columns=columns)
    assert "★ best of the row" in text.replace("\n", " ") or "best of the" in text
    shown = cli("results", str(out), columns=columns)
    assert any(line.strip() == "hashbag" for line in shown.splitlines()), shown
