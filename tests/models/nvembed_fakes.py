"""A tiny random-weight NV-Embed-v2 in the published checkpoint's layout, and the card's forward written
out with plain torch ops as an independent reference.

The replica has the repo's file set and names: ``config.json`` (the published one, its Mistral
``text_config`` and ``latent_attention_config`` shrunk to hidden 32, 2 layers, 4 latents), a
``model.safetensors.index.json`` over two float16 shards holding ``embedding_model.*`` and
``latent_attention_model.*``, and a Mistral-style tokenizer (sentencepiece-like BPE with byte fallback,
``<s>`` added by the post-processor, ``tokenizer_config.json`` as the repo's with ``add_eos_token: false``:
the card appends ``</s>`` to the text itself). The weights are written straight from their names and
shapes, not through compeval's modules.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

HIDDEN, LAYERS, HEADS, KV_HEADS, INTER = 32, 2, 4, 2, 64
LATENTS, CROSS_HEADS, CROSS_DIM_HEAD = 4, 2, 8
ROPE_THETA, RMS_EPS = 10000.0, 1e-5

WORDS = ["▁the", "▁a", "▁dog", "▁cat", "▁runs", "▁red", "▁big", "▁small", "▁house", "▁near", "▁river",
         "▁similar", "▁text", "▁Instruct", "▁Query", "Instruct", "Query", "▁Retrieve", "▁semantically"]
CHARS = "▁abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?'\"-()"


def config_json() -> dict:
    """nvidia/NV-Embed-v2's config.json with the backbone and pooling dims made tiny (the published
    latent_attention_config names only its type; here the tiny sizes are spelled out)."""
    return {
        "_name_or_path": "nvidia/NV-Embed-v2",
        "add_eos": True,
        "add_pad_token": True,
        "architectures": ["NVEmbedModel"],
        "auto_map": {"AutoConfig": "configuration_nvembed.NVEmbedConfig",
                     "AutoModel": "modeling_nvembed.NVEmbedModel"},
        "hidden_size": HIDDEN,
        "is_mask_instruction": True,
        "latent_attention_config": {"model_type": "latent_attention", "num_latents_value": LATENTS,
                                    "num_cross_heads": CROSS_HEADS, "cross_dim_head": CROSS_DIM_HEAD,
                                    "hidden_dim": HIDDEN, "latent_dim": HIDDEN},
        "mask_type": "b",
        "model_type": "nvembed",
        "padding_side": "right",
        "text_config": {
            "_name_or_path": "nvidia/NV-Embed-v2", "add_cross_attention": False, "architectures": ["MistralModel"],
            "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
            "hidden_size": HIDDEN, "initializer_range": 0.02, "intermediate_size": INTER, "is_decoder": False,
            "max_length": 20, "max_position_embeddings": 32768, "model_type": "bidir_mistral",
            "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "num_key_value_heads": KV_HEADS,
            "pad_token_id": None, "return_dict": True, "rms_norm_eps": RMS_EPS, "rope_theta": ROPE_THETA,
            "sliding_window": 4096, "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True,
            "vocab_size": None,  # filled in from the tokenizer
        },
        "torch_dtype": "float16",
        "transformers_version": "4.42.4",
    }


def build_tokenizer(folder: Path) -> int:
    """A Mistral-style tokenizer.json (Prepend/Replace ▁ normaliser, BPE with byte fallback, <s> template)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, processors

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for c in CHARS:
        vocab.setdefault(c, len(vocab))
    merges = []
    for w in WORDS:
        cur = w[0]
        for ch in w[1:]:
            if cur + ch not in vocab:
                merges.append((cur, ch))
                vocab[cur + ch] = len(vocab)
            cur += ch
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s>:0 $A:0", pair="<s>:0 $A:0 <s>:1 $B:1",
                                                       special_tokens=[("<s>", 1)])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")])
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "add_bos_token": True, "add_eos_token": False, "bos_token": "<s>", "clean_up_tokenization_spaces": False,
        "eos_token": "</s>", "legacy": True, "model_max_length": 1000000000000000019884624838656,
        "pad_token": None, "sp_model_kwargs": {}, "spaces_between_special_tokens": False,
        "tokenizer_class": "LlamaTokenizer", "unk_token": "<unk>", "use_default_system_prompt": False}, indent=2))
    (folder / "special_tokens_map.json").write_text(json.dumps(
        {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}, indent=2))
    return len(vocab)


