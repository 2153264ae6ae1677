"""WWLK: the Wasserstein Weisfeiler-Leman graph kernel (Opitz, Daza & Frank 2021), the STS3k paper's
"AMR-WWLK" row, over any PENMAN graph; the steps and the differences from the authors are in docs/hybrid.md.

Nodes start from the word vectors of their labels (sense removed, split on ``-``, element-wise max); each
iteration adds the mean of ``w(edge label) · x(u)`` over in- and out-neighbours; the score is minus the exact
earth mover's distance (``ot.emd2``) between the unit-length concatenated node vectors. The random parts
(labels without a vector, edge weights) derive from a seed and the label's text, so a pair's score depends
on that pair only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from .... import seeds

EDGE_WEIGHT_RANGE = (0.25, 0.35)
_SENSE = re.compile(r"-[0-9]+")


@dataclass(frozen=True)
class LabelledGraph:
    labels: tuple[str, ...]  # node i's label
    edges: tuple[tuple[int, int, str], ...]  # (source, target, relation)


def penman_graph(graph_text: str) -> LabelledGraph:
    """Concept and constant nodes with directed, labelled edges (PENMAN has already undone ``:X-of``)."""
    import penman  # compeval[graphs], imported where used (see metrics.py)

    g = penman.decode(graph_text)
    index: dict[str, int] = {}
    labels: list[str] = []
    for var, _, concept in g.instances():
        if var not in index:
            index[var] = len(labels)
            labels.append(str(concept) if concept is not None else "?")
    edges = []
    for src, role, tgt in g.edges():
        for var in (src, tgt):
            if var not in index:  # a variable without a concept (malformed but parseable)
                index[var] = len(labels)
                labels.append("?")
        edges.append((index[src], index[tgt], role))
    for src, role, value in g.attributes():
        if src not in index:
            index[src] = len(labels)
            labels.append("?")
        labels.append(str(value))
        edges.append((index[src], len(labels) - 1, role))
    return LabelledGraph(tuple(labels), tuple(edges))


def label_keys(label: str) -> list[str]:
    """The word-vector keys of a node label, as the authors looked them up; [] = no lookup (polarity)."""
    s = label.strip()
    if s == "-":
        return []
    s = _SENSE.sub("", s.replace('"', "").replace("'", "").lower())
    return [k for k in s.split("-") if k]


def _seeded_uniform(seed: int, kind: str, text: str, size: int, low: float, high: float) -> np.ndarray:
    return seeds.keyed_rng(f"{seed}\0{kind}\0{text}").uniform(low, high, size)


def edge_weight(role: str, seed: int = 0) -> float:
    return float(_seeded_uniform(seed, "edge", role, 1, *EDGE_WEIGHT_RANGE)[0])


def initial_vectors(labels: tuple[str, ...], vectors: Mapping[str, np.ndarray], dim: int, seed: int) -> np.ndarray:
    """Row i: the element-wise max of the label's known key vectors, else a seeded uniform [0, 1) vector."""
    out = np.empty((len(labels), dim))
    for i, label in enumerate(labels):
        known = [vectors[k] for k in label_keys(label) if k in vectors]
        out[i] = np.max(known, axis=0) if known else _seeded_uniform(seed, "node", label, dim, 0.0, 1.0)
    return out


def wl_embeddings(graph: LabelledGraph, x0: np.ndarray, weight: Callable[[str], float], iterations: int) -> np.ndarray:
    """Concatenated node vectors after 0…``iterations`` WL steps, each row scaled to unit length."""
    n = len(graph.labels)
    # (node, neighbour, direction) → product of the weights of the parallel edges between them
    links: dict[tuple[int, int, str], float] = {}
    for s, t, role in graph.edges:
        w = weight(role)
        links[(s, t, "out")] = links.get((s, t, "out"), 1.0) * w
        links[(t, s, "in")] = links.get((t, s, "in"), 1.0) * w
    mix = np.zeros((n, n))  # row v: mean over v's neighbour links of w · x(u)
    counts = np.zeros(n)
    for (v, u, _), w in links.items():
        mix[v, u] += w
        counts[v] += 1
    mix[counts > 0] /= counts[counts > 0, None]
    steps = [x0]
    x = x0
    for _ in range(iterations):
        x = x + mix @ x
        steps.append(x)
    emb = np.concatenate(steps, axis=1)
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    return emb / np.where(norms > 0, norms, 1.0)


def wasserstein_distance(emb_a: np.ndarray, emb_b: np.ndarray) -> float:
    """Exact earth mover's distance between two uniform point sets under the Euclidean cost (POT)."""
    import ot

    if not len(emb_a) or not len(emb_b):
        return float("nan")
    a = np.full(len(emb_a), 1.0 / len(emb_a))
    b = np.full(len(emb_b), 1.0 / len(emb_b))
    cost = ot.dist(emb_a, emb_b, metric="euclidean")
    return float(ot.emd2(a, b, cost))
