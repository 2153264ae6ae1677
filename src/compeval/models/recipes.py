"""Published recipes: how a bare ``ORG/NAME`` is run, exactly as its model card says (docs/models.md's table).
Mostly read from the repo's files; ``RECIPES`` corrects them against the card. Recipe settings are option
defaults in the params, so ``ORG/NAME`` and the spelled-out spec share an id.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from ..errors import SpecError
from ..options import setting
from .prompts import Template

STS_INSTRUCTION = "Retrieve semantically similar text."
"""The instruction e5-mistral's authors (and MTEB) give instruction-tuned embedders for STS tasks."""
INSTRUCT_QUERY = "Instruct: {instruction}\nQuery: "


@dataclass(frozen=True)
class Recipe:
    """One published recipe. ``options`` are spec options of ``family`` (defaults the spec may override);
    the other fields describe it for the recipe table and the result."""

    key: str
    family: str  # hf | sbert | nvembed
    pattern: str  # a regular expression over the repo id (case-insensitive); "" = never matched by name
    pooling: str
    prompt: str  # how the prompt is given and pooled
    eos: str
    normalise: str
    model_class: str
    card: str  # where the recipe comes from
    options: dict[str, str] = field(default_factory=dict)
    seeds: tuple[str, ...] = ()  # repo ids of the papers' systems it covers
    template: str = ""  # the card's instruction template ("…{instruction}…"), which instruction= fills

    def matches(self, repo: str) -> bool:
        return bool(self.pattern) and re.fullmatch(self.pattern, repo, flags=re.IGNORECASE) is not None


_ST = "the repo's modules (1_Pooling/config.json)"
_TOK = "as tokenizer_config.json asks"