def checkpoint_tensors(vocab: int, seed: int = 0) -> dict:
    """Random tensors under the published checkpoint's names and (shrunk) shapes."""
    import torch

    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, scale=None):
        return torch.randn(*shape, generator=g) * (scale if scale is not None else 1 / math.sqrt(shape[-1]))

    def norm(n):
        return 1 + 0.2 * torch.randn(n, generator=g)

    head = HIDDEN // HEADS
    t = {"embedding_model.embed_tokens.weight": rnd(vocab, HIDDEN, scale=1.0),
         "embedding_model.norm.weight": norm(HIDDEN)}
    for i in range(LAYERS):
        p = f"embedding_model.layers.{i}."
        t |= {p + "self_attn.q_proj.weight": rnd(HEADS * head, HIDDEN, scale=0.6),
              p + "self_attn.k_proj.weight": rnd(KV_HEADS * head, HIDDEN, scale=0.6),
              p + "self_attn.v_proj.weight": rnd(KV_HEADS * head, HIDDEN),
              p + "self_attn.o_proj.weight": rnd(HIDDEN, HEADS * head),
              p + "mlp.gate_proj.weight": rnd(INTER, HIDDEN), p + "mlp.up_proj.weight": rnd(INTER, HIDDEN),
              p + "mlp.down_proj.weight": rnd(HIDDEN, INTER),
              p + "input_layernorm.weight": norm(HIDDEN), p + "post_attention_layernorm.weight": norm(HIDDEN)}
    inner = CROSS_HEADS * CROSS_DIM_HEAD
    p = "latent_attention_model."
    t |= {p + "latents": rnd(LATENTS, HIDDEN, scale=1.0),
          p + "cross_attend_blocks.0.norm.weight": norm(HIDDEN),
          p + "cross_attend_blocks.0.norm.bias": 0.1 * rnd(HIDDEN, scale=1.0),
          p + "cross_attend_blocks.0.norm_context.weight": norm(HIDDEN),
          p + "cross_attend_blocks.0.norm_context.bias": 0.1 * rnd(HIDDEN, scale=1.0),
          p + "cross_attend_blocks.0.fn.to_q.weight": rnd(inner, HIDDEN, scale=0.5),
          p + "cross_attend_blocks.0.fn.to_kv.weight": rnd(2 * inner, HIDDEN, scale=0.5),
          p + "cross_attend_blocks.0.fn.to_out.weight": rnd(HIDDEN, inner),
          p + "cross_attend_blocks.1.norm.weight": norm(HIDDEN),
          p + "cross_attend_blocks.1.norm.bias": 0.1 * rnd(HIDDEN, scale=1.0),
          p + "cross_attend_blocks.1.fn.net.0.weight": rnd(8 * HIDDEN, HIDDEN),
          p + "cross_attend_blocks.1.fn.net.0.bias": 0.1 * rnd(8 * HIDDEN, scale=1.0),
          p + "cross_attend_blocks.1.fn.net.2.weight": rnd(HIDDEN, 4 * HIDDEN),
          p + "cross_attend_blocks.1.fn.net.2.bias": 0.1 * rnd(HIDDEN, scale=1.0)}
    return {k: v.to(torch.float16).contiguous() for k, v in t.items()}


def save_checkpoint(folder: Path, tensors: dict) -> None:
    """Two shards and their index, as the repo stores its four."""
    from safetensors.torch import save_file

    for old in [*folder.glob("model-*.safetensors"), folder / "model.safetensors.index.json"]:
        old.unlink(missing_ok=True)
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": [n for n in names if n.startswith("embedding_model.layers.0.")
                                                   or n == "embedding_model.embed_tokens.weight"]}
    shards["model-00002-of-00002.safetensors"] = [n for n in names if n not in shards[
        "model-00001-of-00002.safetensors"]]
    weight_map = {}
    for file, keys in shards.items():
        save_file({k: tensors[k] for k in keys}, str(folder / file), metadata={"format": "pt"})
        weight_map |= {k: file for k in keys}
    size = sum(v.numel() * v.element_size() for v in tensors.values())
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": size}, "weight_map": weight_map}, indent=2))


def build_nvembed(folder: Path, seed: int = 0) -> Path:
    """The whole replica in ``folder`` (put it in a Hub cache with ``hub_fakes.put_in_hub_cache``)."""
    vocab = build_tokenizer(folder)
    config = config_json()
    config["text_config"]["vocab_size"] = vocab
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    save_checkpoint(folder, checkpoint_tensors(vocab, seed))
    return folder


