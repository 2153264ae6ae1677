"""The four tasks end to end on fast deterministic encoders."""
from __future__ import annotations

import numpy as np
import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.models.protocol import ModelConfig
from compeval.tasks.modifiers.tasks import (EncoderRequiredError, ModifierControls, ModifierIntersectivity,
                                            ModifierNonSubsectivity, ModifierPairIntersectivity)
from compeval.tasks.registry import get_tasks

from .conftest import MeanOfWords, RandomPerText

TYPES = ["S-I", "S-NI", "NS-Pl", "NS-Pr", "A"]


def run(task, model, seed=0):
    task.load(None)
    return task.evaluate(model, seed=seed)


def by_key(output):
    return {(s.subset, s.metric): s for s in output.scores}


def test_suite_name_runs_all_four_tasks():
    names = sorted(t.name for t in get_tasks("modifiers"))
    assert names == ["modifiers-controls", "modifiers-test1", "modifiers-test2", "modifiers-test3"]
    (t,) = get_tasks("modifiers-test1,ignore_distance_ge1=true")
    assert t.params["ignore_distance_ge1"] is True


def test_mean_composition_scores_exactly_one_on_every_an_type():
    out = run(ModifierIntersectivity(n_resamples=100), MeanOfWords())
    got = by_key(out)
    for t in TYPES:
        assert got[t, "test1_macro"].value == 1.0 and got[t, "test1_micro"].value == 1.0
    assert got["AN", "test1_macro"].n == 732
    # The relation is not automatic for three words: mean pooling can fail on AAN phrases.
    assert got["AAN", "test1_macro"].value < 1.0 and got["AAN", "test1_macro"].n == 43_920
    assert sum(s.n for (sub, m), s in got.items() if m == "test1_micro" and "|" in sub) == 43_920


def test_unrelated_phrase_vectors_fail_test1():
    got = by_key(run(ModifierIntersectivity(n_resamples=40), RandomPerText(dim=8)))
    assert got["AN", "test1_micro"].value < 0.9


def test_test2_counts_and_same_type_diagonal_near_half():
    out = run(ModifierPairIntersectivity(n_resamples=100), MeanOfWords())
    got = by_key(out)
    assert out.n_items == 61 * 60 * 66
    assert got["S-I|S-NI", "test2_micro"].n == 11 * 6 * 66
    assert got["NS-Pl|NS-Pl", "test2_micro"].n == 27 * 26 * 66
    assert got["S-I|S-I", "test2_micro"].details["n_nouns"] == 11  # the last noun has no later partner
    # By symmetry a same-type pair holds in one direction or the other (ties aside): mean 0.5.
    for t in TYPES:
        assert got[f"{t}|{t}", "test2_micro"].value == pytest.approx(0.5, abs=1e-9)
    # Opposite orders of a type pair add to one (no ties with continuous random vectors).
    assert got["S-I|NS-Pr", "test2_micro"].value + got["NS-Pr|S-I", "test2_micro"].value == pytest.approx(1.0)


def test_test3_and_controls_on_mean_composition():
    got = by_key(run(ModifierNonSubsectivity(n_resamples=50), MeanOfWords()))
    assert {k[0] for k in got} == {"AN", *TYPES}
    assert got["AN", "test3_micro"].n == 732
    out = run(ModifierControls(n_resamples=40), MeanOfWords())
    ctl = by_key(out)
    # A weight is a share of the phrase's distances to its words, so strictly between 0 and 1 here.
    assert 0 < ctl["S-I", "adj_weight_micro"].value < 1
    # A synonym swap changes an AAN phrase less than an AN one (one word of three, not of two).
    assert ctl["AAN", "syn_distance_micro"].value < ctl["AN", "syn_distance_micro"].value
    for metric in ("test1_syn_phrase", "test1_syn_words", "test1_syn_parts", "test3_syn_adj"):
        assert (("S-I", f"{metric}_macro") in ctl), metric
    assert out.predictions["test3_syn_adj_holds"].isna().sum() == 43_920


