"""Graph similarity metrics over PENMAN graphs (AMR or dependency): AMR-CN paths, SMATCH F1, WL kernel.

``smatch`` reseeds Python's global ``random`` from the clock, so ``smatch_f1`` gives it a private generator
seeded from a seed and the two graphs (a pair's score never depends on its batch). The WL kernel is the
cosine of networkx's WL subtree label counts (Shervashidze et al. 2011)."""
from __future__ import annotations

import random
from collections import Counter
from contextlib import contextmanager
from typing import Iterator

# networkx and penman (compeval[graphs]) are imported where used, so that the graph families register on a
# base install (and `compeval models` says which extra they need) instead of failing discovery.

from .... import seeds

MAIN = "MAIN"


# ----------------------------------------------------------------------------------------------
# AMR-CN: role paths → fillers
# ----------------------------------------------------------------------------------------------

def _strip_sense(concept: str) -> str:
    """``make-01`` → ``make``; constants such as ``-`` (polarity) or ``"Bob"`` keep their text."""
    c = concept.strip('"')
    if c.startswith("-") or not c:
        return c
    return c.split("-")[0].lower()


def flatten_paths(graph_text: str) -> dict[str, str]:
    """``{role path: filler}``: the path is the chain of relations from the root (the root itself is
    ``MAIN``), the filler the node's concept without its sense suffix (or the constant). As in the
    authors' code a path that occurs twice keeps its last filler. A re-entrant node's filler is its
    concept (the authors' line-based reader took the variable name there)."""
    import penman

    tree = penman.parse(graph_text)
    concepts: dict[str, str] = {}
    for var, branches in _walk_nodes(tree.node):
        for role, target in branches:
            if role == "/":
                concepts[var] = target
    out: dict[str, str] = {}

    def visit(node, path: str) -> None:
        var, branches = node
        out[path] = _strip_sense(concepts.get(var, str(var)))
        for role, target in branches:
            if role == "/":
                continue
            sub = f"{path}.{role.lstrip(':')}"
            if isinstance(target, tuple):
                visit(target, sub)
            else:
                out[sub] = _strip_sense(concepts.get(target, target))

    visit(tree.node, MAIN)
    return out


def _walk_nodes(node) -> Iterator[tuple[str, list]]:
    var, branches = node
    yield var, branches
    for _, target in branches:
        if isinstance(target, tuple):
            yield from _walk_nodes(target)


# ----------------------------------------------------------------------------------------------
# SMATCH
# ----------------------------------------------------------------------------------------------

class _SeededRandom(random.Random):
    """A generator whose argument-less ``seed()`` (smatch calls it before each start) keeps its state."""

    def seed(self, a=None, version=2):  # noqa: D401
        if a is not None:
            super().seed(a, version)


@contextmanager
def _smatch_random(seed: int):
    import smatch

    saved = smatch.random
    smatch.random = _SeededRandom(seed)
    try:
        yield smatch
    finally:
        smatch.random = saved


def one_line(graph_text: str) -> str:
    """A PENMAN graph on one line without metadata (smatch's reader wants that)."""
    import penman

    tree = penman.parse(graph_text)
    tree.metadata.clear()
    return penman.format(tree, indent=None)


def smatch_counts(graph_a: str, graph_b: str, restarts: int = 5, seed: int = 0) -> tuple[int, int, int]:
    """(matched triples, triples of a, triples of b) under the best variable mapping found."""
    a, b = one_line(graph_a), one_line(graph_b)
    pair_seed = seeds.keyed(f"{seed}\0{a}\0{b}")
    with _smatch_random(pair_seed) as smatch:
        old_iter = smatch.iteration_num
        smatch.iteration_num = restarts
        smatch.match_triple_dict.clear()
        try:
            return smatch.get_amr_match(a, b)
        finally:
            smatch.iteration_num = old_iter
            smatch.match_triple_dict.clear()


def smatch_f1(graph_a: str, graph_b: str, restarts: int = 5, seed: int = 0) -> float:
    """SMATCH F1 = 2·matched / (triples of a + triples of b). The authors divided the raw match count
    by 12 instead; this is the proper F1."""
    match, n_a, n_b = smatch_counts(graph_a, graph_b, restarts, seed)
    return 2.0 * match / (n_a + n_b) if n_a + n_b else float("nan")


# ----------------------------------------------------------------------------------------------
# Weisfeiler-Leman subtree kernel
# ----------------------------------------------------------------------------------------------

def to_networkx(graph_text: str, strip_senses: bool = False) -> "nx.Graph":
    """Nodes labelled with concepts (constants become their own nodes), edges with relation names.
    Undirected, so that WL sees both a node's parent and its children; PENMAN has already turned
    inverted roles (``:ARG0-of``) back into their base direction."""
    import networkx as nx
    import penman

    g = penman.decode(graph_text)
    out = nx.Graph()
    for var, _, concept in g.instances():
        out.add_node(var, label=_strip_sense(concept) if strip_senses else str(concept))
    for src, role, tgt in g.edges():
        for var in (src, tgt):
            if var not in out:
                out.add_node(var, label="?")  # a variable without a concept (malformed but parseable)
        out.add_edge(src, tgt, label=role)
    for k, (src, role, value) in enumerate(g.attributes()):
        const = f"__const{k}"
        out.add_node(const, label=str(value).strip('"'))
        out.add_edge(src, const, label=role)
    return out


def wl_features(graph_text: str, iterations: int = 2, strip_senses: bool = False) -> Counter:
    """Counts of the initial node labels and of every WL subtree hash up to ``iterations``."""
    import networkx as nx

    g = to_networkx(graph_text, strip_senses)
    counts: Counter = Counter(f"0:{d['label']}" for _, d in g.nodes(data=True))
    if iterations > 0 and g.number_of_nodes():
        hashes = nx.weisfeiler_lehman_subgraph_hashes(g, edge_attr="label", node_attr="label",
                                                      iterations=iterations)
        for per_node in hashes.values():
            counts.update(f"{i + 1}:{h}" for i, h in enumerate(per_node))
    return counts


def wl_similarity(feats_a: Counter, feats_b: Counter) -> float:
    """Normalised WL subtree kernel: k(a, b) / sqrt(k(a, a) · k(b, b)) with k the dot product of counts."""
    dot = sum(v * feats_b.get(k, 0) for k, v in feats_a.items())
    na = sum(v * v for v in feats_a.values())
    nb = sum(v * v for v in feats_b.values())
    return dot / (na * nb) ** 0.5 if na and nb else float("nan")
