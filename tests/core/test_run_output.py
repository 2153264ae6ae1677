"""What a run says it did not do (issue 36, items 3 and 6): tasks left out are counted by reason in the final
summary and listed under the ranking and in the report; without a terminal each finished job is one line
on stderr; a failed job's line is printed once, and every failure kind leaves a log under OUTPUT/logs/."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

import compeval.tasks.registry as task_registry
from compeval.cli import app


@pytest.fixture()
def three_tasks(monkeypatch):
    """The default run narrowed to three tasks: one generated, one that reads data, one not in the default run."""
    task_registry.discover()
    keep = task_registry.TASKS.only(("minimal-pairs", "gs2011", "lexcomp-vpc"))
    monkeypatch.setattr(task_registry, "TASKS", keep)
    return keep


def invoke(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_an_offline_default_run_counts_lists_and_reports_what_it_left_out(three_tasks, tmp_path):
    out, empty = tmp_path / "out", tmp_path / "empty"
    empty.mkdir()
    r = invoke("run", "--offline", "--data-dir", str(empty), "-m", "hashbag", "-o", str(out), "--no-cache")
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    summary = text[text.index("summary:"):]
    assert "1 job(s) done" in summary and "2 task(s) not run" in summary
    assert re.search(r"2 task\(s\) not run: 1 not in the default run .*\(lexcomp-vpc\); 1 without their data on "
                     r"this machine \(--offline: no downloads\) \(gs2011\)", summary), summary
    ranking = text[text.index("headline"):]  # the ranking, then what is not in it
    assert "not run, without their data on this machine (--offline: no downloads): gs2011" in ranking
    assert "not run, not in the default run" in ranking and "lexcomp-vpc" in ranking
    # Not a terminal: one line per finished job, with its model, task and seconds.
    assert re.search(r"done hashbag × minimal-pairs \(\d+ items, \d+\.\ds", text)
    html = (out / "report.html").read_text()
    block = html[html.index('id="not-run"'):]
    block = block[:block.index("</div>")]
    assert "Not run (2 tasks)" in block and "gs2011" in block and "lexcomp-vpc" in block


def test_a_later_result_of_a_left_out_task_leaves_the_report_list(three_tasks, tmp_path, data_dir):
    out, empty = tmp_path / "out", tmp_path / "empty"
    empty.mkdir()
    assert invoke("run", "--offline", "--data-dir", str(empty), "-m", "hashbag", "-o", str(out),
                  "--no-cache", "--no-report").exit_code == 0
    assert invoke("run", "-m", "hashbag", "-t", "gs2011,bootstrap=50", "--data-dir", str(data_dir),
                  "-o", str(out), "--no-cache").exit_code == 0
    html = (out / "report.html").read_text()
    block = html[html.index('id="not-run"'):]
    block = block[:block.index("</div>")]
    assert "Not run (1 task)" in block and "lexcomp-vpc" in block and "gs2011" not in block


def test_a_data_failure_is_printed_once_and_logged(tmp_path):
    out, empty = tmp_path / "out", tmp_path / "empty"
    empty.mkdir()
    r = invoke("run", "--offline", "--data-dir", str(empty), "-m", "hashbag", "-t", "gs2011", "-o", str(out),
               "--no-cache", "--no-report")
    assert r.exit_code == 1
    # The error's line once (at the end); the job's progress line names the job and points there.
    assert sum("GS2011_processed.csv is not in" in line for line in r.output.splitlines()) == 1, r.output
    log = out / "logs" / "gs2011.log"
    assert "fetching the data" in log.read_text() and "GS2011_processed.csv" in log.read_text()
    assert f"logs in {out / 'logs'}" in " ".join(r.output.split())


def test_a_model_that_cannot_be_built_is_logged(tmp_path, data_dir):
    out = tmp_path / "out"
    r = invoke("run", "-m", "precomputed:nope.txt", "-t", "gs2011,bootstrap=50", "--data-dir", str(data_dir),
               "-o", str(out), "--no-cache", "--no-report")
    assert r.exit_code == 1
    [log] = (out / "logs").glob("*.log")
    assert "building the model" in log.read_text() and "nope.txt" in log.read_text()
    assert sum("does not exist" in line for line in r.output.splitlines()) == 1, r.output


def test_python_run_writes_the_report_like_the_cli(tmp_path, data_dir):
    """The conftest turns run()'s report off for speed after checking that its own default is on."""
    from compeval.runner import run

    summary = run(["hashbag"], ["gs2011,bootstrap=50"], tmp_path / "out", data_dir=data_dir, cache_dir=None,
                  report=True)
    assert summary.report == tmp_path / "out" / "report.html"
    html = summary.report.read_text()
    assert "hashbag" in html and "gs2011" in html
    off = run(["hashbag"], ["ks2013,bootstrap=50"], tmp_path / "off", data_dir=data_dir, cache_dir=None,
              report=False)
    assert off.report is None and not (tmp_path / "off" / "report.html").exists()


def test_a_model_name_typo_gets_a_did_you_mean():
    from compeval.errors import SpecError
    from compeval.models.registry import check_spec

    for typo, meant in (("glove-6b-50", "glove-6b-50d"), ("all-minilm-l6-v2", "all-MiniLM-L6-v2"),
                        ("hashbg", "hashbag")):
        with pytest.raises(SpecError, match=f"did you mean {meant}\\?"):
            check_spec(typo)
