"""STS suite on the real data: metrics equal scipy's, subsets, missing-score policy, clear errors."""
import shutil

import numpy as np
import pytest
from scipy import stats

from compeval.cache import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.errors import MalformedDataError, SpecError
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks


def _task(name, data_dir, **kw):
    (t,) = get_tasks(name + "".join(f",{k}={v}" for k, v in kw.items()))
    t.load(DataContext(data_dir))
    return t


def test_sts3k_subsets_partition_the_data(data_dir):
    t = _task("sts3k", data_dir)
    n = {k: len(v) for k, v in t.subsets.items()}
    assert n == {"all": 2800, "non": 1065, "adv": 1664, "negative": 71}
    assert t.subsets["negative"].tolist() == list(range(1720, 1791))


@pytest.mark.parametrize("name, n", [("stsb", 1379), ("sick", 9840), ("gs2011", 199), ("ks2013", 108),
                                     ("stss131", 131), ("sts3k-pilot", 120)])
def test_published_sizes(data_dir, name, n):
    assert len(_task(name, data_dir).pairs) == n


def test_precomputed_scores_give_scipy_spearman_per_subset(data_dir, tmp_path):
    t = _task("sts3k", data_dir, bootstrap=100)
    rng = np.random.default_rng(7)
    scores = np.round(rng.random(2800), 2)  # rounded: plenty of ties
    f = tmp_path / "scores.txt"
    f.write_text("\n".join(map(str, scores)))
    out = t.evaluate(load_model(f"precomputed:{f}", cache=EmbeddingCache(None)), seed=0)
    gold = t.pairs["gold"].to_numpy()
    for subset, rows in t.subsets.items():
        got = next(s for s in out.scores if s.subset == subset and s.metric == "spearman")
        expected = stats.spearmanr(scores[rows], gold[rows]).statistic
        assert got.value == pytest.approx(expected, abs=1e-12)
        assert got.n == len(rows) and got.ci_low < got.value < got.ci_high
        pear = next(s for s in out.scores if s.subset == subset and s.metric == "pearson")
        assert pear.value == pytest.approx(stats.pearsonr(scores[rows], gold[rows]).statistic, abs=1e-12)
    gap = next(s for s in out.scores if s.subset == "non_minus_adv")
    non = stats.spearmanr(scores[t.subsets["non"]], gold[t.subsets["non"]]).statistic
    adv = stats.spearmanr(scores[t.subsets["adv"]], gold[t.subsets["adv"]]).statistic
    assert gap.value == pytest.approx(non - adv)


def test_missing_score_policies_are_explicit_and_counted(data_dir, tmp_path):
    scores = np.linspace(0, 1, 199)
    scores[[3, 50]] = np.nan
    f = tmp_path / "s.txt"
    f.write_text("\n".join(map(str, scores)))
    model = load_model(f"precomputed:{f}", cache=EmbeddingCache(None))
    gold = _task("gs2011", data_dir).pairs["gold"].to_numpy()
    zero = _task("gs2011", data_dir, bootstrap=40).evaluate(model, seed=0)
    drop = _task("gs2011", data_dir, bootstrap=40, missing="drop").evaluate(model, seed=0)
    assert zero.counts["missing_scores"] == drop.counts["missing_scores"] == 2
    z, d = zero.scores[0], drop.scores[0]
    assert (z.n, d.n) == (199, 197)
    assert z.value == pytest.approx(stats.spearmanr(np.nan_to_num(scores), gold).statistic)
    keep = ~np.isnan(scores)
    assert d.value == pytest.approx(stats.spearmanr(scores[keep], gold[keep]).statistic)


def test_zscore_normalisation_matches_the_definition(data_dir):
    """norm is the task's: the plain model's vectors, z-scored per side over the pairs, then the cosine."""
    t = _task("ks2013", data_dir, bootstrap=40, norm="zscore")
    plain = load_model("glove-6b-50d", cache=EmbeddingCache(None))
    a = plain.encode(t.pairs["sentence_1"].tolist()).astype(np.float64)
    b = plain.encode(t.pairs["sentence_2"].tolist()).astype(np.float64)
    za = (a - a.mean(0)) / (a.std(0) + 0.001)
    zb = (b - b.mean(0)) / (b.std(0) + 0.001)
    expected = (za * zb).sum(1) / np.linalg.norm(za, axis=1) / np.linalg.norm(zb, axis=1)
    got = t.evaluate(plain, seed=0).predictions["score"].to_numpy()
    assert np.allclose(got, expected)
    raw = _task("ks2013", data_dir, bootstrap=40).evaluate(plain, seed=0).predictions["score"].to_numpy()
    assert not np.allclose(raw, expected)
    assert t.slug == "ks2013__bootstrap-40__norm-zscore" and t.params["norm"] == "zscore"


