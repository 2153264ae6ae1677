"""BOS/EOS as tokenizer_config.json asks, on its own: it needs transformers and tokenizers only, so it also
runs under the lowest transformers pyproject.toml accepts (where sentence-transformers 6 cannot), e.g.

    pip install --target /tmp/tf4 transformers==4.56.2 tokenizers==0.22.1 huggingface_hub==0.35.3 --no-deps
    PYTHONPATH=/tmp/tf4:src python -m pytest tests/models/test_special_tokens.py
"""
from __future__ import annotations

import pytest

from compeval.errors import SpecError
from compeval.models.recipes import special_tokens

import replicas

pytest.importorskip("transformers")


def test_special_tokens_follow_tokenizer_config_under_this_transformers(tmp_path):
    """The tokenizer behaviour the recipes rely on, on its own (run it under both pinned transformers ends:
    it needs neither torch nor sentence-transformers)."""
    from transformers import AutoTokenizer

    for flags, want in (({"add_bos_token": True, "add_eos_token": True}, (True, True)),
                        ({"add_bos_token": False, "add_eos_token": True}, (False, True)),
                        ({"add_bos_token": True, "add_eos_token": False}, (True, False))):
        folder = tmp_path / "-".join(f"{k}{v}" for k, v in flags.items())
        replicas.llama_tokenizer(folder, {**replicas.E5_MISTRAL_TOKENIZER_CONFIG, **flags})
        tok = AutoTokenizer.from_pretrained(str(folder))
        assert special_tokens(tok, folder, "x") == {"bos": want[0], "eos": want[1]}
        ids = tok(["the dog runs", "cat"])["input_ids"]
        for row in ids:
            assert (row[0] == tok.bos_token_id, row[-1] == tok.eos_token_id) == want
            assert tok.bos_token_id not in row[1:-1] and tok.eos_token_id not in row[1:-1]


def test_a_tokenizer_that_does_not_follow_the_flags_is_refused(tmp_path):
    """A tokenizer that ignores add_eos_token (as transformers 4's Qwen2TokenizerFast does without the repo's
    own tokenizer code): one line naming the spec, never a silent change of what the model sees."""
    import json

    class Deaf:  # adds <s> only, whatever its flags say
        bos_token_id, eos_token_id = 1, 2

        def __call__(self, text):
            return {"input_ids": [1, 5]}

    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"add_bos_token": True, "add_eos_token": True}))
    with pytest.raises(SpecError, match=r"hf:org/x: tokenizer_config.json asks for add_bos_token=True, "
                                        r"add_eos_token=True, but this Deaf adds bos=True, eos=False") as err:
        special_tokens(Deaf(), tmp_path, "hf:org/x")
    assert "\n" not in str(err.value)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"add_bos_token": True}))
    assert special_tokens(Deaf(), tmp_path, "hf:org/x") == {"bos": True, "eos": False}
