"""The first hour of a new user: quick results kept apart from full ones, one headline number per task in every
view, progress lines in a log, an honest ★, ``verify`` reading the run's data, ``--plan`` writing nothing."""
from __future__ import annotations

import os

import pytest

from cli_process import cli

DATA = os.environ.get("COMPEVAL_DATA_DIR", "/work/shared/data")


def test_quick_run_then_full_run_keep_reduced_results_out_of_the_default_folder(tmp_path):
    quick = cli("run", "--quick", "-m", "hashbag", "--no-cache", "--no-report", "--offline", cwd=tmp_path,
                COMPEVAL_DATA_DIR=DATA, COLUMNS="80")
    assert quick.returncode == 0, quick.stderr
    assert not (tmp_path / "results").exists()
    reduced = sorted(p.stem for p in (tmp_path / "results-quick").rglob("*.json") if "__n_" in p.stem)
    assert reduced, "the quick run wrote its reduced-size results into results-quick/"
    full = cli("run", "-m", "hashbag", "-t", "minimal-pairs", "-t", "sts3k-pilot", "--no-cache", "--no-report",
               "--offline", cwd=tmp_path, COMPEVAL_DATA_DIR=DATA, COLUMNS="80")
    assert full.returncode == 0, full.stderr
    written = sorted(p.stem for p in (tmp_path / "results").rglob("*.json") if p.parent.name != "results")
    assert written == ["minimal-pairs", "sts3k-pilot"], written
    board = cli("results", "results", "--leaderboard", "--format", "csv", cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    header = board.stdout.splitlines()[0]
    assert "minimal-pairs" in header and "n_bases" not in header and "n-bases" not in header
    # the end-of-run ranking: one minimal-pairs row, from the full-size result
    rows = [line for line in full.stdout.splitlines() if line.startswith("minimal-pairs")]
    assert len(rows) == 1 and "invariance" not in full.stdout and "probe-x-as-agent" not in full.stdout


def test_one_headline_number_for_sts3k_norm_center_in_every_view(tmp_path):
    import json
    import re

    run = cli("run", "-m", "hashbag", "-t", "sts3k,norm=center", "--no-cache", "--offline", cwd=tmp_path,
              COMPEVAL_DATA_DIR=DATA, COLUMNS="80")
    assert run.returncode == 0, run.stderr
    (path,) = (tmp_path / "results").rglob("sts3k__norm-center.json")
    stored = json.loads(path.read_text())
    adv = next(s["value"] for s in stored["scores"] if (s["subset"], s["metric"]) == ("adv", "spearman"))
    assert stored["main_score"] == adv  # the task's main score is its headline: Spearman on the adversarial pairs
    all_pairs = next(s["value"] for s in stored["scores"] if (s["subset"], s["metric"]) == ("all", "spearman"))
    assert f"{adv:.3f}" != f"{all_pairs:.3f}"  # else this test could not tell the two apart
    # the job line (a pipe gets one per finished job)
    job = re.search(r"done hashbag × sts3k__norm-center \(.*main score (-?[0-9.]+)\)", run.stderr)
    assert job and job.group(1) == f"{adv:.4f}", run.stderr
    # the end-of-run ranking
    row = next(line for line in run.stdout.splitlines() if line.startswith("STS3k adv ρ"))
    assert f"{adv:.3f}" in row and f"{all_pairs:.3f}" not in row, row
    # compeval results: the row of the main subset and metric
    rows = json.loads(cli("results", "results", "-f", "json", cwd=tmp_path).stdout)
    assert [r["value"] for r in rows if (r["subset"], r["metric"]) == ("adv", "spearman")] == [adv]
    # compeval results --leaderboard: the task's column holds the headline, whatever its options
    board = json.loads(cli("results", "results", "--leaderboard", "-f", "json", "--no-published", cwd=tmp_path).stdout)
    cells = {r["column"]: r["value"] for r in board if r["model"] == "hashbag"}
    assert cells["sts3k__norm-center"] == adv, cells
    # the report's leaderboard cell
    html = (tmp_path / "results" / "report.html").read_text()
    table = html[html.index('id="leaderboard-sts"'):]
    table = table[:table.index("</table>")]
    assert f">{adv:.3f}<" in table and f">{all_pairs:.3f}<" not in table
    # the MTEB export: its one scored subset is the headline's, so MTEB's own score (the mean of main_score
    # over the subsets) is the same number; the other subsets ride along under "compeval"
    assert cli("export", "results", "mteb", cwd=tmp_path).returncode == 0
    (exported,) = (tmp_path / "mteb").rglob("sts3k__norm-center.json")
    payload = json.loads(exported.read_text())
    assert [(x["hf_subset"], x["main_score"]) for x in payload["scores"]["test"]] == [("adv", adv)]
    assert {x["hf_subset"] for x in payload["compeval"]["subsets"]} >= {"all", "non", "non_minus_adv"}
    mteb = pytest.importorskip("mteb")
    assert mteb.TaskResult.from_dict(payload).get_score() == pytest.approx(adv)


class _Sleepy:
    """An encoder slow enough (a sleep per text) for a log's progress lines to fall during its encoding."""

    def encode(self, texts):
        import time

        import numpy as np

        time.sleep(0.0004 * len(texts))
        return np.array([[len(t), t.count("a") + 1.0] for t in texts], dtype=np.float32)


def test_a_log_gets_progress_lines_during_encoding_and_evaluation(tmp_path):
    import io
    import re

    from rich.console import Console

    from compeval.runner import run
    from compeval.runner.progress import LOG_INTERVAL_S, RichReporter

    assert 30 <= LOG_INTERVAL_S <= 60  # what a user's log gets
    log = io.StringIO()
    console = Console(file=log, force_terminal=False, width=200)
    assert not console.is_terminal
    with RichReporter(console, log_interval=0.05) as reporter:
        run([_Sleepy()], ["sts3k"], tmp_path / "o", cache_dir=None, reporter=reporter, data_dir=DATA,
            download=False)
    text = log.getvalue()
    pattern = (r"\[\d\d:\d\d:\d\d\] _Sleepy\S* × sts3k: encoding ([\d,]+)/([\d,]+) texts, ([\d.,]+) "
               r"texts/s, ETA (\d+m\d\ds|\d+s)")
    found = [[int(g.replace(",", "")) for g in m.groups()[:2]]
             for line in text.splitlines() if (m := re.search(pattern, line))]
    assert any(0 < done < total for done, total in found), text
    assert "× sts3k: evaluating job 1/1" in text


def test_log_lines_say_model_task_done_total_rate_eta_and_the_job_evaluated():
    import io

    from rich.console import Console

    from compeval.runner.progress import RichReporter

    reporter = RichReporter(Console(file=io.StringIO(), force_terminal=False), log_interval=0)
    reporter.model_start("m", 3)
    reporter.working_on("m", ["sts3k", "sick", "stsb", "gs2011"], "encoding")
    reporter.encoding("m", 0, 6000)
    since = reporter.doing["m"]["since"]
    reporter.encoding("m", 1500, 6000)
    (line,) = reporter.log_lines(now=since + 60)
    assert line.endswith("m × sts3k, sick, stsb +1 more: encoding 1,500/6,000 texts, 25.0 texts/s, ETA 3m00s"), line
    reporter.working_on("m", ["sick"], "evaluating")
    (line,) = reporter.log_lines(now=reporter.doing["m"]["since"] + 75)
    assert line.endswith("m × sick: evaluating job 1/3 (scoring, training any heads), 1m15s so far"), line


def test_plan_writes_nothing_and_names_the_tasks_it_could_not_count(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    r = cli("run", "--plan", "-m", "glove-6b-50d", "-t", "sts3k-pilot", "-t", "minimal-pairs,n_bases=6", cwd=work,
            HOME=str(home), COMPEVAL_DATA_DIR="", COMPEVAL_CACHE_DIR="", XDG_CACHE_HOME="", COLUMNS="200")
    assert r.returncode == 0, r.stderr
    assert list(home.rglob("*")) == [] and list(work.rglob("*")) == []  # no data, no folders, no results
    line = next(x for x in r.stderr.splitlines() if x.startswith("not counted sts3k-pilot:"))
    assert "--plan downloads nothing" in line and "--offline" not in line
    assert "1 tasks with texts" in r.stdout


def test_verify_reads_the_data_folder_the_run_read_or_names_the_option(tmp_path):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(f"{DATA}/sts3k", data / "sts3k")
    env = dict(HOME=str(tmp_path / "home"), COMPEVAL_DATA_DIR="", COMPEVAL_CACHE_DIR="", COLUMNS="200")
    run = cli("run", "-m", "hashbag", "-t", "sts3k-pilot", "--data-dir", str(data), "--no-cache", "--no-report",
              "--offline", cwd=tmp_path, **env)
    assert run.returncode == 0, run.stderr
    ok = cli("verify", "results", "--no-cache", cwd=tmp_path, **env)  # no --data-dir: the folder the run read
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "recomputed from predictions: 1 result(s)" in ok.stderr and "1 hold, 0 do not" in ok.stderr
    shutil.rmtree(data)  # the folder is gone: one line names the option to pass
    bad = cli("verify", "results", "--no-cache", cwd=tmp_path, **env)
    assert bad.returncode == 1
    text = bad.stdout + bad.stderr
    assert "--data-dir" in text and "(--offline)" not in text and "result(s): \n" not in text + "\n", text


def test_a_star_only_where_a_chance_level_is_known_and_cleared(tmp_path):
    from compeval.cli.summary import ranking_notes, ranking_table
    from compeval.report.loading import ResultsIndex
    from compeval.report.ranking import ranking
    from compeval.runner import run

    run(["hashbag", "hashbag,dim=256"], ["probe-has-x,n_train=200,n_test=100", "modifiers-test3", "minimal-pairs"],
        tmp_path / "r", cache_dir=None)
    rows = {r.suite: r for r in ranking(ResultsIndex(tmp_path / "r"))}
    probing, modifiers, structure = rows["probing"], rows["modifiers"], rows["structure"]
    assert probing.reference() == ("chance", (0.5, None, None))  # balanced labels: the panel's dashed line too
    assert modifiers.reference() is None and modifiers.best() is None  # no chance level: no ★
    assert structure.reference() == ("chance", (0.5, None, None))
    cleared = [m for m in structure.cells if structure.clears_reference(m)]
    assert (structure.best() is None) == (not cleared)
    notes = ranking_notes(list(rows.values()))
    assert sum("no chance level" in line for line in notes) == 1
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=200)
    for t in ranking_table(list(rows.values()), ["hashbag", "hashbag,dim=256"], 200):
        console.print(t)
    table = console.file.getvalue()
    assert table.count("★") == sum(r.best() is not None for r in rows.values())
