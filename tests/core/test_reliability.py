"""Nothing wrong is ever reported as done: exit status, result identity, damaged caches and results, bad
data files, unwritable output (issue 20)."""
import errno
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compeval.cache import EmbeddingCache
from compeval.cache.store import EmbeddingStore
from compeval.data.registry import DataContext
from compeval.errors import CompevalWarning, DataError, MalformedDataError, SpecError
from compeval.models.protocol import ModelConfig
from compeval.models.registry import load_model
from compeval.results.store import ResultStore, content_checksum, ResultWriteError, model_folder, results_frame, safe_component
from compeval.runner import run

TASK = "gs2011,bootstrap=50"
GS = "GS2011_processed.csv"


def cli(*args, cwd=None, **env):
    full = {**os.environ, **env}
    return subprocess.run([sys.executable, "-m", "compeval.cli", *args], capture_output=True, text=True, env=full,
                          cwd=cwd)


def score_file(path: Path, n: int, seed: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    path.write_text("".join(f"{x:.6f}\n" for x in rng.random(n)))
    return path


def main_scores(root: Path) -> dict:
    df = results_frame(root)
    return {(r.model, r.task, r.subset, r.metric): (r.value, r.ci_low, r.ci_high) for r in df.itertuples()}


def results_in(out: Path) -> list[Path]:
    """What a run wrote in ``out`` besides its failure logs (every failure is logged, issue 36)."""
    return [p for p in out.glob("*/*") if p.parent.name != "logs"]


def own_data_dir(tmp_path: Path, data_dir: Path, payload: bytes | None = None) -> Path:
    """A data folder with gs2011 only; its file replaced by ``payload`` when given."""
    root = tmp_path / "data"
    (root / "gs2011").mkdir(parents=True)
    target = root / "gs2011" / GS
    if payload is None:
        shutil.copy(data_dir / "gs2011" / GS, target)
    else:
        target.write_bytes(payload)
    return root


# -- exit status --------------------------------------------------------------------------------------------

def test_a_failed_job_makes_the_cli_exit_nonzero_and_is_named_last(data_dir, tmp_path):
    short = score_file(tmp_path / "short.txt", 3, 0)  # 3 scores for a 199-item task: that job fails
    out = tmp_path / "out"
    r = cli("run", "--model", "hashbag", "--model", f"precomputed:{short}", "--task", TASK, "-o", str(out),
            COMPEVAL_DATA_DIR=str(data_dir), COMPEVAL_CACHE_DIR=str(tmp_path / "c"))
    assert r.returncode == 1, r.stderr
    tail = r.stderr[r.stderr.index("job(s) failed"):]
    assert "short × gs2011" in tail and "holds 3 scores" in tail and "Traceback" not in r.stderr
    assert [p.parent.name.split("-")[0] for p in out.glob("*/*.json")] == ["hashbag"]  # the other job's result


# -- result identity ----------------------------------------------------------------------------------------

def test_two_files_with_one_basename_give_two_results(data_dir, tmp_path):
    a, b = score_file(tmp_path / "a" / "s.txt", 199, 1), score_file(tmp_path / "b" / "s.txt", 199, 2)
    out = tmp_path / "out"
    first = run([f"precomputed:{a}", f"precomputed:{b}"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert [o.status for o in first.outcomes] == ["done", "done"]
    results = [r for _, r in ResultStore(out).iter_results()]
    assert len(results) == 2 and {r.model["location"] for r in results} == {str(a), str(b)}
    assert results[0].main_score != results[1].main_score
    for _, r in ResultStore(out).iter_results():  # each result is its own file's
        assert r.model["params"]["sha256"] == __import__("hashlib").sha256(Path(r.model["location"]).read_bytes()).hexdigest()
    again = run([f"precomputed:{b}"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert again.outcomes[0].status == "skipped"
    assert ResultStore(out).load(again.outcomes[0].path).model["location"] == str(b)
    labels = set(results_frame(out)["model"])
    assert len(labels) == 2  # told apart in `compeval results`, not two rows both called "s"


class Named:
    """A model whose configuration name is hostile (a path out of the results folder)."""

    def __init__(self, name):
        self.config = ModelConfig(family="python.v1", name=name, params={"n": name})

    def encode(self, texts):
        return np.array([[len(t), t.count("e") + 1.0] for t in texts])


@pytest.mark.parametrize("name", ["..", "../../escaped", "/tmp/abs", "a/b/../..", ".hidden"])
def test_user_names_never_write_outside_the_output_folder(name, data_dir, tmp_path):
    out = tmp_path / "inner" / "out"
    summary = run([Named(name)], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert summary.outcomes[0].status == "done"
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and all(p.is_relative_to(out) for p in written)
    assert all(not part.startswith(".") for p in written for part in p.relative_to(out).parts)


def test_an_empty_model_name_is_refused_in_one_line():
    """An empty name shows as nothing in every table (the rule of names, ``names.text_problem``)."""
    from compeval.errors import SpecError

    with pytest.raises(SpecError, match="model name is empty"):
        Named("")


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None, database=None)
def test_safe_component_is_one_safe_name_and_keeps_names_apart(text):
    safe = safe_component(text)
    assert safe and "/" not in safe and "\x00" not in safe and safe not in (".", "..") and not safe.startswith(".")
    assert len(safe) <= 150 and safe == safe_component(safe)
    if safe != text:  # changed names carry a hash of the original: a/b and a_b stay apart
        assert safe_component(text.replace("/", "_") + "x") != safe


def test_task_slug_with_a_path_option_stays_inside(tmp_path):
    store = ResultStore(tmp_path)
    path = store.path("m-0123", "invariance-qa__path-/etc/../x.jsonl")
    assert path.parent.parent == tmp_path and "/" not in path.name
    assert store.path("m-0123", "a/b") != store.path("m-0123", "a_b")


def test_skip_needs_an_intact_result_of_the_same_model_and_task(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    (path,) = out.glob("*/gs2011*.json")
    clean = json.loads(path.read_text())

    def rerun():
        with warnings.catch_warnings():
            s = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
        return s.outcomes[0].status, s.warnings

    def write(data):  # a consistent file (checksum recomputed): a result copied from another configuration
        path.write_text(json.dumps(dict(data, checksum=content_checksum(data))))

    write(dict(clean, model=dict(clean["model"], id="hashbag-000000000000")))
    status, notes = rerun()
    assert status == "done" and "not the planned" in notes[0]
    path.write_text(path.read_text()[:200])  # truncated JSON
    status, notes = rerun()
    assert status == "done" and "not valid JSON" in notes[0]
    assert rerun() == ("skipped", [])
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    pred.write_bytes(pred.read_bytes().replace(b"0", b"1", 1))  # predictions edited after the fact
    status, notes = rerun()
    assert status == "done" and "SHA-256" in notes[0]
    write(dict(clean, task=dict(clean["task"], params={**clean["task"]["params"], "bootstrap": 7})))
    status, notes = rerun()
    assert status == "done" and "other options" in notes[0]
    assert json.loads(path.read_text())["main_score"] == clean["main_score"]
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, main_score=0.5)))  # an edited score: the checksum says so
    status, notes = rerun()
    assert status == "done" and "checksum" in notes[0]


def test_folders_of_the_previous_layout_are_read_and_skipped(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    folder.rename(out / "hashbag")  # how compeval 1.x named it: the model slug
    again = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert again.outcomes[0].status == "skipped" and again.outcomes[0].path.parent.name == "hashbag"
    assert len(results_frame(out)) == 2  # spearman + pearson, read from the old folder
    other = run(["hashbag,dim=8"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert other.outcomes[0].status == "done"  # an old folder of another configuration is not taken


def test_results_ignores_and_lists_files_it_cannot_read(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    (out / "stray").mkdir()
    (out / "stray" / "notes.json").write_text("[1, 2]")
    (out / "stray" / "binary.json").write_bytes(os.urandom(64) + b"\xff")
    (out / "stray" / "dir.json").mkdir()
    r = cli("results", str(out), "--format", "csv")
    assert r.returncode == 1 and "Traceback" not in r.stderr  # scores shown, the exit says files were left out
    assert "left out 3 file(s)" in r.stderr and "notes.json" in r.stderr and "binary.json" in r.stderr
    assert len(r.stdout.strip().splitlines()) == 3  # header + the two scores of the good result


# -- cache integrity ----------------------------------------------------------------------------------------

def _flip_vector_bytes(db: Path, text: str) -> None:
    with sqlite3.connect(db) as con:
        blob = con.execute("SELECT vec FROM vectors WHERE text = ?", (text,)).fetchone()[0]
    con.close()
    raw = bytearray(db.read_bytes())
    at = bytes(raw).find(blob)
    assert at > 0
    raw[at + 5] ^= 0x40
    db.write_bytes(bytes(raw))


def test_damaged_cache_entries_are_dropped_reencoded_and_reported_once(tmp_path):
    store = EmbeddingStore(tmp_path, "m")
    texts = [f"text {i}" for i in range(20)]
    vectors = np.random.default_rng(0).standard_normal((20, 8)).astype(np.float32)
    store.put_vectors(texts, vectors)
    store.close()
    _flip_vector_bytes(store.path, "text 3")
    _flip_vector_bytes(store.path, "text 11")
    with pytest.warns(CompevalWarning, match="dropped 2 damaged entries") as caught:
        store = EmbeddingStore(tmp_path, "m")
        found = store.get_vectors(texts)
        assert store.get_vectors(texts).keys() == found.keys()  # the second read says nothing more
    assert len(caught) == 1
    assert set(found) == set(texts) - {"text 3", "text 11"}
    assert all(np.array_equal(found[t], vectors[i]) for i, t in enumerate(texts) if t in found)
    assert len(store) == 18
    store.close()


def test_rows_of_another_dimension_or_not_finite_are_dropped(tmp_path):
    store = EmbeddingStore(tmp_path, "m")
    store.put_vectors(["a", "b"], np.ones((2, 4), np.float32))
    with sqlite3.connect(store.path) as con:  # rows an old or foreign writer left, without checksums
        con.execute("INSERT INTO vectors (text, dim, vec) VALUES ('c', 3, ?)", (np.ones(3, np.float32).tobytes(),))
        con.execute("INSERT INTO vectors (text, dim, vec) VALUES ('d', 4, ?)",
                    (np.array([1, np.nan, 0, 0], np.float32).tobytes(),))
        con.execute("INSERT INTO vectors (text, dim, vec) VALUES ('e', 4, ?)", (b"\x00" * 7,))
        con.execute("INSERT INTO vectors (text, dim, vec) VALUES ('f', 4, ?)", (np.ones(4, np.float32).tobytes(),))
    con.close()
    with pytest.warns(CompevalWarning, match="damaged"):  # 'f' is plausible but unchecked: never trusted
        assert set(store.get_vectors(list("abcdef"))) == {"a", "b"}
    store.close()


def test_a_cache_file_that_is_not_a_database_is_moved_aside_and_rebuilt(tmp_path):
    path = tmp_path / "embeddings" / "m.sqlite"
    path.parent.mkdir()
    path.write_bytes(b"this is not SQLite" * 300)
    with pytest.warns(CompevalWarning, match="could not be read.*moved it to"):
        store = EmbeddingStore(tmp_path, "m")
    store.put_vectors(["x"], np.ones((1, 3), np.float32))
    assert set(store.get_vectors(["x"])) == {"x"}
    store.close()
    aside = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not SQLite")


def test_damaged_pair_scores_are_dropped(tmp_path):
    store = EmbeddingStore(tmp_path, "m")
    store.put_pairs([("a", "b"), ("c", "d")], [0.25, float("nan")])
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE pairs SET score = 0.75 WHERE a = 'a'")
    con.close()
    with pytest.warns(CompevalWarning, match="dropped 1 damaged entry"):
        found = store.get_pairs([("a", "b"), ("c", "d")])
    assert list(found) == [("c", "d")] and np.isnan(found[("c", "d")])
    store.close()


def test_flipped_cache_and_result_bytes_rerun_to_the_clean_scores(data_dir, tmp_path):
    """The fault test: a clean run; bytes flipped in every cache file and in a result file; re-runs (into the
    damaged folder, and into a fresh one from the damaged cache) give the clean run's scores exactly."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    models, tasks = ["hashbag", "random,dim=16"], [TASK, "ks2013,bootstrap=50"]
    run(models, tasks, out, data_dir=data_dir, cache_dir=cache)
    clean = main_scores(out)
    rng = np.random.default_rng(0)
    for db in (cache / "embeddings").glob("*.sqlite"):
        raw = bytearray(db.read_bytes())
        for at in rng.integers(len(raw) // 2, len(raw), 40):  # the upper half: row data, not the header
            raw[at] ^= 0xFF
        db.write_bytes(bytes(raw))
    result = sorted(out.glob("*/gs2011*.json"))[0]
    text = result.read_text()
    at = text.index('"main_score": ') + len('"main_score": ') + 4  # a digit of the main score
    result.write_text(text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1:])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = run(models, tasks, out, data_dir=data_dir, cache_dir=cache)
        fresh = run(models, tasks, tmp_path / "fresh", data_dir=data_dir, cache_dir=cache)
    assert not again.failed and [o.status for o in again.outcomes].count("done") == 1
    assert "does not match its checksum" in again.warnings[0]
    assert any(issubclass(w.category, CompevalWarning) for w in caught)  # the cache said what it dropped
    assert fresh.encoded > 0  # damaged vectors were encoded again rather than used
    assert main_scores(out) == clean and main_scores(tmp_path / "fresh") == clean


def test_garbage_cache_database_through_the_cli(data_dir, tmp_path):
    env = dict(COMPEVAL_DATA_DIR=str(data_dir), COMPEVAL_CACHE_DIR=str(tmp_path / "c"))
    assert cli("run", "-m", "hashbag", "-t", TASK, "-o", str(tmp_path / "a"), **env).returncode == 0
    (db,) = (tmp_path / "c" / "embeddings").glob("*.sqlite")
    for extra in db.parent.glob("*.sqlite-*"):
        extra.unlink()
    db.write_bytes(os.urandom(8192))
    r = cli("run", "-m", "hashbag", "-t", TASK, "-o", str(tmp_path / "b"), **env)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "warning:" in r.stderr and "could not be read" in r.stderr
    assert main_scores(tmp_path / "a") == main_scores(tmp_path / "b")


# -- bad data and files -------------------------------------------------------------------------------------

def test_a_data_file_differing_from_its_pin_is_an_error_unless_allowed(data_dir, tmp_path):
    lines = (data_dir / "gs2011" / GS).read_bytes().splitlines(keepends=True)
    root = own_data_dir(tmp_path, data_dir, b"".join(lines[:150]))  # truncated
    with pytest.raises(DataError, match="not the pinned.*--allow-modified-data"):
        DataContext(root).path("gs2011", GS)
    out = tmp_path / "out"
    refused = run(["hashbag"], [TASK], out, data_dir=root, cache_dir=None)
    assert refused.failed and "--allow-modified-data" in refused.failed[0].error and not results_in(out)
    allowed = run(["hashbag"], [TASK], out, data_dir=root, cache_dir=None, allow_modified_data=True)
    assert allowed.outcomes[0].status == "done" and allowed.outcomes[0].n_items == 150
    prov = ResultStore(out).load(allowed.outcomes[0].path).data[0]
    assert prov.verified is False and prov.modified_allowed is True


def test_random_bytes_in_a_data_file_one_line_error_nonzero_exit(data_dir, tmp_path):
    root = own_data_dir(tmp_path, data_dir, os.urandom(3000) + b"\xff\xfe")
    out = tmp_path / "out"
    for extra in ([], ["--allow-modified-data"]):
        r = cli("run", "-m", "hashbag", "-t", TASK, "-o", str(out), "--data-dir", str(root), *extra,
                COMPEVAL_CACHE_DIR=str(tmp_path / "c"))
        assert r.returncode == 1 and "Traceback" not in r.stderr and "UnicodeDecodeError" not in r.stderr
        assert ("not the pinned" if not extra else "not UTF-8") in r.stderr
        assert not results_in(out)


def test_binary_precomputed_file_is_a_one_line_error(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"0.5\n0.25\n\xff\xfe\x00garbage\n")
    with pytest.raises(MalformedDataError, match=r"s.txt:3: not UTF-8"):
        load_model(f"precomputed:{path}")
    path.write_text('{"text": "a", "vector": [1, "x"]}\n')
    with pytest.raises(MalformedDataError, match=r"s.txt:1"):
        load_model(f"precomputed:{path}")
    path.write_text("a\t1 inf 2\n")
    with pytest.raises(MalformedDataError, match="finite"):
        load_model(f"precomputed:{path}")


# -- unwritable output --------------------------------------------------------------------------------------

def test_disk_full_leaves_no_result_no_predictions_no_tmp(data_dir, tmp_path, monkeypatch):
    import compeval.results.store as store_mod

    calls = {"n": 0}
    real_fsync = os.fsync

    def full_on_second(fd):  # the predictions file goes through; the result file hits a full disk
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(store_mod.os, "fsync", full_on_second)
    out = tmp_path / "out"
    try:
        summary = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    except ResultWriteError as exc:  # the write error stops the run: one line
        message = str(exc)
    else:  # or fails that job only
        message = summary.failed[0].error
    assert "No space left on device" in message and "\n" not in message.strip()
    assert [p for p in out.rglob("*") if p.is_file() and p.parent.name != "logs"] == []  # the failure's log only


def test_unwritable_output_folder_is_one_line_and_nonzero(data_dir, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = cli("run", "-m", "hashbag", "-t", TASK, "-o", str(blocker / "out"), COMPEVAL_DATA_DIR=str(data_dir),
            COMPEVAL_CACHE_DIR=str(tmp_path / "c"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "cannot write results to" in r.stderr and len(r.stderr.strip().splitlines()) <= 2


def test_result_files_follow_the_umask(data_dir, tmp_path):
    old = os.umask(0o027)
    try:
        run(["hashbag"], [TASK], tmp_path, data_dir=data_dir, cache_dir=None)
    finally:
        os.umask(old)
    for p in tmp_path.glob("*/*"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o640, p


# -- ranges of model options --------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, message", [
    ("random,dim=0", "dim='0' must be a whole number, at least 1"),
    ("random,dim=-3", "dim='-3' must be a whole number, at least 1"),
    ("hashbag,dim=0", "dim='0' must be a whole number, at least 1"),
    ("api:m,batch=-5", "batch='-5' must be a whole number, at least 1"),
    ("api:m,rpm=nan", "rpm='nan' must be a number, at least 0"),
    ("api:m,dims=0", "dims='0' must be a whole number, at least 1"),
])
def test_numeric_model_options_are_range_checked(spec, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(")):
        load_model(spec)


def test_model_folder_is_the_configuration_id():
    config = load_model("hashbag").config
    assert model_folder(config) == config.id and model_folder({"id": config.id}) == config.id


def test_a_result_from_before_a_new_default_option_is_recomputed_not_reused(tmp_path):
    """Results written before a task gained an option (here modifiers' ``word_tokenisation``, whose default
    changed what word-vector models encode) lack it in their recorded options: a rerun must not reuse them
    as if they held today's default, but recompute them with a warning naming the difference."""
    out = tmp_path / "out"
    task = "modifiers-test3,n_resamples=50"
    with warnings.catch_warnings():
        first = run(["hashbag"], [task], out, cache_dir=None)
    assert first.outcomes[0].status == "done"
    (path,) = out.glob("*/modifiers-test3*.json")
    data = json.loads(path.read_text())
    assert data["task"]["params"]["word_tokenisation"] == "authors"
    old = dict(data, task=dict(data["task"], params={k: v for k, v in data["task"]["params"].items()
                                                      if k != "word_tokenisation"}))
    path.write_text(json.dumps(dict(old, checksum=content_checksum(old))))  # as the previous version wrote it
    with warnings.catch_warnings():
        again = run(["hashbag"], [task], out, cache_dir=None)
    assert again.outcomes[0].status == "done"
    assert any("other options" in w for w in again.warnings), again.warnings
    assert json.loads(path.read_text())["task"]["params"]["word_tokenisation"] == "authors"


def test_a_result_from_an_older_task_version_is_recomputed_not_reused(tmp_path):
    """A task's version changes when the same options would now compute something else: a result written
    by an older version of the task is recomputed, with a warning naming both versions."""
    out = tmp_path / "out"
    task = "modifiers-test3,n_resamples=50"
    with warnings.catch_warnings():
        run(["hashbag"], [task], out, cache_dir=None)
    (path,) = out.glob("*/modifiers-test3*.json")
    data = json.loads(path.read_text())
    current = data["task"]["version"]
    old = dict(data, task=dict(data["task"], version=current + "-old"))
    path.write_text(json.dumps(dict(old, checksum=content_checksum(old))))
    with warnings.catch_warnings():
        again = run(["hashbag"], [task], out, cache_dir=None)
    assert again.outcomes[0].status == "done"
    assert any(f"version {current}-old of task modifiers-test3" in w for w in again.warnings), again.warnings
    assert json.loads(path.read_text())["task"]["version"] == current


def test_failure_logs_of_two_names_that_sanitise_alike_stay_apart(tmp_path):
    """Logs use the one file-name rule (with its hash), so two jobs never append to one traceback file."""
    from compeval.context import RunContext
    from compeval.runner.session import record_failure

    ctx = RunContext(output_dir=tmp_path)
    lines = [record_failure(ctx, ValueError("boom"), task) for task in ("probe,path=a/b", "probe,path=a_b")]
    paths = {line.rsplit("traceback in ", 1)[1].rstrip(")") for line in lines}
    assert len(paths) == 2 and all(Path(p).parent == tmp_path / "logs" for p in paths)
    assert all("ValueError: boom" in Path(p).read_text() for p in paths)
