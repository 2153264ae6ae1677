"""One prompt vocabulary (``models/prompts.py``): ``prompt=``, ``prompt_name=`` and ``instruction=`` in every
family whose card defines prompts, each against the card's own path on tiny replicas in an offline Hub
cache: sentence-transformers' ``encode(..., prompt_name=...)`` for named prompts (``hf:`` and ``sbert:``
alike), the card's transformers code with its template (e5-mistral) and the card's forward in plain torch
(NV-Embed). Two spellings of one effective prompt are one model (one id); a whole prompt given as
``instruction=`` is not wrapped twice; a family that cannot take an option says which one to use."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from compeval.errors import SpecError
from compeval.models.prompts import INSTRUCT_QUERY, Template
from compeval.models.registry import load_model

from hub_fakes import put_in_hub_cache

pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")

import replicas  # noqa: E402
from replicas import STS_PROMPT, TEXTS, same_vectors  # noqa: E402

E5M = "intfloat/e5-mistral-7b-instruct"
GTE = "Alibaba-NLP/gte-Qwen2-1.5B-instruct"
STS = "Retrieve semantically similar text."
CLAIM = "Given a claim, find documents that refute the claim"
# e5-mistral's repo names its task prompts in config_sentence_transformers.json (card: prompt_name="sts_query")
E5M_PROMPTS = {"sts_query": STS_PROMPT, "web_search_query": "Instruct: Given a web search query, retrieve relevant "
               "passages that answer the query\nQuery: "}


def _with_st_config(folder, **config):
    path = folder / "config_sentence_transformers.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    path.write_text(json.dumps({**data, **config}))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("prompt-replicas")
    e5m = root / "e5m"
    replicas.e5_mistral(e5m)
    _with_st_config(e5m, prompts=E5M_PROMPTS)
    gte = root / "gte"
    replicas.gte_qwen2(gte)
    return {E5M: e5m, GTE: gte}


def ids(*specs):
    return {load_model(s).config.id for s in specs}


def test_template_recognises_a_whole_prompt():
    assert Template.of("Instruct: {instruction}\nQuery: ") == INSTRUCT_QUERY
    assert Template.of(lambda i: f"<{i}>") == Template("<", ">")
    assert Template.of("no placeholder") is None and Template.of(lambda i: i + i) is None
    assert INSTRUCT_QUERY.instruction_of(STS_PROMPT) == STS
    assert INSTRUCT_QUERY.instruction_of(STS_PROMPT.rstrip()) == STS  # "…\nQuery:" without its space
    assert INSTRUCT_QUERY.instruction_of("query: ") is None and INSTRUCT_QUERY.instruction_of("") == ""


def test_e5_mistral_card_prompt_name_instruction_and_prompt_are_one_model(hub_cache, built):
    """The card's ``encode(texts, prompt_name="sts_query")``, its template with the STS task, the recipe's
    default and the whole prompt (also given as instruction=) are one prompt: one id, the card's vectors."""
    put_in_hub_cache(hub_cache, E5M, built[E5M])
    from compeval.specs import quote_value

    spellings = [E5M, f"{E5M},prompt_name=sts_query", f'{E5M},instruction="{STS}"',
                 f"{E5M},instruction={quote_value(STS_PROMPT)}", f"{E5M},prompt={quote_value(STS_PROMPT)}",
                 f"hf:{E5M},pool=last,max_length=4096,prompt_name=sts_query"]
    assert len(ids(*spellings)) == 1
    want = replicas.decoder_card(STS_PROMPT)(built[E5M], TEXTS)
    for spec in (f"{E5M},prompt_name=sts_query", f"{E5M},instruction={quote_value(STS_PROMPT)}"):
        model = load_model(spec)
        assert model.config.params["prompt"] == STS_PROMPT  # not "Instruct: Instruct: …"
        cos, diff = same_vectors(model.encode(TEXTS), want)
        assert cos >= 0.9999 and diff < 1e-4, (spec, cos, diff)
    # another task through the template is another model, with the card's vectors for that prompt
    claim = load_model(f'{E5M},instruction="{CLAIM}"')
    assert claim.config.params["prompt"] == f"Instruct: {CLAIM}\nQuery: "
    assert claim.config.id not in ids(E5M)
    cos, diff = same_vectors(claim.encode(TEXTS), replicas.decoder_card(f"Instruct: {CLAIM}\nQuery: ")(built[E5M], TEXTS))
    assert cos >= 0.9999 and diff < 1e-4
    assert same_vectors(claim.encode(TEXTS), want)[1] > 1e-3  # the prompt matters on this replica
    with pytest.raises(SpecError) as err:
        load_model(f"{E5M},prompt_name=sts")
    assert str(err.value).endswith("has no prompt named 'sts'; its prompts: sts_query, web_search_query")
    with pytest.raises(SpecError, match=r"give one of prompt=, prompt_name=, instruction= \(got prompt=, instruction=\)"):
        load_model(f'{E5M},prompt="x",instruction="{STS}"')


