"""SMATCH, WL and AMR-CN on small hand-made graphs whose scores can be counted by hand."""
import math

import numpy as np
import pytest

from compeval.errors import DataError
from compeval.models.families.graphs.metrics import flatten_paths, smatch_counts, smatch_f1, wl_features, wl_similarity
from compeval.models.families.graphs.models import AmrCnModel, SmatchModel, WLModel
from compeval.models.families.graphs.sources import GraphTable, read_penman_text

BOY = "(w / want-01 :ARG0 (b / boy))"
GIRL = "(w / want-01 :ARG0 (g / girl))"
BOY_GO = "(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b))"


def test_identical_graphs_score_one_even_with_other_variable_names():
    assert smatch_f1(BOY, "(x / want-01 :ARG0 (y / boy))") == 1.0


def test_one_changed_concept_out_of_four_triples():
    # Triples per graph: 2 instances, 1 relation, 1 TOP; all but the boy/girl instance match.
    assert smatch_counts(BOY, GIRL) == (3, 4, 4)
    assert smatch_f1(BOY, GIRL) == pytest.approx(0.75)


def test_subgraph_f1_from_counts():
    # BOY_GO has 3 instances, 3 relations, TOP = 7 triples; BOY's 4 all match: F1 = 8 / 11.
    match, n_a, n_b = smatch_counts(BOY, BOY_GO)
    assert (match, n_a, n_b) == (4, 4, 7)
    assert smatch_f1(BOY, BOY_GO) == pytest.approx(8 / 11)


def test_smatch_is_symmetric_and_seeded():
    big_a = "(a / and :op1 (b / eat-01 :ARG0 (c / cat) :ARG1 (d / fish)) :op2 (e / sleep-01 :ARG0 c))"
    big_b = "(x / and :op1 (y / sleep-01 :ARG0 (z / cat)) :op2 (u / eat-01 :ARG0 z :ARG1 (v / mouse)))"
    assert smatch_f1(big_a, big_b) == smatch_f1(big_b, big_a)
    assert smatch_f1(big_a, big_b, seed=3) == smatch_f1(big_a, big_b, seed=3)


def test_wl_kernel_bounds_and_structure_sensitivity():
    fa, fb = wl_features(BOY), wl_features(GIRL)
    assert wl_similarity(fa, fa) == pytest.approx(1.0)
    assert 0.0 < wl_similarity(fa, fb) < 1.0
    # Same concepts, swapped roles: equal at iteration 0, lower once neighbourhoods count.
    x = "(c / chase-01 :ARG0 (d / dog) :ARG1 (k / cat))"
    y = "(c / chase-01 :ARG0 (k / cat) :ARG1 (d / dog))"
    assert wl_similarity(wl_features(x, 0), wl_features(y, 0)) == pytest.approx(1.0)
    assert wl_similarity(wl_features(x, 2), wl_features(y, 2)) < 1.0


def test_flatten_paths_follows_relations_from_the_root():
    paths = flatten_paths(BOY_GO)
    assert paths == {"MAIN": "want", "MAIN.ARG0": "boy", "MAIN.ARG1": "go", "MAIN.ARG1.ARG0": "boy"}


class Vectors:
    """Word vectors for AMR-CN tests: 'boy' and 'girl' at cosine 0.5, anything else unknown (zero)."""

    config = type("C", (), {"display": "toy"})()

    def encode(self, texts):
        table = {"want": [1, 0, 0], "boy": [0, 1, 0], "girl": [0, 0.5, 0.8660254]}
        return np.array([table.get(t, [0, 0, 0]) for t in texts], dtype=float)


def _table(pairs):
    table = GraphTable(name="test")
    for text, graph in pairs:
        table.add(text, graph)
    return table


def test_amr_cn_dice_average_with_string_match_for_unknown_words():
    from compeval.models.protocol import ModelConfig

    Vectors.config = ModelConfig(family="toy.v1", name="toy")
    table = _table([("a boy wants", BOY), ("a girl wants", GIRL), ("a boy wants to go", BOY_GO)])
    model = AmrCnModel(Vectors(), table)
    # Shared paths MAIN (want/want = 1) and MAIN.ARG0 (boy/girl = 0.5): 2 * 1.5 / (2 + 2).
    assert model.score_pairs(["a boy wants"], ["a girl wants"])[0] == pytest.approx(0.75)
    # 'go' is unknown to the vectors, but only shared paths count: 2 * 2 / (2 + 4).
    assert model.score_pairs(["a boy wants"], ["a boy wants to go"])[0] == pytest.approx(4 / 6)


def test_missing_graph_error_names_the_sentence_and_nan_option():
    table = _table([("a boy wants", BOY)])
    with pytest.raises(DataError, match="an unknown sentence"):
        SmatchModel(table).score_pairs(["a boy wants"], ["an unknown sentence"])
    out = WLModel(table, missing="nan").score_pairs(["a boy wants", "a boy wants"],
                                                   ["an unknown sentence", "a boy wants"])
    assert math.isnan(out[0]) and out[1] == pytest.approx(1.0)


def test_penman_text_files_are_keyed_by_their_snt_lines(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# ::snt-1 A boy wants.\n" + BOY + "\n\n# ::snt-2 A girl  wants.\n" + GIRL + "\n")
    table = GraphTable()
    read_penman_text(table, path)
    boy, girl = table.lookup(["A boy wants.", " A girl wants. "])
    assert boy.endswith(BOY) and girl.endswith(GIRL)
