"""WWLK (Wasserstein Weisfeiler-Leman kernel) on hand-made graphs with known vectors, plus a released-AMR run."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("ot")

from compeval.models.families.graphs.sources import GraphTable  # noqa: E402
from compeval.models.families.graphs.models import WWLKModel  # noqa: E402
from compeval.models.families.graphs.wwlk import (edge_weight, initial_vectors, label_keys, penman_graph,  # noqa: E402
                                         wasserstein_distance, wl_embeddings)
from compeval.models.protocol import ModelConfig  # noqa: E402
from compeval.models.registry import load_model  # noqa: E402


class Vectors:
    """Two-dimensional word vectors; unknown words get the zero vector (compeval's static convention)."""

    config = ModelConfig(family="toy.v1", name="toy2d")
    table = {"dog": [1.0, 0.0], "big": [0.0, 1.0], "cat": [0.6, 0.8], "want": [0.8, 0.6], "boy": [0.0, 1.0],
             "have": [1.0, 0.0], "org": [0.0, 2.0], "role": [0.5, 0.5]}

    def encode(self, texts):
        return np.array([self.table.get(t, [0.0, 0.0]) for t in texts])


def _model(pairs, **kw):
    table = GraphTable(name="test")
    for text, graph in pairs:
        table.add(text, graph)
    return WWLKModel(Vectors(), table, **kw)


DOG = "(d / dog)"
CAT = "(c / cat)"
BIG_DOG = "(d / dog :mod (b / big))"
WANT = '(w / want-01 :ARG0 (b / boy) :polarity - :ARG1 (d / dog :name (n / name :op1 "Rex")))'


def test_labels_become_keys_as_the_authors_looked_them_up():
    assert label_keys("have-org-role-91") == ["have", "org", "role"]
    assert label_keys('"Rex"') == ["rex"] and label_keys("-") == []
    g = penman_graph(WANT)
    assert sorted(g.labels) == sorted(["want-01", "boy", "dog", "name", "-", '"Rex"'])
    roles = {(g.labels[s], r, g.labels[t]) for s, t, r in g.edges}
    assert ("want-01", ":polarity", "-") in roles and ("name", ":op1", '"Rex"') in roles
    x0 = initial_vectors(("have-org-role-91",), {k: np.array(v) for k, v in Vectors.table.items()}, 2, 0)
    np.testing.assert_allclose(x0[0], [1.0, 2.0])  # element-wise max over have, org, role


def test_identical_graphs_have_distance_zero_and_the_maximum_score():
    m = _model([("w", WANT), ("d", BIG_DOG), ("c", CAT)])
    same = m.score_pairs(["w", "d", "c"], ["w", "d", "c"])
    np.testing.assert_allclose(same, 0.0, atol=1e-12)
    other = m.score_pairs(["w", "d", "c"], ["d", "c", "w"])
    assert (other < -1e-6).all()


def test_symmetric_and_independent_of_the_batch():
    m = _model([("w", WANT), ("d", BIG_DOG), ("c", CAT), ("x", DOG)])
    ab = m.score_pairs(["w", "d", "c"], ["d", "c", "x"])
    ba = m.score_pairs(["d", "c", "x"], ["w", "d", "c"])
    np.testing.assert_allclose(ab, ba, rtol=0, atol=1e-12)
    fresh = _model([("w", WANT), ("d", BIG_DOG), ("c", CAT), ("x", DOG)])
    assert fresh.score_pairs(["c"], ["x"])[0] == ab[2]  # one pair alone: same score


def test_single_nodes_are_the_distance_of_their_unit_vectors():
    # No neighbours: every iteration keeps x0, the unit concatenation is [u, u, u]/√3, so the distance
    # is |u_dog − u_cat| = |(1, 0) − (0.6, 0.8)| = √(0.16 + 0.64).
    m = _model([("d", DOG), ("c", CAT)])
    assert m.score_pairs(["d"], ["c"])[0] == pytest.approx(-math.sqrt(0.8), abs=1e-12)


def test_a_hand_computed_two_node_case():
    """'big dog' (dog :mod big, weight w = 0.5, one iteration) against 'dog' alone, by hand:
    x1(dog) = (1, 0) + 0.5·(0, 1) = (1, .5), x1(big) = (0, 1) + 0.5·(1, 0) = (.5, 1);
    unit rows: dog [1, 0, 1, .5]/1.5, big [0, 1, .5, 1]/1.5; lone dog [1, 0, 1, 0]/√2.
    The lone dog takes half of each node's mass: EMD = (|dog − lone| + |big − lone|) / 2."""
    g1, g2 = penman_graph(BIG_DOG), penman_graph(DOG)
    vecs = {"dog": np.array([1.0, 0.0]), "big": np.array([0.0, 1.0])}
    e1 = wl_embeddings(g1, initial_vectors(g1.labels, vecs, 2, 0), lambda role: 0.5, 1)
    e2 = wl_embeddings(g2, initial_vectors(g2.labels, vecs, 2, 0), lambda role: 0.5, 1)
    r = 1 / math.sqrt(2)
    d_dog = math.sqrt(2 * (2 / 3 - r) ** 2 + (1 / 3) ** 2)
    d_big = math.sqrt(r ** 2 + (2 / 3) ** 2 + (1 / 3 - r) ** 2 + (2 / 3) ** 2)
    assert wasserstein_distance(e1, e2) == pytest.approx((d_dog + d_big) / 2, abs=1e-12)
    assert (d_dog + d_big) / 2 == pytest.approx(0.7872, abs=1e-4)


def test_edge_weights_and_unknown_vectors_are_seeded_by_label():
    assert 0.25 <= edge_weight(":ARG0") <= 0.35 and edge_weight(":ARG0") == edge_weight(":ARG0", 0)
    assert edge_weight(":ARG0", 0) != edge_weight(":ARG0", 1) != edge_weight(":ARG1", 1)
    a = initial_vectors(("zzz-unknown",), {}, 4, seed=3)
    assert ((a >= 0) & (a < 1)).all()
    np.testing.assert_array_equal(a, initial_vectors(("zzz-unknown",), {}, 4, seed=3))
    assert not np.array_equal(a, initial_vectors(("zzz-unknown",), {}, 4, seed=4))
    m0 = _model([("w", WANT), ("d", BIG_DOG)], seed=0)
    m1 = _model([("w", WANT), ("d", BIG_DOG)], seed=1)
    assert m0.config.id != m1.config.id
    assert m0.score_pairs(["w"], ["d"])[0] != m1.score_pairs(["w"], ["d"])[0]


def test_spec_builds_on_released_amr_and_dependency_graphs(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPEVAL_CACHE_DIR", str(tmp_path))
    amr = load_model("wwlk:amr", data_dir=data_dir)
    assert amr.config.family == "wwlk.v1" and amr.config.display == "wwlk:amr"
    assert amr.config.children[0].name == "glove-6b-50d"
    s = ["A man is playing a guitar.", "A man is playing a flute."]
    dep = load_model("wwlk:dep,iterations=1")
    assert dep.config.display == "wwlk:dep,iterations=1"
    score = dep.score_pairs(s[:1], s[1:])[0]
    assert -2 < score < 0 and dep.score_pairs(s[:1], s[:1])[0] == pytest.approx(0, abs=1e-12)


def test_without_pot_installed_the_hint_names_the_extra(monkeypatch):
    from compeval.errors import SpecError

    monkeypatch.setitem(__import__("sys").modules, "ot", None)
    with pytest.raises(SpecError, match=r"pip install 'compeval\[graphs\]'"):
        load_model("wwlk:dep")
