"""Pearson against scipy on extreme scales, and the one tie rule of rank statistics (``metrics.ties``): an
averaging model gives a sentence and its word-order swap the same vector, so their cosine is 1 in exact
arithmetic, and every rank statistic must treat the float noise around it as a tie, in ``evaluate`` and in
``verify``'s recomputation from the written predictions alike."""
from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compeval.cache import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.errors import DataError
from compeval.metrics import normalised_rank, pearson, pearson_rows, roc_auc, spearman, spearman_resampled
from compeval.models.registry import load_model
from compeval.results.store import predictions_jsonl
from compeval.tasks.registry import get_tasks


@pytest.mark.parametrize("scale", [1e160, 1e-165, 1e300, 1e-300, 1e307, 1.0])
def test_pearson_is_scipys_on_extreme_scales(scale):
    rng = np.random.default_rng(3)
    gold = rng.normal(size=200) * scale
    pred = rng.normal(size=200) + 0.4 * gold / scale
    expected = stats.pearsonr(pred / scale, gold / scale).statistic  # the same numbers at unit scale
    assert pearson(pred, gold) == pytest.approx(expected, rel=1e-12)
    assert pearson(gold, pred) == pytest.approx(expected, rel=1e-12)
    if scale in (1e160, 1e-165, 1.0):
        assert pearson(pred, gold) == pytest.approx(stats.pearsonr(pred, gold).statistic, rel=1e-12)