def test_named_prompts_match_sentence_transformers_in_sbert_and_hf(hub_cache, tiny_models):
    """A tiny sentence-transformers model whose config_sentence_transformers.json names prompts: sbert's and
    hf's (mean pooling, the model's own) prompt_name= give what ``SentenceTransformer.encode(texts,
    prompt_name=…)`` gives, and the same id as the prompt's text given with prompt=."""
    from sentence_transformers import SentenceTransformer

    put_in_hub_cache(hub_cache, "org/tiny-st", tiny_models["sbert"])
    st = SentenceTransformer(str(tiny_models["sbert"]), device="cpu", local_files_only=True)
    want = st.encode(TEXTS, prompt_name="doc", convert_to_numpy=True)
    for family in ("sbert:org/tiny-st", "hf:org/tiny-st,pool=mean"):
        named, spelled = load_model(f"{family},prompt_name=doc"), load_model(f'{family},prompt="passage: "')
        assert named.config.id == spelled.config.id and named.config.params["prompt"] == "passage: "
        cos, diff = same_vectors(named.encode(TEXTS), want)
        assert cos >= 0.9999 and diff < 1e-5, (family, cos, diff)
    assert same_vectors(st.encode(TEXTS, convert_to_numpy=True), want)[1] > 1e-3
    with pytest.raises(SpecError, match="this model's card defines no instruction template; give the whole text"):
        load_model("sbert:org/tiny-st,instruction=find")


def test_sbert_applies_the_repos_default_prompt_as_sentence_transformers_does(hub_cache, tiny_models, tmp_path):
    from sentence_transformers import SentenceTransformer

    folder = tmp_path / "dflt"
    shutil.copytree(tiny_models["sbert"], folder)
    _with_st_config(folder, default_prompt_name="query")
    put_in_hub_cache(hub_cache, "org/dflt", folder)
    st = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    plain = load_model("sbert:org/dflt")
    assert plain.config.params["prompt"] == "query: " and plain.config.params["prompt_name"] == "query"
    assert same_vectors(plain.encode(TEXTS), st.encode(TEXTS, convert_to_numpy=True))[1] < 1e-5
    none = load_model('sbert:org/dflt,prompt=""')  # an explicit empty prompt switches the default off
    assert none.config.params["prompt"] == "" and none.config.id != plain.config.id
    assert same_vectors(none.encode(TEXTS), st.encode(TEXTS, prompt="", convert_to_numpy=True))[1] < 1e-5
    assert same_vectors(none.encode(TEXTS), plain.encode(TEXTS))[1] > 1e-3


def test_gte_qwen2_named_prompt_and_its_instruction_are_one_model(hub_cache, built):
    """gte-Qwen2's card: ``model.encode(queries, prompt_name="query")``; the same prompt as instruction=
    (its template) is the same model."""
    put_in_hub_cache(hub_cache, GTE, built[GTE])
    task = "Given a web search query, retrieve relevant passages that answer the query"
    named = load_model(f"{GTE},prompt_name=query")
    assert named.config.id in ids(f'{GTE},instruction="{task}"')
    assert named.config.id not in ids(GTE)  # the recipe's STS prompt is another
    # the card's transformers code with that prompt (sentence-transformers alone would drop the EOS that
    # tokenizer_config.json asks for under transformers 5; compeval restores it, see recipes.special_tokens)
    text = json.loads((built[GTE] / "config_sentence_transformers.json").read_text())["prompts"]["query"]
    assert named.config.params["prompt"] == text == f"Instruct: {task}\nQuery: "
    cos, diff = same_vectors(named.encode(TEXTS), replicas.decoder_card(text)(built[GTE], TEXTS))
    assert cos >= 0.9999 and diff < 1e-4


