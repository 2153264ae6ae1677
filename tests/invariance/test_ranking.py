"""AUC and normalised rank against hand-computed values, ties and missing scores included."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from compeval.metrics.ranking import normalised_rank, normalised_ranks, roc_auc, roc_auc_ci, roc_auc_rows


def test_auc_hand_computed_with_ties():
    # 12 positive-negative pairs: 3 beats all 3 (3); each 2 beats 0 and 1, ties 2 (2.5 × 2);
    # 1 beats 0, ties 1, loses to 2 (1.5). Total 9.5 / 12.
    assert roc_auc([3, 2, 2, 1], [2, 0, 1]) == pytest.approx(9.5 / 12)


def test_auc_extremes_and_all_tied():
    assert roc_auc([5, 6], [1, 2, 3]) == 1.0
    assert roc_auc([1, 2], [5, 6]) == 0.0
    assert roc_auc([1, 1, 1], [1, 1]) == 0.5


def test_auc_missing_scores_rank_lowest_and_tie():
    # NaN positive ties the NaN negative (½) and loses to 0; 1 beats both (2). (2 + ½) / 4.
    assert roc_auc([np.nan, 1.0], [np.nan, 0.0]) == pytest.approx(2.5 / 4)
    assert roc_auc([np.nan, np.nan], [np.nan]) == 0.5


def test_auc_empty_side_is_nan():
    assert np.isnan(roc_auc([], [1.0])) and np.isnan(roc_auc([1.0, 2.0], []))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=15), st.lists(st.integers(-3, 3), min_size=1, max_size=15))
def test_auc_matches_sklearn(pos, neg):
    expected = roc_auc_score([1] * len(pos) + [0] * len(neg), pos + neg)
    assert roc_auc(np.array(pos, float), np.array(neg, float)) == pytest.approx(expected)


def test_auc_rows_is_rowwise():
    pos = np.array([[3.0, 2.0], [0.0, 0.0]])
    neg = np.array([[1.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(roc_auc_rows(pos, neg), [(2 + 1.5) / 4, 0.0])


def test_auc_ci_brackets_value_and_is_seeded():
    rng = np.random.default_rng(1)
    pos, neg = rng.normal(1, 1, 40), rng.normal(0, 1, 40)
    low, high = roc_auc_ci(pos, neg, seed=3)
    assert low < roc_auc(pos, neg) < high
    assert (low, high) == roc_auc_ci(pos, neg, seed=3)


def test_normalised_rank_hand_computed():
    # answer 2 among [3, 2, 2, 1]: one above, two tied → rank 1 + 2/2 = 2 of len−1 = 4 → 0.5
    assert normalised_rank(2.0, [3, 2, 2, 1]) == pytest.approx(0.5)
    assert normalised_rank(9.0, [3, 2, 1]) == 1.0
    assert normalised_rank(0.0, [3, 2, 1]) == 0.0
    # tied with everything: median of the block → 0.5
    assert normalised_rank(1.0, [1, 1, 1, 1]) == 0.5
    # answer 2 among [2, 1]: tie counts half → rank 0.5 of 2 → 0.75
    assert normalised_rank(2.0, [2, 1]) == pytest.approx(0.75)
    # a NaN answer ties the NaN candidate, below the real one: rank 1 + ½ of 2 → 0.25
    assert normalised_rank(np.nan, [np.nan, 0.0]) == pytest.approx(0.25)


def test_normalised_ranks_grouped_matches_single():
    scores = np.array([0.9, 0.1, 0.5, 0.2, 0.2, 0.2, 0.7])
    groups = np.array([0, 0, 0, 1, 1, 1, 1])
    answer = np.array([False, False, True, False, True, False, False])
    got = normalised_ranks(scores, groups, answer)
    np.testing.assert_allclose(got, [normalised_rank(0.5, [0.9, 0.1]), normalised_rank(0.2, [0.2, 0.2, 0.7])])
    np.testing.assert_allclose(got, [0.5, 1 - 2 / 3])


def test_normalised_ranks_rejects_bad_groups():
    with pytest.raises(ValueError, match="exactly one"):
        normalised_ranks(np.array([1.0, 2.0]), np.array([0, 0]), np.array([True, True]))
    with pytest.raises(ValueError, match="at least two"):
        normalised_ranks(np.array([1.0]), np.array([0]), np.array([True]))
