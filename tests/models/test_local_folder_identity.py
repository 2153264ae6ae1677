"""Local model folders are identified by their content (issue 39 item 1): a plain folder and a folder in Hugging
Face snapshot layout given by its path alike. A model fine-tuned into the same folder is a new model: its
vectors and results are computed afresh, never read from the cache or the results folder of the old one; the
folder is digested once per run, when the spec is resolved."""
from __future__ import annotations

import json
import pickle
import shutil

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models import hub
from compeval.models.registry import ModelBuilder, resolve_model
from compeval.runner import run
from hub_fakes import put_in_hub_cache

pytest.importorskip("torch")

TEXTS = ["the dog runs", "a big red house near the river"]


def _fine_tune_in_place(folder):
    """What training into the same folder does to it: the same files, other weights."""
    from safetensors.numpy import load_file, save_file

    (weights,) = folder.glob("**/model.safetensors")
    tensors = load_file(str(weights))
    name = next(k for k in sorted(tensors) if k.endswith("word_embeddings.weight"))
    tensors[name] = tensors[name].copy()
    tensors[name][:, 0] += np.float32(1.0)  # one dimension (a shift of all would vanish in the LayerNorm)
    save_file(tensors, str(weights))


@pytest.fixture(params=["folder", "snapshot"])
def model_folder(request, tiny_models, tmp_path, hub_cache):
    """A copy of the tiny sentence-transformer: a plain folder, or a snapshot folder of a Hub cache given by path."""
    if request.param == "folder":
        folder = tmp_path / "my-model"
        shutil.copytree(tiny_models["sbert"], folder)
        return folder
    commit = put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    return hub_cache / "models--org--tiny-st" / "snapshots" / commit


def test_identity_is_the_content_not_the_path(model_folder):
    before = resolve_model(str(model_folder), "cpu")
    assert before.weights.weights.startswith("sha256:") and before.weights.commit is None
    model = ModelBuilder(device="cpu")(before)
    assert model.config.params["weights"] == before.weights.weights and "revision" not in model.config.params
    old = model.encode(TEXTS)
    _fine_tune_in_place(model_folder)
    after = resolve_model(str(model_folder), "cpu")
    assert after.weights.weights != before.weights.weights
    fresh = ModelBuilder(device="cpu")(after)
    assert fresh.config.id != model.config.id
    assert not np.allclose(fresh.encode(TEXTS), old)


def test_a_model_fine_tuned_in_place_is_recomputed_not_reused(model_folder, tmp_path, monkeypatch):
    """Two runs into one results folder with one embedding cache, the folder trained in between: the second
    run computes a new result under a new id (main, snapshot layout: skipped as done, the old score shown)."""
    calls = []
    real = hub.content_digest

    def counted(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(hub, "content_digest", counted)
    out, cache = tmp_path / "results", tmp_path / "cache"
    first = run([str(model_folder)], ["sts3k-pilot"], out, cache_dir=cache, device="cpu", progress=False,
                report=False)
    assert [o.status for o in first.outcomes] == ["done"] and len(calls) == 1  # digested once per run
    _fine_tune_in_place(model_folder)
    second = run([str(model_folder)], ["sts3k-pilot"], out, cache_dir=cache, device="cpu", progress=False,
                 report=False)
    assert [o.status for o in second.outcomes] == ["done"] and len(calls) == 2
    old_id = json.loads(first.outcomes[0].path.read_text())["model"]["id"]
    [line] = [w for w in second.warnings if "under another identity" in w]  # said once, naming the old id
    assert old_id in line
    assert not [w for w in first.warnings if "under another identity" in w]
    again = run([str(model_folder)], ["sts3k-pilot"], out, cache_dir=cache, device="cpu", progress=False,
                report=False)
    assert [o.status for o in again.outcomes] == ["skipped"]  # unchanged content: the stored result is reused
    folders = sorted(p.name for p in out.iterdir() if p.is_dir() and p.name != "logs")
    assert len(folders) == 2, folders


def test_a_relative_folder_is_recorded_resolved(tiny_models, tmp_path, monkeypatch):
    """A folder named relative to the working folder is recorded at its absolute path (what a worker started
    elsewhere loads), and its identity is its content: the same relative name in another folder holding
    other weights is another model."""
    for name in ("a", "b"):
        shutil.copytree(tiny_models["sbert"], tmp_path / name / "model")
    _fine_tune_in_place(tmp_path / "b" / "model")
    monkeypatch.chdir(tmp_path / "a")
    first = resolve_model("sbert:model", "cpu")
    assert first.weights.directory == tmp_path / "a" / "model"
    model = ModelBuilder(device="cpu")(pickle.loads(pickle.dumps(first)))
    assert model.config.location == str(tmp_path / "a" / "model")
    monkeypatch.chdir(tmp_path / "b")
    assert resolve_model("sbert:model", "cpu").weights.weights != first.weights.weights
    assert resolve_model("./model", "cpu").weights == resolve_model("sbert:model", "cpu").weights  # bare path alike


@pytest.mark.parametrize("name", ["config.json", "modules.json", "1_Pooling/config.json"])
def test_a_json_file_with_a_byte_order_mark_is_refused_in_one_line_when_resolved(tiny_models, tmp_path, name):
    """transformers and sentence-transformers cannot read a model JSON that starts with a UTF-8 byte-order
    mark (their json.load fails with a traceback); compeval says so, naming the file, when the spec is
    resolved, before any job runs. The library's own failure is checked too, so the refusal stays needed."""
    folder = shutil.copytree(tiny_models["sbert"], tmp_path / "bom")
    target = folder / name
    if not target.is_file():
        pytest.skip(f"the tiny model has no {name}")
    target.write_bytes(b"\xef\xbb\xbf" + target.read_bytes())
    with pytest.raises(SpecError) as err:
        resolve_model(str(folder), "cpu")
    message = str(err.value)
    assert "\n" not in message and str(target) in message and "byte-order mark" in message
    from sentence_transformers import SentenceTransformer

    with pytest.raises((ValueError, OSError)):  # JSONDecodeError; transformers re-raises it as OSError
        SentenceTransformer(str(folder), device="cpu")


def test_a_byte_order_mark_in_json_the_loaders_never_read_is_left_alone(tiny_models, tmp_path):
    folder = shutil.copytree(tiny_models["sbert"], tmp_path / "logs")
    (folder / "trainer_state.json").write_bytes(b'\xef\xbb\xbf{"epoch": 1}')
    assert resolve_model(str(folder), "cpu").weights.directory == folder.absolute()