RECIPES: dict[str, Recipe] = {r.key: r for r in (
    Recipe("st", "sbert", "", _ST, "none, or prompt=/prompt_name= through SentenceTransformer.encode "
           "(include_prompt honoured)", _TOK, "if the repo has a Normalize module", "AutoModel (Transformer module)",
           "modules.json present: the repo's own sentence-transformers pipeline",
           seeds=("sentence-transformers/all-MiniLM-L6-v2", "sentence-transformers/all-mpnet-base-v2",
                  "sentence-transformers/LaBSE", "BAAI/bge-*-en-v1.5", "thenlper/gte-*")),
    Recipe("e5", "sbert", r"intfloat/(multilingual-)?e5-(small|base|large)(-v2)?", "mean (repo modules)",
           '"query: " before every text (card: symmetric tasks use the query prefix)', _TOK, "Normalize module",
           "BertModel / XLMRobertaModel", "E5 card: 'Use query: prefix for symmetric tasks such as semantic "
           "similarity'", {"prompt": "query: "}, ("intfloat/e5-base-v2",)),
    Recipe("stella", "sbert", r"(NovaSearch|dunzhang)/stella_en_(400M|1\.5B)_v5", "mean (repo modules) + Dense 1024",
           "prompt_name=s2s_query (its own named prompt), pooled", _TOK, "none (cosine)",
           "repo code (auto_map): trust_remote_code=true", "stella card: s2s_query for sentence-to-sentence tasks",
           {"prompt_name": "s2s_query"}, ("NovaSearch/stella_en_1.5B_v5",), INSTRUCT_QUERY),
    Recipe("gte-qwen2", "sbert", r"Alibaba-NLP/gte-Qwen2-(1\.5B|7B)-instruct", "last token (repo modules)",
           "STS instruction before every text, pooled (the last token is EOS)", "EOS added (add_eos_token)",
           "none (cosine)", "repo code (auto_map): trust_remote_code=true",
           "gte-Qwen2 card and MTEB: 'Instruct: {task}\\nQuery: ' template, last-token pooling on EOS",
           {"prompt": INSTRUCT_QUERY.format(instruction=STS_INSTRUCTION)}, ("Alibaba-NLP/gte-Qwen2-1.5B-instruct",),
           INSTRUCT_QUERY),
    Recipe("e5-mistral", "hf", r"intfloat/e5-mistral-7b-instruct|Salesforce/SFR-Embedding(-2_R|-Mistral)",
           "last token (the appended </s>)", "STS instruction before every text, pooled",
           "BOS and EOS (add_bos_token, add_eos_token)", "card normalises (cosine unchanged)", "MistralModel",
           "e5-mistral card: last_token_pool, tokenizer adds </s>, 'Instruct: {task}\\nQuery: {text}'",
           {"pool": "last", "prompt": INSTRUCT_QUERY.format(instruction=STS_INSTRUCTION), "max_length": "4096"},
           ("intfloat/e5-mistral-7b-instruct", "Salesforce/SFR-Embedding-Mistral"), INSTRUCT_QUERY),
    Recipe("nv-embed", "nvembed", r"nvidia/NV-Embed-v2", "latent attention over the text tokens",
           "card instruction, left out of pooling", "EOS added", "card normalises", "NV-Embed (nvembed family)",
           "NV-Embed-v2 card", {}, ("nvidia/NV-Embed-v2",), INSTRUCT_QUERY),
    Recipe("dpr", "hf", r"facebook/dpr-(ctx|question)_encoder-(single|multiset)-nq-base", "CLS of the last layer "
           "(pooler_output, no projection)", "none", "[CLS] … [SEP]", "none (dot product; cosine here)",
           "DPRContextEncoder / DPRQuestionEncoder (config.json architectures)", "DPR card: pooler_output",
           {"pool": "cls"},
           ("facebook/dpr-question_encoder-single-nq-base", "facebook/dpr-ctx_encoder-single-nq-base")),
    Recipe("specter", "hf", r"allenai/specter", "CLS of the last layer", "none", "[CLS] … [SEP]", "none",
           "BertModel", "SPECTER card: last_hidden_state[:, 0, :]", {"pool": "cls"}, ("allenai/specter",)),
    Recipe("defsent-cls", "hf", r"cl-nagoya/defsent-.*-cls", "CLS of the last layer", "none", "[CLS] … [SEP]", "none",
           "the encoder under BertForMaskedLM / RobertaForMaskedLM", "DefSent code: pooling named by the repo suffix",
           {"pool": "cls"}, ("cl-nagoya/defsent-bert-base-uncased-cls",)),
    Recipe("defsent-mean", "hf", r"cl-nagoya/defsent-.*-mean", "mean over all tokens", "none", "[CLS] … [SEP]",
           "none",
           "the encoder under BertForMaskedLM / RobertaForMaskedLM", "DefSent code: pooling named by the repo suffix",
           {"pool": "mean"}),
    Recipe("defsent-max", "hf", r"cl-nagoya/defsent-.*-max", "max over all tokens", "none", "[CLS] … [SEP]", "none",
           "the encoder under BertForMaskedLM / RobertaForMaskedLM", "DefSent code: pooling named by the repo suffix",
           {"pool": "max"}),
    Recipe("ernie", "hf", r"nghuyong/ernie-2\.0-(base|large)-en", "mean over all tokens, special ones included",
           "none", "[CLS] … [SEP]", "none", "ErnieModel", "STS3k authors: ERNIE-0/ERNIE-12 differ only in layer=",
           {"pool": "mean"}, ("nghuyong/ernie-2.0-base-en",)),
    Recipe("gpt", "hf", r"(openai-community/)?(openai-gpt|gpt2(-medium|-large|-xl)?)", "mean over all tokens",
           "none", "none (GPT tokenizers add no special tokens)", "none",
           "the decoder under OpenAIGPTLMHeadModel / GPT2LMHeadModel", "no card recipe: the documented default",
           {"pool": "mean"}, ("openai-community/openai-gpt", "openai-community/gpt2")),
    Recipe("mteb", "hf", "", "last token", "mteb's instruction template with the STS instruction, pooled", _TOK,
           "none (cosine)", "config.json architectures", "mteb ModelMeta (instruction_template) of a repo the table "
           "does not list"),
    Recipe("assumed", "hf", "", "mean over all tokens (assumed)", "none", _TOK, "none", "config.json architectures",
           "no modules.json, no pooling config, no known recipe: the documented default, recorded as assumed",
           {"pool": "mean"}),
)}
"""The recipe table (docs/models.md shows it); ``st`` and ``assumed`` are found from the repo's files."""

