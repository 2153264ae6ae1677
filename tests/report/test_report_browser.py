"""The report of a real results folder (glove-6b-50d and all-MiniLM-L6-v2 on every suite), opened in
headless Chromium: no console error, no network request, every section and figure rendered."""
from __future__ import annotations

import time

import pytest

from compeval.report import build_report

pytestmark = pytest.mark.integration

EXPECTED_SECTIONS = ["leaderboard", "suite-sts", "suite-structure", "suite-modifiers", "suite-probing",
                     "suite-lexcomp", "suite-invariance", "paired", "provenance"]
EXPECTED_FIGURES = ["fig-sts3k-gap", "fig-sts3k-scatter", "fig-sts-sets", "fig-sts3k-profile", "fig-modifier-drops",
                    "fig-minimal-pairs", "fig-modifiers-test2", "fig-modifiers-test3", "fig-probing-controls",
                    "fig-lexcomp", "fig-invariance-relation", "fig-invariance-qa", "fig-paired"]


def test_real_report_in_chromium(real_results, open_in_chromium, artifact_dir):
    html = artifact_dir / "report.html"
    started = time.perf_counter()
    info = build_report(real_results, html, n_resamples=500, n_permutations=500)
    seconds = time.perf_counter() - started
    print(f"\nreport: {html} ({info.size_bytes / 1e6:.2f} MB) built in {seconds:.1f}s; "
          f"{len(info.figures)} figures, {info.paired} paired tests")
    assert not info.warnings, info.warnings

    page = open_in_chromium(html, artifact_dir / "report.png")
    print(f"screenshot: {page.screenshot}")

    # nothing fetched but the file itself, nothing logged as an error
    assert [u for u in page.requests if not u.startswith("data:")] == [page.url], page.requests
    assert not page.errors(), page.errors()
    assert page.dom["scripts"] == 0
    assert all(link.startswith("#") for link in page.dom["links"]), page.dom["links"]

    dom = page.dom
    assert dom["sections"] == EXPECTED_SECTIONS
    figures = {f["id"]: f for f in dom["figures"]}
    assert set(EXPECTED_FIGURES) <= set(figures), set(EXPECTED_FIGURES) - set(figures)
    for fid in EXPECTED_FIGURES:
        f = figures[fid]
        assert f["svg"] and f["caption"], fid
        assert f["size"][0] > 300 and f["size"][1] > 150, (fid, f["size"])  # drawn, not collapsed

    # leaderboard: both models, published rows marked as such, provenance on hover
    assert {"leaderboard-sts", "leaderboard-modifiers", "leaderboard-probing", "leaderboard-lexcomp",
            "leaderboard-invariance", "leaderboard-structure"} <= set(dom["boards"])
    assert dom["computedRows"] >= 2 * 5 + 1 and dom["publishedRows"] > 0  # lexcomp: GloVe only
    assert dom["hoverProvenance"] >= 2 * 9 + 1  # every computed leaderboard number
    assert dom["provenanceBlocks"] >= 2

    # paired tests of the two models on every task with per-item scores, each recomputing the stored score
    rows = dom["pairedRows"]
    assert len(rows) >= 9
    tested = [r for r in rows if "distinguishable" in r]
    assert len(tested) >= 8
    assert all("recomputed ✓" in r for r in tested), [r for r in tested if "recomputed ✓" not in r]
    assert page.screenshot.stat().st_size > 50_000
    assert dom["overflowing"] == [], dom["overflowing"]  # every leaderboard table fits 1,400 px (issue 36)
