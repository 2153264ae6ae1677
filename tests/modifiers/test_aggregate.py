"""Macro (per noun, then over nouns) versus micro averages, and the bootstrap over nouns."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.tasks.modifiers.aggregate import aggregate


def scores_by_metric(scores):
    return {(s.subset, s.metric): s for s in scores}


def test_macro_and_micro_differ_with_unequal_nouns():
    values = np.array([1, 1, 1, 0, 0], dtype=bool)
    nouns = np.array([0, 0, 0, 0, 1])
    got = scores_by_metric(aggregate(values, np.full(5, "S-I"), nouns, "t", ["S-I"], seed=0))
    assert got["S-I", "t_macro"].value == pytest.approx((0.75 + 0.0) / 2)
    assert got["S-I", "t_micro"].value == pytest.approx(3 / 5)
    assert got["S-I", "t_macro"].n == 5 and got["S-I", "t_macro"].details["n_nouns"] == 2


def test_subsets_are_separate_absent_ones_are_skipped_and_nan_cases_dropped():
    values = np.array([1.0, 0.0, np.nan, 0.5])
    subsets = np.array(["A", "B", "B", "B"], dtype=object)
    got = scores_by_metric(aggregate(values, subsets, np.zeros(4, int), "w", ["A", "B", "C"], seed=0, n_resamples=50))
    assert {k[0] for k in got} == {"A", "B"}
    assert got["B", "w_micro"].value == pytest.approx(0.25) and got["B", "w_micro"].n == 2


def test_a_noun_missing_from_a_subset_does_not_count_in_its_macro():
    values = np.array([1, 0, 1, 1], dtype=float)
    subsets = np.array(["X", "X", "Y", "Y"], dtype=object)
    nouns = np.array([0, 1, 0, 0])  # Y has cases for noun 0 only
    got = scores_by_metric(aggregate(values, subsets, nouns, "t", ["X", "Y"], seed=0, n_resamples=20))
    assert got["Y", "t_macro"].value == 1.0 and got["Y", "t_macro"].details["n_nouns"] == 1
    assert got["X", "t_macro"].value == 0.5


def test_interval_reflects_differences_between_nouns_not_just_cases():
    # Every noun is all-pass or all-fail (as GloVe's test 3 on a type can be): resampling cases inside
    # nouns would give a zero-width interval; resampling nouns must not.
    nouns = np.repeat(np.arange(12), 3)
    values = np.repeat(np.arange(12) < 9, 3)
    got = scores_by_metric(aggregate(values, np.full(36, "A"), nouns, "t", ["A"], seed=0))
    m = got["A", "t_macro"]
    assert m.value == 0.75 and m.ci_low < 0.6 and m.ci_high == 1.0


def test_identical_nouns_give_a_degenerate_interval():
    got = aggregate(np.ones(40, bool), np.full(40, "X"), np.arange(40) % 4, "t", ["X"], seed=1)
    assert all(s.value == s.ci_low == s.ci_high == 1.0 for s in got)


def test_interval_width_matches_the_standard_error_of_noun_means():
    rng = np.random.default_rng(3)
    noun_means = rng.random(12)
    nouns = np.repeat(np.arange(12), 50)
    values = noun_means[nouns]  # constant within each noun: only between-noun spread
    m = scores_by_metric(aggregate(values, np.full(600, "X"), nouns, "t", ["X"], seed=0, n_resamples=4000))["X", "t_macro"]
    se = noun_means.std() / np.sqrt(12)
    assert m.ci_low < m.value < m.ci_high
    assert m.ci_high - m.ci_low == pytest.approx(2 * 1.96 * se, rel=0.15)


def test_same_seed_same_interval():
    values = np.random.default_rng(5).random(120) < 0.5
    run = lambda seed: aggregate(values, np.full(120, "X"), np.arange(120) % 6, "t", ["X"], seed=seed)  # noqa: E731
    assert [s.ci_low for s in run(7)] == [s.ci_low for s in run(7)]
    assert [(s.ci_low, s.ci_high) for s in run(7)] != [(s.ci_low, s.ci_high) for s in run(8)]
