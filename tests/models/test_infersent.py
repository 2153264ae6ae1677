"""InferSent: a tiny model saved in the released format (a torch state dict of ``enc_lstm``) against an
independent reference: the LSTM equations in numpy, max pooling, and the release's tokens written out."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("nltk")

from compeval.cache import EmbeddingCache  # noqa: E402
from compeval.errors import SpecError  # noqa: E402
from compeval.models.conformance import check_model  # noqa: E402
from compeval.models.families.infersent import InferSentModel, tokenize  # noqa: E402
from compeval.models.registry import load_model  # noqa: E402

D, H = 6, 4
SENTENCES = ["The dog doesn't bark.", "A cat sleeps", "The old dog chased a cat in the garden .",
             "Unknownword qqq", "cat"]


def _released_files(tmp_path, seed=0):
    torch.manual_seed(seed)
    lstm = torch.nn.LSTM(D, H, 1, bidirectional=True)
    state = {f"enc_lstm.{k}": v for k, v in lstm.state_dict().items()}  # InferSent.state_dict(), as released
    weights = tmp_path / "infersent1.pkl"
    torch.save(state, weights)
    rng = np.random.default_rng(seed)
    words = ["<s>", "</s>", "<p>", "</p>", "The", "dog", "does", "n't", "doesn", "'t", "bark", ".", "A", "cat",
             "sleeps", "old", "chased", "a", "in", "the", "garden"]
    table = {w: rng.normal(size=D).astype(np.float32) for w in words}
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("".join(f"{w} {' '.join(f'{x:.6f}' for x in v)}\n" for w, v in table.items()))
    table = {w: np.array([float(f"{x:.6f}") for x in v]) for w, v in table.items()}  # as written
    return weights, vectors, {k: v.numpy().astype(np.float64) for k, v in state.items()}, table


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm(xs, w_ih, w_hh, b_ih, b_hh):
    """PyTorch's LSTM cell, gates in the order input, forget, cell, output."""
    h, c, out = np.zeros(H), np.zeros(H), []
    for x in xs:
        z = w_ih @ x + b_ih + w_hh @ h + b_hh
        i, f, g, o = _sigmoid(z[:H]), _sigmoid(z[H:2 * H]), np.tanh(z[2 * H:3 * H]), _sigmoid(z[3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
        out.append(h)
    return np.array(out)


def _reference(words, state, table):
    xs = np.array([table[w] for w in words])
    p = "enc_lstm."
    fwd = _lstm(xs, state[p + "weight_ih_l0"], state[p + "weight_hh_l0"], state[p + "bias_ih_l0"],
                state[p + "bias_hh_l0"])
    bwd = _lstm(xs[::-1], state[p + "weight_ih_l0_reverse"], state[p + "weight_hh_l0_reverse"],
                state[p + "bias_ih_l0_reverse"], state[p + "bias_hh_l0_reverse"])[::-1]
    return np.concatenate([fwd, bwd], axis=1).max(axis=0)


# The words each version reads (release: word_tokenize; v2's n't rewrite; boundaries; words without vectors
# dropped; none left -> </s>), written out by hand.
EXPECTED = {
    1: [["<s>", "The", "dog", "does", "n't", "bark", ".", "</s>"], ["<s>", "A", "cat", "sleeps", "</s>"],
        ["<s>", "The", "old", "dog", "chased", "a", "cat", "in", "the", "garden", ".", "</s>"], ["<s>", "</s>"],
        ["<s>", "cat", "</s>"]],
    2: [["<p>", "The", "dog", "doesn", "'t", "bark", ".", "</p>"], ["<p>", "A", "cat", "sleeps", "</p>"],
        ["<p>", "The", "old", "dog", "chased", "a", "cat", "in", "the", "garden", ".", "</p>"], ["<p>", "</p>"],
        ["<p>", "cat", "</p>"]],
}


def test_released_tokenisation_known_values():
    assert tokenize("The dog doesn't bark.", 1, "line") == ["The", "dog", "does", "n't", "bark", "."]
    assert tokenize("The dog doesn't bark.", 2, "line") == ["The", "dog", "doesn", "'t", "bark", "."]
    try:  # the default needs NLTK's Punkt data: same tokens, or one precise error
        assert tokenize("The dog doesn't bark.", 1) == ["The", "dog", "does", "n't", "bark", "."]
    except SpecError as exc:
        assert "punkt" in str(exc).lower() and "tok=line" in str(exc)


@pytest.mark.parametrize("version", [1, 2])
def test_matches_the_numpy_reference_whatever_the_batch(tmp_path, version):
    weights, vectors, state, table = _released_files(tmp_path)
    model = InferSentModel(weights, vectors, version, tok="line")
    got = model.encode(SENTENCES)
    assert got.shape == (len(SENTENCES), 2 * H)
    assert [model.words(s) for s in SENTENCES] == EXPECTED[version]
    for row, words in zip(got, EXPECTED[version]):
        np.testing.assert_allclose(row, _reference(words, state, table), atol=1e-5)
    one_by_one = np.vstack([model.encode([s]) for s in SENTENCES])  # padding never enters the max
    np.testing.assert_allclose(got, one_by_one, atol=1e-6)


def test_through_the_registry_with_identity(tmp_path):
    weights, vectors, state, table = _released_files(tmp_path)
    cache = EmbeddingCache(None)
    m1 = load_model(f"infersent:{weights},vectors={vectors},tok=line,device=cpu", cache=cache)
    m2 = load_model(f"infersent:{weights},vectors={vectors},version=2,tok=line,device=cpu", cache=cache)
    assert m1.config.params["version"] == 1 and m1.config.id != m2.config.id
    assert m1.config.params["weights"].startswith("sha256:") and m1.config.params["vectors"].startswith("sha256:")
    check_model(m1, rebuild=lambda: load_model(f"infersent:{weights},vectors={vectors},tok=line,device=cpu",
                                               cache=EmbeddingCache(None)))
    np.testing.assert_allclose(m1.encode(["A cat sleeps"])[0], _reference(EXPECTED[1][1], state, table), atol=1e-5)


def test_bad_files_fail_in_one_line(tmp_path):
    weights, vectors, _, _ = _released_files(tmp_path)
    bad = tmp_path / "bad.pkl"
    torch.save({"enc_lstm.weight_ih_l0": torch.zeros(16, D)}, bad)
    with pytest.raises(SpecError, match="not InferSent's biLSTM state dict"):
        InferSentModel(bad, vectors, 1)
    short = tmp_path / "short.txt"
    short.write_text("cat 0.1 0.2\n<s> 1 2\n</s> 1 2\n")
    with pytest.raises(SpecError, match=r"'cat' has 2 values; the weights take 6-dimensional"):
        InferSentModel(weights, short, 1, tok="line").encode(["cat"])
    with pytest.raises(SpecError, match=r"name the word vectors .*,vectors=PATH"):
        load_model(f"infersent:{weights}", cache=EmbeddingCache(None))
    with pytest.raises(SpecError, match="vectors file .* not found"):
        load_model(f"infersent:{weights},vectors={tmp_path / 'none.txt'}", cache=EmbeddingCache(None))
