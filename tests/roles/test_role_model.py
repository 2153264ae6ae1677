"""The role model's aggregation and alignment on hand-made parses and vectors (no data, no spaCy)."""
import math

import numpy as np
import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.errors import DataError
from compeval.models.families.roles import PAPER_WEIGHTS, ROLES, ParseTable, RoleModel, combine_role_similarities
from compeval.models.families.roles import role_comparisons
from compeval.linguistics.roles import clean_parse
from compeval.models.families.toy import TableEncoder


def parse(**roles):
    return clean_parse(roles)


def test_basic_divides_by_all_weights_and_norm_by_matched_ones():
    sims = np.full((1, 8), np.nan)
    sims[0, ROLES.index("Verb")] = 1.0   # weight 3
    sims[0, ROLES.index("Agent")] = 0.5  # weight 2
    assert combine_role_similarities(sims, form="basic")[0] == pytest.approx((3 * 1.0 + 2 * 0.5) / 11)
    assert combine_role_similarities(sims, form="norm")[0] == pytest.approx((3 * 1.0 + 2 * 0.5) / 5)


def test_no_matched_role_gives_zero_basic_and_nan_norm():
    sims = np.full((1, 8), np.nan)
    assert combine_role_similarities(sims, form="basic")[0] == 0.0
    assert math.isnan(combine_role_similarities(sims, form="norm")[0])


def test_custom_weights_are_used():
    sims = np.array([[1.0, 0.0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan]])
    assert combine_role_similarities(sims, weights=(1, 1, 0, 0, 0, 0, 0, 0))[0] == pytest.approx(0.5)


def test_cross_role_alignment_keeps_score_under_first_role_and_drops_second():
    a = parse(Agent="the dog", Verb="ran", Location="in the park")
    b = parse(Agent="the dog", Verb="ran", Trajectory="through the park")
    comps = role_comparisons(a, b)
    assert ("Location", "in the park", "through the park") in comps
    assert all(role != "Trajectory" for role, _, _ in comps)


def test_alignment_works_in_both_directions_and_only_once_per_role():
    # Theme only in b, Patient only in a: (Theme, Patient) aligns with Theme taken from b.
    a = parse(Verb="gave", Patient="the boy", Manner="kindly")
    b = parse(Verb="gave", Theme="a book")
    comps = role_comparisons(a, b)
    assert ("Theme", "the boy", "a book") in comps
    # Theme is now filled on both sides, so (Theme, Manner) must not fire as well.
    assert not any(role == "Theme" and x == "kindly" for role, x, _ in comps)
    assert len([c for c in comps if c[0] == "Theme"]) == 1


def test_no_alignment_when_a_role_is_filled_in_both_sentences():
    a = parse(Verb="sat", Location="on the mat", Trajectory="home")
    b = parse(Verb="sat", Location="on the rug")
    comps = role_comparisons(a, b)
    assert [c[0] for c in comps] == ["Verb", "Location"]
    assert role_comparisons(a, b, align=False) == comps


def _model(form="basic", missing="error"):
    vectors = {"dog": [1, 0, 0], "cat": [0.6, 0.8, 0], "ran": [0, 0, 1], "sat": [0, 1, 0],
               "park": [1, 1, 0], "garden": [1, 1, 0]}
    table = ParseTable()
    table.add_pair("the dog ran in the park", "the cat sat",
                   parse(Agent="the dog", Verb="ran", Location="in the park"),
                   parse(Agent="the cat", Verb="sat"))
    table.add_text("the dog ran in the garden", parse(Agent="the dog", Verb="ran", Location="in the garden"))

    class Words(TableEncoder):
        """Mean of word vectors over words it knows (stop words unknown), like a static model."""

        def encode(self, texts):
            out = []
            for t in texts:
                vs = [self.table[w] for w in t.lower().split() if w in self.table]
                out.append(np.mean(vs, axis=0) if vs else np.zeros(3, np.float32))
            return np.array(out)

    inner = EmbeddingCache(None).wrap(Words(vectors))
    return RoleModel(inner, table, "test", form=form, missing=missing)


def test_role_model_scores_hand_made_pair():
    model = _model()
    sims = model.role_similarity_matrix(["the dog ran in the park"], ["the cat sat"])[0]
    assert sims[ROLES.index("Agent")] == pytest.approx(0.6)  # cos(dog, cat)
    assert sims[ROLES.index("Verb")] == pytest.approx(0.0)   # cos(ran, sat)
    assert math.isnan(sims[ROLES.index("Location")])          # only one sentence has a location
    expected_basic = (2 * 0.6 + 3 * 0.0) / sum(PAPER_WEIGHTS)
    assert model.score_pairs(["the dog ran in the park"], ["the cat sat"])[0] == pytest.approx(expected_basic)
    norm = _model(form="norm").score_pairs(["the dog ran in the park"], ["the cat sat"])[0]
    assert norm == pytest.approx((2 * 0.6) / 5)


def test_identical_parses_score_one_in_norm_form():
    model = _model(form="norm")
    assert model.score_pairs(["the dog ran in the park"], ["the dog ran in the garden"])[0] == pytest.approx(1.0)


def test_missing_parse_names_the_sentence_or_gives_nan():
    with pytest.raises(DataError, match="a sentence nobody parsed"):
        _model().score_pairs(["the dog ran in the park"], ["a sentence nobody parsed"])
    out = _model(missing="nan").score_pairs(["the dog ran in the park", "the dog ran in the park"],
                                            ["a sentence nobody parsed", "the cat sat"])
    assert math.isnan(out[0]) and not math.isnan(out[1])


def test_config_records_parses_form_weights_and_inner_model():
    cfg = _model(form="norm").config
    assert cfg.family == "roles.v1"
    assert cfg.params["form"] == "norm" and cfg.params["parses_sha256"]
    assert cfg.params["weights"] == "2/3/2/2/0.5/0.5/0.5/0.5"
    assert len(cfg.children) == 1
    assert cfg.id != _model(form="basic").config.id


def test_na_and_none_markers_mean_empty():
    p = clean_parse({"Agent": "NA", "Verb": "runs", "Theme": "NONE", "Purpose": "fun"})
    assert p["Agent"] is None and p["Theme"] is None and p["Verb"] == "runs"
    assert set(p) == set(ROLES)
