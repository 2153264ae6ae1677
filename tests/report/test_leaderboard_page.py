"""The leaderboard page of a sweep: sortable headline columns (one view per column, each sorted by it),
mteb's model facts, 95% intervals, and with an MTEB-layout results folder the scatter per headline with
Spearman's ρ (checked against scipy); opened in headless Chromium (no script, no request, no error)."""
from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

mteb = pytest.importorskip("mteb")

#: Hub names (known to mteb's registry) given to seeded chance-level models, and the MTEB STS scores the
#: test's MTEB folder gives them.
NAMES = ["BAAI/bge-small-en-v1.5", "thenlper/gte-small", "intfloat/e5-small-v2", "sentence-transformers/all-MiniLM-L6-v2",
         "Snowflake/snowflake-arctic-embed-xs", "avsolatorio/GIST-small-Embedding-v0"]
STS_TASKS = ["STS12", "STS13", "STSBenchmark", "SICK-R"]
TASK = "minimal-pairs,n_bases=3,bootstrap=50"


@pytest.fixture(scope="module")
def sweep_results(tmp_path_factory):
    from compeval.runner import run

    out = tmp_path_factory.mktemp("lb") / "results"
    models = [f"hashbag,seed={i},name={n}" for i, n in enumerate(NAMES)]
    summary = run(models, [TASK, "invariance-qa"], out, cache_dir=None, progress=False)
    assert not summary.failed, [o.error for o in summary.failed]
    return out


def _mteb_folder(root: Path) -> dict[str, float]:
    """MTEB's layout: results/<org__name>/<revision>/<Task>.json; returns each model's STS mean."""
    metas = {m.name: m for m in mteb.get_model_metas()}
    means = {}
    rng = np.random.default_rng(1)
    for name in NAMES:
        folder = root / "results" / name.replace("/", "__") / (metas[name].revision or "no_revision_available")
        folder.mkdir(parents=True)
        values = rng.uniform(0.6, 0.9, size=len(STS_TASKS))
        for task, v in zip(STS_TASKS, values):
            (folder / f"{task}.json").write_text(json.dumps({"task_name": task, "scores": {"test": [
                {"hf_subset": "default", "languages": ["eng-Latn"], "main_score": float(v)}]}}))
        (folder / "Banking77Classification.json").write_text(json.dumps({"scores": {"test": [
            {"hf_subset": "en", "languages": ["eng-Latn"], "main_score": 0.1}]}}))  # not STS: ignored
        means[name] = float(values.mean())
    return means


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.views, self._cell, self._row, self._in = [], None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "data-sort" in a:
            self.views.append({"sort": int(a["data-sort"]), "rows": []})
        elif tag == "tr" and self.views:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = ""
        elif tag == "span" and self._cell is not None:
            self._in = True

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row:
            self.views[-1]["rows"].append(self._row)
            self._row = None
        elif tag == "span":
            self._in = False

    def handle_data(self, data):
        if self._cell is not None and not self._in:
            self._cell += data


def test_leaderboard_page_sorts_and_sets_headlines_beside_mteb(sweep_results, tmp_path, open_in_chromium,
                                                               artifact_dir):
    from scipy.stats import spearmanr

    from compeval.report.leaderboard import build_leaderboard
    from compeval.report.loading import ResultsIndex
    from compeval.report.ranking import ranking

    means = _mteb_folder(tmp_path / "mteb")
    page = artifact_dir / "leaderboard.html"
    info = build_leaderboard(sweep_results, page, mteb_results=tmp_path / "mteb")
    rows = [r for r in ranking(ResultsIndex(sweep_results)) if r.cells]
    assert info.models == 6 and info.headlines == len(rows) >= 2 and info.scatter == len(rows)
    text = page.read_text()
    parser = _Tables()
    parser.feed(text)
    assert len(parser.views) == len(rows) + 2  # a view per headline, parameters and release date
    for view in parser.views[: len(rows)]:
        k = view["sort"]
        values = [float(r[2 + k]) for r in view["rows"]]
        d = rows[k].direction or 1
        assert values == sorted(values, key=lambda v: -d * v)  # best first
        assert len(view["rows"]) == 6
    params_view = parser.views[len(rows)]
    metas = {m.name: m for m in mteb.get_model_metas()}
    shown = [r[2 + len(rows)] for r in params_view["rows"]]
    want = sorted((metas[n].n_parameters for n in NAMES), reverse=True)
    assert shown == [f"{n / 1e6:.0f}M" for n in want]
    assert "mit" in text and "apache-2.0" in text and "2023-09-12" in text  # licences and a release date
    # ρ in each scatter's title equals scipy's on the same points (STS means over the shared tasks)
    from compeval.report.leaderboard import spearman_ci

    for k, row in enumerate(rows):
        x = np.array([means[m] for m in NAMES])
        y = np.array([row.cells[m][0] for m in NAMES])
        rho, lo, hi = spearman_ci(x, y)
        assert rho == pytest.approx(spearmanr(x, y).statistic)
        assert lo <= rho <= hi
    loaded = open_in_chromium(page, artifact_dir / "leaderboard.png")
    assert [u for u in loaded.requests if not u.startswith("data:")] == [loaded.url], loaded.requests
    assert not loaded.errors(), loaded.errors()
    assert loaded.dom["scripts"] == 0
    assert loaded.dom["sections"] == ["leaderboard", "mteb"]
    figures = {f["id"]: f for f in loaded.dom["figures"]}
    assert len(figures) == len(rows) and all(f["size"][0] > 250 for f in figures.values())
