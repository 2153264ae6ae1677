"""Each relation on tiny hand-built vectors where it is known to hold, fail or tie."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from compeval.tasks.modifiers.measures import (Embedded, adjective_weights, all_compared_ignored, intersectivity,
                                               non_subsectivity, pair_intersectivity)
from compeval.tasks.modifiers.stimuli import PAD


def embedded(vectors: dict[str, list[float]]) -> tuple[Embedded, dict[str, int]]:
    names = list(vectors)
    emb = Embedded(np.array([vectors[n] for n in names], dtype=np.float32), np.arange(len(names)), len(names))
    return emb, {n: i for i, n in enumerate(names)}


def an_test1(vectors: dict, ignore_ge1: bool = False) -> bool:
    """Test 1 for one AN phrase "p" = "a" + "n"."""
    emb, i = embedded(vectors)
    d_words = emb.dist(np.array([[i["p"]]]), np.array([[i["a"], i["n"], PAD]]))
    d_parts = emb.dist(np.array([[i["a"], PAD, PAD]]), np.array([[i["n"], PAD, PAD]]))
    return bool(intersectivity(d_words, d_parts, ignore_ge1)[0])


def test_distance_is_one_minus_cosine_and_zero_vector_is_distance_one():
    emb, i = embedded({"x": [1, 0], "y": [1, 1], "z": [0, 0]})
    d = emb.dist(np.array([i["x"], i["x"], i["z"], PAD]), np.array([i["y"], i["x"], i["y"], i["x"]]))
    assert d[0] == pytest.approx(1 - 1 / np.sqrt(2))
    assert d[1] == pytest.approx(0.0)
    assert d[2] == 1.0
    assert np.isnan(d[3])
    assert emb.zero_rows.tolist() == [False, False, True]


def test_test1_an_holds_fails_and_tie_passes():
    a, n = [1, 0], [0, 1]
    assert an_test1({"p": [1, 1], "a": a, "n": n})  # the mean: closer to each word than they are to each other
    assert not an_test1({"p": [1, -1], "a": a, "n": n})  # d(p, n) = 1.71 > d(a, n) = 1
    assert an_test1({"p": a, "a": a, "n": n})  # d(p, n) == d(a, n) exactly: a tie passes


def test_test1_aan_uses_every_split():
    e = np.eye(3).tolist()
    base = {"p": [1, 1, 1], "w1": e[0], "w2": e[1], "w3": e[2],
            "w2 w3": [0, 1, 1], "w1 w3": [1, 0, 1], "w1 w2": [1, 1, 0]}

    def run(vectors):
        emb, i = embedded(vectors)
        d_words = emb.dist(np.array([[i["p"]]]), np.array([[i["w1"], i["w2"], i["w3"]]]))
        d_parts = emb.dist(np.array([[i["w1"], i["w2"], i["w3"]]]), np.array([[i["w2 w3"], i["w1 w3"], i["w1 w2"]]]))
        return bool(intersectivity(d_words, d_parts)[0])

    assert run(base)  # d(p, w) = 0.42 < 1 = every split distance
    assert not run({**base, "w1 w2": [0.1, 0.1, 1]})  # d(w3, "w1 w2") = 0.01 < d(p, w) = 0.42
    tie = {name: [1, 1, 1] for name in base}
    assert run(tie)  # every distance 0: all ties, so it passes


def test_test1_aan_tie_between_word_and_split_passes():
    e = np.eye(3).tolist()
    vectors = {"p": [1, 1, 1], "w1": e[0], "w2": e[1], "w3": e[2], "w2 w3": [0, 1, 1], "w1 w3": [1, 0, 1],
               "w1 w2": [1, 1, 1]}  # d(w3, "w1 w2") == d(w3, p) exactly, the largest word distance
    emb, i = embedded(vectors)
    d_words = emb.dist(np.array([[i["p"]]]), np.array([[i["w1"], i["w2"], i["w3"]]]))
    d_parts = emb.dist(np.array([[i["w1"], i["w2"], i["w3"]]]), np.array([[i["w2 w3"], i["w1 w3"], i["w1 w2"]]]))
    assert d_words.max() == d_parts.min()
    assert intersectivity(d_words, d_parts)[0]
    vectors["w1 w2"] = [1, 1, 1.01]  # a hair further from w3 than p is... still passes
    emb, i = embedded(vectors)
    d_parts = emb.dist(np.array([[i["w1"], i["w2"], i["w3"]]]), np.array([[i["w2 w3"], i["w1 w3"], i["w1 w2"]]]))
    assert d_parts.min() < d_words.max()
    assert not intersectivity(d_words, d_parts)[0]


def test_test1_filter_ignores_distances_of_one_or_more():
    vectors = {"p": [-1, 0.1], "a": [1, 0], "n": [0.5, 1]}  # both d(p, w) > 1, d(a, n) = 0.55
    assert not an_test1(vectors)
    assert an_test1(vectors, ignore_ge1=True)  # every comparison dropped: passes vacuously (authors' code)
    emb, i = embedded(vectors)
    d_words = emb.dist(np.array([[i["p"]]]), np.array([[i["a"], i["n"], PAD]]))
    d_parts = emb.dist(np.array([[i["a"], PAD, PAD]]), np.array([[i["n"], PAD, PAD]]))
    assert all_compared_ignored(d_words, d_parts)[0]


def test_test2_strict_inequality_both_directions_and_tie():
    # Two adjectives × two nouns; "x" keeps its two phrases close, "y" does not.
    vectors = {"x n1": [1, 0.1], "x n2": [1, -0.1], "y n1": [1, 1], "y n2": [1, -1]}
    emb, i = embedded(vectors)
    grid = np.array([[i["x n1"], i["x n2"]], [i["y n1"], i["y n2"]]])
    cases = pair_intersectivity(emb, grid)
    got = {(int(a1), int(a2)): bool(h) for a1, a2, h in zip(cases["adj1"], cases["adj2"], cases["holds"])}
    assert got == {(0, 1): True, (1, 0): False}
    assert len(cases["holds"]) == 2 * 1 * 1  # ordered adjective pairs × noun pairs n < n'
    tie = pair_intersectivity(emb, np.array([[i["x n1"], i["x n2"]], [i["x n1"], i["x n2"]]]))
    assert not tie["holds"].any()  # equal distances: strict <, both directions fail


def test_test2_counts_on_full_grid_shape():
    rng = np.random.default_rng(0)
    emb = Embedded(rng.standard_normal((61 * 12, 4)).astype(np.float32), np.arange(61 * 12), 61 * 12)
    cases = pair_intersectivity(emb, np.arange(61 * 12).reshape(61, 12))
    assert len(cases["holds"]) == 61 * 60 * 66
    assert (cases["noun1"] < cases["noun2"]).all() and (cases["adj1"] != cases["adj2"]).all()
    # each unordered adjective pair holds in at most one direction (strict)
    key = cases["adj1"] * 61 + cases["adj2"]
    mirror = cases["adj2"] * 61 + cases["adj1"]
    by_key = dict(zip(zip(key.tolist(), cases["noun1"].tolist(), cases["noun2"].tolist()), cases["holds"].tolist()))
    both = [by_key[(m, n1, n2)] and h for m, n1, n2, h in
            zip(mirror.tolist(), cases["noun1"].tolist(), cases["noun2"].tolist(), cases["holds"].tolist())]
    assert not any(both)


def test_test3_strict():
    emb, i = embedded({"p": [1, 0.2], "a": [1, 0], "n": [0, 1], "q": [1, 1]})
    d_adj = emb.dist(np.array([i["p"], i["q"], i["q"]]), np.array([i["a"], i["a"], i["n"]]))
    d_noun = emb.dist(np.array([i["p"], i["q"], i["p"]]), np.array([i["n"], i["n"], i["a"]]))
    # p is near the adjective: holds; q is equidistant: a tie fails; third row reversed: fails.
    assert non_subsectivity(d_adj, d_noun).tolist() == [True, False, False]


def test_adjective_weights():
    d = np.array([[0.2, 0.6, np.nan], [0.1, 0.2, 0.7], [0.0, 0.0, np.nan]])
    w = adjective_weights(d, np.array([1, 2, 1]))
    assert w[0, 0] == pytest.approx(0.25) and np.isnan(w[0, 1])
    assert w[1].tolist() == pytest.approx([0.1, 0.2])
    assert np.isnan(w[2]).all()  # zero total: undefined, not a weight of 0


@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=8, max_size=8),
       st.lists(st.floats(-10, 10, allow_nan=False), min_size=8, max_size=8))
@settings(max_examples=200, deadline=None)
def test_mean_of_two_words_always_passes_test1(a, n):
    a, n = np.array(a), np.array(n)
    cos = a @ n / (np.linalg.norm(a) * np.linalg.norm(n) + 1e-300)
    assume(np.linalg.norm(a) > 1e-3 and np.linalg.norm(n) > 1e-3 and abs(cos) < 0.999)  # parallel: a float tie
    assert an_test1({"p": ((a + n) / 2).tolist(), "a": a.tolist(), "n": n.tolist()})
