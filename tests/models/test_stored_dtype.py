"""A checkpoint stored in half precision runs at the dtype the spec names (float32 by default), never at
the dtype it was saved in: transformers 5 loads ``dtype="auto"`` unless told, which would encode (and
fine-tune) an fp16 checkpoint in fp16 under a float32 id."""
from __future__ import annotations

import json

import numpy as np
import pytest

import replicas
from compeval.models.registry import load_model

pytest.importorskip("transformers")


def _fp16_copy(tmp_path):
    import torch
    from transformers import BertModel

    folder = tmp_path / "st16"
    replicas.minilm(folder)
    model = BertModel.from_pretrained(str(folder), dtype=torch.float32)
    model.half().save_pretrained(folder)  # weights and config.json's dtype now say float16
    config = json.loads((folder / "config.json").read_text())
    assert config.get("dtype", config.get("torch_dtype")) == "float16"
    return folder


def test_sbert_family_loads_a_half_precision_checkpoint_at_float32(tmp_path):
    import torch
    from sentence_transformers import SentenceTransformer

    folder = _fp16_copy(tmp_path)
    model = load_model(f"sbert:{folder}")
    got = np.asarray(model.encode(replicas.TEXTS))
    inner = model.model[0].auto_model
    assert {p.dtype for p in inner.parameters()} == {torch.float32}
    ref = SentenceTransformer(str(folder), device="cpu", model_kwargs={"dtype": torch.float32})
    want = ref.encode(replicas.TEXTS, convert_to_numpy=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_sbert_fine_tuning_copy_is_float32_too(tmp_path):
    import torch

    folder = _fp16_copy(tmp_path)
    copy = load_model(f"sbert:{folder}").sentence_transformer("cpu")
    assert {p.dtype for p in copy[0].auto_model.parameters()} == {torch.float32}


def test_hf_family_encodes_and_fine_tunes_a_half_precision_checkpoint_at_float32(tmp_path):
    import torch

    folder = _fp16_copy(tmp_path)
    model = load_model(f"hf:{folder}")
    model.encode(replicas.TEXTS)
    _, _, inner = model._load()
    assert {p.dtype for p in inner.parameters()} == {torch.float32}
    copy = model.sentence_transformer("cpu")
    assert {p.dtype for p in copy[0].auto_model.parameters()} == {torch.float32}
