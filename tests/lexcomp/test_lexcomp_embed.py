"""Span pooling of subword pieces, on hand-made arrays and on a tiny randomly initialised BERT."""
import numpy as np
import pytest

from compeval.models.protocol import can_encode_tokens, token_encoder
from compeval.models.word_states import pool_pieces
from compeval.tasks.lexcomp.embed import TokenCache


def test_pool_pieces_means_each_word_and_skips_specials():
    hidden = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)  # layers, pieces, dim
    word_ids = [None, 0, 0, 1, None]  # [CLS] un ##believable word [SEP]
    out = pool_pieces(hidden, word_ids, 3)  # third word was truncated away
    assert out.shape == (3, 2, 3)
    np.testing.assert_allclose(out[0], hidden[:, 1:3].mean(1))
    np.testing.assert_allclose(out[1], hidden[:, 3])
    np.testing.assert_array_equal(out[2], 0)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertModel, BertTokenizerFast

    d = tmp_path_factory.mktemp("tinybert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "run", "##s", "un", "##happy", "."]
    BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}).save_pretrained(d)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=16, max_position_embeddings=32)
    BertModel(cfg).eval().save_pretrained(d)
    return d


def test_hf_adapter_pools_pieces_to_words(tiny_bert, tmp_path):
    import torch

    from compeval.models.families.hf import HFModel

    model = HFModel(str(tiny_bert))
    enc = token_encoder(model)
    words = ["the", "dog", "runs", "unhappy", "."]
    (vec,) = enc.encode_tokens([words])
    assert vec.shape == (5, 3, 8)  # words, embeddings + 2 layers, dim
    _, tok, net = model._load()
    batch = tok(words, is_split_into_words=True, return_tensors="pt")
    assert batch.word_ids(0).count(2) == 2  # "runs" -> run ##s
    with torch.no_grad():
        hs = torch.stack(net(**batch).hidden_states).numpy()[:, 0]  # L, P, D
    pieces = [p for p, w in enumerate(batch.word_ids(0)) if w == 2]
    np.testing.assert_allclose(vec[2], hs[:, pieces].mean(1), atol=1e-5)
    # the cache returns the same vectors (float16) and encodes each sentence once
    cache = TokenCache(enc, tmp_path)
    a = cache.get([words, words])
    assert cache.encoded == 1
    np.testing.assert_allclose(a[0].astype(np.float32), vec, atol=1e-2)
    cache.close()
    TokenCache._memory.clear()
    again = TokenCache(enc, tmp_path)
    again.get([words])
    assert again.from_disk == 1 and again.encoded == 0
    again.close()


def test_static_adapter_one_layer():
    from compeval.models.families.static import StaticModel, WordVectors

    wv = WordVectors(["dog", "run"], np.eye(2, 3, dtype=np.float32), "toy", "x")
    enc = token_encoder(StaticModel(wv))
    (v,) = enc.encode_tokens([["Dog", "zzz", "run"]])
    assert v.shape == (3, 1, 3)
    np.testing.assert_array_equal(v[:, 0], [[1, 0, 0], [0, 0, 0], [0, 1, 0]])


def test_sentence_transformer_models_give_the_same_token_vectors_as_their_transformer(tiny_bert):
    """``all-MiniLM-L6-v2`` (a sentence-transformers model) runs lexcomp through its inner transformer."""
    pytest.importorskip("sentence_transformers")
    from compeval.cache import EmbeddingCache
    from compeval.models.families.hf import HFModel
    from compeval.models.families.sentence_transformers import SentenceTransformerModel

    words = [["the", "dog", "runs", "unhappy", "."], ["a", "cat"]]
    expected = token_encoder(HFModel(str(tiny_bert))).encode_tokens(words)
    for model in (SentenceTransformerModel(str(tiny_bert)),
                  EmbeddingCache(None).wrap(SentenceTransformerModel(str(tiny_bert)))):
        got = token_encoder(model).encode_tokens(words)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, atol=1e-5)


def test_token_vectors_are_a_declared_capability_seen_through_the_cache():
    """Tasks ask the protocol, not the class: the cache wrapper passes the capability on, a model without
    encode_tokens gets a clear error."""
    from compeval.cache import EmbeddingCache
    from compeval.errors import CompevalError
    from compeval.models.families.static import StaticModel, WordVectors
    from compeval.models.families.toy import HashBagEncoder

    wv = WordVectors(["dog", "run"], np.eye(2, 3, dtype=np.float32), "toy", "x")
    cache = EmbeddingCache(None)
    static = cache.wrap(StaticModel(wv))
    assert can_encode_tokens(static) and token_encoder(static).config.id == static.config.id
    np.testing.assert_array_equal(token_encoder(static).encode_tokens([["run"]])[0][:, 0], [[0, 1, 0]])
    model = cache.wrap(HashBagEncoder())
    assert not can_encode_tokens(model)
    with pytest.raises(CompevalError, match="gives no token-level vectors"):
        token_encoder(model)
