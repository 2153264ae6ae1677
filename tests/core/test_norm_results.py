"""Results an earlier compeval wrote for a model spec with ``norm=`` (``glove-6b-50d,norm=center``) are not
read: every reader (the store, the rows, the report's index, verify, a run's reuse check) names the file and
how to compute it now, in one line, and goes on with the rest."""
from __future__ import annotations

import json
import shutil

import pytest

from compeval.errors import CompevalError
from compeval.models.protocol import ModelConfig
from compeval.results.store import ResultStore, content_checksum, model_folder, results_frame
from compeval.runner import run

TASK = "sts3k-pilot,bootstrap=40"


def _old_style(new: dict, norm: str, slug: str | None = None) -> dict:
    """The result the previous version wrote for ``MODEL,norm=NORM`` on the task without norm: the model's
    params and shown params carry norm (so its id, display and folder do), the task's params and file name
    (``slug``) do not. (Checked once against a run of the previous version: equal but for times, cache
    counters and checksum.)"""
    model = {k: v for k, v in new["model"].items() if k not in ("id", "display")}
    config = ModelConfig(**{**model, "params": {**model["params"], "norm": norm},
                            "shown_params": (*model["shown_params"], "norm")})
    old = {**new, "model": {**config.model_dump(mode="json"), "display": config.display},
           "task": {**new["task"], "params": {k: v for k, v in new["task"]["params"].items() if k != "norm"}}}
    if slug is not None:
        old["predictions_file"] = f"{slug}.predictions.jsonl"
    old["checksum"] = content_checksum(old)
    return old


@pytest.fixture
def folder(tmp_path, data_dir):
    """A results folder holding one current result (glove-6b-50d on the task with norm=center) and the
    same result as the previous version filed it (model glove-6b-50d,norm=center, task without norm)."""
    out = tmp_path / "results"
    summary = run(["glove-6b-50d"], [TASK + ",norm=center"], out, data_dir=data_dir, cache_dir=None)
    (done,) = summary.outcomes
    assert done.status == "done"
    new = json.loads(done.path.read_text())
    old = _old_style(new, "center", "sts3k-pilot__bootstrap-40")
    assert old["model"]["display"] == "glove-6b-50d,norm=center" and "norm" not in old["task"]["params"]
    old_dir = out / model_folder(old["model"])
    old_dir.mkdir()
    old_path = old_dir / "sts3k-pilot__bootstrap-40.json"
    shutil.copy(done.path.with_name(new["predictions_file"]), old_dir / old["predictions_file"])
    old_path.write_text(json.dumps(old, indent=2))
    return out, done.path, old_path


def test_an_old_norm_result_is_refused_in_one_line_with_the_command_that_computes_it(folder):
    out, new_path, old_path = folder
    store = ResultStore(out)
    with pytest.raises(CompevalError) as err:
        store.load(old_path)
    message = str(err.value)
    assert "\n" not in message and "model option norm=center, which is a task option now" in message
    assert "-m glove-6b-50d -t sts3k-pilot,norm=center" in message
    assert [p for p, _ in store.iter_results()] == [new_path]
    assert [p for p, _ in store.unreadable] == [old_path]
    assert store.problem(old_path) == message  # a reuse check recomputes rather than reading it
    unreadable: list = []
    frame = results_frame(out, unreadable)
    assert set(frame["model"]) == {"glove-6b-50d"} and set(frame["params"]) == {"bootstrap=40; missing=zero; norm=center"}
    assert [p for p, _ in unreadable] == [old_path]


def test_old_norm_result_in_a_part_of_a_composite_is_refused_too(folder):
    out, new_path, old_path = folder
    data = json.loads(new_path.read_text())
    part = _old_style(data, "zscore")["model"]
    data["model"] = {**data["model"], "children": [part]}
    data["checksum"] = content_checksum(data)
    new_path.write_text(json.dumps(data))
    with pytest.raises(CompevalError, match="model option norm=zscore"):
        ResultStore(out).load(new_path)


def test_verify_and_a_rerun_name_the_old_file_and_go_on(folder, data_dir):
    from compeval.cli.verify import verify_folder

    out, new_path, old_path = folder
    findings, checked = verify_folder(out, data_dir=data_dir)
    assert checked == 2 and [f.path for f in findings] == [old_path]
    again = run(["glove-6b-50d"], [TASK + ",norm=center"], out, data_dir=data_dir, cache_dir=None)
    assert [o.status for o in again.outcomes] == ["skipped"]
    assert old_path.is_file()  # left where it is, never rewritten


def test_a_plain_pair_task_result_of_the_previous_version_is_recomputed_with_a_warning(tmp_path, data_dir):
    """The previous version recorded no ``norm`` in a pair task's params: such a result is not reused as if
    it had the new params; the run recomputes it (one warning naming the file) and gets the same score."""
    out = tmp_path / "results"
    first = run(["glove-6b-50d"], [TASK], out, data_dir=data_dir, cache_dir=None)
    (done,) = first.outcomes
    new = json.loads(done.path.read_text())
    assert new["task"]["params"]["norm"] == "none"
    old = {**new, "task": {**new["task"], "params": {k: v for k, v in new["task"]["params"].items() if k != "norm"}}}
    old["checksum"] = content_checksum(old)
    done.path.write_text(json.dumps(old, indent=2))
    again = run(["glove-6b-50d"], [TASK], out, data_dir=data_dir, cache_dir=None)
    assert [o.status for o in again.outcomes] == ["done"]
    assert any(str(done.path) in w and "recomputing" in w for w in again.warnings), again.warnings
    redone = json.loads(done.path.read_text())
    assert redone["task"]["params"]["norm"] == "none" and redone["scores"] == new["scores"]