def test_families_that_take_no_named_prompt_say_which_option_to_use():
    for spec, line in (("mteb:intfloat/e5-base-v2,prompt_name=query", "option prompt_name: mteb gives the model its "
                        "MTEB prompts by task= and prompt_type=; for a prompt of your own run the repo as hf:"),
                       ("api:m,instruction=find", 'option instruction: the api family reads no repo files or card '
                        'template; give the whole text before each input with prompt="…"')):
        with pytest.raises(SpecError) as err:
            load_model(spec)
        assert line in str(err.value) and "\n" not in str(err.value)


def test_api_prompt_is_put_before_each_text_and_is_identity():
    from compeval.models.families.api import ApiEncoder

    plain = ApiEncoder("m", base_url="http://127.0.0.1:9")
    model = ApiEncoder("m", base_url="http://127.0.0.1:9", prompt="query: ")
    assert model._prepare(["a b", "c"]) == ["query: a b", "query: c"]  # what goes over the wire
    assert model.config.params["prompt"] == "query: " and "prompt" not in plain.config.params
    assert model.config.id != plain.config.id and "prompt=query: " in model.config.display


NV = "nvidia/NV-Embed-v2"


@pytest.fixture(scope="module")
def nv_replica(tmp_path_factory):
    from nvembed_fakes import build_nvembed

    folder = build_nvembed(tmp_path_factory.mktemp("nvembed-prompts") / "NV-Embed-v2")
    _with_st_config(folder, prompts={"sts": STS_PROMPT, "passage": ""})
    return folder


def _nv_reference(folder, prefix, texts):
    from nvembed_fakes import card_input, load_tensors, reference_vector

    w = load_tensors(folder)
    return np.stack([reference_vector(w, *card_input(folder, prefix, t)) for t in texts])


def test_nvembed_takes_all_three_and_never_wraps_twice(hub_cache, nv_replica):
    """NV-Embed's instruction= (the card's task text), the whole prefix as prompt=, the whole prefix given as
    instruction= and a prompt the repo names are one model with the card's vectors; a prefix not of the
    card's form runs as given and records no instruction."""
    from compeval.specs import quote_value

    put_in_hub_cache(hub_cache, NV, nv_replica)
    texts = TEXTS[:3]
    spellings = [f"nvembed:{NV}", f'nvembed:{NV},instruction="{STS}"', f"nvembed:{NV},prompt={quote_value(STS_PROMPT)}",
                 f"nvembed:{NV},instruction={quote_value(STS_PROMPT)}", f"nvembed:{NV},prompt_name=sts", NV]
    assert len(ids(*spellings)) == 1
    whole = load_model(f"nvembed:{NV},instruction={quote_value(STS_PROMPT)}")
    assert (whole.config.params["prompt"], whole.config.params["instruction"]) == (STS_PROMPT, STS)
    want = _nv_reference(nv_replica, STS_PROMPT, texts)
    cos, diff = same_vectors(whole.encode(texts), want)
    assert cos >= 0.9999 and diff < 1e-4
    twice = _nv_reference(nv_replica, f"Instruct: {STS_PROMPT}\nQuery: ", texts)
    assert same_vectors(twice, want)[1] > 1e-3  # wrapping twice would show
    assert len(ids(f'nvembed:{NV},instruction=""', f"nvembed:{NV},prompt_name=passage", f'nvembed:{NV},prompt=""')) == 1
    own = load_model(f'nvembed:{NV},prompt="passage: "')
    assert own.config.params["instruction"] is None and own.config.display == f"{NV},prompt=passage: "
    cos, diff = same_vectors(own.encode(texts), _nv_reference(nv_replica, "passage: ", texts))
    assert cos >= 0.9999 and diff < 1e-4
    with pytest.raises(SpecError, match="no prompt named 'query'; its prompts: passage, sts"):
        load_model(f"nvembed:{NV},prompt_name=query")
