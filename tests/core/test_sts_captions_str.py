"""Table 9's last two columns: stsb-captions and str2022 read the real files, each checked against an
independent reading (the original STS-B release; pandas' CSV reader), and `compeval data` says STR-2022 is
not redistributed."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compeval.cache import EmbeddingCache
from compeval.data.registry import DataContext, get_source
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks


def _task(spec, data_dir):
    (t,) = get_tasks(spec)
    t.load(DataContext(data_dir, download=False))
    return t


def test_stsb_captions_reads_624_pairs_that_are_the_sts_b_captions_scores_over_5(data_dir):
    t = _task("stsb-captions", data_dir)
    assert len(t.pairs) == 624
    assert t.pairs["gold"].between(0, 1).all()
    # independent path: the original STS-B test release, captions genre, score / 5
    orig = pd.read_csv(data_dir / "stsb" / "sts-test.csv", sep="\t", quoting=3, header=None, usecols=range(7),
                       names=["genre", "file", "year", "id", "score", "s1", "s2"])
    caps = orig[orig["genre"] == "main-captions"]
    def key(a, b):  # the processed copy drops the final full stop
        return a.strip().rstrip("."), b.strip().rstrip(".")

    table = {key(a, b): s / 5 for a, b, s in zip(caps["s1"], caps["s2"], caps["score"])}
    found = [(table[key(a, b)], g) for a, b, g in zip(t.pairs["sentence_1"], t.pairs["sentence_2"], t.pairs["gold"])
             if key(a, b) in table]
    assert len(found) > 600  # the authors' copy is the captions genre of the test split
    got, want = np.array(found).T
    assert np.abs(got - want).max() < 0.0051  # the processed file keeps three decimals


def test_str2022_reads_5500_pairs_each_with_two_sentences(data_dir):
    t = _task("str2022", data_dir)
    assert len(t.pairs) == 5500
    assert (t.pairs["sentence_1"].str.strip() != "").all() and (t.pairs["sentence_2"].str.strip() != "").all()
    assert t.pairs["gold"].between(0, 1).all()
    ref = pd.read_csv(data_dir / "str2022" / "sem_text_rel_ranked.csv")  # independent reader
    halves = ref["Text"].str.split("\n", expand=True)
    assert halves.shape[1] == 2
    assert t.pairs["sentence_1"].tolist() == halves[0].str.strip().tolist()
    assert t.pairs["sentence_2"].tolist() == halves[1].str.strip().tolist()
    np.testing.assert_array_equal(t.pairs["gold"].to_numpy(), ref["Score"].to_numpy())


@pytest.mark.parametrize("name, n", [("stsb-captions", 624), ("str2022", 5500)])
def test_scored_like_the_other_sts_tasks(data_dir, tmp_path, name, n):
    t = _task(f"{name},bootstrap=50", data_dir)
    scores = np.round(np.random.default_rng(3).random(n), 2)
    f = tmp_path / "scores.txt"
    f.write_text("\n".join(map(str, scores)))
    out = t.evaluate(load_model(f"precomputed:{f}", cache=EmbeddingCache(None)), seed=0)
    gold = t.pairs["gold"].to_numpy()
    sp = next(s for s in out.scores if s.subset == "all" and s.metric == "spearman")
    assert sp.value == pytest.approx(stats.spearmanr(scores, gold).statistic, abs=1e-12)
    assert sp.ci_low < sp.value < sp.ci_high and sp.n == n
    assert any(p.model == "SentBERT (all-mpnet-base-v2)" for p in t.metadata.published)


def test_str2022_is_pinned_at_its_home_and_data_says_it_is_not_redistributed(data_dir):
    src = get_source("str2022")
    (f,) = src.files
    assert f.url.startswith("https://raw.githubusercontent.com/Priya22/semantic-textual-relatedness/"
                            "961f9a9be535f3299e4c0a7b0f656d583ba911ff/")
    assert src.mirror is None and src.homepage == "https://github.com/Priya22/semantic-textual-relatedness"
    r = subprocess.run([sys.executable, "-m", "compeval", "data", "--data-dir", str(data_dir), "--format", "json"],
                       capture_output=True, text=True, check=True)
    row = next(x for x in json.loads(r.stdout) if x["name"] == "str2022")
    assert row["status"] == "verified" and "do not redistribute" in row["license"]
