"""Fixtures: an offline fake Hugging Face cache and tiny random-weight models (see hub_fakes.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from hub_fakes import build_bert, build_qwen2, build_sbert


@pytest.fixture()
def hub_cache(tmp_path, monkeypatch):
    """An empty offline Hub cache for this test; resolution memos are cleared before and after."""
    from compeval.models import hub

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub._snapshot.cache_clear()
    yield cache
    hub._snapshot.cache_clear()


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Built once per session: a sentence-transformers BERT (with named prompts), a plain BERT, a decoder."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {
        "sbert": build_sbert(root / "st", prompts={"query": "query: ", "doc": "passage: "}),
        "bert": build_bert(root / "bert", seed=1),
        "qwen2": build_qwen2(root / "qwen2"),
    }
