"""A result is reused only when everything that produced it is unchanged; caches, input files, Python model
objects, options and output paths that would give a wrong number are recomputed or refused (issue 31).
Each test is the regression test of one defect the issue lists."""
from __future__ import annotations

import json
import re
import shutil
import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest

from compeval.cache.store import EmbeddingStore
from compeval.errors import CompevalError, CompevalWarning, MalformedDataError, SpecError
from compeval.models.conformance import ConformanceError, check_model
from compeval.models.protocol import ModelConfig
from compeval.models.registry import load_model
from compeval.models.families.static import load_vectors
from compeval.results.store import ResultStore, results_frame
from compeval.runner import run
from compeval.tasks.registry import get_tasks
from cli_process import cli

TASK = "gs2011,bootstrap=50"
GS = "GS2011_processed.csv"





def one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc.stderr


def data_copy(tmp_path: Path, data_dir: Path, duplicate_rows: int = 0) -> Path:
    """A data folder holding gs2011 only; ``duplicate_rows`` of its rows repeated at the end."""
    root = tmp_path / "data"
    (root / "gs2011").mkdir(parents=True)
    text = (data_dir / "gs2011" / GS).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    (root / "gs2011" / GS).write_text(text + "".join(lines[1:1 + duplicate_rows]), encoding="utf-8")
    return root


def n_items(out: Path) -> int:
    [(_, result)] = list(ResultStore(out).iter_results())
    return result.n_items


# -- 1. data a result was computed from -----------------------------------------------------------------------

def test_a_result_of_modified_data_is_recomputed_by_a_clean_run_and_back(data_dir, tmp_path):
    out, modified = tmp_path / "out", data_copy(tmp_path, data_dir, duplicate_rows=5)
    first = run(["hashbag"], [TASK], out, data_dir=modified, allow_modified_data=True, cache_dir=None)
    assert first.outcomes[0].status == "done"
    grown = n_items(out)
    clean = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert clean.outcomes[0].status == "done"  # not "skipped" with the modified data's result
    assert n_items(out) == grown - 5
    assert any("recomputing it" in w and GS in w for w in clean.warnings)
    back = run(["hashbag"], [TASK], out, data_dir=modified, allow_modified_data=True, cache_dir=None)
    assert back.outcomes[0].status == "done" and n_items(out) == grown


# -- 2. seed ------------------------------------------------------------------------------------------------

def test_another_seed_recomputes_and_reuse_stale_keeps_it_recorded(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None, seed=0)
    again = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None, seed=1)
    assert again.outcomes[0].status == "done"
    assert any("seed 0 → 1" in w for w in again.warnings)
    [(_, result)] = list(ResultStore(out).iter_results())
    assert result.seed == 1
    kept = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None, seed=2, reuse_stale=True)
    assert kept.outcomes[0].status == "skipped"
    assert any("--reuse-stale" in w and "seed 1 → 2" in w for w in kept.warnings)
    [entry] = [json.loads(x) for x in (out / "stale-reuse.jsonl").read_text().splitlines()]
    assert entry["changed"] == ["seed 1 → 2"]


# -- 3. a task's own input file ---------------------------------------------------------------------------

def qa_file(path: Path, n: int = 6, tags: bool = True) -> Path:
    rows = []
    for i in range(n):
        doc = [f"person{i} hired worker{i}", f"worker{i} hired person{i}", f"person{i} sold a car"]
        row = {"id": f"q{i}", "question": f"who hired worker{i}", "document": doc, "answer": 0}
        if tags:
            row["tags"] = ["active", "reversed", "other"]
        rows.append(json.dumps(row))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_an_edited_input_file_named_by_an_option_is_recomputed(tmp_path):
    f = qa_file(tmp_path / "qa.jsonl", 6)
    spec = f"invariance-qa,path={f},subset_model=,bootstrap=40"
    out = tmp_path / "out"
    assert run(["hashbag"], [spec], out, cache_dir=None).outcomes[0].status == "done"
    qa_file(f, 8)  # edited in place
    again = run(["hashbag"], [spec], out, cache_dir=None)
    assert again.outcomes[0].status == "done"
    assert any("input file" in w for w in again.warnings)
    assert n_items(out) == 8