# --- the card's forward, one text at a time, in plain torch ---------------------------------------------------

def load_tensors(folder: Path) -> dict:
    from safetensors.torch import load_file

    out = {}
    for f in sorted(folder.glob("model-*.safetensors")):
        out |= {k: v.float() for k, v in load_file(str(f)).items()}
    return out


def card_input(folder: Path, prefix: str, text: str, eos: bool = True) -> tuple[list[int], int]:
    """Token ids as the card's input_transform_func made them under transformers 4.42 (BOS, prefix + text,
    then the EOS it appends), read with the tokenizers library alone, and how many leading positions the
    card's instruction mask clears (``len(tokenizer.tokenize(prefix))``)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = [tok.token_to_id("<s>")] + tok.encode(prefix + text, add_special_tokens=False).ids
    ids += [tok.token_to_id("</s>")] if eos else []
    return ids, (len(tok.encode(prefix, add_special_tokens=False).ids) if prefix else 0)


def reference_vector(w: dict, ids: list[int], n_masked: int, causal: bool = False, pool_all: bool = False):
    """NV-Embed's forward for one unpadded text: Mistral layers with a full (bidirectional) attention
    pattern, latent attention, a mean over positions from ``n_masked`` on, L2-normalised. ``causal`` and
    ``pool_all`` give the two wrong recipes the tests tell apart."""
    import torch
    import torch.nn.functional as F

    def rms(x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS))

    n, head = len(ids), HIDDEN // HEADS
    x = w["embedding_model.embed_tokens.weight"][torch.tensor(ids)]
    inv = 1.0 / ROPE_THETA ** (torch.arange(0, head, 2).float() / head)
    angles = torch.outer(torch.arange(n).float(), inv)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)

    def rope(t):  # (heads, n, head)
        half = t.shape[-1] // 2
        rotated = torch.cat([-t[..., half:], t[..., :half]], -1)
        return t * cos + rotated * sin

    bias = torch.zeros(n, n)
    if causal:
        bias = torch.full((n, n), float("-inf")).triu(1)
    for i in range(LAYERS):
        p = f"embedding_model.layers.{i}."
        h = rms(x, w[p + "input_layernorm.weight"])
        q = (h @ w[p + "self_attn.q_proj.weight"].T).view(n, HEADS, head).transpose(0, 1)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).view(n, KV_HEADS, head).transpose(0, 1)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).view(n, KV_HEADS, head).transpose(0, 1)
        q, k = rope(q), rope(k)
        k, v = k.repeat_interleave(HEADS // KV_HEADS, 0), v.repeat_interleave(HEADS // KV_HEADS, 0)
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(head) + bias, -1)
        x = x + (att @ v).transpose(0, 1).reshape(n, HIDDEN) @ w[p + "self_attn.o_proj.weight"].T
        h = rms(x, w[p + "post_attention_layernorm.weight"])
        x = x + (F.silu(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[
            p + "mlp.down_proj.weight"].T
    x = rms(x, w["embedding_model.norm.weight"])

    p = "latent_attention_model.cross_attend_blocks."
    queries = F.layer_norm(x, (HIDDEN,), w[p + "0.norm.weight"], w[p + "0.norm.bias"])
    latents = F.layer_norm(w["latent_attention_model.latents"], (HIDDEN,), w[p + "0.norm_context.weight"],
                           w[p + "0.norm_context.bias"])
    q = (queries @ w[p + "0.fn.to_q.weight"].T).view(n, CROSS_HEADS, CROSS_DIM_HEAD).transpose(0, 1)
    kv = latents @ w[p + "0.fn.to_kv.weight"].T
    k, v = (t.reshape(LATENTS, CROSS_HEADS, CROSS_DIM_HEAD).transpose(0, 1) for t in kv.chunk(2, -1))
    att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(CROSS_DIM_HEAD), -1)
    x = (att @ v).transpose(0, 1).reshape(n, -1) @ w[p + "0.fn.to_out.weight"].T + x
    h = F.layer_norm(x, (HIDDEN,), w[p + "1.norm.weight"], w[p + "1.norm.bias"])
    a, gate = (h @ w[p + "1.fn.net.0.weight"].T + w[p + "1.fn.net.0.bias"]).chunk(2, -1)
    x = (a * F.gelu(gate)) @ w[p + "1.fn.net.2.weight"].T + w[p + "1.fn.net.2.bias"] + x
    pooled = x.mean(0) if pool_all else x[n_masked:].mean(0)
    return F.normalize(pooled, dim=-1).numpy()