def test_texts_list_everything_evaluate_asks_for_and_each_string_once():
    for task_cls in (ModifierIntersectivity, ModifierPairIntersectivity, ModifierNonSubsectivity, ModifierControls):
        task = task_cls(n_resamples=40)
        task.load(None)
        model = MeanOfWords()
        task.evaluate(model, seed=0)
        assert sorted(model.requested) == sorted(task.texts()), task.name
        assert len(set(model.requested)) == len(model.requested), task.name


def test_cache_encodes_each_unique_string_once_across_the_suite():
    cache = EmbeddingCache(None)
    model = cache.wrap(MeanOfWords())
    tasks = get_tasks("modifiers,n_resamples=40")
    for t in tasks:
        t.load(None)
    union = list(dict.fromkeys(x for t in tasks for x in t.texts()))
    model.encode(union)
    for t in tasks:
        t.evaluate(model, seed=0)
    stats = cache.stats_for(model.config.id)
    assert stats.encoded == stats.unique == len(union)


def test_pair_only_model_is_refused_with_a_clear_error():
    class PairsOnly:
        config = ModelConfig(family="pairs.v1", name="pairs-only")

        def score_pairs(self, a, b):
            return np.zeros(len(a))

    with pytest.raises(EncoderRequiredError, match="only scores pairs"):
        run(ModifierNonSubsectivity(), PairsOnly())


def test_zero_vectors_are_counted():
    class ZeroForEx(MeanOfWords):
        def encode(self, texts):
            out = super().encode(texts)
            out[[t == "ex-" for t in texts]] = 0
            return out

    out = run(ModifierNonSubsectivity(n_resamples=40), ZeroForEx())
    assert out.counts["zero_vector_strings"] == 1 and out.counts["zero_vector_examples"] == ["ex-"]
    ex = out.predictions[out.predictions["phrase"].str.startswith("ex- ")]
    assert (ex["d_phrase_adj"] == 1.0).all()


def test_word_vectors_follow_the_authors_tokenisation_by_default(tmp_path):
    """For a static model the task encodes as the authors' code does (whitespace tokens, an unknown one a
    zero vector that counts in the mean) unless word_tokenisation=model; the model is left as it was."""
    from compeval.models.families.static import StaticModel
    from compeval.tasks.modifiers.stimuli import build_stimuli

    strings = build_stimuli().strings
    hyphen = next(s for s in strings if "-" in s and " " in s)  # e.g. an adjective like "ex-" in a phrase
    words = sorted({w for s in strings for w in s.lower().replace("-", " ").split()})
    rng = np.random.default_rng(0)
    path = tmp_path / "vec.txt"
    path.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=4)) + "\n" for w in words))
    model = StaticModel(str(path), tok="clean")
    task = ModifierNonSubsectivity(n_resamples=40)
    task.load(None)
    authors = task._encoder(model)
    assert authors.tok == "montague" and model.tok == "clean" and task.tokenisation == "montague"
    assert np.allclose(authors.encode([hyphen]), StaticModel(str(path), tok="montague").encode([hyphen]))
    assert not np.allclose(authors.encode([hyphen]), model.encode([hyphen]))  # the hyphenated word is unknown
    cached = EmbeddingCache(None).wrap(model)  # found behind the cache too
    assert task._encoder(cached).tok == "montague"
    own = ModifierNonSubsectivity(n_resamples=40, word_tokenisation="model")
    assert own._encoder(model) is model and own.params["word_tokenisation"] == "model"
    assert task._encoder(MeanOfWords()).__class__ is MeanOfWords  # not word vectors: unchanged
    out = run(task, model)
    assert out.counts["word_tokenisation"].startswith("montague")


