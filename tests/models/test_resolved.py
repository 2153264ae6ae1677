"""One resolved model (issue 38 item 1): a spec is resolved once per run into ``ResolvedModel``, which the
early check, the build, ``--plan``, the isolation decision, jobs and workers all take; ids stay as they were."""
from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from compeval.errors import SpecError
from compeval.models import hub
from compeval.models.registry import FAMILIES, ModelBuilder, ResolvedModel, discover, resolve_model

# Ids computed on main before the resolved model existed (the packaged models, the families' own specs and
# the recipe replicas of replicas.py under their bare repo ids): results written then must keep their keys.
PACKAGED_IDS = {
    "all-MiniLM-L6-v2": "all-MiniLM-L6-v2-a6c22b8b7858",
    "glove-6b-50d": "glove-6b-50d-8a9d091ec543",
    "glove-6b-50d,op=conv": "glove-6b-50d__op-conv-be5925a7a916",
    "static:glove-6b-50d,tok=sts3k": "glove-6b-50d__tok-sts3k-b62ea2127d24",
    "random": "random__dim-300__seed-0-10ef745afbef",
    "random,dim=16,seed=3": "random__dim-16__seed-3-1fecf2c666d1",
    "hashbag": "hashbag-7260be124979",
    "hashbag,dim=16,seed=2": "hashbag__dim-16-2ef95c8df7e5",
    "hf:all-MiniLM-L6-v2": "all-MiniLM-L6-v2__layer-6__pooling-mean-10ce2c83d3a6",
    "hf:all-MiniLM-L6-v2,layer=3,pool=cls,max_length=128": "all-MiniLM-L6-v2__layer-3__pooling-cls-833c57aa5f10",
    "hf:all-MiniLM-L6-v2,dtype=bfloat16": "all-MiniLM-L6-v2__layer-6__pooling-mean__dtype-bfloat16-1204511b29bc",
    'sbert:all-MiniLM-L6-v2,prompt="query: "': "all-MiniLM-L6-v2__prompt-query-14b1b78f1ae4",
    "sbert:all-MiniLM-L6-v2,max_length=128": "all-MiniLM-L6-v2__max_seq_length-128-f68141416bea",
    "all-MiniLM-L6-v2,batch=8,device=cpu": "all-MiniLM-L6-v2-a6c22b8b7858",
    "overlap": "overlap-7da1947d0d09",
    "overlap,lemmatizer=none": "overlap__lemmatizer-none-59a5ed043cfb",
    "mixed:glove-6b-50d+random": "glove-6b-50d_random__dim-300__seed-0-ed6d364da1cd",
    "smatch:amr": "smatch_amr-93b2f02d7dc3",
    "wl:amr": "wl_amr-b624b12ede9e",
    "wl:dep,iterations=3": "wl_dep__iterations-3-de454284e53f",
    "wwlk:amr": "wwlk_amr-e838263c2c62",
    "roles:glove-6b-50d": "roles_glove-6b-50d__tok-sts3k-66d450bc1f8c",
    "amr-cn:glove-6b-50d": "amr-cn_glove-6b-50d__tok-sts3k-64a3bcf9146d",
    "random,name=foo": "foo__dim-300__seed-0-93a96dcc1f61",
}
REPLICA_IDS = {
    "sentence-transformers/all-MiniLM-L6-v2": "sentence-transformers_all-MiniLM-L6-v2-464c0fd77329",
    "sentence-transformers/all-MiniLM-L6-v2,max_length=64":
        "sentence-transformers_all-MiniLM-L6-v2__max_seq_length-64-86915068f353",
    "sentence-transformers/all-mpnet-base-v2": "sentence-transformers_all-mpnet-base-v2-06f3bfd486a9",
    "sentence-transformers/all-mpnet-base-v2,max_length=64":
        "sentence-transformers_all-mpnet-base-v2__max_seq_length-64-07f1f4ae3a87",
    "sentence-transformers/LaBSE": "sentence-transformers_LaBSE-dd63524f7f0a",
    "sentence-transformers/LaBSE,max_length=64": "sentence-transformers_LaBSE__max_seq_length-64-9c81f5925a2b",
    "facebook/dpr-question_encoder-single-nq-base":
        "facebook_dpr-question_encoder-single-nq-base__layer-2__pooling-cls-656f8e849bb8",
    "facebook/dpr-question_encoder-single-nq-base,max_length=64":
        "facebook_dpr-question_encoder-single-nq-base__layer-2__pooling-cls-84a0f6922424",
    "facebook/dpr-ctx_encoder-single-nq-base": "facebook_dpr-ctx_encoder-single-nq-base__layer-2__pooling-cls-ae4abda82387",
    "facebook/dpr-ctx_encoder-single-nq-base,max_length=64":
        "facebook_dpr-ctx_encoder-single-nq-base__layer-2__pooling-cls-50323a99e7a7",
    "allenai/specter": "allenai_specter__layer-2__pooling-cls-24d700354e01",
    "allenai/specter,max_length=64": "allenai_specter__layer-2__pooling-cls-be57a5cf895a",
    "cl-nagoya/defsent-bert-base-uncased-cls": "cl-nagoya_defsent-bert-base-uncased-cls__layer-2__pooling-cls-02f0ba79ff38",
    "cl-nagoya/defsent-bert-base-uncased-cls,max_length=64":
        "cl-nagoya_defsent-bert-base-uncased-cls__layer-2__pooling-cls-4762cf49a9fb",
    "nghuyong/ernie-2.0-base-en": "nghuyong_ernie-2.0-base-en__layer-2__pooling-mean-0032e8eedf8e",
    "nghuyong/ernie-2.0-base-en,max_length=64": "nghuyong_ernie-2.0-base-en__layer-2__pooling-mean-4c20694f20e4",
    "NovaSearch/stella_en_1.5B_v5": "NovaSearch_stella_en_1.5B_v5__prompt_name-s2s_query-6167bb37f1b6",
    "NovaSearch/stella_en_1.5B_v5,max_length=64":
        "NovaSearch_stella_en_1.5B_v5__max_seq_length-64__prompt_name-s2s_query-e542f70703fc",
    "intfloat/e5-mistral-7b-instruct": "intfloat_e5-mistral-7b-instruct__layer-2__pooling-last__prompt-Instruct__"
                                       "Retrieve_semantically_similar_text._Query-9abbd048d28d",
    "intfloat/e5-mistral-7b-instruct,max_length=64": "intfloat_e5-mistral-7b-instruct__layer-2__pooling-last__"
                                                     "prompt-Instruct__Retrieve_semantically_similar_text._Query-"
                                                     "b02d50e21acf",
    "Alibaba-NLP/gte-Qwen2-1.5B-instruct": "Alibaba-NLP_gte-Qwen2-1.5B-instruct__prompt-Instruct__Retrieve_"
                                           "semantically_similar_text._Query-2d068e6e181b",
    "Alibaba-NLP/gte-Qwen2-1.5B-instruct,max_length=64": "Alibaba-NLP_gte-Qwen2-1.5B-instruct__prompt-Instruct__"
                                                         "Retrieve_semantically_similar_text._Query____max_seq_"
                                                         "length-64-a12a4a9038d9",
    "openai-community/openai-gpt": "openai-community_openai-gpt__layer-2__pooling-mean-006d84165324",
    "openai-community/openai-gpt,max_length=64": "openai-community_openai-gpt__layer-2__pooling-mean-890d7c098a95",
    "openai-community/gpt2": "openai-community_gpt2__layer-2__pooling-mean-c3900a6d5770",
    "openai-community/gpt2,max_length=64": "openai-community_gpt2__layer-2__pooling-mean-f49de5a81ef1",
    # a revision (recorded as its commit, never shown), a prompt from prompt_name= / instruction= / a named
    # prompt's text, a dtype beside a recipe prompt: computed on 749546e, before the identity rule
    "allenai/specter,revision=main": "allenai_specter__layer-2__pooling-cls-24d700354e01",
    "hf:sentence-transformers/all-MiniLM-L6-v2,revision=main,layer=1":
        "sentence-transformers_all-MiniLM-L6-v2__layer-1__pooling-mean-c6fda622d0ec",
    'sbert:NovaSearch/stella_en_1.5B_v5,revision=main,prompt="q: "': "NovaSearch_stella_en_1.5B_v5__prompt-q-a6336264c84b",
    "hf:NovaSearch/stella_en_1.5B_v5,prompt_name=s2s_query": "NovaSearch_stella_en_1.5B_v5__layer-2__pooling-mean__"
                                                             "prompt-Instruct__Retrieve_semantically_similar_text._"
                                                             "Query-d2bb11127c01",
    'hf:intfloat/e5-mistral-7b-instruct,instruction="Retrieve semantically similar text."':
        "intfloat_e5-mistral-7b-instruct__layer-2__pooling-mean__prompt-Instruct__Retrieve_semantically_similar_"
        "text._Query-b0721079c452",
    'sbert:NovaSearch/stella_en_1.5B_v5,prompt="Instruct: Retrieve semantically similar text.\\nQuery: "':
        "NovaSearch_stella_en_1.5B_v5__prompt_name-s2s_query-6167bb37f1b6",
    "Alibaba-NLP/gte-Qwen2-1.5B-instruct,revision=main,dtype=bfloat16": "Alibaba-NLP_gte-Qwen2-1.5B-instruct__prompt-"
                                                                        "Instruct__Retrieve_semantically_similar_"
                                                                        "text._Query____dtype-bfloat16-543bb53acae2",
}


