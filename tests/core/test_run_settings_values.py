"""A run setting of the wrong type or range, or a folder where compeval must not write, is one line on every
route into a run: ``compeval run``, ``run()``'s keywords, and a ``RunContext`` built directly."""
from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compeval.context import RunContext
from compeval.errors import CompevalError
from compeval.runner import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, value, line", [
    ("overwrite", "false", "--overwrite 'false': must be True or False"),  # a true string would overwrite
    ("download", "no", "download 'no': must be True or False"),  # its flag (--offline) says the opposite
    ("isolate", "no", "--isolate 'no': must be True or False"),
    ("progress", 1, "progress 1: must be True or False"),
    ("reuse_objects", "yes", "reuse_objects 'yes': must be True or False"),
    ("batch_size", "8", "--batch-size '8': must be a positive integer"),
    ("batch_size", 2.5, "--batch-size 2.5: must be a positive integer"),
    ("batch_size", True, "--batch-size True: must be a positive integer"),
    ("max_batch_tokens", 0, "--max-batch-tokens 0: must be a positive integer"),
    ("model_timeout", 0, "--model-timeout 0: must be a positive number of seconds"),
    ("model_timeout", -5.0, "--model-timeout -5.0: must be a positive number of seconds"),
    ("model_timeout", math.nan, "--model-timeout nan: must be a positive number of seconds"),
    ("model_timeout", math.inf, "--model-timeout inf: must be a positive number of seconds"),
    ("model_timeout", "10", "--model-timeout '10': must be a positive number of seconds"),
    ("seed", "1", "--seed '1': must be an integer from 0 to 4294967295"),
    ("output_dir", 3, "--output-dir 3: give a folder name"),
    ("output_dir", ".", "--output-dir '.': give a folder or file name; writing into the current folder without a "
                        "name is refused"),
])
def test_a_value_of_the_wrong_type_or_range_is_one_line_on_both_routes(tmp_path, name, value, line):
    with pytest.raises(CompevalError, match=rf"^{re.escape(line)}$"):
        RunContext(**{name: value})
    if name != "output_dir":
        with pytest.raises(CompevalError, match=rf"^{re.escape(line)}$"):
            run([], [], tmp_path / "out", cache_dir=None, **{name: value})


def test_numbers_are_kept_as_plain_python_numbers():
    ctx = RunContext(seed=np.int64(3), batch_size=np.int32(8), model_timeout=np.float32(2.5))
    assert (type(ctx.seed), type(ctx.batch_size), type(ctx.model_timeout)) == (int, int, float)
    assert (ctx.seed, ctx.batch_size, ctx.model_timeout) == (3, 8, 2.5)


def test_a_run_context_built_directly_passes_the_same_folder_checks(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "gs2011").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CompevalError, match=r"^RunContext.output_dir is None: give the results folder$"):
        run(["hashbag"], ["gs2011"], RunContext(data_dir=data))
    with pytest.raises(CompevalError, match=rf"^output_dir {re.escape(str(data))}/gs2011/out is inside the data "
                                            rf"folder {re.escape(str(data))}; write results and reports elsewhere$"):
        run(["hashbag"], ["gs2011"], RunContext(output_dir="data/gs2011/out", data_dir=data))
    with pytest.raises(CompevalError, match=r"^cache folder .* \(cache_dir\) is inside the data folder"):
        run(["hashbag"], ["gs2011"], RunContext(output_dir="out", data_dir=data, cache_dir=data / "cache"))
    (tmp_path / "bnc.xml").write_text("")
    with pytest.raises(CompevalError, match=r"^bnc_dir .*bnc\.xml is a file; give a folder$"):
        run(["hashbag"], ["gs2011"], RunContext(output_dir="out", data_dir=data, bnc_dir="bnc.xml"))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "bnc.xml", "data", "data/gs2011"]  # nothing written anywhere


def test_the_results_folder_given_twice_is_one_line(tmp_path):
    with pytest.raises(CompevalError, match=r"^results folder given twice: .*/a and output_dir=.*/b; give one$"):
        run([], [], tmp_path / "a", output_dir=tmp_path / "b")


def test_a_bnc_folder_from_the_environment_that_is_a_file_is_refused_naming_the_variable(tmp_path, monkeypatch):
    (tmp_path / "bnc.xml").write_text("")
    monkeypatch.setenv("COMPEVAL_BNC_DIR", str(tmp_path / "bnc.xml"))
    with pytest.raises(CompevalError, match=r"^\$COMPEVAL_BNC_DIR .*bnc\.xml is a file; give a folder$"):
        RunContext.for_run(tmp_path / "out", cache_dir=None)


def test_a_model_timeout_that_is_not_a_positive_number_stops_compeval_run_before_any_work(tmp_path):
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "-m", "hashbag", "-t", "gs2011", "-o",
                        str(tmp_path / "out"), "--no-cache", "--model-timeout", "nan"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert (r.returncode, r.stderr.strip()) == (2, "error: --model-timeout nan: must be a positive number of seconds")
    assert not (tmp_path / "out").exists()


def test_one_model_and_one_task_may_be_given_as_plain_strings(tmp_path):
    """``run("hashbag", "gs2011", …)`` runs that model on that task (a string is not read letter by letter)."""
    summary = run("hashbag", "gs2011", tmp_path / "out", cache_dir=None, report=False,
                  data_dir=os.environ.get("COMPEVAL_DATA_DIR"), progress=False)
    assert [(o.task, o.status) for o in summary.outcomes] == [("gs2011", "done")]
