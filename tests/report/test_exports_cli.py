"""Leaderboard and results exports through the CLI: numbers in CSV/JSON, a terminal table, LaTeX with the
best bolded, published rows optional, task parameters in the rows, and MTEB's results layout."""
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from compeval.report import leaderboard_frame
from compeval.report.loading import ResultsIndex
from compeval.report.tables import leaderboard_columns
from compeval.paths import safe_component
from compeval.results import ResultStore


def cli(*args):
    return subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"})


def test_leaderboard_csv_has_numeric_value_and_interval_columns(toy_results):
    r = cli("results", str(toy_results), "--leaderboard", "--format", "csv")
    assert r.returncode == 0, r.stderr
    csv = pd.read_csv(io.StringIO(r.stdout), index_col=0)
    frame = leaderboard_frame(toy_results, include_published=True)
    stats = [c for c in csv.columns if c.endswith(("/value", "/ci_low", "/ci_high"))]
    assert stats and all(pd.api.types.is_float_dtype(csv[c]) for c in stats)
    for suite, task, stat in frame.columns:
        np.testing.assert_allclose(csv[f"{suite}/{task}/{stat}"].to_numpy(), frame[(suite, task, stat)].to_numpy())
    assert csv["published"].dtype == bool and csv["published"].any() and not csv.loc["hashbag", "published"]
    ranks = csv.loc[~csv["published"], "overall/mean rank"]
    assert ranks.between(1, 2).all()  # two computed models: every mean rank is in [1, 2]


def test_leaderboard_json_records_match_the_stored_scores(toy_results):
    r = cli("results", str(toy_results), "-f", "json", "--leaderboard")
    assert r.returncode == 0, r.stderr
    records = json.loads(r.stdout)
    store = ResultStore(toy_results)
    checked = 0
    for path, res in store.iter_results():
        rec = next(x for x in records if x["model"] == res.model["display"] and x["column"] == path.stem)
        assert rec["value"] == pytest.approx(res.main_score) and rec["ci_low"] <= rec["value"] <= rec["ci_high"]
        checked += 1
    assert checked == 8
    assert any(x["published"] and x["ci_low"] is None for x in records)


def test_no_published_leaves_the_published_rows_out(toy_results):
    for fmt in ("csv", "json", "markdown", "latex", "table"):
        r = cli("results", str(toy_results), "--leaderboard", "-f", fmt, "--no-published")
        assert r.returncode == 0, r.stderr
        assert "published]" not in r.stdout and "hashbag" in r.stdout, fmt
    assert cli("results", str(toy_results), "--no-published").returncode == 2  # leaderboard only


def test_table_leaderboard_is_a_terminal_table_not_markdown(toy_results):
    r = cli("results", str(toy_results), "--leaderboard", "-f", "table")
    assert r.returncode == 0, r.stderr
    assert "|---" not in r.stdout and "| model |" not in r.stdout
    assert "hashbag" in r.stdout and re.search(r"\d\.\d{3} \[\d\.\d{2}, \d\.\d{2}\]", r.stdout)
    assert "best published" in r.stdout


def test_latex_and_markdown_bold_the_best_computed_model(toy_results):
    """Bold only for a model that is not random vectors and whose interval clears random's (issue 36)."""
    index = ResultsIndex(toy_results)
    frame = leaderboard_frame(index)
    tex = cli("results", str(toy_results), "--leaderboard", "-f", "latex").stdout
    md = cli("results", str(toy_results), "--leaderboard", "-f", "markdown").stdout
    [rnd] = [m for m in frame.index if m.startswith("random")]
    bolded = 0
    for c in leaderboard_columns(index):
        values = frame[(c.suite, c.label, "value")].dropna()
        if c.direction == 0 or len(values) < 2:
            continue
        lo, hi = frame.loc["hashbag", (c.suite, c.label, "ci_low")], frame.loc["hashbag", (c.suite, c.label, "ci_high")]
        rlo, rhi = frame.loc[rnd, (c.suite, c.label, "ci_low")], frame.loc[rnd, (c.suite, c.label, "ci_high")]
        clears = lo > rhi if c.direction > 0 else hi < rlo
        shown = f"{values['hashbag']:.3f}"
        line = next(line for line in md.splitlines() if line.startswith("| hashbag |"))
        assert (f"**{shown} [" in line) == clears, (c.label, line)
        assert bool(re.search(r"\\textbf\{" + re.escape(shown) + r" \[", tex)) == clears, (c.label, shown)
        bolded += clears
    random_line = next(line for line in md.splitlines() if line.startswith(f"| {rnd} |"))
    # cells with an interval (the mean-rank column bolds its best rank, which has none)
    assert "**" not in random_line and len(re.findall(r"\\textbf\{[^}]* \[", tex)) == bolded


def test_results_rows_carry_the_task_parameters(toy_results):
    rows = pd.read_csv(io.StringIO(cli("results", str(toy_results), "-f", "csv").stdout))
    assert "params" in rows.columns
    rel = rows[rows["task"] == "invariance-relation"]["params"]
    assert rel.str.contains("bootstrap=200").all()
    store = ResultStore(toy_results)
    for _, res in store.iter_results():
        for k, v in res.task.params.items():
            assert rows[rows["task"] == res.task.name]["params"].str.contains(f"{k}={v}", regex=False).all()


def test_export_mteb_layout(toy_results, tmp_path):
    r = cli("export", str(toy_results), str(tmp_path / "mteb"), "--format", "mteb")
    assert r.returncode == 0, r.stderr
    files = sorted((tmp_path / "mteb").glob("*/*/*.json"))
    tasks = [p for p in files if p.name != "model_meta.json"]
    store = ResultStore(toy_results)
    results = {(res.model["id"], path.stem): res for path, res in store.iter_results()}
    assert len(tasks) == len(results)
    for p in tasks:
        data = json.loads(p.read_text())
        res = results[(p.parent.name, p.stem)]  # <model>/<revision = model id>/<task>.json
        assert data["task_name"] == p.stem
        assert p.parent.parent.name == safe_component(res.model["display"].replace("/", "__"))
        main = next(x for x in data["scores"]["test"] if x["hf_subset"] == res.task.main_subset)
        assert main["main_score"] == pytest.approx(res.main_score)
        assert (p.parent / "model_meta.json").is_file()
    assert cli("export", str(toy_results), str(tmp_path / "x"), "--format", "beir").returncode == 2