TEST_NAMES = {"st": "test_bare_repo_id_matches_its_card[sentence-transformers/all-MiniLM-L6-v2]",
              "e5": "test_bare_repo_id_matches_its_card[intfloat/e5-base-v2]",
              "stella": "test_bare_repo_id_matches_its_card[NovaSearch/stella_en_1.5B_v5]",
              "gte-qwen2": "test_bare_repo_id_matches_its_card[Alibaba-NLP/gte-Qwen2-1.5B-instruct]",
              "e5-mistral": "test_e5_mistral_records_eos_last_token_and_instruction",
              "nv-embed": "test_nv_embed_goes_to_its_own_family",
              "dpr": "test_bare_repo_id_matches_its_card[facebook/dpr-ctx_encoder-single-nq-base]",
              "specter": "test_bare_repo_id_matches_its_card[allenai/specter]",
              "defsent-cls": "test_bare_repo_id_matches_its_card[cl-nagoya/defsent-bert-base-uncased-cls]",
              "defsent-mean": "test_bare_repo_id_matches_its_card[cl-nagoya/defsent-bert-base-uncased-mean]",
              "defsent-max": "test_bare_repo_id_matches_its_card[cl-nagoya/defsent-bert-base-uncased-max]",
              "ernie": "test_bare_repo_id_matches_its_card[nghuyong/ernie-2.0-base-en]",
              "gpt": "test_bare_repo_id_matches_its_card[openai-community/gpt2]",
              "mteb": "test_bare_repo_id_matches_its_card[Linq-AI-Research/Linq-Embed-Mistral]",
              "assumed": "test_unknown_repo_runs_the_assumed_default_and_says_so"}
"""Where tests/models/test_recipes.py checks each recipe against its card (the recipe table's last column)."""


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text()) if path.is_file() else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}


def by_name(repo: str) -> Recipe | None:
    """The table's recipe for a repo id, if any."""
    return next((r for r in RECIPES.values() if r.matches(repo)), None)


@lru_cache(maxsize=256)
def _mteb_template(repo: str) -> Any:
    """mteb's ``instruction_template`` for ``repo`` (text or function), or None."""
    try:
        import mteb
    except ImportError:
        return None
    try:
        kwargs = mteb.get_model_meta(repo).loader_kwargs or {}
    except Exception:  # mteb's own KeyError/ValueError for unknown models
        return None
    return kwargs.get("instruction_template")


def card_template(repo: str | None, recipe: str | None = None) -> Template | None:
    """The card's instruction template, which ``instruction=`` fills (``models/prompts.py``): the recipe's
    (``recipe=``, else the one the repo id matches), else mteb's ``instruction_template`` for the repo."""
    known = RECIPES.get(recipe) if recipe else None
    known = known or (by_name(repo) if repo else None)
    if known is not None and known.template:
        return Template.of(known.template)
    form = _mteb_template(repo) if repo else None
    return Template.of((lambda i: form(i, None)) if callable(form) else form)


def mteb_prompt(repo: str) -> str | None:
    """The STS prompt mteb's ``ModelMeta`` gives ``repo`` (its instruction template filled with the STS
    instruction), or None when mteb is absent, does not know the model, or gives it no template."""
    template = _mteb_template(repo)
    try:
        if callable(template):  # mteb's templates take (instruction, prompt_type)
            prompt = template(STS_INSTRUCTION, None)
        elif isinstance(template, str) and "{instruction}" in template:
            prompt = template.format(instruction=STS_INSTRUCTION)
        else:
            return None
    except Exception:  # a template that needs more than the instruction: no recipe from it
        return None
    return prompt if isinstance(prompt, str) and prompt else None


def choose(repo: str | None, directory: Path) -> tuple[Recipe, dict[str, str]]:
    """The recipe of a model folder (``repo``: its Hub id, if any) and the spec options it sets."""
    known = by_name(repo) if repo else None
    if known is not None:
        return known, dict(known.options)
    if (directory / "modules.json").is_file():
        return RECIPES["st"], {}
    if repo and mteb_prompt(repo):
        return RECIPES["mteb"], recipe_options(RECIPES["mteb"], repo)
    return RECIPES["assumed"], dict(RECIPES["assumed"].options)


def recipe_options(recipe: Recipe, repo: str | None) -> dict[str, str]:
    """The spec options a recipe sets (``mteb``: from mteb's ModelMeta of ``repo``)."""
    if recipe.key != "mteb":
        return dict(recipe.options)
    prompt = mteb_prompt(repo) if repo else None
    if not prompt:
        raise SpecError(f"recipe mteb: mteb gives {repo or 'this model'} no instruction template")
    return {"pool": "last", "prompt": prompt}