# -- 4. predictions the report reads ------------------------------------------------------------------------

def test_the_report_never_uses_predictions_whose_hash_differs(data_dir, tmp_path):
    from compeval.report.loading import ResultsIndex

    out = tmp_path / "out"
    run(["hashbag", "random,dim=16"], [TASK], out, data_dir=data_dir, cache_dir=None)
    pred = next(out.glob("hashbag*/*.predictions.jsonl"))
    rows = [json.loads(x) for x in pred.read_text().splitlines()]
    for r in rows:
        r["score"] = -r["score"] if isinstance(r.get("score"), (int, float)) else r.get("score")
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))
    entry = next(e for e in ResultsIndex(out).entries if e.path.parent == pred.parent)
    with pytest.raises(CompevalError, match="SHA-256"):
        entry.predictions()


# -- 5, 6. the embedding cache ------------------------------------------------------------------------------

def test_a_cache_row_without_a_checksum_is_never_trusted(tmp_path):
    store = EmbeddingStore(tmp_path, "m")
    store.put_vectors(["a", "b"], np.ones((2, 4), np.float32))
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE vectors SET crc = NULL, vec = ? WHERE text = 'a'",
                    (np.random.default_rng(0).random(4).astype(np.float32).tobytes(),))
    con.close()
    with pytest.warns(CompevalWarning, match="no checksum"):
        assert set(store.get_vectors(["a", "b"])) == {"b"}
    store.close()


def test_a_cache_file_copied_to_another_model_is_set_aside(tmp_path):
    a = EmbeddingStore(tmp_path, "hashbag-aaaa")
    a.put_vectors(["x"], np.ones((1, 4), np.float32))
    a.close()
    shutil.copy(a.path, a.path.with_name("random-bbbb.sqlite"))
    with pytest.warns(CompevalWarning, match="holds the vectors of model 'hashbag-aaaa'"):
        b = EmbeddingStore(tmp_path, "random-bbbb")
    assert b.get_vectors(["x"]) == {}
    b.close()


def test_a_cache_that_is_a_folder_names_its_path(tmp_path):
    (tmp_path / "embeddings" / "m.sqlite").mkdir(parents=True)
    with pytest.raises(CompevalError, match=r"m\.sqlite is not a file"):
        EmbeddingStore(tmp_path, "m")


# -- 7, 8. input files: BOM, duplicates, encodings --------------------------------------------------------

def vectors_file(path: Path, words: list[str], bom: bool = False) -> Path:
    rng = np.random.default_rng(1)
    body = "".join(f"{w} {' '.join(f'{x:.4f}' for x in rng.standard_normal(4))}\n" for w in words)
    path.write_bytes(("\ufeff" if bom else "").encode() + body.encode())
    return path


def test_a_bom_never_hides_the_first_word(tmp_path):
    plain = load_vectors(str(vectors_file(tmp_path / "a.txt", ["the", "dog"])))
    with_bom = load_vectors(str(vectors_file(tmp_path / "b.txt", ["the", "dog"], bom=True)))
    assert "the" in with_bom and np.array_equal(with_bom.vector("the"), plain.vector("the"))
    pre = tmp_path / "p.tsv"
    pre.write_bytes("\ufeffthe dog\t1 2\nthe cat\t3 4\n".encode())
    assert np.array_equal(load_model(f"precomputed:{pre}").encode(["the dog"]), [[1, 2]])


def test_duplicate_keys_are_an_error_naming_both_lines(tmp_path):
    with pytest.raises(MalformedDataError, match=r"v\.txt:3: duplicate word 'the': also on line 1"):
        load_vectors(str(vectors_file(tmp_path / "v.txt", ["the", "dog", "the"])))
    pre = tmp_path / "p.jsonl"
    pre.write_text('{"text": "a b", "vector": [1, 2]}\n{"text": "c", "vector": [1, 1]}\n'
                   '{"text": "a b", "vector": [3, 4]}\n')
    with pytest.raises(MalformedDataError, match=r"p\.jsonl:3: duplicate text 'a b': also on line 1"):
        load_model(f"precomputed:{pre}")


