"""Honest "best" (issue 36, item 4): every headline shows a chance reference beside it; no model is marked
best when its interval overlaps chance (random vectors' score where they ran, else the metric's chance level);
random vectors and lemma overlap are references, never best; a headline a degenerate model can win says so;
a ratio's interval over a near-zero denominator is shown as n/a with the reason."""
from __future__ import annotations

import math

import pytest

from compeval.report.ranking import (NA_RATIO, RankRow, fmt_cell, meaningless_interval, ranking,
                                     ranking_frame)
from compeval.results.schema import Score


def test_a_model_whose_interval_overlaps_chance_is_not_best():
    row = RankRow("sts", "adv ρ", +1, cells={"a": (0.05, -0.02, 0.12), "b": (0.02, -0.05, 0.09)}, chance=0.0)
    assert row.best() is None  # the higher value overlaps 0
    row.cells["c"] = (0.30, 0.21, 0.38)
    assert row.best() == "c" and row.reference() == ("chance", (0.0, None, None))
    lower = RankRow("sts", "gap", -1, cells={"a": (0.01, -0.03, 0.05), "b": (0.2, 0.1, 0.3)}, chance=0.0)
    assert lower.best() is None  # lowest gap, but it is chance's own value


def test_random_vectors_are_the_reference_and_references_are_never_best():
    row = RankRow("x", "modifiers test 3", +1, cells={"random": (0.40, 0.35, 0.45), "toy": (0.44, 0.41, 0.47),
                                                      "overlap": (0.9, 0.85, 0.95), "m": (0.6, 0.5, 0.7)},
                  references={"random": "random vectors", "overlap": "lemma overlap"})
    assert row.reference() == ("random vectors", (0.40, 0.35, 0.45))
    assert not row.clears_reference("toy") and row.clears_reference("m")
    assert row.best() == "m"  # not overlap (a reference), not the toy (its interval overlaps random's)


def test_a_ratio_interval_over_a_near_zero_denominator_is_na():
    wild = Score(metric="profile_mad", value=1.7, ci_low=0.896, ci_high=118.870, n=2800,
                 details={"normalised_by": "paraphrase"})
    tame = Score(metric="profile_mad", value=0.21, ci_low=0.17, ci_high=0.26, n=2800,
                 details={"normalised_by": "paraphrase"})
    plain = Score(metric="spearman", value=0.01, ci_low=-0.1, ci_high=0.12, n=100)  # not a ratio: kept
    assert meaningless_interval(wild) and not meaningless_interval(tame) and not meaningless_interval(plain)
    assert fmt_cell((1.7, math.nan, math.nan)) == "1.700 [n/a]"
    assert "nears zero" in NA_RATIO


@pytest.fixture(scope="module")
def sts_results(tmp_path_factory, data_dir):
    from compeval.runner import run

    out = tmp_path_factory.mktemp("honest") / "out"
    summary = run(["hashbag", "random,dim=16,name=noise", "overlap"], ["sts3k,bootstrap=100", "gs2011,bootstrap=100"],
                  out, data_dir=data_dir, cache_dir=None, report=True)
    assert not summary.failed
    return out


def test_the_ranking_of_real_results_is_honest(sts_results):
    from compeval.cli.summary import ranking_notes
    from compeval.report.loading import ResultsIndex

    rows = ranking(ResultsIndex(sts_results))
    by_label = {r.label.removesuffix(" (bootstrap=100)"): r for r in rows}  # the row names non-default options
    gap = by_label["STS3k non−adv gap"]
    noise = next(m for m in gap.cells if m.startswith("noise"))
    assert gap.references[noise] == "random vectors" and gap.references["overlap"] == "lemma overlap"
    for row in rows:  # found by family, whatever the name; never best; the reference of every row
        assert row.best() not in row.references and row.reference()[0] == "random vectors"
        best = row.best()
        if best is not None:
            (_, lo, hi), (_, rlo, rhi) = row.cells[best], row.reference()[1]
            assert (lo > rhi) if row.direction > 0 else (hi < rlo)
    notes = ranking_notes(rows)
    assert any("STS3k non−adv gap" in n and "random vectors win it" in n for n in notes)
    frame = ranking_frame(sts_results)
    assert list(frame.columns[:1]) == ["chance"] and frame.loc["STS3k adv ρ (bootstrap=100) ↑", "chance"] == \
        fmt_cell(by_label["STS3k adv ρ"].cells[noise])
    html = (sts_results / "report.html").read_text()
    assert "random vectors win it" in html and "dashed line: chance" in html


def test_the_report_never_bolds_a_reference_or_a_score_at_chance(sts_results):
    import re

    html = (sts_results / "report.html").read_text()
    board = html[html.index('id="leaderboard-sts"'):]
    board = board[:board.index("</table>")]
    for row in re.findall(r'<tr class="computed">(.*?)</tr>', board, re.S):
        model = re.search(r'<td class="model">(.*?)</td>', row).group(1)
        if model.startswith("noise") or model == "overlap":
            assert 'class="best' not in row, model


def test_the_sts_board_says_which_column_is_which(sts_results):
    import re

    html = (sts_results / "report.html").read_text()
    board = html[html.index('id="leaderboard-sts"'):]
    note = re.search(r'<p class="caption headline-note">(.*?)</p>', board, re.S).group(1)
    note = " ".join(note.split())
    assert "sts3k: this column is its main score, spearman on the “adv” subset" in note
    assert "“STS3k adv ρ”" not in note and "“STS3k non−adv gap” is spearman on “non_minus_adv”" in note


def test_the_exported_leaderboard_bolds_no_reference(sts_results):
    from compeval.report.tables import leaderboard_text

    text = leaderboard_text(sts_results, "markdown", include_published=False)
    rows = [line for line in text.splitlines() if line.startswith("|") and "---" not in line]
    refs = [r for r in rows if r.split("|")[1].strip().startswith(("noise", "overlap"))]
    assert len(refs) == 2 and not any("**" in r for r in refs), refs


def test_the_report_cell_of_a_meaningless_ratio_interval_says_na():
    from types import SimpleNamespace

    from compeval.report.build import _score_cell

    wild = Score(metric="profile_mad", value=1.985, ci_low=0.896, ci_high=118.870, n=2800,
                 details={"normalised_by": "paraphrase"})
    entry = SimpleNamespace(main=wild, provenance=lambda: "random", task="sts3k-types", direction=-1, model="random")
    cell = _score_cell(entry, SimpleNamespace(entries=[entry]), None)
    assert cell.text == "1.985" and cell.sub == "[n/a]" and NA_RATIO in cell.title and "118.870" in cell.title
