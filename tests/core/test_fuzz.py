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
        task = get_tasks("gs2011,bootstrap=40")[0]
        # The reader itself raises nothing but compeval's errors.
        verdict = outcome_of(lambda: task.load(DataContext(root, allow_modified=True)))
        # Through the runner: a result exactly when the input was good; never for bad input.
        summary = run(["hashbag"], ["gs2011,bootstrap=40"], out, data_dir=root, cache_dir=None,
                      allow_modified_data=True)
        (o,) = summary.outcomes
        # Results and predictions only: a failed job leaves its traceback under OUTPUT/logs/ (every failure kind).
        written = sorted(p.name for p in out.rglob("*") if p.is_file() and "logs" not in p.relative_to(out).parts)
        logs = sorted(p.name for p in out.rglob("*") if p.is_file() and "logs" in p.relative_to(out).parts)
        if verdict == "ok":
            assert o.status == "done" and written, (kind, o.error)
            assert np.isfinite(o.main_score)
        else:
            assert o.status == "failed" and not written and logs, (kind, o.error, written, logs)
            assert "Traceback" not in o.error and len(o.error.strip().splitlines()) == 1, o.error
        DATA_FINDINGS[(kind, verdict)] += 1

    try:
        check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(DATA_FINDINGS.values())
    print(f"\ndata files: {total} examples (gs2011 reader, runner, hashbag), outcomes {dict(sorted(DATA_FINDINGS.items()))}, 0 tracebacks")
    assert {kind for kind, _ in DATA_FINDINGS} >= {"random bytes", "truncated", "columns", "bad score"}


# -- reuse: a reported number is a clean run's, or refused ----------------------------------------------------

REUSE_FINDINGS: Counter = Counter()
# (seed, data variant, bootstrap): what a run into an empty folder reports, computed once per setting
_CLEAN: dict = {}


def _variant(root: Path, original: bytes, variant: str) -> Path:
    """A data folder for one variant: the file as pinned, or with its first rows repeated at the end."""
    folder = root / variant
    if not folder.exists():
        (folder / "gs2011").mkdir(parents=True)
        lines = original.splitlines(keepends=True)
        extra = {"pinned": [], "dup3": lines[1:4], "dup7": lines[1:8]}[variant]
        (folder / "gs2011" / GS).write_bytes(original + b"".join(extra))
    return folder


def _scores(out: Path) -> dict:
    from compeval.results.store import results_frame

    return {(r.model, r.params, r.subset, r.metric): (r.value, r.ci_low, r.ci_high, r.n)
            for r in results_frame(out).itertuples()}


SETTINGS = st.tuples(st.integers(0, 2), st.sampled_from(["pinned", "dup3", "dup7"]), st.sampled_from([40, 50]))


def test_reused_numbers_equal_a_clean_runs(original):
    """Two runs into one folder with any seeds, data variants and options: after the second, every number
    on disk is the number a run of the second setting into an empty folder gives."""
    tmp = Path(tempfile.mkdtemp(prefix="compeval-reuse-"))

    def clean(setting):
        if setting not in _CLEAN:
            seed, variant, boot = setting
            out = tmp / "clean" / f"{seed}-{variant}-{boot}"
            run(["hashbag"], [f"gs2011,bootstrap={boot}"], out, data_dir=_variant(tmp, original, variant),
                cache_dir=None, seed=seed, allow_modified_data=True)
            _CLEAN[setting] = _scores(out)
        return _CLEAN[setting]

    @settings(FAST, max_examples=30)
    @given(SETTINGS, SETTINGS, st.booleans())
    def check(first, second, share_cache):
        out, cache = tmp / "out", (tmp / "cache" if share_cache else None)
        shutil.rmtree(out, ignore_errors=True)
        for seed, variant, boot in (first, second):
            summary = run(["hashbag"], [f"gs2011,bootstrap={boot}"], out, data_dir=_variant(tmp, original, variant),
                          cache_dir=cache, seed=seed, allow_modified_data=True)
        (o,) = [x for x in summary.outcomes if x.task.startswith("gs2011")]
        assert o.status in ("done", "skipped")
        got = {k: v for k, v in _scores(out).items()}
        want = clean(second)
        # The folder holds one result per task slug; the second setting's slug must hold the clean numbers.
        assert {k: got[k] for k in want} == want, (first, second)
        REUSE_FINDINGS[("reused" if o.status == "skipped" else "recomputed",
                        "same setting" if first == second else "setting changed")] += 1

    try:
        check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nreuse: {sum(REUSE_FINDINGS.values())} run pairs, outcomes {dict(sorted(REUSE_FINDINGS.items()))}, "
          "0 numbers differing from a clean run")
    assert REUSE_FINDINGS[("reused", "setting changed")] == 0


# -- vectors files: a number equals the clean file's, or the file is refused ------------------------------------

VECTOR_FINDINGS: Counter = Counter()


def _vectors_text(words: list[str], seed: int = 3) -> str:
    rng = np.random.default_rng(seed)
    return "".join(f"{w} {' '.join(f'{x:.5f}' for x in rng.standard_normal(6))}\n" for w in words)


