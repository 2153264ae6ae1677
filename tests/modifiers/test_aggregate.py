"""Macro (per noun, then over nouns) versus micro averages, and the stratified bootstrap."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.tasks.modifiers.aggregate import aggregate


def scores_by_metric(scores):
    return {(s.subset, s.metric): s for s in scores}


def test_macro_and_micro_differ_with_unequal_nouns():
    values = np.array([1, 1, 1, 0, 0], dtype=bool)
    nouns = np.array([0, 0, 0, 0, 1])
    got = scores_by_metric(aggregate(values, np.full(5, "S-I"), nouns, "t", ["S-I"], rng=np.random.default_rng(0)))
    assert got["S-I", "t_macro"].value == pytest.approx((0.75 + 0.0) / 2)
    assert got["S-I", "t_micro"].value == pytest.approx(3 / 5)
    assert got["S-I", "t_macro"].n == 5 and got["S-I", "t_macro"].details["n_nouns"] == 2


def test_subsets_are_separate_absent_ones_are_skipped_and_nan_cases_dropped():
    values = np.array([1.0, 0.0, np.nan, 0.5])
    subsets = np.array(["A", "B", "B", "B"], dtype=object)
    got = scores_by_metric(aggregate(values, subsets, np.zeros(4, int), "w", ["A", "B", "C"],
                                     rng=np.random.default_rng(0), n_resamples=50))
    assert {k[0] for k in got} == {"A", "B"}
    assert got["B", "w_micro"].value == pytest.approx(0.25) and got["B", "w_micro"].n == 2


def test_constant_outcome_has_a_degenerate_interval():
    got = aggregate(np.ones(40, bool), np.full(40, "X"), np.arange(40) % 4, "t", ["X"], rng=np.random.default_rng(1))
    assert all(s.value == s.ci_low == s.ci_high == 1.0 for s in got)


@pytest.mark.parametrize("values", [
    np.random.default_rng(3).random(600) < 0.3,  # binary: binomial draws per noun
    np.random.default_rng(3).random(600),  # continuous: index resampling per cell
])
def test_interval_covers_the_estimate_and_matches_the_binomial_standard_error(values):
    nouns = np.arange(600) % 6
    got = scores_by_metric(aggregate(values, np.full(600, "X"), nouns, "t", ["X"], rng=np.random.default_rng(0)))
    micro = got["X", "t_micro"]
    assert micro.ci_low < micro.value < micro.ci_high
    se = np.std(values.astype(float)) / np.sqrt(600)  # stratified resampling is at most this wide
    assert (micro.ci_high - micro.ci_low) == pytest.approx(2 * 1.96 * se, rel=0.2)


def test_same_seed_same_interval():
    values = np.random.default_rng(5).random(100) < 0.5
    run = lambda seed: aggregate(values, np.full(100, "X"), np.arange(100) % 3, "t", ["X"],  # noqa: E731
                                 rng=np.random.default_rng(seed))
    assert [s.ci_low for s in run(7)] == [s.ci_low for s in run(7)]
    assert [s.ci_low for s in run(7)] != [s.ci_low for s in run(8)]