def test_center_normalisation_subtracts_each_sides_mean_over_the_pairs_as_listed():
    """norm=center: per-side column means over the pairs as listed (a repeated sentence counts each
    time), no scaling; it differs from zscore whenever the columns' spreads differ."""
    from compeval.models.families.toy import TableEncoder
    from compeval.tasks.scoring import compare

    table = {"a": [1.0, 10.0, 0.0], "b": [2.0, -30.0, 1.0], "c": [0.5, 4.0, 2.0], "d": [3.0, 1.0, -1.0]}
    model = EmbeddingCache(None).wrap(TableEncoder(table))
    left, right = ["a", "a", "b", "c"], ["b", "c", "d", "d"]  # "a" and "d" repeat: both count twice
    A = np.array([table[t] for t in left])
    B = np.array([table[t] for t in right])
    ca, cb = A - A.mean(0), B - B.mean(0)
    expected = (ca * cb).sum(1) / np.linalg.norm(ca, axis=1) / np.linalg.norm(cb, axis=1)
    assert np.allclose(compare(model, left, right, "center"), expected)
    assert not np.allclose(compare(model, left, right, "zscore"), expected)
    plain = np.array([np.dot(table[x], table[y]) / np.linalg.norm(table[x]) / np.linalg.norm(table[y])
                      for x, y in zip(left, right)])
    assert np.allclose(compare(model, left, right), plain)


@pytest.mark.parametrize("spec", ["hashbag,norm=center", "glove-6b-50d,norm=zscore", "mixed:hashbag+random,norm=center",
                                  "sentence-transformers/all-MiniLM-L6-v2,norm=center"])
def test_norm_on_a_model_spec_is_refused_with_the_task_hint(spec):
    with pytest.raises(SpecError, match=r"norm is a task option now: --task sts3k,norm=(center|zscore)") as err:
        load_model(spec, cache=EmbeddingCache(None))
    assert str(err.value).startswith(spec) and "\n" not in str(err.value)


def test_norm_with_a_pair_only_model_is_one_line(data_dir):
    from compeval.errors import ModelCapabilityError

    t = _task("gs2011", data_dir, bootstrap=40, norm="center")
    with pytest.raises(ModelCapabilityError, match="only scores pairs, and norm=center") as err:
        t.evaluate(load_model("overlap", cache=EmbeddingCache(None)), seed=0)
    assert "\n" not in str(err.value)
    with pytest.raises(SpecError, match="norm='whiten' must be one of none, zscore, center"):
        get_tasks("gs2011,norm=whiten")


def test_norm_is_an_option_of_exactly_the_tasks_that_score_pairs():
    """A task whose ``evaluate`` scores pairs goes through ``compare`` with its norm (never pair_similarity
    directly), and only those tasks declare norm."""
    import inspect

    from compeval.tasks.registry import TASKS, discover

    discover()
    scoring = {name for name, cls in TASKS.items() if "compare(" in inspect.getsource(cls.evaluate)}
    assert not [name for name, cls in TASKS.items() if "pair_similarity(" in inspect.getsource(cls.evaluate)]
    declares = {name for name, cls in TASKS.items() if "norm" in cls.Options.model_fields}
    assert scoring == declares == {"sts3k", "sts3k-pilot", "stsb", "sick", "gs2011", "ks2013", "stss131",
                                   "sts3k-types", "minimal-pairs", "invariance-relation", "invariance-qa",
                                   "stsb-captions", "str2022", "sts3k-finetune-full"}


def test_malformed_line_names_file_and_line(data_dir, tmp_path):
    shutil.copytree(data_dir / "sts3k", tmp_path / "sts3k")
    f = tmp_path / "sts3k" / "STS3k_all.txt"
    f.chmod(0o644)
    lines = f.read_text().splitlines()
    lines[56] = lines[56].rsplit(";", 1)[0] + ";not-a-number"
    f.write_text("\n".join(lines) + "\n")
    (t,) = get_tasks("sts3k")
    with pytest.raises(MalformedDataError, match=r"STS3k_all.txt:57: score 'not-a-number' is not a number"):
        t.load(DataContext(tmp_path, allow_modified=True))
    lines[56] = ";" + lines[56].split(";", 1)[1].rsplit(";", 1)[0] + ";0.5"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(MalformedDataError, match=r"STS3k_all.txt:57: sentence 1 is empty"):
        t.load(DataContext(tmp_path, allow_modified=True))