def missing_family(spec_text: str, family: str) -> str:
    """The line for a bare id whose recipe names a family this installation does not register (the
    registry looks the family up by name, so it is used as soon as it is installed)."""
    return (f"{spec_text}: its recipe runs in the {family} family (spec {family}:{spec_text.split(',')[0]}), "
            "which this installation does not have")


# --- special tokens ------------------------------------------------------------------------------------


def asked_special_tokens(directory: Path) -> dict[str, bool]:
    """``add_bos_token`` / ``add_eos_token`` as the repo's ``tokenizer_config.json`` sets them (absent keys
    left out)."""
    cfg = _json(directory / "tokenizer_config.json")
    return {k: bool(cfg[k]) for k in ("add_bos_token", "add_eos_token") if isinstance(cfg.get(k), bool)}


def _ends(tokenizer: Any) -> tuple[bool, bool]:
    ids = tokenizer("a")["input_ids"]
    bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
    return (bos is not None and len(ids) > 0 and ids[0] == bos,
            eos is not None and len(ids) > 0 and ids[-1] == eos)


#: Files a tokenizer's vocabulary comes in (any one of them, or a name holding "vocab").
VOCABULARY_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "tokenizer.model", "spiece.model",
                    "sentencepiece.bpe.model", "sentencepiece.model", "bpe.codes", "qwen.tiktoken")


def check_vocabulary(tokenizer: Any, directory: Path, where: str) -> None:
    """A tokenizer folder without any vocabulary file is an error: transformers would build a tokenizer of
    special tokens only, and every text would get the same vector."""
    folder = Path(directory)
    if not folder.is_dir() or any((folder / f).is_file() for f in VOCABULARY_FILES) \
            or any("vocab" in p.name.lower() or p.suffix == ".model" for p in folder.iterdir()):
        return
    try:
        known = set(tokenizer.get_vocab()) - set(tokenizer.all_special_tokens)
    except Exception:  # noqa: BLE001 - a tokenizer without these: nothing to check here
        return
    if not known:
        raise SpecError(f"{where}: {folder} has no vocabulary file (tokenizer.json, vocab.txt, …) and its tokenizer "
                        "knows only special tokens; every word would be unknown. Restore the tokenizer files")


def special_tokens(tokenizer: Any, directory: Path, where: str) -> dict[str, bool]:
    """Make ``tokenizer`` add BOS/EOS as ``tokenizer_config.json`` asks, under transformers 4 and 5, and return
    what it adds. transformers 5 follows ``tokenizer.json``'s post-processor (e5-mistral: ``<s>`` only), and
    setting ``add_eos_token`` alone drops ``<s>``, so both flags are set; a tokenizer that still disagrees is
    an error, never a silent change of the text the model sees."""
    check_vocabulary(tokenizer, directory, where)
    asked = asked_special_tokens(directory)
    if not asked:
        return {}
    has_bos, has_eos = _ends(tokenizer)
    want_bos = asked.get("add_bos_token", has_bos) and tokenizer.bos_token_id is not None
    want_eos = asked.get("add_eos_token", has_eos) and tokenizer.eos_token_id is not None
    if (has_bos, has_eos) != (want_bos, want_eos):
        for flag, value in (("add_bos_token", want_bos), ("add_eos_token", want_eos)):
            try:
                setattr(tokenizer, flag, value)
            except (AttributeError, ValueError):
                pass
        if hasattr(tokenizer, "update_post_processor"):
            tokenizer.update_post_processor()
        has_bos, has_eos = _ends(tokenizer)
        if (has_bos, has_eos) != (want_bos, want_eos):
            raise SpecError(f"{where}: tokenizer_config.json asks for add_bos_token={want_bos}, "
                            f"add_eos_token={want_eos}, but this {type(tokenizer).__name__} adds bos={has_bos}, "
                            f"eos={has_eos} under the installed transformers; install transformers as pyproject.toml "
                            "pins it (or, if the repo ships its own tokenizer code, add ,trust_remote_code=true)")
    return {"bos": has_bos, "eos": has_eos}


#: The ``recipe=`` option's values (the recipes above).
RecipeName = Literal[tuple(RECIPES)]  # type: ignore[valid-type]


def recipe_setting() -> Any:
    """The ``recipe`` option of the families that recipes run in (a run setting: what a recipe sets is in the
    model's params)."""
    return setting(None, description="a published recipe (docs/models.md): its settings are defaults the spec's "
                                     "own options override; a bare ORG/NAME gets its own")
