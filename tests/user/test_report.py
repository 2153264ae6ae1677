"""User tasks in the report, the ranking and ``compeval results``: a headline per task, its figure, paired tests."""
from __future__ import annotations

import pytest

from compeval.report import build_report, ranking_frame
from compeval.results.store import results_frame
from compeval.runner import run

from .helpers import BigramEncoder, pair_rows, role_rows, write_csv


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("user-report")
    roles = write_csv(tmp / "roles.csv", role_rows()[::5])
    pairs = write_csv(tmp / "pairs.csv", pair_rows(30))
    triplets = "triplets:{},anchor=sentence,closer=paraphrase,farther=swap,category=verb,bootstrap=100,name={}"
    tasks = [triplets.format(roles, "roles"), triplets.format(roles, "roles-again"),
             f"pairs:{pairs},a=s1,b=s2,score=gold,bootstrap=100"]
    out = tmp / "out"
    run([BigramEncoder(), "hashbag"], tasks, out, cache_dir=None)
    return out


def test_each_user_task_is_its_own_ranking_row(folder):
    frame = ranking_frame(folder)
    rows = list(frame.index)
    assert [r for r in rows if r.startswith("roles")] == ["roles accuracy ↑", "roles-again accuracy ↑"]
    assert "pairs spearman ↑" in rows
    assert not any("mean" in r for r in rows)  # unrelated stimuli are never averaged


def test_compeval_results_lists_every_user_task(folder):
    df = results_frame(folder)
    assert set(df["task"]) == {"roles", "roles-again", "pairs"}
    assert set(df[df["task"] == "roles"]["subset"]) == {"all", *(v for v in ("questioned", "helped", "called",
                                                                              "visited", "praised"))}


def test_the_report_has_a_figure_per_task_and_paired_tests(folder, tmp_path):
    info = build_report(folder, tmp_path / "r.html", n_resamples=200, n_permutations=200, seed=0)
    html = (tmp_path / "r.html").read_text()
    assert "Your own tasks" in html
    for name in ("roles", "roles-again", "pairs"):
        assert f"fig-user-{name}" in html
    assert info.paired >= 3  # the two models compared item by item on each task
    assert not info.errors