def test_authors_tokenisation_comes_from_the_runs_builder_and_cache(tmp_path):
    """The task builds the word-vector model's spec with tok=montague through ``context.model_builder``: the
    model it gets is the builder's (behind the run's cache, its vectors stored under the montague id), with
    the same id and byte-identical vectors as the model built directly; a rename carries over."""
    from compeval.context import RunContext
    from compeval.models.registry import ModelBuilder
    from compeval.models.families.static import StaticModel

    path = tmp_path / "vec.txt"
    rng = np.random.default_rng(1)
    path.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=4)) + "\n"
                            for w in ("red", "big", "car", "ex", "fake")))
    cache = EmbeddingCache(tmp_path / "cache")
    build = ModelBuilder(cache=cache)
    task = ModifierNonSubsectivity(n_resamples=40)
    task.context = RunContext(cache_dir=tmp_path / "cache").with_builder(build)
    for spec in (f"static:{path}", f"static:{path},op=sum,name=vec"):
        model = build(spec)
        authors = task._encoder(model)
        twin = StaticModel(str(path), tok="montague", op=model.op)
        assert authors is build(str(model.spec(tok="montague")))  # the builder's own, cached model
        assert authors.config.id != model.config.id and authors.config.name == model.config.name
        if "name=" not in spec:
            assert authors.config.id == twin.config.id
        texts = ["fake ex-car", "red big car", "zzz"]
        assert authors.encode(texts).tobytes() == twin.encode(texts).tobytes()
    assert cache.stats_for(authors.config.id).encoded == 3  # through the cache


def test_word_vectors_given_as_an_object_cannot_be_respecified():
    from compeval.errors import ModelCapabilityError
    from compeval.models.families.static import StaticModel, WordVectors

    model = StaticModel(WordVectors(["red"], np.ones((1, 2), np.float32), "toy", "x"))
    with pytest.raises(ModelCapabilityError, match="given as an object") as err:
        ModifierNonSubsectivity(n_resamples=40)._encoder(model)
    assert "\n" not in str(err.value)


def _written(predictions):
    import io

    import pandas as pd

    from compeval.results.store import predictions_jsonl
    return pd.read_json(io.StringIO(predictions_jsonl(predictions)), lines=True, dtype=False)


def _same_scores(a, b) -> bool:
    """Equal scores up to the float tolerance verify allows (pandas' JSON reader may differ in the last bit)."""
    from compeval.results.compare import same

    key = lambda s: [s.value, s.ci_low, s.ci_high, s.n]  # noqa: E731
    return [(s.subset, s.metric) for s in a] == [(s.subset, s.metric) for s in b] and all(
        same(key(x), key(y)) for x, y in zip(a, b))


def test_scores_are_recomputed_from_the_written_outcomes_and_follow_an_edit():
    from compeval.errors import DataError

    task = ModifierNonSubsectivity(n_resamples=40)
    out = run(task, MeanOfWords(), seed=3)
    pred = _written(out.predictions)
    assert _same_scores(task.score_predictions(pred, seed=3), out.scores)
    # flipping one S-I phrase's outcome moves its subset's micro average by exactly 1/n
    row = int(np.flatnonzero(pred["subset"] == "S-I")[0])
    edited = pred.copy()
    edited.loc[row, "holds"] = not edited.loc[row, "holds"]
    before, after = by_key(out), {(s.subset, s.metric): s for s in task.score_predictions(edited, seed=3)}
    n = before["S-I", "test3_micro"].n
    assert abs(after["S-I", "test3_micro"].value - before["S-I", "test3_micro"].value) == pytest.approx(1 / n)
    with pytest.raises(DataError, match="phrase differ from the stimuli"):
        task.score_predictions(pred.iloc[::-1].reset_index(drop=True), seed=3)
    with pytest.raises(DataError, match="lack the column"):
        task.score_predictions(pred.drop(columns="holds"), seed=3)


def test_controls_recompute_from_written_distances_and_weights():
    task = ModifierControls(n_resamples=40)
    out = run(task, MeanOfWords(), seed=1)
    again = task.score_predictions(_written(out.predictions), seed=1)
    assert _same_scores(again, out.scores)
    assert not _same_scores(task.score_predictions(_written(out.predictions), seed=2), out.scores)  # the seed counts
