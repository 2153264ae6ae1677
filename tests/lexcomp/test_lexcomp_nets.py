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
