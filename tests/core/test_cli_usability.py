"""The first ten minutes: --version, python -m compeval, short usage errors, the task list, the end-of-run
ranking and report, progress from the first batch (CLI and Python API)."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import compeval
from compeval.cache import EmbeddingCache
from compeval.runner import run
from compeval.tasks.registry import list_tasks

#: Generated tasks of three suites: seconds with toy models, no data needed.
TOY_TASKS = ["invariance-relation,bootstrap=100", "modifiers-test3,n_resamples=100",
             "minimal-pairs,n_bases=6,bootstrap=100"]


def cli(*args, module="compeval", **env):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "100", **env})


def test_version_and_python_m_compeval():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"compeval {compeval.__version__}"
    h = cli("--help")
    assert h.returncode == 0 and "Usage: compeval" in h.stdout and "run" in h.stdout and not h.stderr
    assert cli("--version", module="compeval.cli").stdout == r.stdout


@pytest.mark.parametrize("args, hint", [
    (["run", "--modle", "glove-6b-50d"], "did you mean --model?"),
    (["rnu"], "'run'"),
    (["results", "--leaderbord", "x"], "did you mean --leaderboard?"),
    (["results"], "compeval results --help"),
    (["run", "--seed", "abc"], "compeval run --help"),
    (["--verison"], "did you mean --version?"),
])
def test_usage_errors_are_three_lines_with_a_hint(args, hint):
    r = cli(*args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) <= 3, r.stderr
    assert lines[0].startswith("error: ") and lines[1].startswith("Usage: compeval")
    assert hint in r.stderr and "Traceback" not in r.stderr and not r.stdout


def test_a_mistyped_task_is_one_line_with_the_closest_name(tmp_path):
    r = cli("run", "--task", "sts3", "--model", "hashbag", "-o", str(tmp_path))
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert "did you mean sts3k?" in r.stderr and "compeval tasks" in r.stderr and not list(tmp_path.iterdir())


def test_tasks_is_one_line_per_task_grouped_by_suite_within_100_columns():
    r = cli("tasks")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100  # characters, not bytes
    rows = list_tasks()
    suite_of = {x["name"]: x["suite"] for x in rows}
    current, seen = None, []
    for line in lines:
        if m := re.fullmatch(r"(\S+) \(\d+ tasks?\)", line):
            current = m.group(1)
        elif line.startswith("  "):
            name = line.split()[0]
            assert suite_of[name] == current, line  # under its own suite's header
            seen.append(name)
    assert sorted(seen) == sorted(suite_of)  # every task exactly once
    as_json = json.loads(cli("tasks", "--format", "json").stdout)
    assert [x["name"] for x in as_json] == [x["name"] for x in rows]
    assert {"name", "suite", "data", "description", "local"} <= set(as_json[0])
    assert cli("tasks", "--format", "xml").returncode == 2


def _run_toy(tmp_path, *extra):
    out = tmp_path / "out"
    r = cli("run", "-m", "hashbag", "-m", "random,dim=32", "-m", "random,dim=16,seed=1",
            *sum((["-t", t] for t in TOY_TASKS), []), "-o", str(out), *extra,
            COMPEVAL_CACHE_DIR=str(tmp_path / "cache"))
    return r, out


def test_end_of_run_is_a_short_ranking_then_the_paths_and_the_report(tmp_path):
    r, out = _run_toy(tmp_path, "--wide")  # one line per ranking row (else fitted to 80 columns: test_narrow_output)
    assert r.returncode == 0, r.stderr
    text = r.stdout + r.stderr
    assert len(text.strip().splitlines()) <= 40, text
    # one ranking row per headline, the chance reference (here the random models' score) and every model a
    # column, at most one best per row, never a random model (issue 36)
    rows = [line for line in r.stdout.splitlines() if re.search(r"[↑↓]", line) and "best" not in line]
    assert len(rows) >= 3 and all(line.count("★") <= 1 for line in rows), r.stdout
    assert any(line.startswith("modifiers test 3") for line in rows)
    assert all(len(re.findall(r"-?\d\.\d{3} \[-?\d\.\d{2}, -?\d\.\d{2}\]", line)) == 4 for line in rows)
    tail = r.stderr.strip().splitlines()[-2:]
    assert tail[0].startswith(f"results: {out}") and tail[1].startswith(f"report: {out / 'report.html'}")
    html = (out / "report.html").read_text()
    assert "<html" in html.lower() and "hashbag" in html


def test_a_relative_output_folder_still_gets_its_ranking(tmp_path):
    """`make run` writes to `results` (relative): the ranking matches the run's results by resolved path."""
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "-m", "hashbag", "-m", "random,dim=16",
                        "-t", TOY_TASKS[0], "-o", "results", "--no-report", "--wide"], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "COLUMNS": "50", "COMPEVAL_CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("invariance-relation (bootstrap=100) auc")]  # non-default options named
    assert len(rows) == 1 and rows[0].count("★") <= 1, r.stdout  # ★ only where hashbag clears random's interval
    # with --wide, piped into a log narrower than the table, a row stays one line with the chance reference
    # (random's score) and both models' cells
    assert len(re.findall(r"-?\d\.\d{3} \[-?\d\.\d{2}, -?\d\.\d{2}\]", rows[0])) == 3, r.stdout