def test_pearson_rows_is_scipys_along_an_axis_and_constant_rows_are_nan():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 40)), rng.normal(size=(6, 40))
    x[2] *= 1e200
    y[4] *= 1e-200
    expected = stats.pearsonr(x / np.abs(x).max(1, keepdims=True), y / np.abs(y).max(1, keepdims=True), axis=1)
    assert np.allclose(pearson_rows(x, y), expected.statistic, rtol=1e-12, atol=0)
    assert np.isnan(pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert pearson([1.0, 2.0], [5.0, 1.0]) == -1.0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_pearson_refuses_non_finite_values(bad):
    x = np.arange(10.0)
    x[3] = bad
    with pytest.raises(DataError, match="NaN or infinite"):
        pearson(x, np.arange(10.0))


def test_spearman_refuses_nan_and_ranks_infinity():
    with pytest.raises(DataError, match="NaN"):
        spearman([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
    assert spearman([1.0, np.inf, 3.0], [1.0, 3.0, 2.0]) == pytest.approx(1.0)


def test_the_rank_precision_is_a_function_of_each_value_exact_and_scale_free():
    from compeval.metrics.ties import RANK_BITS, at_rank_precision

    noise = np.array([0.999999999999993, 1.0, 1.0000000000000002, 0.9999999999999949])
    assert (at_rank_precision(noise) == 1.0).all()
    # a model's float32 resolution is far coarser than the precision: no two float32 values are tied
    f32 = np.nextafter(np.float32(0.7), np.float32(1), dtype=np.float32).astype(np.float64)
    assert at_rank_precision(np.float64(np.float32(0.7))) != at_rank_precision(f32)
    x = np.random.default_rng(1).normal(size=1000)
    for k in (-900, -30, 0, 30, 900):  # scaling by a power of two moves only the exponent
        assert np.array_equal(at_rank_precision(np.ldexp(x, k)), np.ldexp(at_rank_precision(x), k))
    q = at_rank_precision(x)
    assert np.array_equal(at_rank_precision(q), q)  # idempotent: ties are classes of one rounded value
    assert np.abs(q - x).max() <= np.abs(x).max() * 2.0 ** -RANK_BITS
    edge = np.array([np.nan, np.inf, -np.inf, 0.0, 5e-324, np.finfo(float).max])
    assert np.array_equal(at_rank_precision(edge), edge, equal_nan=True)


def test_float_noise_is_a_tie_in_auc_ranks_and_spearman():
    assert roc_auc(np.array([0.999999999999993]), np.array([1.0])) == 0.5
    assert normalised_rank(0.9999999999999949, np.array([1.0, 0.2])) == 0.75
    x = np.array([0.999999999999993, 1.0, 0.5, 0.2])
    y = np.array([2.0, 1.0, 0.0, -1.0])
    expected = stats.spearmanr([1.0, 1.0, 0.5, 0.2], y).statistic
    assert spearman(x, y) == pytest.approx(expected, abs=1e-15)
    ident = np.arange(4)[None, :]
    assert spearman_resampled(x, y, ident)[0] == pytest.approx(expected, abs=1e-15)


@pytest.fixture(scope="module")
def sts3k_hashbag(data_dir):
    (task,) = get_tasks("sts3k,bootstrap=40")
    task.load(DataContext(data_dir))
    model = load_model("hashbag", cache=EmbeddingCache(None))
    return task, task.evaluate(model, seed=0)


def test_an_averaging_model_ties_its_word_order_swaps_on_sts3k(sts3k_hashbag):
    """HashBag is order-blind: every word-order swap has the same vector, so its cosine is exactly 1 and
    all of them are one tie. scipy on the stored cosines with the swaps set to exactly 1.0 is the
    reference; scipy on the raw cosines (float noise ranked as signal) is not."""
    task, out = sts3k_hashbag
    raw = out.predictions["score"].to_numpy(dtype=np.float64)
    gold = task.pairs["gold"].to_numpy()
    words = [sorted(re.findall(r"[a-z0-9]+", t.lower())) for t in task.texts()]  # HashBag's own words
    n = len(task.pairs)
    same_words = np.array([words[i] == words[n + i] for i in range(n)])
    assert same_words.sum() > 300 and np.abs(raw[same_words] - 1).max() < 1e-12
    assert (raw[same_words] != 1.0).sum() > 300  # the noise is there: exact arithmetic would give 1.0
    exact = np.where(same_words, 1.0, raw)
    for subset in ("all", "adv"):
        rows = task.subsets[subset]
        got = next(s for s in out.scores if s.subset == subset and s.metric == "spearman").value
        assert got == pytest.approx(stats.spearmanr(exact[rows], gold[rows]).statistic, abs=1e-12)
        noisy = stats.spearmanr(raw[rows], gold[rows]).statistic
        assert abs(got - noisy) > 1e-3  # the noise moved the published kind of number this much


def test_verify_recomputes_the_tied_scores_from_the_written_predictions(sts3k_hashbag):
    task, out = sts3k_hashbag
    written = pd.read_json(io.StringIO(predictions_jsonl(out.predictions)), lines=True, dtype=False)
    again = {(s.subset, s.metric): s.value for s in task.score_predictions(written, seed=0)}
    for s in out.scores:
        assert again[(s.subset, s.metric)] == pytest.approx(s.value, abs=1e-12)


def test_triplets_count_a_word_order_swap_against_its_anchor_as_a_tie(tmp_path):
    """Both candidates are swaps of the anchor: an averaging model has no order between them."""
    from compeval.models.protocol import as_model
    from compeval.models.families.toy import HashBagEncoder

    rows = ["anchor,closer,farther"]
    nouns = ["lawyer", "witness", "doctor", "patient", "teacher", "student", "chef", "waiter"]
    for a in nouns:
        for b in nouns:
            if a != b:
                rows.append(f"the {a} saw the {b} near the old bridge today,the {b} saw the {a} near the old bridge "
                            f"today,today the {a} saw the {b} near the old bridge")
    path = tmp_path / "swaps.csv"
    path.write_text("\n".join(rows) + "\n")
    (task,) = get_tasks(f"triplets:{path},bootstrap=40")
    task.load(None)
    out = task.evaluate(as_model(HashBagEncoder()), seed=0)
    acc = next(s for s in out.scores if s.subset == "all")
    assert acc.value == 0.0 and acc.details["ties"] == len(rows) - 1
    assert out.counts["ties"] == len(rows) - 1


def test_pearson_of_scores_equal_up_to_float_noise_is_undefined():
    """Cosines of word-order swaps under an averaging model are 1 in exact arithmetic; the float noise around
    1 correlates with nothing, so Pearson over them is undefined (NaN), as Spearman's ties make it, not a
    number with an interval that clears chance."""
    rng = np.random.default_rng(5)
    gold = rng.uniform(0, 5, size=36)
    noise = 1.0 - rng.integers(0, 8, size=36) * 2.0 ** -52  # 0.999999999999998…1.0
    assert len(set(noise)) > 1
    assert np.isnan(spearman(noise, gold))
    assert np.isnan(pearson(noise, gold))
    assert np.isnan(pearson(gold, noise))
    rows = np.vstack([noise, gold[::-1]])
    got = pearson_rows(rows, np.vstack([gold, gold]))
    assert np.isnan(got[0]) and got[1] == pytest.approx(stats.pearsonr(gold[::-1], gold).statistic, rel=1e-12)
