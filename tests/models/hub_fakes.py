"""Helpers: tiny random-weight transformers saved into a fake Hugging Face cache (``models--ORG--NAME/refs/main``,
``snapshots/<commit>/…``), used with ``HF_HUB_CACHE`` pointed there and ``HF_HUB_OFFLINE=1``."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

WORDS = ["the", "dog", "cat", "runs", "sleeps", "a", "big", "small", "red", "house", "near", "river", "claim",
         "find", "query", ":", ",", "."]


def fake_commit(folder: Path, salt: str = "") -> str:
    """A 40-hex 'commit' derived from the folder's content (what a real commit hash identifies)."""
    h = hashlib.sha1(salt.encode())
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def put_in_hub_cache(cache: Path, repo: str, folder: Path, ref: str | None = "main", salt: str = "") -> str:
    """Copy ``folder`` in as one snapshot of ``repo``; ``ref`` (a branch or tag) points at it."""
    commit = fake_commit(folder, salt)
    root = cache / ("models--" + repo.replace("/", "--"))
    shutil.copytree(folder, root / "snapshots" / commit, dirs_exist_ok=True)
    if ref:
        (root / "refs").mkdir(parents=True, exist_ok=True)
        (root / "refs" / ref).write_text(commit)
    return commit


def _bert_tokenizer(folder: Path):
    from transformers import BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)})
    tok.save_pretrained(folder)
    return len(vocab)


def build_bert(folder: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide BERT with random weights and a word-level vocabulary (plain transformers)."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    n = _bert_tokenizer(folder)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=n, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).eval().save_pretrained(folder)
    return folder


def build_sbert(folder: Path, seed: int = 0, prompts: dict | None = None) -> Path:
    """The tiny BERT as a sentence-transformers model (Transformer + mean Pooling), with modules.json."""
    pytest.importorskip("sentence_transformers")
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    bert = build_bert(folder.parent / (folder.name + "-bert"), seed)
    first = Transformer(str(bert), max_seq_length=32)
    pool = Pooling(first.get_embedding_dimension(), pooling_mode="mean")
    SentenceTransformer(modules=[first, pool], prompts=prompts or {}, device="cpu").save(str(folder))
    return folder


def _byte_chars() -> list[str]:
    """The 256 characters byte-level BPE uses for bytes (GPT-2's table)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, n = {b: chr(b) for b in keep}, 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + n)
            n += 1
    return [chars[b] for b in range(256)]


def build_qwen2(folder: Path, seed: int = 0) -> Path:
    """A 2-layer Qwen2 decoder (causal attention) with a character-level Qwen2 tokenizer (no merges)."""
    torch = pytest.importorskip("torch")
    from transformers import Qwen2Config, Qwen2Model, Qwen2Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(_byte_chars())}, merges=[])
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, intermediate_size=64, max_position_embeddings=128,
                      pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    Qwen2Model(cfg).eval().save_pretrained(folder)
    return folder