VECTOR_EDITS = st.lists(st.sampled_from(["bom", "dup", "latin1", "crlf", "blank", "header", "gz-name", "nul"]),
                        max_size=3, unique=True)


def test_vectors_files_give_the_clean_number_or_a_compeval_error(data_dir):
    import gzip

    from compeval.models.families.static import load_vectors

    import re

    words = sorted(set(re.findall(r"[a-z]+", (data_dir / "gs2011" / GS).read_text(encoding="utf-8").lower())))
    body = _vectors_text(words)
    tmp = Path(tempfile.mkdtemp(prefix="compeval-vec-"))
    clean_file = tmp / "clean.txt"
    clean_file.write_text(body, encoding="utf-8")
    reference = run([f"static:{clean_file}"], ["gs2011,bootstrap=40"], tmp / "ref", data_dir=data_dir,
                    cache_dir=None).outcomes[0].main_score

    @settings(FAST, max_examples=25)
    @given(VECTOR_EDITS)
    def check(edits):
        text = body
        if "header" in edits:
            text = f"{len(words)} 6\n" + text
        if "blank" in edits:
            text = text + "\n\n"
        if "crlf" in edits:
            text = text.replace("\n", "\r\n")
        if "dup" in edits:
            text = text + _vectors_text(words[:1], seed=9)
        payload = text.encode("utf-8")
        if "latin1" in edits:
            payload = payload + "café 1 2 3 4 5 6\n".encode("latin-1")
        if "nul" in edits:
            payload = payload + b"x\x00 1 2 3 4 5 6\n"
        if "bom" in edits:
            payload = b"\xef\xbb\xbf" + payload
        name = "v.txt.gz" if "gz-name" in edits else "v.txt"
        path = tmp / "-".join(edits or ["plain"]) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
        load_vectors.cache_clear()
        summary = run([f"static:{path}"], ["gs2011,bootstrap=40"], path.parent / "out", data_dir=data_dir,
                      cache_dir=None)
        (o,) = summary.outcomes
        if o.status == "done":
            assert o.main_score == reference, edits
            assert not {"dup", "latin1", "gz-name"} & set(edits), edits
        else:
            assert str(path) in o.error and "Traceback" not in o.error, o.error
            assert {"dup", "latin1", "gz-name", "nul"} & set(edits), (edits, o.error)
        VECTOR_FINDINGS[(o.status, tuple(sorted(edits)) if o.status == "failed" else "clean number")] += 1

    try:
        check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nvectors files: {sum(VECTOR_FINDINGS.values())} examples, "
          f"{sum(v for k, v in VECTOR_FINDINGS.items() if k[0] == 'done')} gave the clean file's number, "
          f"{sum(v for k, v in VECTOR_FINDINGS.items() if k[0] == 'failed')} refused with the path, 0 other numbers")


# -- the command line: exit status matches the outcome, never a traceback ----------------------------------------

CLI_FINDINGS: Counter = Counter()
NUMBERS = st.one_of(st.integers(-10**12, 10**12), st.sampled_from([0, 1, -1, 2**32, 2**32 - 1, 10**20]))


def test_cli_exit_status_matches_the_outcome(data_dir, capsys, monkeypatch):
    import sys

    from compeval.cli import main

    tmp = Path(tempfile.mkdtemp(prefix="compeval-cli-"))
    monkeypatch.chdir(tmp)

    @settings(FAST, max_examples=40)
    @given(NUMBERS, NUMBERS, st.sampled_from(["bootstrap", "x", "seed"]),
           st.sampled_from(["table", "csv", "markdown", "nope"]))
    def check(seed, option, key, fmt):
        out = tmp / "o"
        shutil.rmtree(out, ignore_errors=True)
        argv = ["compeval", "run", "-m", "hashbag", "-t", f"gs2011,{key}={option}", "-o", str(out),
                "--seed", str(seed), "--no-cache", "--no-report", "--data-dir", str(data_dir)]
        monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit) as exit_:
            main()
        text = capsys.readouterr()
        both = text.out + text.err
        assert "Traceback" not in both
        code = exit_.value.code
        wrote = any(out.glob("*/*.json"))
        assert (code == 0) == wrote, (argv, code, both)
        assert code in (0, 2) and ((code == 2) == ("error:" in text.err)), (argv, code, both)
        if code == 0:
            monkeypatch.setattr(sys, "argv", ["compeval", "results", str(out), "--format", fmt])
            with pytest.raises(SystemExit) as results_exit:
                main()
            shown = capsys.readouterr()
            assert "Traceback" not in shown.out + shown.err
            assert (results_exit.value.code == 0) == (fmt != "nope")
        CLI_FINDINGS[(key, code)] += 1

    try:
        check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\ncommand line: {sum(CLI_FINDINGS.values())} invocations, (option, exit status) "
          f"{dict(sorted(CLI_FINDINGS.items()))}, 0 tracebacks")
