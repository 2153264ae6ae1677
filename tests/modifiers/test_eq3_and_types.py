"""Test 1's two readings on AAN phrases (the paper's Eq. 3 vs the authors' splits) and the adjective-type test."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from compeval.models.families.toy import TableEncoder
from compeval.tasks.modifiers.categories import category_test
from compeval.tasks.modifiers.measures import Embedded, intersectivity, word_pair_distances
from compeval.tasks.modifiers.stimuli import PAD, StringTable
from compeval.tasks.modifiers.tasks import ADJ_TYPE_ID, TYPES, ModifierIntersectivity, ModifierNonSubsectivity

from .conftest import MeanOfWords


def d(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    return 1 - x @ y / np.linalg.norm(x) / np.linalg.norm(y)


# Hand-built vectors, chosen so that the two readings disagree on "red fake car".
VECS = {
    "red": [1, 0, 0], "fake": [1, 1, 0], "car": [0, 0, 1],
    "red fake car": [1, 1, 1],
    "fake car": [0, 1, 1.2], "red car": [0.5, 0, 0.5], "red fake": [1, 0.5, 0],
    "fake red car": [0.2, 1, 0.1], "red car!": [1, 0, 0.9],
}
PHRASES = {"red fake car": ("red", "fake", "car"), "fake red car": ("fake", "red", "car"),
           "red car!": ("red", "car")}


def embed():
    table = StringTable()
    table.ids(VECS)
    enc = TableEncoder({t: VECS[t] for t in table.strings})
    return {t: k for k, t in enumerate(table.strings)}, Embedded(enc.encode(table.strings), np.arange(len(table)),
                                                                len(table))


def test_eq3_word_pairs_against_a_hand_computation():
    i, emb = embed()
    words = np.array([[i[w] for w in ws] + [PAD] * (3 - len(ws)) for ws in PHRASES.values()])
    phrase = np.array([i[p] for p in PHRASES])
    pairs = word_pair_distances(emb, words)
    assert np.isnan(pairs[2, 1:]).all()  # an AN phrase has the one pair (adjective, noun)
    got = intersectivity(emb.dist(phrase[:, None], words), pairs)
    by_hand = []
    for p, ws in PHRASES.items():
        worst = max(d(VECS[p], VECS[w]) for w in ws)
        best = min(d(VECS[ws[j]], VECS[ws[k]]) for j in range(len(ws)) for k in range(j + 1, len(ws)))
        by_hand.append(worst <= best)
    assert got.tolist() == by_hand == [False, False, True]
    # the authors' splits (word against the rest of the phrase) pass "red fake car": the readings differ
    splits = {"red": "fake car", "fake": "red car", "car": "red fake"}
    worst = max(d(VECS["red fake car"], VECS[w]) for w in splits)
    assert worst <= min(d(VECS[w], VECS[rest]) for w, rest in splits.items())


def test_option_words_changes_only_aan_phrases():
    splits = ModifierIntersectivity(n_resamples=40, permutations=0)
    pairs = ModifierIntersectivity(n_resamples=40, permutations=0, parts="words")
    a, b = (t.load(None) or t.evaluate(MeanOfWords(), seed=0) for t in (splits, pairs))
    an = a.predictions["subset"].str.contains("|", regex=False) == False  # noqa: E712
    assert (a.predictions["holds"][an] == b.predictions["holds"][an]).all()
    assert (a.predictions["holds"][~an] != b.predictions["holds"][~an]).any()
    # Eq. 3 by hand on the predictions' columns: the word-pair minimum of a few AAN phrases
    model = MeanOfWords()
    for row in b.predictions[~an].head(5).itertuples():
        w = row.phrase.split()
        v = model.encode(w)
        assert row.min_d_parts == pytest.approx(min(d(v[j], v[k]) for j, k in ((0, 1), (0, 2), (1, 2))))
    assert b.counts["parts"].startswith("every pair") and pairs.params["parts"] == "words"


def test_type_test_equals_scipy_on_the_same_scores():
    task = ModifierNonSubsectivity(n_resamples=40, permutations=200)
    task.load(None)
    out = task.evaluate(MeanOfWords(), seed=3)
    got = {(s.subset, s.metric): s for s in out.scores}
    preds = out.predictions
    groups = [preds["holds"][preds["subset"] == t].astype(float).to_numpy() for t in TYPES]
    h, p = stats.kruskal(*groups)
    assert got["AN", "types_kw_h"].value == pytest.approx(h, rel=1e-12)
    # the χ² p (phrases as units) under its own name; the headline p is the permutation p over adjectives
    assert got["AN", "types_kw_p_chi2"].value == pytest.approx(p, rel=1e-12)
    details = got["AN", "types_kw_h"].details
    assert details["df"] == 4 and details["group_sizes"] == {"S-I": 132, "S-NI": 72, "NS-Pl": 324, "NS-Pr": 168, "A": 36}
    perm = got["AN", "types_kw_p"]
    assert perm.value == details["p_permutation"] and 1 / 201 <= perm.value <= 1
    # a p on a multiple of 1/201: (1 + count) / (1 + 200 permutations), never the χ² p
    assert round(perm.value * 201) == pytest.approx(perm.value * 201, abs=1e-9) and perm.value != pytest.approx(p)
    assert perm.details["unit"].startswith("adjective") and got["AN", "types_kw_p_chi2"].details["unit"].startswith("phrase")


def test_permutation_statistic_is_scipys_h_and_the_p_value_reacts():
    """The rank-sum H inside the permutation loop equals scipy's H; a real type effect gives a small p, none a
    large one (61 adjectives of the real type sizes, 12 cases each)."""
    from compeval.tasks.modifiers import categories

    rng = np.random.default_rng(0)
    adj = np.repeat(np.arange(61), 12)
    noise = rng.normal(size=len(adj))
    effect = noise + (ADJ_TYPE_ID[adj] == 3) * 2.0  # NS-Pr adjectives score higher
    ranks = stats.rankdata(effect)
    codes = categories.group_codes(adj, ADJ_TYPE_ID)
    h_ref, _ = stats.kruskal(*(effect[codes == c] for c in range(5)))
    assert categories._h_from_ranks(ranks, codes, 5, 1.0) == pytest.approx(h_ref, rel=1e-10)
    strong = category_test(effect, adj, ADJ_TYPE_ID, list(TYPES), permutations=199, seed=0)
    null = category_test(noise, adj, ADJ_TYPE_ID, list(TYPES), permutations=199, seed=0)
    assert strong.p_permutation == pytest.approx(1 / 200) and strong.p_value < 1e-6
    assert null.p_permutation > 0.05
    # ties: scipy's tie correction is reproduced for 0/1 outcomes too
    binary = (effect > 1).astype(float)
    t = category_test(binary, adj, ADJ_TYPE_ID, list(TYPES), permutations=0, seed=0)
    assert t.statistic == pytest.approx(stats.kruskal(*(binary[codes == c] for c in range(5)))[0])


def test_no_variation_gives_no_test():
    out = ModifierIntersectivity(n_resamples=40, permutations=10)
    out.load(None)
    got = {(s.subset, s.metric): s for s in out.evaluate(MeanOfWords(), seed=0).scores}
    # mean pooling passes every AN phrase: nothing to compare, so no statistic rather than a made-up one
    assert got["AN", "types_kw_h"].value is None and "same outcome" in got["AN", "types_kw_h"].details["reason"]
    assert got["AAN", "types_kw_h"].value is not None and got["AAN", "types_kw_h"].details["df"] == 24
