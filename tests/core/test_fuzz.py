"""Hypothesis fuzzing of what a user hands compeval: model specs, task options and data-file contents.

Asserted: only compeval's documented errors (``CompevalError`` and kinds) come out, so the CLI prints one
line and never a traceback; a result is written exactly when the input was good. Each test prints how many
examples it ran and what it found (``pytest -s``); together they stay well under a minute.
"""
from __future__ import annotations

import shutil
import string
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compeval.data.registry import DataContext
from compeval.errors import CompevalError
from compeval.models.registry import load_model
from compeval.runner import run
from compeval.tasks.registry import get_tasks

GS = "GS2011_processed.csv"
FAST = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)


def outcome_of(call) -> str:
    """'ok', or the compeval error kind; anything else is re-raised and fails the test with its traceback."""
    try:
        call()
    except CompevalError as exc:
        return type(exc).__name__
    return "ok"


# -- model specs --------------------------------------------------------------------------------------------

FAMILIES = ["random", "hashbag", "api:text-embedding-3-small", "precomputed", "overlap", "glove-6b-50d",
            "static:glove-6b-50d", "mixed:overlap+hashbag", "nosuchmodel", "random.v9", "hf:/nonexistent/dir",
            "sbert:/nonexistent/dir"]
KEYS = ["dim", "seed", "batch", "rpm", "dims", "max_retries", "timeout", "backoff", "truncate", "op", "tok",
        "norm", "base_url", "max_chars", "batch_size", "layer", "pool", "x"]
VALUES = st.one_of(st.integers(-10**6, 10**6).map(str), st.sampled_from(["0", "-1", "nan", "inf", "1e309", "",
                   "zscore", "mean", "conv", "end", "http://127.0.0.1:9/v1", "ftp://x", "yes"]),
                   st.text(string.printable.replace(",", "").replace("=", ""), max_size=12))
SPECS = st.builds(
    lambda fam, arg, opts: fam + (f":{arg}" if arg is not None and ":" not in fam else "")
    + "".join(f",{k}={v}" for k, v in opts),
    st.sampled_from(FAMILIES), st.one_of(st.none(), st.text(string.printable.replace(",", ""), max_size=20)),
    st.lists(st.tuples(st.sampled_from(KEYS), VALUES), max_size=3))
SPEC_FINDINGS: Counter = Counter()


@settings(FAST, max_examples=400)
@given(SPECS)
def test_model_specs_give_a_model_or_a_compeval_error(spec):
    SPEC_FINDINGS[outcome_of(lambda: load_model(spec))] += 1


def test_model_spec_findings_reported():
    if SPEC_FINDINGS:
        print(f"\nmodel specs: {sum(SPEC_FINDINGS.values())} examples, outcomes {dict(SPEC_FINDINGS)}, 0 tracebacks")


# -- task options -------------------------------------------------------------------------------------------

TASK_NAMES = ["gs2011", "ks2013", "sts3k", "stsb", "sick", "modifiers", "invariance-qa", "nosuchtask"]
TASK_KEYS = ["bootstrap", "split", "missing", "seed", "path", "pairs_per_relation", "n_resamples", "x"]
TASK_SPECS = st.builds(lambda name, opts: name + "".join(f",{k}={v}" for k, v in opts),
                       st.sampled_from(TASK_NAMES), st.lists(st.tuples(st.sampled_from(TASK_KEYS), VALUES), max_size=3))
TASK_FINDINGS: Counter = Counter()


@settings(FAST, max_examples=300)
@given(TASK_SPECS)
def test_task_options_give_tasks_or_a_compeval_error(spec):
    TASK_FINDINGS[outcome_of(lambda: get_tasks(spec))] += 1


def test_task_option_findings_reported():
    if TASK_FINDINGS:
        print(f"\ntask options: {sum(TASK_FINDINGS.values())} examples, outcomes {dict(TASK_FINDINGS)}, 0 tracebacks")


# -- data-file contents -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def original(data_dir) -> bytes:
    return (data_dir / "gs2011" / GS).read_bytes()


def _mutations(original: bytes):
    lines = original.splitlines(keepends=True)
    line_index = st.integers(0, len(lines) - 1)
    return st.one_of(
        st.binary(max_size=4000).map(lambda b: ("random bytes", b)),
        st.integers(0, len(original)).map(lambda k: ("truncated", original[:k])),
        st.tuples(line_index, st.integers(-2, 2).filter(bool)).map(
            lambda t: ("columns", b"".join(_columns(ln, t[1]) if i == t[0] else ln for i, ln in enumerate(lines)))),
        st.tuples(line_index, st.integers(10**5, 10**6)).map(
            lambda t: ("huge line", b"".join(ln.replace(b";", b" " + b"x" * t[1] + b";", 1) if i == t[0] else ln
                                             for i, ln in enumerate(lines)))),
        st.tuples(line_index, st.sampled_from([b"nan", b"inf", b"-inf", b"", b"0,5", b"1e999"])).map(
            lambda t: ("bad score", b"".join(ln.rsplit(b";", 1)[0] + b";" + t[1] + b"\n" if i == t[0] else ln
                                             for i, ln in enumerate(lines)))),
        st.tuples(line_index, st.binary(min_size=1, max_size=8)).map(
            lambda t: ("bytes in a line", b"".join(ln[:5] + t[1] + ln[5:] if i == t[0] else ln
                                                   for i, ln in enumerate(lines)))),
    )


def _columns(line: bytes, delta: int) -> bytes:
    fields = line.rstrip(b"\n").split(b";")
    fields = fields + [b"extra"] * delta if delta > 0 else fields[:delta] or [b""]
    return b";".join(fields) + b"\n"


DATA_FINDINGS: Counter = Counter()


def test_data_file_contents_give_a_result_or_one_compeval_error(original):
    tmp = Path(tempfile.mkdtemp(prefix="compeval-fuzz-"))

    @settings(FAST, max_examples=70)
    @given(_mutations(original))
    def check(mutation):
        kind, payload = mutation
        root, out = tmp / "data", tmp / "out"
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        (root / "gs2011").mkdir(parents=True)
        (root / "gs2011" / GS).write_bytes(payload)
        task = get_tasks("gs2011,bootstrap=20")[0]
        # The reader itself raises nothing but compeval's errors.
        verdict = outcome_of(lambda: task.load(DataContext(root, allow_modified=True)))
        # Through the runner: a result exactly when the input was good; never for bad input.
        summary = run(["hashbag"], ["gs2011,bootstrap=20"], out, data_dir=root, cache_dir=None,
                      allow_modified_data=True)
        (o,) = summary.outcomes
        written = sorted(p.name for p in out.rglob("*") if p.is_file())
        if verdict == "ok":
            assert o.status == "done" and written, (kind, o.error)
            assert np.isfinite(o.main_score)
        else:
            assert o.status == "failed" and not written, (kind, o.error)
            assert "Traceback" not in o.error and len(o.error.strip().splitlines()) == 1, o.error
        DATA_FINDINGS[(kind, verdict)] += 1

    try:
        check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(DATA_FINDINGS.values())
    print(f"\ndata files: {total} examples (gs2011 reader, runner, hashbag), outcomes {dict(sorted(DATA_FINDINGS.items()))}, 0 tracebacks")
    assert {kind for kind, _ in DATA_FINDINGS} >= {"random bytes", "truncated", "columns", "bad score"}
