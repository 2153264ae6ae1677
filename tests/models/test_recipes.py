"""Every recipe in the table on a tiny random-weight replica of its repo (real repo id, real small JSON
files; see replicas.py): compeval's vectors for the bare repo id equal the model card's own reference path
(sentence-transformers with the card's prompt, or the card's transformers code and pooling function with
EOS as transformers 4 added it), in mixed-length batches. Plus the load guards and the bad-input lines."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models import hub
from compeval.models.recipes import RECIPES, TEST_NAMES, choose, special_tokens
from compeval.models.registry import FAMILIES, expand_alias, load_model
from compeval.specs import parse_spec

import replicas
from hub_fakes import put_in_hub_cache
from replicas import SEEDS, STS_PROMPT, TEXTS, cosines, same_vectors

pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")

# Recipe families beyond the seeds: (builder, reference, recipe key)
FAMILY_REPLICAS = {
    "intfloat/e5-base-v2": (replicas.minilm, replicas.st_reference(prompt="query: "), "e5"),
    "BAAI/bge-small-en-v1.5": (replicas.labse, replicas.st_reference(), "st"),
    "Salesforce/SFR-Embedding-Mistral": (replicas.e5_mistral, replicas.decoder_card(STS_PROMPT), "e5-mistral"),
    "cl-nagoya/defsent-bert-base-uncased-mean": (replicas.defsent, replicas.mean_all_tokens, "defsent-mean"),
    "cl-nagoya/defsent-bert-base-uncased-max": (replicas.defsent, replicas.max_all_tokens, "defsent-max"),
    # not in the table, known to mteb: its ModelMeta's instruction template gives the prompt
    "Linq-AI-Research/Linq-Embed-Mistral": (replicas.e5_mistral, replicas.decoder_card(STS_PROMPT), "mteb"),
}
ALL = {**SEEDS, **FAMILY_REPLICAS}


@pytest.fixture(scope="module")
def replica_root(tmp_path_factory):
    """Every replica built once; each test gets its own offline Hub cache holding them."""
    root = tmp_path_factory.mktemp("replicas")
    folders = {}
    for repo, (build, _, _) in ALL.items():
        folders[repo] = root / repo.replace("/", "--")
        build(folders[repo])
    return folders


@pytest.fixture()
def hub_replicas(replica_root, hub_cache):
    for repo, folder in replica_root.items():
        put_in_hub_cache(hub_cache, repo, folder)
    return replica_root


@pytest.mark.parametrize("repo", list(ALL))
def test_bare_repo_id_matches_its_card(hub_replicas, repo):
    _, reference, key = ALL[repo]
    model = load_model(repo)
    assert model.config.settings["recipe"] == key
    assert model.config.family.split(".")[0] == RECIPES[key].family
    got = model.encode(TEXTS)
    want = reference(hub_replicas[repo], TEXTS)
    assert got.shape == want.shape
    cos, diff = same_vectors(got, want)
    assert cos >= 0.9999 and diff < 1e-4, (cos, diff)


def test_e5_mistral_records_eos_last_token_and_instruction(hub_replicas):
    model = load_model("intfloat/e5-mistral-7b-instruct")
    c = model.config
    assert (c.family, c.params["pooling"], c.params["prompt"]) == ("hf.v1", "last", STS_PROMPT)
    assert c.params["max_length"] == 4096  # the card's
    assert c.params["special_tokens"] == "bos,eos" and c.settings["recipe"] == "e5-mistral"
    # spelled out, it is the same model (the recipe sets options; it is not itself identity)
    from compeval.specs import quote_value

    spelled = f"hf:intfloat/e5-mistral-7b-instruct,pool=last,max_length=4096,prompt={quote_value(STS_PROMPT)}"
    same = load_model(spelled)
    assert same.config.id == c.id
    # the tokenizer adds <s> and </s> although tokenizer.json's post-processor has only <s>
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(hub_replicas["intfloat/e5-mistral-7b-instruct"]))
    assert special_tokens(tok, hub_replicas["intfloat/e5-mistral-7b-instruct"], "x") == {"bos": True, "eos": True}
    ids = tok("the dog")["input_ids"]
    assert ids[0] == tok.bos_token_id and ids[-1] == tok.eos_token_id
    # and the spec's own options win over the recipe's
    assert load_model("intfloat/e5-mistral-7b-instruct,pool=mean").config.params["pooling"] == "mean"


def test_dpr_checkpoint_that_does_not_fit_its_class_is_refused(hub_replicas, hub_cache, tmp_path):
    wrong = tmp_path / "wrong"
    shutil.copytree(hub_replicas["facebook/dpr-ctx_encoder-single-nq-base"], wrong)
    cfg = json.loads((wrong / "config.json").read_text())
    (wrong / "config.json").write_text(json.dumps({**cfg, "architectures": ["DPRQuestionEncoder"]}))
    put_in_hub_cache(hub_cache, "org/dpr-mislabelled", wrong)
    model = load_model("hf:org/dpr-mislabelled,pool=cls")
    with pytest.raises(SpecError) as err:
        model.encode(["a dog"])
    msg = str(err.value)
    assert "hf:org/dpr-mislabelled" in msg and "DPRQuestionEncoder" in msg and "\n" not in msg
    assert "unexpected ctx_encoder.bert_model." in msg and "missing question_encoder.bert_model." in msg


def test_missing_weights_are_named_never_random(hub_replicas, hub_cache, tmp_path):
    from safetensors.torch import load_file, save_file

    cut = tmp_path / "cut"
    shutil.copytree(hub_replicas["allenai/specter"], cut)
    weights = load_file(str(cut / "model.safetensors"))
    dropped = sorted(k for k in weights if ".layer.1.output.dense." in k)
    save_file({k: v for k, v in weights.items() if k not in dropped}, str(cut / "model.safetensors"))
    put_in_hub_cache(hub_cache, "allenai/specter", cut, salt="cut")
    with pytest.raises(SpecError, match="missing .*layer.1.output.dense.bias.*would be random"):
        load_model("allenai/specter").encode(["a dog"])


@pytest.mark.parametrize("cut_what", ["missing", "unexpected", "wrong shape"])
def test_sentence_transformer_weights_are_checked_too(hub_replicas, hub_cache, tmp_path, cut_what):
    """sentence-transformers loads its Transformer module without saying what it skipped: compeval compares
    the loaded parameters with the checkpoint's tensors itself, so a cut checkpoint is refused, not run."""
    import torch
    from safetensors.torch import load_file, save_file

    cut = tmp_path / "cut"
    shutil.copytree(hub_replicas["sentence-transformers/all-MiniLM-L6-v2"], cut)
    weights = load_file(str(cut / "model.safetensors"))
    key = sorted(k for k in weights if k.endswith("layer.0.output.dense.bias"))[0]
    if cut_what == "missing":
        weights.pop(key)
    elif cut_what == "unexpected":
        weights[key.replace("layer.0", "layer.7")] = weights[key].clone()
    else:
        weights[key] = torch.zeros(weights[key].shape[0] + 1)
    save_file(weights, str(cut / "model.safetensors"))
    put_in_hub_cache(hub_cache, "sentence-transformers/all-MiniLM-L6-v2", cut, salt=cut_what)
    with pytest.raises(Exception) as err:
        load_model("sentence-transformers/all-MiniLM-L6-v2").encode(["a dog"])
    msg = str(err.value)
    if cut_what == "wrong shape":  # sentence-transformers itself may refuse a wrong shape first
        assert "shape" in msg or "size" in msg
    else:
        assert isinstance(err.value, SpecError) and f"{cut_what} " in msg and "would be random" in msg
        assert "layer.0.output.dense.bias" in msg or "layer.7.output.dense.bias" in msg


