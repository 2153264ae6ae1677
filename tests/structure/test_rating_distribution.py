"""Figure 2: ratings against ratings shuffled within each rater, with the two-sample KS test."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compeval.tasks.structure import reliability as rel


def _ratings(seed=0, pairs=300, raters=40, p_seen=0.3):
    rng = np.random.default_rng(seed)
    base = rng.integers(1, 8, pairs)  # each pair has a true rating the raters scatter around
    r = np.clip(base[:, None] + rng.integers(-1, 2, (pairs, raters)), 1, 7).astype(float)
    r[rng.random((pairs, raters)) > p_seen] = np.nan
    return r


def test_shuffle_keeps_each_raters_ratings_and_pairs():
    r = _ratings()
    s = rel.shuffle_within_raters(r, np.random.default_rng(1))
    np.testing.assert_array_equal(np.isnan(s), np.isnan(r))  # the same pairs rated by the same raters
    for j in range(r.shape[1]):
        assert sorted(r[~np.isnan(r[:, j]), j]) == sorted(s[~np.isnan(s[:, j]), j])
    assert not np.array_equal(np.nan_to_num(s), np.nan_to_num(r))


def test_normalised_means_equal_pandas_groupby():
    r = _ratings(2)
    long = pd.DataFrame([(i, j, r[i, j]) for i, j in zip(*np.nonzero(~np.isnan(r)))], columns=["pair", "rater", "x"])
    expected = ((long.groupby("pair")["x"].mean() - 1) / 6).reindex(range(len(r))).to_numpy()
    np.testing.assert_allclose(rel.normalised_means(r), expected, equal_nan=True)


def test_ks_agrees_with_scipy_and_with_the_ecdf_definition():
    r = _ratings(3, pairs=400, raters=60, p_seen=0.5)
    out = rel.shuffled_ks(r, np.arange(len(r)), seed=5)
    ref = stats.ks_2samp(out["actual"], out["shuffled"])
    assert out["statistic"] == pytest.approx(ref.statistic, abs=1e-15)
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    # independent: the largest gap between the two empirical CDFs over all observed values
    grid = np.union1d(out["actual"], out["shuffled"])
    ecdf = [np.searchsorted(np.sort(x), grid, side="right") / len(x) for x in (out["actual"], out["shuffled"])]
    assert out["statistic"] == pytest.approx(np.abs(ecdf[0] - ecdf[1]).max(), abs=1e-12)
    # shuffling pulls every pair towards the grand mean: the distributions differ clearly
    assert out["p_value"] < 1e-6 and out["shuffled"].std() < out["actual"].std()
    assert out["hist_actual"].sum() == out["hist_shuffled"].sum() == 400
    # the same seed gives the same shuffle
    assert rel.shuffled_ks(r, np.arange(len(r)), seed=5)["statistic"] == out["statistic"]


@pytest.mark.integration
def test_sts3k_rating_distribution_reproduces_the_authors(data_dir):
    from compeval.data.registry import DataContext
    from compeval.tasks.structure.tasks import STS3kReliability

    task = STS3kReliability(splits=2)
    task.load(DataContext(data_dir))
    scores = {s.metric: s for s in task.evaluate(None, seed=0).scores if s.subset == "all"}
    assert scores["rating_mean"].value == pytest.approx(0.44165, abs=1e-5)  # the notebook's 0.4416498
    assert scores["rating_sd"].value == pytest.approx(0.24209, abs=1e-5)
    ks = scores["ks_shuffled"]
    assert ks.n == 2790 and 0.25 < ks.value < 0.36 and ks.details["p_value"] < 1e-80  # authors: .310, 4e-119
    hist = ks.details["histogram"]
    assert sum(hist["actual"]) == sum(hist["shuffled"]) == 2790 and len(hist["bin_edges"]) == 21
