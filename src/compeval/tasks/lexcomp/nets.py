"""Encode + Predict heads in PyTorch over frozen word vectors, trained with early stopping on validation.

``layer="mix"`` is the softmax-weighted scalar mix of Peters et al. (2018); encoders are described in docs/lexcomp.md.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ...training.loop import TrainResult, length_batches, train  # noqa: F401  (the one trainer; re-exported)
from .settings import DROPOUT, ENCODERS, LAYERS  # noqa: F401  (ENCODERS, LAYERS re-exported)


class ScalarMix(nn.Module):
    """``γ · Σ_l softmax(w)_l · x_l`` (Peters et al. 2018): the learned weights are the paper's section 6 analysis."""

    def __init__(self, n_layers: int):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(n_layers))
        self.gamma = nn.Parameter(torch.ones(1))

    def forward(self, x):  # B, T, L, D -> B, T, D
        return self.gamma * torch.einsum("btld,l->btd", x, self.weights())

    def weights(self) -> torch.Tensor:
        """The normalised layer weights the forward pass uses (softmax of the raw parameters)."""
        return torch.softmax(self.w, 0)


def layer_weights(model: nn.Module) -> dict | None:
    """A trained head's scalar mix as plain numbers: ``{"weights": [one per layer, bottom first, sum 1],
    "gamma": γ}``; None for a head that reads the top layer only."""
    mix = getattr(getattr(model, "embed", None), "mix", None)
    if mix is None:
        return None
    with torch.no_grad():
        return {"weights": [float(v) for v in mix.weights().cpu()], "gamma": float(mix.gamma.cpu())}


class Embed(nn.Module):
    def __init__(self, layer: str, n_layers: int):
        super().__init__()
        self.layer = layer
        self.mix = ScalarMix(n_layers) if layer == "mix" and n_layers > 1 else None

    def forward(self, x):
        x = x.float()
        return self.mix(x) if self.mix is not None else x[:, :, -1]


class Encode(nn.Module):
    def __init__(self, kind: str, dim: int):
        super().__init__()
        if kind not in ENCODERS:
            raise ValueError(f"encoder {kind!r} unknown; choose one of {', '.join(ENCODERS)}")
        self.kind = kind
        self.lstm = nn.LSTM(dim, dim, batch_first=True, bidirectional=True) if kind == "bilstm" else None
        self.out_dim = dim if kind == "none" else 2 * dim

    def forward(self, x, mask):  # x: B, T, D; mask: B, T bool
        if self.kind == "none":
            return x
        if self.kind == "bilstm":
            lengths = mask.sum(1).clamp(min=1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
            return out
        scores = x @ x.transpose(1, 2)  # B, T, T
        eye = torch.eye(x.shape[1], dtype=torch.bool, device=x.device)[None]
        keep = mask[:, None, :] & ~eye
        scores = scores.masked_fill(~keep, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, -1), nan=0.0)  # a one-word sentence: no others
        return torch.cat([x, weights @ x], -1)


def mlp(d_in: int, d_out: int, hidden: int, dropout: float) -> nn.Module:
    return nn.Sequential(nn.Dropout(dropout), nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden, d_out))


class SpanClassifier(nn.Module):
    def __init__(self, layer, encoder, n_layers, dim, *, hidden: int, use_span=True, use_para=False,
                 dropout=DROPOUT, n_classes=2):
        super().__init__()
        self.embed = Embed(layer, n_layers)
        self.encode = Encode(encoder, dim)
        self.use_span, self.use_para = use_span, use_para
        d = self.encode.out_dim * (2 * use_span + use_para)
        self.head = mlp(d, n_classes, hidden, dropout)

    def forward(self, x, mask, start, end, px=None, pmask=None):
        parts = []
        if self.use_span:
            x, mask = trim(x, mask)
            h = self.encode(self.embed(x), mask)
            rows = torch.arange(len(h))
            parts += [h[rows, start], h[rows, end]]
        if self.use_para:
            px, pmask = trim(px, pmask)
            hp = self.encode(self.embed(px), pmask)
            m = pmask.unsqueeze(-1).float()
            parts.append((hp * m).sum(1) / m.sum(1).clamp(min=1))
        return self.head(torch.cat(parts, -1))


class Tagger(nn.Module):
    def __init__(self, layer, encoder, n_layers, dim, n_tags, *, hidden: int, dropout=DROPOUT):
        super().__init__()
        self.embed = Embed(layer, n_layers)
        self.encode = Encode(encoder, dim)
        self.head = mlp(self.encode.out_dim, n_tags, hidden, dropout)

    def forward(self, x, mask):
        """Tag scores ``(batch, longest sentence in the batch, tags)``."""
        x, mask = trim(x, mask)
        return self.head(self.encode(self.embed(x), mask))


def trim(x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Drop the padding columns no sentence of this batch uses: data are padded to the longest
    sentence of the whole split (80 words in phrase type, mean 15), a batch only to its own."""
    width = max(1, int(mask.sum(1).max())) if mask.numel() else 1
    return x[:, :width], mask[:, :width]


def pad(arrays: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """float16 (N, T, L, D) and a (N, T) mask from per-sentence (n_i, L, D) arrays."""
    n_max = max(1, max((len(a) for a in arrays), default=1))
    L, D = arrays[0].shape[1:]
    x = np.zeros((len(arrays), n_max, L, D), dtype=np.float16)
    m = np.zeros((len(arrays), n_max), dtype=bool)
    for i, a in enumerate(arrays):
        x[i, : len(a)] = a
        m[i, : len(a)] = True
    return torch.from_numpy(x), torch.from_numpy(m)