def test_a_bad_vectors_file_fails_its_own_model_only_with_its_path(data_dir, tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9 1 2 3\n".encode("latin-1"))
    fake_gz = tmp_path / "v.txt.gz"
    fake_gz.write_bytes(b"ac 1 2 3\n")
    summary = run([f"static:{latin}", f"static:{fake_gz}", "hashbag"], [TASK], tmp_path / "out",
                  data_dir=data_dir, cache_dir=None)
    status = {o.model: o for o in summary.outcomes}
    assert status["hashbag"].status == "done"
    assert f"{latin}:1: not UTF-8" in status[f"static:{latin}"].error
    assert f"{fake_gz}:1: not a readable gzip file" in status[f"static:{fake_gz}"].error


# -- 9. Python objects through run() ------------------------------------------------------------------------

class Reversing:
    def encode(self, texts):
        return np.array([[len(t), t.count("e") + 1.0, t.count("a")] for t in texts])[::-1]


class BatchDependent:
    def encode(self, texts):
        base = np.array([[len(t), t.count("e") + 1.0, 1.0] for t in texts])
        return base + len(texts)


class Noisy:
    def __init__(self):
        self.rng = np.random.default_rng()

    def encode(self, texts):
        return self.rng.standard_normal((len(texts), 3))


@pytest.mark.parametrize("obj, check", [(Reversing(), "batch-invariance"), (BatchDependent(), "batch-invariance"),
                                        (Noisy(), "deterministic")])
def test_run_applies_the_conformance_checks_to_python_objects(obj, check, data_dir, tmp_path):
    summary = run([obj, "hashbag"], [TASK], tmp_path / "out", data_dir=data_dir, cache_dir=None)
    failed = [o for o in summary.outcomes if o.status == "failed"]
    assert len(failed) == 1 and f"[{check}]" in failed[0].error
    assert [o.model for o in summary.outcomes if o.status == "done"] == ["hashbag"]
    assert not list((tmp_path / "out").glob(f"{type(obj).__name__}*"))


class Shaped:
    def __init__(self, make):
        self.make = make
        self.config = ModelConfig(family="python.v1", name="shaped", params={})

    def encode(self, texts):
        return self.make(len(texts))


def test_check_model_refuses_zero_dimensions_and_complex_values():
    with pytest.raises(ConformanceError, match=r"\[shape\]"):
        check_model(Shaped(lambda n: np.zeros((n, 0))))
    with pytest.raises(ConformanceError, match=r"\[dtype\].*real"):
        check_model(Shaped(lambda n: np.ones((n, 3)) * (1 + 1j)))


# -- 5 (numbers). range checks before any work ---------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["run", "-m", "hashbag", "-t", "gs2011", "--seed", "-5"], "--seed -5: must be"),
    (["run", "-m", "hashbag", "-t", "gs2011,bootstrap=99999999999999999999"], "must be at most 100,000"),
    (["run", "-m", "hashbag", "-t", "invariance-qa,pairs_per_relation=100000000"], "at most 240"),
    (["run", "-m", "hashbag", "-t", "invariance-qa,subset_model=nosuchmodel"], "unknown model 'nosuchmodel'"),
    (["run", "-m", "random,dim=8,dim=16", "-t", "gs2011"], "option 'dim' is given twice"),
    (["run", "-m", "hashbag", "-t", "gs2011", "--no-cache", "--cache-dir", "X"], "contradict"),
    (["report", "R", "--resamples", "0"], "--resamples 0: must be from 40"),
    (["report", "R", "--resamples", "99999999999999"], "must be from 40 to 100,000"),
    (["report", "R", "--seed", "-1"], "--seed -1: must be from 0"),
])
def test_out_of_range_values_are_one_line_before_any_work(args, message, tmp_path):
    err = one_line_error(cli(*args, cwd=tmp_path))
    assert message in err
    assert not (tmp_path / "results").exists()


