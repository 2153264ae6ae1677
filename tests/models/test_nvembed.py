"""NV-Embed-v2 (``nvembed:``) on a tiny random-weight replica in the published checkpoint's layout, in an
offline Hub cache under ``nvidia/NV-Embed-v2``, against the card's forward re-implemented in plain torch
(``nvembed_fakes.reference_vector``: unpadded, one text at a time, tokens read with the tokenizers library)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from compeval.errors import InputTextError, SpecError
from compeval.models.conformance import check_model
from compeval.models.registry import load_model

from hub_fakes import build_bert, put_in_hub_cache

pytest.importorskip("torch")
from nvembed_fakes import build_nvembed, card_input, load_tensors, reference_vector, save_checkpoint  # noqa: E402

REPO = "nvidia/NV-Embed-v2"
PREFIX = "Instruct: Retrieve semantically similar text.\nQuery: "
TEXTS = ["the dog runs", "a big red house near the river , and the small cat sleeps near it .", "cat",
         "Zürich é", "the dog runs near the big red house", "x"]


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    return build_nvembed(tmp_path_factory.mktemp("nvembed") / "NV-Embed-v2")


def reference(folder, prefix, texts, **variant):
    w = load_tensors(folder)
    eos = variant.pop("eos", True)
    return np.stack([reference_vector(w, *card_input(folder, prefix, t, eos=eos), **variant) for t in texts])


def cosines(a, b):
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_vectors_are_the_cards_forward_in_mixed_length_batches(hub_cache, replica):
    commit = put_in_hub_cache(hub_cache, REPO, replica)
    model = load_model(f"nvembed:{REPO},batch=4")
    vecs = model.encode(TEXTS)
    assert vecs.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    assert cosines(vecs, reference(replica, PREFIX, TEXTS)).min() >= 0.9999
    # each part of the recipe matters on this replica: the reference without it is another vector
    for wrong in ({"causal": True}, {"pool_all": True}, {"eos": False}):
        assert cosines(vecs, reference(replica, PREFIX, TEXTS, **wrong)).min() < 0.999, wrong
    assert cosines(vecs, reference(replica, "", TEXTS)).min() < 0.999
    # one text at a time, unpadded, gives the same vectors as the padded batches
    np.testing.assert_allclose(load_model(f"nvembed:{REPO},batch=1").encode(TEXTS), vecs, atol=2e-6)
    check_model(model, rebuild=lambda: load_model(f"nvembed:{REPO},batch=4"))
    params = model.config.params
    assert params["revision"] == commit and params["prompt"] == PREFIX
    assert (params["pooling"], params["attention"], params["instruction_pooled"], params["eos"],
            params["normalise"]) == ("latent-attention", "bidirectional", False, "</s> appended", "l2")


def test_instruction_option_sets_the_card_prefix_and_the_identity(hub_cache, replica):
    put_in_hub_cache(hub_cache, REPO, replica)
    default = load_model(f"nvembed:{REPO}")
    claim = load_model(f'nvembed:{REPO},instruction="Given a claim, find documents that refute the claim"')
    plain = load_model(f'nvembed:{REPO},instruction=""')
    assert claim.config.params["prompt"] == "Instruct: Given a claim, find documents that refute the claim\nQuery: "
    assert len({default.config.id, claim.config.id, plain.config.id}) == 3
    assert "instruction" in claim.config.display and default.config.display == REPO
    assert load_model("nvembed").config.id == default.config.id  # the family's default repo
    texts = TEXTS[:3]
    assert cosines(plain.encode(texts), reference(replica, "", texts)).min() >= 0.9999
    assert cosines(claim.encode(texts), reference(replica, claim.config.params["prompt"], texts)).min() >= 0.9999


def _damaged(replica, tmp_path, change):
    folder = tmp_path / "damaged"
    shutil.copytree(replica, folder)
    tensors = load_tensors(folder)
    change(tensors)
    save_checkpoint(folder, {k: v.half() for k, v in tensors.items()})
    return folder


@pytest.mark.parametrize("change, named", [
    (lambda t: t.pop("latent_attention_model.cross_attend_blocks.0.fn.to_kv.weight"),
     "missing: latent_attention_model.cross_attend_blocks.0.fn.to_kv.weight"),
    (lambda t: t.pop("embedding_model.layers.1.mlp.up_proj.weight"), "missing: embedding_model.layers.1.mlp.up_proj"),
    (lambda t: t.update({"latent_attention_model.cross_attend_blocks.2.norm.weight": t["embedding_model.norm.weight"]}),
     "unexpected: latent_attention_model.cross_attend_blocks.2.norm.weight"),
    (lambda t: t.update({"latent_attention_model.latents": t["latent_attention_model.latents"][:3]}),
     "wrong shape: latent_attention_model.latents [3, 32]≠[4, 32]"),
])
def test_weights_that_do_not_fit_are_one_line_naming_them(hub_cache, replica, tmp_path, change, named):
    put_in_hub_cache(hub_cache, REPO, _damaged(replica, tmp_path, change))
    model = load_model(f"nvembed:{REPO}")  # the spec is checked now, the weights when they load
    with pytest.raises(SpecError) as err:
        model.encode(["the dog runs"])
    message = str(err.value)
    assert named in message and "\n" not in message and "never random weights" in message


def test_a_checkpoint_of_another_architecture_is_refused(hub_cache, replica, tmp_path):
    put_in_hub_cache(hub_cache, "org/tiny-bert", build_bert(tmp_path / "bert"))
    with pytest.raises(SpecError, match="not an NV-Embed checkpoint.*use hf: or sbert:"):
        load_model("nvembed:org/tiny-bert")
    left = tmp_path / "left"
    shutil.copytree(replica, left)
    config = json.loads((left / "config.json").read_text())
    (left / "config.json").write_text(json.dumps({**config, "padding_side": "left"}))
    with pytest.raises(SpecError, match="padding_side='left'.*published recipe"):
        load_model(f"nvembed:{left}")


def test_a_tokenizer_that_adds_no_bos_is_refused(hub_cache, replica, tmp_path):
    folder = tmp_path / "no-bos"
    shutil.copytree(replica, folder)
    tok = json.loads((folder / "tokenizer.json").read_text())
    (folder / "tokenizer.json").write_text(json.dumps({**tok, "post_processor": None}))
    put_in_hub_cache(hub_cache, REPO, folder)
    with pytest.raises(SpecError, match="does not start texts with BOS"):
        load_model(f"nvembed:{REPO}").load()


def test_a_text_with_nothing_left_to_pool_is_an_error_not_nan(hub_cache, replica):
    put_in_hub_cache(hub_cache, REPO, replica)
    with pytest.raises(InputTextError, match="no token to pool"):
        load_model(f"nvembed:{REPO},max_length=8").encode(["the dog runs"])