def test_unknown_repo_runs_the_assumed_default_and_says_so(hub_cache, tmp_path):
    replicas.unknown_bert(tmp_path / "u")
    put_in_hub_cache(hub_cache, "someone/plain-bert", tmp_path / "u")
    recipe, options = choose("someone/plain-bert", tmp_path / "u")
    assert recipe.key == "assumed" and options == {"pool": "mean"}
    model = load_model("someone/plain-bert")
    assert model.config.settings["recipe"] == "assumed" and model.config.params["pooling"] == "mean"
    got = model.encode(TEXTS)
    assert cosines(got, replicas.mean_all_tokens(tmp_path / "u", TEXTS)).min() >= 0.9999


def test_include_prompt_false_leaves_the_prompt_out_of_pooling(hub_replicas, hub_cache, tmp_path):
    from sentence_transformers import SentenceTransformer

    folder = tmp_path / "noprompt"
    shutil.copytree(hub_replicas["sentence-transformers/all-MiniLM-L6-v2"], folder)
    pooling = json.loads((folder / "1_Pooling/config.json").read_text())
    (folder / "1_Pooling/config.json").write_text(json.dumps({**pooling, "include_prompt": False}))
    cfg = json.loads((folder / "config_sentence_transformers.json").read_text())
    cfg["prompts"] = {"query": "find the house near the river : "}
    (folder / "config_sentence_transformers.json").write_text(json.dumps(cfg))
    put_in_hub_cache(hub_cache, "org/noprompt", folder)
    got = load_model("sbert:org/noprompt,prompt_name=query").encode(TEXTS)
    st = SentenceTransformer(str(folder), device="cpu")
    want = st.encode(TEXTS, prompt_name="query")
    glued = st.encode(["find the house near the river : " + t for t in TEXTS])
    assert same_vectors(got, want)[1] < 1e-5
    assert same_vectors(got, glued)[1] > 1e-2  # the prompt really is left out


