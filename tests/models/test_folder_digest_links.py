"""A model folder's content digest (its id) covers every file the loaders read, through links: a
sentence-transformers folder whose module folder is a symbolic link gets a new id when the linked files
change; a link back into the folder is one line; a folder without links keeps the digest it always had."""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from compeval.errors import SpecError
from compeval.models import hub
from compeval.models.registry import resolve_model


def _pooling(folder, mode: str) -> None:
    config = {"word_embedding_dimension": 8, "pooling_mode_cls_token": mode == "cls",
              "pooling_mode_mean_tokens": mode == "mean", "pooling_mode_max_tokens": False}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")


def _plain_folder(tmp_path):
    model = tmp_path / "model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "config.json").write_text('{"hidden_size": 8}', encoding="utf-8")
    (model / "modules.json").write_text("[]", encoding="utf-8")
    _pooling(model / "1_Pooling", "mean")
    return model


def test_a_linked_module_folder_is_read_through(tmp_path):
    model = _plain_folder(tmp_path)
    plain = hub.content_digest(model)
    shared = tmp_path / "shared-pooling"
    shutil.move(model / "1_Pooling", shared)
    (model / "1_Pooling").symlink_to(shared, target_is_directory=True)
    assert hub.content_digest(model) == plain  # the same files read: the same id
    _pooling(shared, "cls")  # the linked module changed in place
    assert hub.content_digest(model) != plain
    replacement = tmp_path / "other-pooling"
    replacement.mkdir()
    _pooling(replacement, "mean")
    (model / "1_Pooling").unlink()
    (model / "1_Pooling").symlink_to(replacement, target_is_directory=True)  # back to mean pooling: the old id
    assert hub.content_digest(model) == plain


def test_the_model_id_follows_a_replaced_linked_module(tmp_path, tiny_models):
    model = tmp_path / "st"
    shutil.copytree(tiny_models["sbert"], model)
    module = next(p for p in sorted(model.iterdir()) if p.is_dir() and (p / "config.json").is_file())
    outside = tmp_path / "modules" / module.name
    outside.parent.mkdir()
    shutil.move(module, outside)
    module.symlink_to(outside, target_is_directory=True)
    before = resolve_model(str(model), "cpu").weights.weights
    replacement = tmp_path / "modules" / "replacement"
    shutil.copytree(outside, replacement)
    config = json.loads((replacement / "config.json").read_text(encoding="utf-8"))
    config["replaced"] = True
    (replacement / "config.json").write_text(json.dumps(config), encoding="utf-8")
    module.unlink()
    module.symlink_to(replacement, target_is_directory=True)
    assert resolve_model(str(model), "cpu").weights.weights != before


def test_a_link_back_into_the_folder_is_one_line(tmp_path):
    model = _plain_folder(tmp_path)
    (model / "1_Pooling" / "loop").symlink_to(model, target_is_directory=True)
    with pytest.raises(SpecError, match="links back to"):
        hub.content_digest(model)


def test_a_folder_without_links_keeps_its_digest(tmp_path):
    """The rule as it was written down: sorted relative names, each followed by a NUL and the file's bytes;
    README.md, .gitattributes and anything under .git or .cache left out."""
    model = _plain_folder(tmp_path)
    (model / "README.md").write_text("about", encoding="utf-8")
    (model / ".git").mkdir()
    (model / ".git" / "HEAD").write_text("ref", encoding="utf-8")
    (model / "sub" / "deeper").mkdir(parents=True)
    (model / "sub" / "deeper" / "w.bin").write_bytes(b"\x00\x01")
    h = hashlib.sha256()
    for rel in ("1_Pooling/config.json", "config.json", "modules.json", "sub/deeper/w.bin"):
        h.update(rel.encode() + b"\0" + (model / rel).read_bytes())
    assert hub.content_digest(model) == "sha256:" + h.hexdigest()


def test_verify_notices_a_model_folder_changed_in_place(tmp_path, tiny_models, hub_cache):
    """A snapshot-shaped local folder whose pooling is switched in place: a run computes under a new id, and
    ``verify`` no longer says the old mean-pooling result holds."""
    from compeval.cli.verify import verify_folder
    from compeval.runner import run
    from hub_fakes import put_in_hub_cache

    commit = put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    folder = hub_cache / "models--org--tiny-st" / "snapshots" / commit
    out = tmp_path / "out"
    (tmp_path / "pairs.csv").write_text("a,b,score\nthe dog runs,a dog is running,4\nthe cat sleeps,the dog runs,1\n"
                                        "a big house,a large house,4.5\nthe river,a big red house,0.5\n",
                                        encoding="utf-8")
    task = f"pairs:{tmp_path / 'pairs.csv'},bootstrap=50"
    run([str(folder)], [task], out, cache_dir=None, device="cpu", progress=False, report=False)
    assert verify_folder(out)[0] == []
    pooling = next(folder.glob("*_Pooling/config.json"))
    config = json.loads(pooling.read_text(encoding="utf-8"))
    if "pooling_mode" in config:  # sentence-transformers >= 6 writes one mode
        assert config["pooling_mode"] == "mean"
        config["pooling_mode"] = "cls"
    else:
        assert config["pooling_mode_mean_tokens"]
        config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.unlink()  # a snapshot's files may be links into the blobs: replace, as an editor saving would
    pooling.write_text(json.dumps(config), encoding="utf-8")
    findings, checked = verify_folder(out)
    assert checked == 1 and len(findings) == 1
    (problem,) = findings[0].problems
    assert f"folder {folder}" in problem and "now has content digest" in problem and "new id" in problem
