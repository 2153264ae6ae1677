"""Training-speed changes must not change what the networks compute: extra padding is invisible,
and length bucketing still visits every training item exactly once per epoch."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from compeval.tasks.lexcomp import nets  # noqa: E402


def _sentences(rng, lengths, dim=6, layers=2):
    return [rng.standard_normal((n, layers, dim)).astype(np.float16) for n in lengths]


@pytest.mark.parametrize("encoder", ["none", "bilstm", "attention"])
def test_extra_padding_does_not_change_tag_scores(encoder):
    rng = np.random.default_rng(0)
    arrays = _sentences(rng, [3, 5, 2])
    x, m = nets.pad(arrays)
    wide_x = torch.cat([x, torch.zeros(3, 20, *x.shape[2:], dtype=x.dtype)], 1)  # as if padded to 25 words
    wide_m = torch.cat([m, torch.zeros(3, 20, dtype=torch.bool)], 1)
    torch.manual_seed(0)
    tagger = nets.Tagger("mix", encoder, n_layers=2, dim=6, n_tags=3, hidden=100).eval()
    with torch.no_grad():
        narrow, wide = tagger(x, m), tagger(wide_x, wide_m)
    assert wide.shape[1] == narrow.shape[1] == 5  # trimmed to the longest sentence of the batch
    for r, n in enumerate([3, 5, 2]):
        torch.testing.assert_close(wide[r, :n], narrow[r, :n])


def test_span_classifier_ignores_padding_too():
    rng = np.random.default_rng(1)
    x, m = nets.pad(_sentences(rng, [4, 2]))
    px, pm = nets.pad(_sentences(rng, [2, 3]))
    pad = lambda t, k: torch.cat([t, torch.zeros(t.shape[0], k, *t.shape[2:], dtype=t.dtype)], 1)  # noqa: E731
    start, end = torch.tensor([1, 0]), torch.tensor([2, 1])
    torch.manual_seed(0)
    net = nets.SpanClassifier("top", "bilstm", 2, 6, hidden=100, use_para=True).eval()
    with torch.no_grad():
        a = net(x, m, start, end, px, pm)
        b = net(pad(x, 9), pad(m, 9), start, end, pad(px, 4), pad(pm, 4))
    torch.testing.assert_close(a, b)


def test_length_batches_cover_every_item_once_and_group_similar_lengths():
    lengths = torch.tensor(np.random.default_rng(2).integers(1, 80, 1000))
    batches = nets.length_batches(lengths, 32, torch.Generator().manual_seed(0))
    seen = torch.cat(batches)
    assert sorted(seen.tolist()) == list(range(1000))
    spread = np.mean([float(lengths[b].max() - lengths[b].min()) for b in batches])
    assert spread <= 3  # sorted buckets: a batch spans a few lengths, not the whole 1-79 range
    again = nets.length_batches(lengths, 32, torch.Generator().manual_seed(0))
    assert all(torch.equal(p, q) for p, q in zip(batches, again))


def test_layer_weights_are_the_trained_mix_and_favour_the_informative_layer():
    """Layer 0 is noise, layer 1 carries the label: the learned mix moves weight to layer 1, the reported
    weights sum to 1, and they are exactly the weights the head applies (γ · Σ w_l x_l, computed here in numpy)."""
    from compeval.training.settings import EarlyStopping

    rng = np.random.default_rng(0)
    n, dim = 200, 4
    y = rng.integers(0, 2, n)
    x = np.zeros((n, 3, 2, dim), dtype=np.float32)
    x[:, :, 0] = rng.standard_normal((n, 3, dim)) * 3  # noise layer
    x[:, :, 1, 0] = np.where(y == 1, 1.0, -1.0)[:, None]  # the label, on every word
    xt, mt = torch.from_numpy(x), torch.ones(n, 3, dtype=torch.bool)
    start, end = torch.zeros(n, dtype=torch.long), torch.full((n,), 2)
    torch.manual_seed(0)
    net = nets.SpanClassifier("mix", "none", 2, dim, hidden=16)
    yt = torch.from_numpy(y).long()

    def val(m):
        m.eval()
        with torch.no_grad():
            return float((m(xt, mt, start, end).argmax(-1) == yt).float().mean())

    res = nets.train(net, (xt, mt, start, end), yt, torch.nn.functional.cross_entropy, val,
                     EarlyStopping(max_epochs=30, patience=30, batch_size=32, lr=0.01), seed=0)
    mix = nets.layer_weights(res.model)
    w = np.array(mix["weights"])
    assert w.shape == (2,) and w.sum() == pytest.approx(1.0, abs=1e-6)
    assert w[1] > w[0]
    raw = res.model.embed.mix.w.detach().numpy()
    np.testing.assert_allclose(w, np.exp(raw) / np.exp(raw).sum(), rtol=1e-6)
    with torch.no_grad():
        mixed = res.model.embed(xt[:5]).numpy()
    expected = mix["gamma"] * (w[0] * x[:5, :, 0] + w[1] * x[:5, :, 1])
    np.testing.assert_allclose(mixed, expected, rtol=1e-5, atol=1e-6)
    assert nets.layer_weights(nets.SpanClassifier("top", "none", 2, dim, hidden=16)) is None
