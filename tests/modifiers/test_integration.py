"""The packaged models through the real runner (slower; marked integration)."""
from __future__ import annotations

import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.models.registry import load_model
from compeval.tasks.modifiers.tasks import ModifierIntersectivity, ModifierNonSubsectivity

pytestmark = pytest.mark.integration


def _glove(spec: str = "glove-6b-50d"):
    try:
        return load_model(spec, cache=EmbeddingCache(None))
    except Exception as exc:  # the packaged vectors are an optional extra
        pytest.skip(f"glove-6b-50d is not available: {exc}")


@pytest.mark.parametrize("spec", ["glove-6b-50d", "glove-6b-50d,tok=montague"])
def test_glove_mean_scores_exactly_one_on_every_an_type(spec):
    """The paper's published 1.0 for GloVe on every AN type, under compeval's and the authors' tokenisation."""
    task = ModifierIntersectivity(n_resamples=40)
    task.load(None)
    out = task.evaluate(_glove(spec), seed=0)
    an = [s for s in out.scores if s.metric == "test1_macro" and "|" not in s.subset and s.subset != "AAN"]
    assert len(an) == 6 and all(s.value == 1.0 for s in an), [(s.subset, s.value) for s in an]


def test_runner_writes_listable_results(tmp_path):
    from compeval.results.store import results_frame  # what `compeval results` lists
    from compeval.runner.runner import run

    _glove()
    summary = run(["glove-6b-50d"], [ModifierNonSubsectivity(n_resamples=40)], tmp_path, cache_dir=None)
    assert not summary.failed, summary.failed
    (outcome,) = summary.outcomes
    assert outcome.n_items == 732 and 0.0 <= outcome.main_score <= 1.0
    rows = results_frame(tmp_path)
    assert set(rows["subset"]) == {"AN", "S-I", "S-NI", "NS-Pl", "NS-Pr", "A"}
    assert set(rows["metric"]) == {"test3_macro", "test3_micro", "types_kw_h", "types_kw_p", "types_kw_p_chi2"}
    for metric in ("types_kw_p", "types_kw_p_chi2"):
        kw = rows[rows["metric"] == metric]
        assert list(kw["subset"]) == ["AN"] and 0.0 <= float(kw["value"].iloc[0]) <= 1.0
    # GloVe's types differ by phrase (χ², 732 phrases as independent draws) far more surely than by adjective
    # (the permutation p over 61 adjectives, 999 relabellings: a multiple of 1/1000)
    p_perm, p_chi2 = (float(rows.loc[rows["metric"] == m, "value"].iloc[0]) for m in ("types_kw_p", "types_kw_p_chi2"))
    assert p_chi2 < 1e-10 < 1e-3 <= p_perm and round(p_perm * 1000) == pytest.approx(p_perm * 1000)
    assert (rows.loc[rows["subset"] == "AN", "n"] == 732).all()


def test_default_tokenisation_reproduces_the_authors_code():
    """The task's default gives GloVe the authors' tokenisation, whatever tok= the model spec has: the
    default equals tok=montague exactly, and word_tokenisation=model keeps compeval's clean tokens
    (which split hyphens and differ, e.g. on NS-Pl)."""
    def scores(spec, **options):
        task = ModifierNonSubsectivity(n_resamples=40, **options)
        task.load(None)
        return {(s.subset, s.metric): s.value for s in task.evaluate(_glove(spec), seed=0).scores}

    default, montague = scores("glove-6b-50d"), scores("glove-6b-50d,tok=montague")
    own = scores("glove-6b-50d", word_tokenisation="model")
    assert default == montague
    assert abs(own["NS-Pl", "test3_macro"] - montague["NS-Pl", "test3_macro"]) > 0.01


def test_results_listing_shows_a_tiny_p_value_as_it_is():
    """``compeval results`` prints a value too small for four decimals (the χ² p of GloVe's test 3 is about
    1.6e-20) in two significant digits, not as 0.0000; values with an interval keep their decimals."""
    import io

    from rich.console import Console

    from compeval.cli.tables import print_results

    out = Console(file=io.StringIO(), width=200)
    rows = [{"model": "m", "task": "modifiers-test3", "subset": "AN", "metric": "types_kw_p_chi2", "value": 1.596e-20,
             "n": 732},
            {"model": "m", "task": "modifiers-test3", "subset": "AN", "metric": "types_kw_p", "value": 0.02, "n": 732},
            {"model": "m", "task": "modifiers-test3", "subset": "AN", "metric": "test3_macro", "value": 0.2022,
             "ci_low": 0.15, "ci_high": 0.251, "n": 732}]
    print_results(out, rows, ["model", "task", "subset", "metric", "value", "ci_low", "ci_high", "n"])
    text = out.file.getvalue()
    assert "1.6e-20" in text and "0.0200" in text and "0.2022 [0.150, 0.251]" in text and "0.0000" not in text
