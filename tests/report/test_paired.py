"""The paired test on synthetic scores: a known difference is found and covered, no difference is not.

Expected values come from the data-generating process (analytic Spearman and AUC of Gaussian scores),
never from earlier runs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from compeval.metrics.paired import paired_test
from compeval.metrics.ranking import roc_auc


def spearman_of_noisy(sigma: float) -> float:
    """Population Spearman ρ of (g, g + N(0, σ²)) with g ~ N(0, 1): (6/π)·asin(r/2), r = 1/√(1+σ²)."""
    r = 1 / math.sqrt(1 + sigma**2)
    return 6 / math.pi * math.asin(r / 2)


def gaussian_auc(mu: float) -> float:
    """AUC of N(mu, 1) positives against N(0, 1) negatives: Φ(mu / √2)."""
    return float(stats.norm.cdf(mu / math.sqrt(2)))


def sts_like(seed: int, n: int, sigma_a: float, sigma_b: float):
    rng = np.random.default_rng(seed)
    gold = rng.normal(size=n)
    return gold + rng.normal(scale=sigma_a, size=n), gold + rng.normal(scale=sigma_b, size=n), gold


# --------------------------------------------------------------------------------------- known difference

def test_spearman_known_difference_is_found_and_covered():
    true = spearman_of_noisy(0.5) - spearman_of_noisy(1.0)
    covered = 0
    seeds = range(30)
    for seed in seeds:
        a, b, gold = sts_like(seed, 600, 0.5, 1.0)
        r = paired_test("spearman", a, b, reference=gold, n_resamples=400, n_permutations=400, seed=seed)
        assert r.difference > 0
        assert r.p_value < 0.01
        assert r.ci_low > 0, "the interval must exclude 0 for a difference this large"
        covered += r.ci_low <= true <= r.ci_high
    assert covered / len(seeds) >= 0.8, f"95% interval covered the true difference in only {covered}/30 seeds"


def test_accuracy_known_difference_with_clusters():
    rng = np.random.default_rng(1)
    n_units = 400
    units = np.repeat(np.arange(n_units), 2)  # minimal pairs: two items per unit
    a = (rng.random(2 * n_units) < 0.85).astype(float)
    b = (rng.random(2 * n_units) < 0.70).astype(float)
    r = paired_test("mean", a, b, clusters=units, n_resamples=1000, n_permutations=1000, seed=0)
    assert r.n_units == n_units and r.n_items == 2 * n_units
    assert r.score_a == pytest.approx(a.mean()) and r.score_b == pytest.approx(b.mean())
    assert r.p_value < 0.01
    assert r.ci_low <= 0.15 <= r.ci_high
    assert r.ci_low > 0


def test_auc_known_difference():
    rng = np.random.default_rng(2)
    n = 1500
    labels = rng.random(n) < 0.4
    a = np.where(labels, rng.normal(1.5, 1, n), rng.normal(0, 1, n))
    b = np.where(labels, rng.normal(0.5, 1, n), rng.normal(0, 1, n))
    r = paired_test("auc", a, b, labels=labels, n_resamples=1000, n_permutations=500, seed=0)
    assert r.score_a == pytest.approx(roc_auc(a[labels], a[~labels]))
    true = gaussian_auc(1.5) - gaussian_auc(0.5)
    assert r.ci_low <= true <= r.ci_high
    assert r.ci_low > 0 and r.p_value < 0.01


def test_observed_scores_match_the_usual_definitions():
    a, b, gold = sts_like(3, 300, 0.7, 0.9)
    a[:20] = np.round(a[:20], 1)  # ties: average ranks, as scipy
    r = paired_test("spearman", a, b, reference=gold, n_resamples=50, n_permutations=50)
    assert r.score_a == pytest.approx(stats.spearmanr(a, gold).statistic)
    assert r.score_b == pytest.approx(stats.spearmanr(b, gold).statistic)
    # macro over clusters = mean of per-cluster means (the modifier suite's per-noun average)
    rng = np.random.default_rng(4)
    clusters = rng.integers(0, 7, 500)
    va, vb = rng.random(500), rng.random(500)
    r = paired_test("mean", va, vb, clusters=clusters, weighting="macro", n_resamples=50, n_permutations=50)
    expected = np.mean([va[clusters == c].mean() for c in range(7)])
    assert r.score_a == pytest.approx(expected)
    # AUC with clusters = mean of per-cluster AUCs (invariance-relation's average over entity pairs)
    labels = rng.random(500) < 0.5
    r = paired_test("auc", va, vb, labels=labels, clusters=clusters, n_resamples=50, n_permutations=50)
    per = [roc_auc(va[(clusters == c) & labels], va[(clusters == c) & ~labels]) for c in range(7)]
    assert r.score_a == pytest.approx(np.mean(per))


# ------------------------------------------------------------------------------------------ no difference

@pytest.mark.parametrize("kind", ["spearman", "mean", "auc"])
@pytest.mark.parametrize("p_method", ["permutation", "bootstrap"])
def test_identical_models_differ_by_zero_with_p_one(kind, p_method):
    a, _, gold = sts_like(5, 200, 0.8, 0.8)
    extra = {"spearman": {"reference": gold}, "mean": {"clusters": np.arange(200) // 4},
             "auc": {"labels": gold > 0}}[kind]
    r = paired_test(kind, a, a.copy(), n_resamples=300, n_permutations=300, p_method=p_method, **extra)
    assert r.difference == 0.0
    assert r.ci_low == 0.0 and r.ci_high == 0.0
    assert r.p_value == 1.0
    assert not r.significant()


def test_swapping_the_models_mirrors_the_result():
    a, b, gold = sts_like(6, 300, 0.6, 0.7)
    ab = paired_test("spearman", a, b, reference=gold, n_resamples=300, n_permutations=300, seed=9)
    ba = paired_test("spearman", b, a, reference=gold, n_resamples=300, n_permutations=300, seed=9)
    assert ba.difference == pytest.approx(-ab.difference)
    assert ba.ci_low == pytest.approx(-ab.ci_high) and ba.ci_high == pytest.approx(-ab.ci_low)
    assert ba.p_value == pytest.approx(ab.p_value)


def test_same_seed_same_answer_other_seed_other_draws():
    a, b, gold = sts_like(7, 200, 0.6, 0.7)
    one = paired_test("spearman", a, b, reference=gold, n_resamples=200, n_permutations=200, seed=1)
    again = paired_test("spearman", a, b, reference=gold, n_resamples=200, n_permutations=200, seed=1)
    other = paired_test("spearman", a, b, reference=gold, n_resamples=200, n_permutations=200, seed=2)
    assert one == again
    assert (one.ci_low, one.ci_high) != (other.ci_low, other.ci_high)


@pytest.mark.parametrize("kind", ["mean", "spearman"])
def test_null_p_values_are_roughly_uniform(kind):
    """Exchangeable noise around a shared signal: p < .05 in about 5% of 200 seeds, never much more."""
    ps = []
    for seed in range(200):
        rng = np.random.default_rng(1000 + seed)
        n = 80
        if kind == "mean":
            p_item = rng.uniform(0.3, 0.9, n)  # item difficulty shared by both models
            a, b = (rng.random(n) < p_item).astype(float), (rng.random(n) < p_item).astype(float)
            extra = {}
        else:
            gold = rng.normal(size=n)
            a, b = gold + rng.normal(size=n), gold + rng.normal(size=n)
            extra = {"reference": gold}
        ps.append(paired_test(kind, a, b, n_resamples=1, n_permutations=199, seed=seed, **extra).p_value)
    ps = np.array(ps)
    assert 0.01 <= (ps < 0.05).mean() <= 0.10
    for alpha in (0.05, 0.1, 0.25, 0.5):  # valid: P(p <= alpha) is at most about alpha
        assert (ps <= alpha).mean() <= alpha + 0.05
    if kind == "spearman":  # a continuous statistic: p-values close to uniform
        assert 0.35 <= (ps < 0.5).mean() <= 0.65
        assert stats.kstest(ps, "uniform").pvalue > 0.001
    else:  # 0/1 items: the null is discrete (ties between models add nothing), so p is conservative
        assert (ps <= 0.5).mean() >= 0.25


def test_no_difference_is_rarely_significant_for_accuracy_with_clusters():
    hits = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        units = np.repeat(np.arange(150), 2)
        p = rng.uniform(0.4, 0.9, 150)[units]
        a, b = (rng.random(300) < p).astype(float), (rng.random(300) < p).astype(float)
        hits += paired_test("mean", a, b, clusters=units, n_resamples=200, n_permutations=400, seed=seed).significant()
    assert hits <= 6  # expected 2 of 40 at alpha = 0.05


# --------------------------------------------------------------------------------------------- mechanics

def test_few_units_are_enumerated_exactly():
    units = np.repeat(np.arange(6), 10)
    a = np.ones(60)
    b = np.zeros(60)
    r = paired_test("mean", a, b, clusters=units, weighting="macro", n_permutations=1000)
    assert r.exact and r.n_permutations == 2**6
    # only the identity and the full swap are as extreme as the observed difference
    assert r.p_value == pytest.approx(2 / 64)


def test_nan_items_are_left_out_of_both_models():
    a = np.array([1.0, 0.0, np.nan, 1.0, 1.0])
    b = np.array([0.0, 0.0, 1.0, np.nan, 1.0])
    r = paired_test("mean", a, b, n_resamples=50, n_permutations=50)
    assert r.score_a == pytest.approx(2 / 3) and r.score_b == pytest.approx(1 / 3)


def test_bad_inputs_are_refused():
    x = np.zeros(5)
    with pytest.raises(ValueError, match="kind"):
        paired_test("kendall", x, x)
    with pytest.raises(ValueError, match="reference"):
        paired_test("spearman", x, x)
    with pytest.raises(ValueError, match="labels"):
        paired_test("auc", x, x)
    with pytest.raises(ValueError, match="one length"):
        paired_test("mean", x, np.zeros(4))
    with pytest.raises(ValueError, match="one value per item"):
        paired_test("spearman", x, x, reference=np.zeros(3))