def test_nv_embed_goes_to_its_own_family(hub_cache, tmp_path, monkeypatch):
    folder = tmp_path / "nv"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["NVEmbedModel"], "model_type": "nvembed"}))
    put_in_hub_cache(hub_cache, "nvidia/NV-Embed-v2", folder)
    monkeypatch.delitem(FAMILIES, "nvembed", raising=False)
    with pytest.raises(SpecError, match="nvembed:nvidia/NV-Embed-v2") as err:
        expand_alias(parse_spec("nvidia/NV-Embed-v2"))
    assert "\n" not in str(err.value)
    monkeypatch.setitem(FAMILIES, "nvembed", {1: object()})
    spec = expand_alias(parse_spec("nvidia/NV-Embed-v2,dtype=float16"))
    assert (spec.name, spec.arg, spec.options) == ("nvembed", "nvidia/NV-Embed-v2", {"dtype": "float16"})


def test_tokenizer_auto_map_is_remote_code(hub_replicas, hub_cache, tmp_path):
    folder = tmp_path / "gte"
    shutil.copytree(hub_replicas["Alibaba-NLP/gte-Qwen2-1.5B-instruct"], folder)
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg["auto_map"] = {"AutoTokenizer": ["tokenization_qwen.Qwen2Tokenizer", "tokenization_qwen.Qwen2TokenizerFast"]}
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    put_in_hub_cache(hub_cache, "Alibaba-NLP/gte-Qwen2-1.5B-instruct", folder, salt="auto_map")
    with pytest.raises(SpecError, match=r"tokenizer_config.json maps to Python code.*trust_remote_code=true") as err:
        load_model("Alibaba-NLP/gte-Qwen2-1.5B-instruct")
    assert "\n" not in str(err.value)


def test_gpt_layer_range_sbert_pad_token_and_one_line_prompt(hub_replicas):
    with pytest.raises(SpecError, match=r"hf:openai-community/gpt2,layer=3: .* layers 0\.\.2") as err:
        load_model("hf:openai-community/gpt2,layer=3")
    assert "\n" not in str(err.value)
    assert load_model("hf:openai-community/gpt2,layer=-3").config.params["layer"] == 0
    # sentence-transformers on a pad-less decoder tokenizer pads with EOS, as hf does
    folder = hub_replicas["openai-community/gpt2"]
    got = load_model("sbert:openai-community/gpt2").encode(TEXTS)
    assert cosines(got, replicas.mean_all_tokens(folder, TEXTS)).min() >= 0.9999
    model = load_model('hf:openai-community/gpt2,prompt="Instruct: x\\nQuery: "')
    assert "\n" not in model.config.display and "\\n" in model.config.display


def test_recipe_option_names_its_family():
    with pytest.raises(SpecError, match="recipe e5-mistral runs in the hf family"):
        load_model("sbert:all-MiniLM-L6-v2,recipe=e5-mistral")


def test_every_recipe_has_a_test_here_and_a_row_in_the_docs():
    from pathlib import Path

    names = {n.split("[")[0] for n in TEST_NAMES.values()}
    assert set(TEST_NAMES) == set(RECIPES)
    assert all(n in globals() for n in names), names - set(globals())
    params = {n.split("[")[1].rstrip("]") for n in TEST_NAMES.values() if "[" in n}
    assert params <= set(ALL), params - set(ALL)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    for key, recipe in RECIPES.items():
        row = next((line for line in docs.splitlines() if line.startswith(f"| `{key}` |")), None)
        assert row is not None, key
        assert recipe.pooling.replace("|", "\\|") in row and TEST_NAMES[key] in row


def test_table_agrees_with_mteb_where_mteb_knows_the_model():
    """mteb's ModelMeta for the decoder embedders: the same instruction template and EOS."""
    mteb = pytest.importorskip("mteb")
    for repo, key in (("intfloat/e5-mistral-7b-instruct", "e5-mistral"), ("Alibaba-NLP/gte-Qwen2-1.5B-instruct",
                                                                           "gte-qwen2")):
        kwargs = mteb.get_model_meta(repo).loader_kwargs
        assert kwargs.get("add_eos_token") is True
        template = kwargs["instruction_template"]
        prompt = template("Retrieve semantically similar text.", None) if callable(template) else \
            template.format(instruction="Retrieve semantically similar text.")
        assert prompt == RECIPES[key].options["prompt"]
