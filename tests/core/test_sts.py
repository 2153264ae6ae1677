"""STS suite on the real data: metrics equal scipy's, subsets, missing-score policy, clear errors."""
import shutil

import numpy as np
import pytest
from scipy import stats

from compeval.cache import EmbeddingCache
from compeval.data.registry import DataContext
from compeval.errors import MalformedDataError
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
    zero = _task("gs2011", data_dir, bootstrap=10).evaluate(model, seed=0)
    drop = _task("gs2011", data_dir, bootstrap=10, missing="drop").evaluate(model, seed=0)
    assert zero.counts["missing_scores"] == drop.counts["missing_scores"] == 2
    z, d = zero.scores[0], drop.scores[0]
    assert (z.n, d.n) == (199, 197)
    assert z.value == pytest.approx(stats.spearmanr(np.nan_to_num(scores), gold).statistic)
    keep = ~np.isnan(scores)
    assert d.value == pytest.approx(stats.spearmanr(scores[keep], gold[keep]).statistic)


def test_zscore_normalisation_matches_the_definition(data_dir):
    t = _task("ks2013", data_dir, bootstrap=10)
    plain = load_model("glove-6b-50d", cache=EmbeddingCache(None))
    normed = load_model("glove-6b-50d,norm=zscore", cache=EmbeddingCache(None))
    a = plain.encode(t.pairs["sentence_1"].tolist()).astype(np.float64)
    b = plain.encode(t.pairs["sentence_2"].tolist()).astype(np.float64)
    za = (a - a.mean(0)) / (a.std(0) + 0.001)
    zb = (b - b.mean(0)) / (b.std(0) + 0.001)
    expected = (za * zb).sum(1) / np.linalg.norm(za, axis=1) / np.linalg.norm(zb, axis=1)
    got = t.evaluate(normed, seed=0).predictions["score"].to_numpy()
    assert np.allclose(got, expected)
    assert normed.config.id != plain.config.id and "norm=zscore" in normed.config.display


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