def test_numeric_model_options_are_bounded_at_planning(tmp_path):
    with pytest.raises(SpecError, match="at most 65536"):
        load_model("random,dim=99999999999")
    with pytest.raises(SpecError, match="takes no ':ARG'"):
        load_model("hashbag:xyz")
    with pytest.raises(SpecError, match="takes no ':ARG'"):
        load_model("random:../../etc")
    with pytest.raises(SpecError, match=r"'glove-6b-50d' takes no ':ARG' \(got ':foo'\)"):
        load_model("glove-6b-50d:foo")
    with pytest.raises(SpecError, match="line break"):
        load_model('hashbag,name="a\nb"')


# -- report, results ----------------------------------------------------------------------------------------

def test_a_failing_report_section_fails_the_report_command(tmp_path, monkeypatch):
    from compeval.report import build as report_build

    f = qa_file(tmp_path / "qa.jsonl", 6, tags=False)  # a user's file without tags: the section must draw
    out = tmp_path / "out"
    run(["hashbag", "random,dim=8"], [f"invariance-qa,path={f},subset_model=,bootstrap=40"], out, cache_dir=None)
    info = report_build.build_report(out, tmp_path / "r.html", n_resamples=40, n_permutations=20)
    assert info.errors == []

    class Broken:
        suite, title = "broken", "Broken"

        def build(self, ctx):
            raise RuntimeError("boom")

    monkeypatch.setattr(report_build, "registered_sections", lambda: [Broken()])
    info = report_build.build_report(out, tmp_path / "r.html", n_resamples=40, n_permutations=20)
    assert info.errors == ["section broken could not be drawn: RuntimeError: boom"]


def test_results_exits_nonzero_on_a_folder_without_a_readable_result(tmp_path):
    (tmp_path / "R" / "m").mkdir(parents=True)
    (tmp_path / "R" / "m" / "t.json").write_text("{not json")
    assert "holds no readable result" in one_line_error(cli("results", str(tmp_path / "R")))


# -- output safety ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def results_folder(tmp_path_factory, data_dir):
    out = tmp_path_factory.mktemp("res") / "R"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    return out


@pytest.mark.parametrize("make_args, message", [
    (lambda r, d: ["run", "-m", "hashbag", "-t", "gs2011", "-o", str(d / "gs2011" / "x")], "inside the data folder"),
    (lambda r, d: ["run", "-m", "hashbag", "-t", "gs2011", "-o", ""], "current folder"),
    (lambda r, d: ["report", str(r), "-o", str(next(r.glob("*/*.json")))], "inside the model results folder"),
    (lambda r, d: ["report", str(r), "-o", str(d / "report.html")], "inside the data folder"),
    (lambda r, d: ["report", str(r), "--figures", str(next(r.glob("*/")))], "inside the model results folder"),
    (lambda r, d: ["export", str(r), str(r)], "is the results folder it reads"),
])
def test_outputs_where_compeval_must_not_write_are_refused(make_args, message, results_folder, data_dir, tmp_path):
    before = sorted(p.name for p in data_dir.rglob("*"))
    result_files = {p: p.read_bytes() for p in results_folder.rglob("*") if p.is_file()}
    assert message in one_line_error(cli(*make_args(results_folder, data_dir), cwd=tmp_path))
    assert sorted(p.name for p in data_dir.rglob("*")) == before
    assert {p: p.read_bytes() for p in results_folder.rglob("*") if p.is_file()} == result_files
    assert not list(tmp_path.iterdir())


def test_a_symlinked_model_folder_in_the_output_is_not_followed(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None)
    [folder] = [p for p in out.iterdir() if p.is_dir() and p.name != "logs"]
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    again = run(["hashbag"], [TASK], out, data_dir=data_dir, cache_dir=None, seed=3)
    assert again.outcomes[0].status == "failed" and "symbolic link" in again.outcomes[0].error
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before


# -- unclear messages ---------------------------------------------------------------------------------------

