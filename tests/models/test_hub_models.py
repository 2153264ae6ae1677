"""Hub names, revisions, device/dtype, remote code, last-token pooling and prompts on tiny random models
in a fake offline Hugging Face cache."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models.registry import load_model

from hub_fakes import build_bert, put_in_hub_cache

pytest.importorskip("torch")

TEXTS = ["the dog runs", "a big red house near the river", "cat", "the small cat sleeps near a big dog ."]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_hub_names_resolve_to_the_cached_snapshot_and_record_its_commit(hub_cache, tiny_models):
    commit = put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    m = load_model("sbert:org/tiny-st")
    c = m.config
    assert (c.family, c.name) == ("sbert.v1", "org/tiny-st")
    assert c.params["revision"] == commit and c.params["weights"] == f"hf:org/tiny-st@{commit}"
    assert c.location.endswith(f"snapshots/{commit}") and commit not in c.slug
    vecs = m.encode(TEXTS)
    assert vecs.shape == (4, 32) and np.isfinite(vecs).all()
    # the same model as a plain sentence-transformers folder gives the same vectors
    np.testing.assert_allclose(load_model(f"sbert:{tiny_models['sbert']}").encode(TEXTS), vecs, rtol=1e-6)
    # the snapshot folder given as a path is a local folder of that repo, identified by its content (issue
    # 39: a folder edited in place keeps its path and snapshot hash), not the commit in its path
    by_path = load_model(f"sbert:{hub_cache}/models--org--tiny-st/snapshots/{commit}")
    assert by_path.config.name.startswith("org/tiny-st@") and by_path.config.params["weights"].startswith("sha256:")
    assert "revision" not in by_path.config.params and by_path.config.id != c.id


def test_bare_repo_id_picks_sentence_transformers_or_transformers(hub_cache, tiny_models):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    put_in_hub_cache(hub_cache, "org/tiny-bert", tiny_models["bert"])
    assert load_model("org/tiny-st").config.family == "sbert.v1"
    bert = load_model("org/tiny-bert,pool=cls")
    assert (bert.config.family, bert.config.params["pooling"]) == ("hf.v1", "cls")
    assert load_model("hf:org/tiny-st").encode(TEXTS[:2]).shape == (2, 32)  # the transformer under the ST model


def test_revision_pins_a_commit_and_is_part_of_the_identity(hub_cache, tiny_models, tmp_path):
    old = put_in_hub_cache(hub_cache, "org/tiny-bert", tiny_models["bert"], ref="v1")
    changed = tmp_path / "changed"
    shutil.copytree(tiny_models["bert"], changed)
    cfg = json.loads((changed / "config.json").read_text())
    (changed / "config.json").write_text(json.dumps({**cfg, "layer_norm_eps": 1e-5}))  # a new commit
    new = put_in_hub_cache(hub_cache, "org/tiny-bert", changed, ref="main")
    assert old != new
    main, by_tag, by_hash = (load_model(s) for s in
                             ("hf:org/tiny-bert", "hf:org/tiny-bert,revision=v1", f"hf:org/tiny-bert,revision={old}"))
    assert main.config.params["revision"] == new
    assert by_tag.config.params["revision"] == by_hash.config.params["revision"] == old
    assert by_tag.config.id == by_hash.config.id != main.config.id
    assert by_tag.config.name == main.config.name == "org/tiny-bert"


def test_missing_repo_or_revision_offline_is_one_line_naming_the_fix(hub_cache, tiny_models):
    with pytest.raises(SpecError) as err:
        load_model("sbert:org/not-here")
    msg = str(err.value)
    assert "org/not-here" in msg and "hf download org/not-here" in msg and "HF_HUB_OFFLINE" in msg
    assert "\n" not in msg
    put_in_hub_cache(hub_cache, "org/tiny-bert", tiny_models["bert"])
    with pytest.raises(SpecError, match=r"org/tiny-bert at revision 'v9'.*--revision v9"):
        load_model("hf:org/tiny-bert,revision=v9")
    with pytest.raises(SpecError, match="not a Hugging Face repo id"):
        load_model("sbert:no/such/thing")


def test_two_local_folders_called_model_keep_apart(tmp_path, tiny_models):
    a, b, a2 = tmp_path / "x" / "model", tmp_path / "y" / "model", tmp_path / "z" / "model"
    build_bert(a, seed=3)
    build_bert(b, seed=4)
    shutil.copytree(a, a2)
    ca, cb, ca2 = (load_model(f"hf:{p}").config for p in (a, b, a2))
    assert ca.name != cb.name and ca.slug != cb.slug and ca.id != cb.id
    assert ca.name.startswith("model@") and ca.id == ca2.id  # the same content is the same model
    assert load_model(f"hf:{a},name=mine").config.name == "mine"


def test_dtype_is_identity_device_and_batch_are_settings(hub_cache, tiny_models):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    fp32 = load_model("sbert:org/tiny-st,device=cpu")
    bf16 = load_model("sbert:org/tiny-st,device=cpu,dtype=bfloat16,batch=2")
    same = load_model("sbert:org/tiny-st,device=auto,batch=3")
    assert bf16.config.params["dtype"] == "bfloat16" and "dtype" not in fp32.config.params
    assert bf16.config.id != fp32.config.id and same.config.id == fp32.config.id
    a, b = fp32.encode(TEXTS), bf16.encode(TEXTS)
    assert b.dtype == np.float32 and not np.array_equal(a, b)
    assert cosines(a, b).min() > 0.99
    assert bf16.config.settings == {"device": "cpu", "batch": 2, "max_batch_tokens": 16384}
    # auto is recorded as the device it resolves to (no GPU here), before and after the weights load, so a
    # process that only reads cached vectors records the same as the one that encoded them
    assert same.config.settings == {"device": "cpu", "batch": 3, "max_batch_tokens": 16384}
    same.load()
    assert same.config.settings["device"] == "cpu"


@pytest.mark.parametrize("spec, message", [
    ("sbert:org/tiny-st,dtype=float8", "dtype='float8' must be one of float32, float16, bfloat16"),
    ("hf:org/tiny-st,pool=median", "pool='median' must be one of cls, mean, mean-nospecial, max, last"),
    ("sbert:org/tiny-st,device=tpu", "device='tpu' must look like auto|cpu|cuda"),
    ("sbert:org/tiny-st,batch=0", "batch='0' must be a whole number, at least 1"),
    ("sbert:org/tiny-st,batch=4,batch_size=8", "given twice"),
    ("sbert:org/tiny-st,prompt_name=nope", "no prompt named 'nope'; its prompts: doc, .*query"),
])
def test_bad_options_are_one_line(hub_cache, tiny_models, spec, message):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    with pytest.raises(SpecError, match=message.replace("|", r"\|").replace("(", r"\(")) as err:
        load_model(spec)
    assert "\n" not in str(err.value)


def test_cuda_without_a_gpu_is_refused_at_build(hub_cache, tiny_models):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    with pytest.raises(SpecError, match="device=cuda:1: no CUDA device is available"):
        load_model("sbert:org/tiny-st,device=cuda:1")


def test_remote_code_needs_the_explicit_opt_in(hub_cache, tiny_models, tmp_path):
    custom = tmp_path / "custom"
    shutil.copytree(tiny_models["bert"], custom)
    cfg = json.loads((custom / "config.json").read_text())
    cfg["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (custom / "config.json").write_text(json.dumps(cfg))
    (custom / "modeling_custom.py").write_text("raise RuntimeError('remote code ran')\n")
    put_in_hub_cache(hub_cache, "org/custom", custom)
    with pytest.raises(SpecError, match=r"org/custom ships its own code.*trust_remote_code=true"):
        load_model("hf:org/custom")
    opted = load_model("hf:org/custom,trust_remote_code=true")  # building reads no code; loading would
    assert opted.config.params["trust_remote_code"] is True
    assert "trust_remote_code" not in load_model(f"hf:{tiny_models['bert']}").config.params


@pytest.mark.parametrize("side", ["right", "left"])
def test_last_token_pooling_matches_unpadded_passes(hub_cache, tiny_models, side):
    put_in_hub_cache(hub_cache, "org/tiny-decoder", tiny_models["qwen2"])
    batched = load_model("hf:org/tiny-decoder,pool=last,batch=4")
    single = load_model("hf:org/tiny-decoder,pool=last,batch=1")
    batched.load()
    batched._loaded[1].padding_side = side
    got, alone = batched.encode(TEXTS), single.encode(TEXTS)
    sims = cosines(got, alone)
    assert sims.min() >= 0.999, sims
    # and each is the final hidden state at the text's last token, computed by hand
    torch, tok, net = single._load()
    with torch.inference_mode():
        for text, row in zip(TEXTS, got):
            enc = tok(text, return_tensors="pt")
            want = net(**enc).hidden_states[-1][0, -1].numpy()
            assert cosines(row[None], want[None])[0] >= 0.999
    # mean pooling over padded positions would differ: the test has teeth
    assert len({len(t.split()) for t in TEXTS}) > 1


def test_prompts_keep_commas_and_spaces_and_named_prompts_resolve(hub_cache, tiny_models):
    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    m = load_model('sbert:org/tiny-st,prompt="find, the: "')
    assert m.config.params["prompt"] == "find, the: "
    named = load_model("sbert:org/tiny-st,prompt_name=query")
    assert named.config.params["prompt"] == "query: " and named.config.params["prompt_name"] == "query"
    spelled = load_model('sbert:org/tiny-st,prompt="query: "')
    np.testing.assert_allclose(named.encode(TEXTS), spelled.encode(TEXTS), rtol=1e-6)
    assert not np.allclose(named.encode(TEXTS), load_model("sbert:org/tiny-st").encode(TEXTS))
    hf = load_model('hf:org/tiny-st,prompt="query: ",pool=cls')
    assert hf.config.params["prompt"] == "query: " and "prompt" in hf.config.display


@pytest.mark.parametrize("spec", ["hf", "sbert", "hf,layer=2", "sbert,prompt=x"])
def test_a_transformer_family_without_weights_is_an_error_not_minilm(spec):
    from compeval.errors import SpecError
    from compeval.models.registry import load_model

    with pytest.raises(SpecError, match=r"name the weights: (hf|sbert):ORG/NAME"):
        load_model(spec)