@pytest.fixture(scope="module")
def replica_cache(tmp_path_factory):
    """Every recipe replica in one offline Hub cache (built once for this module)."""
    from replicas import build_all

    root = tmp_path_factory.mktemp("replicas")
    cache = root / "hub"
    cache.mkdir()
    build_all(root / "src", cache)
    return cache


@pytest.fixture()
def replicas(replica_cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(replica_cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub._snapshot.cache_clear()
    yield replica_cache
    hub._snapshot.cache_clear()


def test_packaged_model_ids_are_unchanged():
    builder = ModelBuilder(device="cpu")
    got = {spec: builder(spec).config.id for spec in PACKAGED_IDS}
    assert got == PACKAGED_IDS


def test_replica_ids_are_unchanged(replicas):
    builder = ModelBuilder(device="cpu")
    got = {spec: builder(spec).config.id for spec in REPLICA_IDS}
    assert got == REPLICA_IDS


# --- round trip and identity, every family -------------------------------------------------------------

def _scores_file(tmp: Path) -> Path:
    path = tmp / "scores.txt"
    path.write_text("0.5\n0.25\n")
    return path


#: Per family: a spec that sets identity options away from their defaults, and whether it builds offline
#: here (families whose weights are not on this machine are resolved, not built).
FAMILY_SPECS = {
    "hf": ("hf:all-MiniLM-L6-v2,layer=3,pool=cls,max_length=64,dtype=bfloat16,prompt=\"q: \",batch=4", True),
    "sbert": ("sbert:all-MiniLM-L6-v2,max_length=64,prompt=\"query: \",batch=8,device=cpu", True),
    "static": ("static:glove-6b-50d,op=tensor,tok=sts3k,seed=3", True),
    "random": ("random,dim=16,seed=3", True),
    "hashbag": ("hashbag,dim=16,seed=3", True),
    "overlap": ("overlap,lemmatizer=none", True),
    "mixed": ("mixed:glove-6b-50d+random", True),
    "smatch": ("smatch:dep,restarts=3", True),
    "wl": ("wl:dep,iterations=3,senses=keep", True),
    "wwlk": ("wwlk:dep,iterations=3", True),
    "roles": ("roles:glove-6b-50d,form=norm", True),
    "amr-cn": ("amr-cn:glove-6b-50d,graphs=dep", True),
    "api": ("api:text-embedding-3-small,dims=256,truncate=error,rpm=100", True),
    "mteb": ("mteb:sentence-transformers/all-MiniLM-L6-v2,prompt_type=query", True),
    "precomputed": ("precomputed:{scores}", True),
    "dist": ("dist:/nowhere/model,compose=mult", False),
    "elmo": ("elmo:original,layer=1", False),
    "infersent": ("infersent:/nowhere/infersent1.pkl,version=2", False),
    "skipthought": ("skipthought:/nowhere,variant=uni", False),
    "nvembed": ("nvembed:nvidia/NV-Embed-v2,instruction=x,max_length=64", False),
}
#: Options whose params record what they resolve to rather than the value given: a Hub revision is recorded
#: as the commit it names; wl's senses=strip|keep as the flag strip_senses (as ids written before have it).
RESOLVED_PARAMS = {"revision"}
TRANSFORMED = {("wl", "senses"): lambda v: ("strip_senses", v == "strip")}


def test_every_family_has_a_round_trip_case():
    discover()
    assert set(FAMILIES) <= set(FAMILY_SPECS), "add a FAMILY_SPECS row for each new family"


@pytest.mark.parametrize("family", sorted(FAMILY_SPECS))
def test_round_trip_and_identity(family, tmp_path):
    """spec → resolved → spec string → resolved is equal (and survives pickling, as workers receive it); the
    built model's family and device are the resolved ones, and every identity option set away from its
    default is in the model's params, under its declared name, with the same value."""
    text, builds = FAMILY_SPECS[family]
    text = text.format(scores=_scores_file(tmp_path))
    resolved = resolve_model(text, "cpu")
    assert resolved.family == f"{family}.v1" == resolved.family_spec.versioned
    again = resolve_model(resolved.spec_string, "cpu")
    assert again == resolved and again.spec_string == resolved.spec_string
    assert pickle.loads(pickle.dumps(resolved)) == resolved
    assert set(resolved.identity).isdisjoint(resolved.run_settings)
    if not builds:
        return
    model = ModelBuilder(device="cpu")(resolved)
    config = model.config
    # precomputed files name their kind in the family (precomputed-scores.v1, precomputed-vectors.v1)
    assert config.family == resolved.family or config.family.startswith(f"{family}-")
    if resolved.torch and hasattr(model, "device"):  # composites (amr-cn, roles) hand it to their parts
        assert model.device == resolved.device == "cpu"
    defaults = type(resolved.options).default_params()
    fields = type(resolved.options).model_fields
    for key, f in fields.items():
        extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
        param = extra.get("param", key)
        if param not in resolved.identity or key in RESOLVED_PARAMS:
            continue
        value = resolved.options.params()[key]
        if value != defaults[key]:
            if (family, key) in TRANSFORMED:
                param, value = TRANSFORMED[family, key](value)
            assert config.params.get(param) == value, (key, param, config.params)


def test_renamed_options_are_declared_on_their_field():
    discover()
    hf = resolve_model("hf:all-MiniLM-L6-v2,pool=cls", "cpu")
    sbert = resolve_model("sbert:all-MiniLM-L6-v2,max_length=64", "cpu")
    assert hf.identity["pooling"] == "cls" and "pool" not in hf.identity
    assert sbert.identity["max_seq_length"] == 64 and "max_length" not in sbert.identity
    assert "device" not in hf.identity and hf.run_settings["device"] == "cpu"


def test_identity_options_change_the_id_and_run_settings_do_not():
    builder = ModelBuilder(device="cpu")
    base = builder("hf:all-MiniLM-L6-v2").config.id
    assert builder("hf:all-MiniLM-L6-v2,batch=3,device=cpu").config.id == base
    assert builder("hf:all-MiniLM-L6-v2,pool=max").config.id != base


# --- counts: one resolution per model per run -----------------------------------------------------------

def _count_calls(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_one_parse_and_one_digest_per_model_per_run(tmp_path, monkeypatch, tiny_models):
    """``compeval run`` with a spec and a local model folder: each spec string parsed once, each family's
    options parsed once, and the folder's content digested once (main: three option parses, two digests)."""
    from typer.testing import CliRunner

    from compeval.cli import app
    from compeval.models import registry
    from compeval.models.families.sentence_transformers import SbertOptions
    from compeval.models.families.toy import HashBagOptions

    folder = tmp_path / "my-model"
    shutil.copytree(tiny_models["sbert"], folder)
    parses = _count_calls(monkeypatch, registry, "parse_spec")
    digests = _count_calls(monkeypatch, hub, "content_digest")
    option_parses = []
    for cls in (SbertOptions, HashBagOptions):
        real = cls.parse.__func__

        def counted(klass, values, where, _real=real):
            option_parses.append(klass.__name__)
            return _real(klass, values, where)

        monkeypatch.setattr(cls, "parse", classmethod(counted))
    result = CliRunner().invoke(app, ["run", "-m", "hashbag,dim=8", "-m", str(folder), "-t", "sts3k-pilot",
                                      "-o", str(tmp_path / "out"), "--no-cache", "--offline", "--no-report",
                                      "--device", "cpu"])
    assert result.exit_code == 0, result.output
    assert sorted(str(a[0]) for a in parses) == sorted(["hashbag,dim=8", str(folder)])
    assert sorted(option_parses) == ["HashBagOptions", "SbertOptions"]
    assert [a[0] for a in digests] == [folder]


def test_bare_repo_id_with_an_unknown_option_is_refused_before_any_hub_access(hub_cache, monkeypatch, tmp_path):
    """Offline, nothing cached: the option check runs against the families the repo's files would pick
    between (sbert, hf), and nothing asks the Hub (main: the bare id skipped the check, and the build's
    download came first)."""
    from typer.testing import CliRunner

    from compeval.cli import app

    def no_hub(*args, **kwargs):
        raise AssertionError("the Hub was asked")

    no_hub.cache_clear = lambda: None  # the hub_cache fixture clears the memo when it ends
    monkeypatch.setattr(hub, "_snapshot", no_hub)
    for spec, why in (("intfloat/e5-base-v2,pool=clss,frobnicate=1", "unknown options 'pool', 'frobnicate'"),
                      ("someone/new-model,frobnicate=1", "unknown option 'frobnicate'"),
                      ("someone/new-model,pool=clss", "option pool='clss' must be one of")):
        with pytest.raises(SpecError, match=why):
            resolve_model(spec)
        result = CliRunner().invoke(app, ["run", "-m", spec, "-t", "sts3k-pilot", "-o", str(tmp_path / "o"),
                                          "--offline", "--no-cache"])
        said = " ".join((result.output + str(result.exception or "")).split())
        assert result.exit_code != 0 and why in said, said
    # an option either family takes passes the early check; the family stays open until the files decide
    open_ = resolve_model("someone/new-model,pool=cls,batch=4")
    assert open_.family is None and open_.candidates == ("sbert.v1", "hf.v1") and open_.torch


def test_bare_repo_id_family_from_the_cached_files_without_download(replicas, monkeypatch):
    def no_hub(*args, **kwargs):
        raise AssertionError("the Hub was asked")

    assert resolve_model("openai-community/gpt2").family == "hf.v1"  # recipe table
    monkeypatch.setattr("huggingface_hub.HfApi.model_info", no_hub)
    assert resolve_model("sentence-transformers/LaBSE").family == "sbert.v1"  # its cached modules.json
    assert resolve_model("sentence-transformers/LaBSE").weights.commit is not None  # offline: the snapshot


def test_plan_and_isolation_agree_with_the_build_on_family_and_device(replicas, tmp_path):
    """``--plan``'s rows and the isolation count take the resolved family and device: a model with its own
    ``device=cpu`` under a CUDA run is no GPU model (main counted every torch family under a CUDA run), and a
    cached bare id's row names the family the build uses."""
    from dataclasses import replace

    from compeval.runner import plan
    from compeval.runner.cost import model_cost
    from compeval.runner.isolation import uses_gpu_torch_models
    from compeval.context import RunContext

    ctx = replace(RunContext.for_run(tmp_path / "out", cache_dir=None, device="cpu"), resolved_device="cuda")
    models = ["hf:all-MiniLM-L6-v2", "sbert:all-MiniLM-L6-v2,device=cpu", "hashbag", "openai-community/gpt2",
              "sentence-transformers/LaBSE,device=cpu"]
    the_plan = plan(models, ["sts3k-pilot"], ctx)
    try:
        by_spec = {str(j.resolved): j for j in the_plan.jobs}
        for spec, job in by_spec.items():
            built = the_plan.models[job.model_id]
            assert job.resolved.family == built.config.family
            if job.resolved.torch:
                assert job.resolved.device == built.device
        assert by_spec["hf:all-MiniLM-L6-v2"].resolved.device == "cuda"
        assert by_spec["sbert:all-MiniLM-L6-v2,device=cpu"].resolved.device == "cpu"
        assert uses_gpu_torch_models(the_plan, ctx) == 2  # hf:… and gpt2, not the two on device=cpu
        for spec, job in by_spec.items():
            row = model_cost(job.resolved, ["a text"])
            assert row.family == the_plan.models[job.model_id].config.family
    finally:
        the_plan.cache.close()


def test_local_folder_resolves_once_and_travels_pickled(tiny_models, tmp_path, monkeypatch):
    folder = tmp_path / "m"
    shutil.copytree(tiny_models["sbert"], folder)
    digests = _count_calls(monkeypatch, hub, "content_digest")
    resolved = resolve_model(str(folder), "cpu")
    worker_copy = pickle.loads(pickle.dumps(resolved))
    model = ModelBuilder(device="cpu")(worker_copy)
    assert len(digests) == 1
    assert model.config.params["weights"] == resolved.weights.weights
    assert isinstance(worker_copy, ResolvedModel) and json.dumps(worker_copy.run_settings)