def test_summary_names_the_logs_folder_only_when_one_was_written(tmp_path):
    """Every failure kind is logged (issue 36), a model that cannot be built too; the summary names the
    folder only when it exists (a log that cannot be written is said so in the job's line)."""
    proc = cli("run", "-m", "precomputed:nope.txt", "-t", "gs2011", "-o", str(tmp_path / "o"), "--no-report",
               cwd=tmp_path)
    assert proc.returncode == 1
    assert f"1 job(s) failed (logs in {tmp_path / 'o' / 'logs'}):" in " ".join(proc.stderr.split())
    assert len(list((tmp_path / "o" / "logs").glob("*.log"))) == 1


def test_markdown_cells_keep_the_table_whole(data_dir, tmp_path):
    out = tmp_path / "out"
    run(["hashbag,name=a|b"], [TASK], out, data_dir=data_dir, cache_dir=None)
    proc = cli("results", str(out), "--format", "markdown")
    assert proc.returncode == 0
    rows = proc.stdout.strip().splitlines()
    pipes = [len(re.findall(r"(?<!\\)\|", r)) for r in rows]
    assert "a\\|b" in rows[2] and set(pipes) == {pipes[0]}


# -- compeval verify ----------------------------------------------------------------------------------------

def test_verify_lists_what_no_longer_holds_without_recomputing(data_dir, tmp_path):
    from compeval.cli.verify import verify_folder

    data = data_copy(tmp_path, data_dir)
    out, cache = tmp_path / "R", tmp_path / "cache"
    run(["hashbag", "random,dim=32"], [TASK], out, data_dir=data, cache_dir=cache)
    assert verify_folder(out, data_dir=data, cache_dir=cache) == ([], 2)
    (data / "gs2011" / GS).write_text((data / "gs2011" / GS).read_text() + "\n")  # 1: edited data
    pred = next(out.glob("hashbag*/*.predictions.jsonl"))
    pred.write_text(pred.read_text().replace('"score":', '"score":-', 1))  # 2: edited predictions
    random_id = next(p.name for p in out.iterdir() if p.name.startswith("random"))
    shutil.copy(next((cache / "embeddings").glob("hashbag*.sqlite")),
                cache / "embeddings" / f"{random_id}.sqlite")  # 3: another model's cache
    files = lambda: [*out.rglob("*"), *cache.rglob("*.sqlite")]  # noqa: E731 (-shm: SQLite's read index)
    before = {p: p.read_bytes() for p in files() if p.is_file()}
    findings, checked = verify_folder(out, data_dir=data, cache_dir=cache)
    problems = {f.path.parent.name.split("-")[0].split("__")[0]: " | ".join(f.problems) for f in findings}
    assert checked == 2 and set(problems) == {"hashbag", "random"}
    assert "predictions file" in problems["hashbag"] and GS in problems["hashbag"]
    assert "holds the vectors of model 'hashbag" in problems["random"] and GS in problems["random"]
    assert {p: p.read_bytes() for p in files() if p.is_file()} == before  # nothing written
    proc = cli("verify", str(out), "--data-dir", str(data), "--cache-dir", str(cache))
    assert proc.returncode == 1 and "2 result(s) checked, 0 hold, 2 do not" in proc.stderr


def test_a_cache_file_of_the_previous_version_is_set_aside_not_read(tmp_path):
    """The previous version wrote no model id into its cache files: such a file's rows cannot be tied to the
    model opening it, so it is moved aside with a warning and rebuilt, never read."""
    old = EmbeddingStore(tmp_path, "hashbag-aaaa")
    old.put_vectors(["x"], np.ones((1, 4), np.float32))
    old.close()
    with sqlite3.connect(old.path) as con:  # as the previous version left it: rows, no meta.model_id
        con.execute("DELETE FROM meta WHERE key = 'model_id'")
    con.close()
    with pytest.warns(CompevalWarning, match="holds entries but no model id"):
        reopened = EmbeddingStore(tmp_path, "hashbag-aaaa")
    assert reopened.get_vectors(["x"]) == {}
    assert list(tmp_path.rglob("*.corrupt-*")), "the old file is kept aside, not deleted"
    reopened.close()