def test_ranking_marks_the_best_by_the_recorded_direction(tmp_path):
    from compeval.report.loading import ResultsIndex
    from compeval.report.ranking import ranking

    _, out = _run_toy(tmp_path, "--no-report")
    assert not (out / "report.html").exists()
    index = ResultsIndex(out)
    for row in ranking(index):
        values = {m: c[0] for m, c in row.cells.items()}
        assert set(row.references) == {m for m in values if m.startswith("random")}  # never best
        clear = [m for m in values if m not in row.references and row.clears_reference(m)]
        assert row.best() == (max(clear, key=lambda m: row.direction * values[m]) if clear else None)
        for v, lo, hi in row.cells.values():
            assert lo <= v <= hi
        if not row.note:  # a single task: one of its stored scores and intervals, unchanged
            for m, cell in row.cells.items():
                stored = {(x.value, x.ci_low, x.ci_high) for e in index.entries if e.model == m
                          for x in e.result.scores}
                assert cell in stored


def test_mean_row_interval_combines_the_tasks_as_independent():
    from compeval.report.ranking import _mean

    v, lo, hi = _mean([(0.5, 0.4, 0.6), (0.7, 0.6, 0.8)])
    assert v == pytest.approx(0.6)
    assert hi - lo == pytest.approx(0.2 * np.sqrt(2) / 2)  # two equal half-widths: width × √2 / 2
    assert _mean([(0.5, None, None), (0.7, 0.6, 0.8)])[1:] == (None, None)


def test_verbose_keeps_every_subset_and_job_line(tmp_path):
    r, _ = _run_toy(tmp_path, "--verbose", "--no-report")
    assert r.returncode == 0, r.stderr
    assert "every score of the main metric" in r.stdout and r.stderr.count("  done ") == 9
    assert "report: not written (--no-report)" in r.stderr


class _Slow:
    """A lazily loading encoder that records the order of events."""

    def __init__(self, log):
        self.log = log

    def load(self):
        self.log.append("load")

    def encode(self, texts):
        self.log.append(("encode", len(texts)))
        return np.array([[len(t), t.count("a") + 1.0] for t in texts], dtype=np.float32)


def test_progress_starts_with_the_first_batch(tmp_path):
    from compeval.models.protocol import as_model

    log, calls = [], []
    cache = EmbeddingCache(tmp_path / "c", batch_size=8)
    model = cache.wrap(as_model(_Slow(log)))
    model.on_progress = lambda done, total: calls.append((done, total))
    log.clear()  # as_model encodes a probe set to fingerprint the object
    texts = [f"text {i} " + "a" * i for i in range(300)]
    model.encode(texts)
    cache.close()
    assert calls[0] == (0, 300) and calls[1] == (8, 300) and calls[-1] == (300, 300)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert log[0] == ("encode", 8)  # the first chunk is one batch


def test_python_api_progress_argument(tmp_path, capsys):
    from compeval.runner.progress import RichReporter

    seen = []

    class Recorder(RichReporter):
        def loading(self, name):
            seen.append(("loading", name))

        def encoding(self, name, done, total):
            seen.append(("encoding", done, total))

    log = []
    with Recorder() as rec:
        run([_Slow(log)], ["modifiers-test3,n_resamples=50"], tmp_path / "o", cache_dir=None, reporter=rec)
    assert seen[0][0] == "loading" and seen[0][1].startswith("_Slow") and seen[1][:2] == ("encoding", 0) and seen[-1][1] == seen[-1][2]
    capsys.readouterr()
    run(["hashbag"], ["modifiers-test3,n_resamples=50"], tmp_path / "p", cache_dir=None, progress=True)
    assert "hashbag: 1 job(s) in" in capsys.readouterr().err
    run(["hashbag"], ["modifiers-test3,n_resamples=50"], tmp_path / "q", cache_dir=None)  # not a terminal
    assert capsys.readouterr().err == ""
