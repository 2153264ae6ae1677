"""The end-of-run ranking's headline row says when the result it shows was computed with non-default options
(``-t sts3k,norm=center``), so that a centred adv ρ is never read as the default protocol's."""
from __future__ import annotations

from compeval.report.loading import ResultsIndex
from compeval.report.ranking import ranking
from compeval.runner import run


def test_a_headline_row_of_a_non_default_result_names_its_options(tmp_path):
    run(["hashbag"], ["sts3k,norm=center"], tmp_path / "c", cache_dir=None)
    labels = [r.label for r in ranking(ResultsIndex(tmp_path / "c")) if r.suite == "sts"]
    assert labels and all("norm=center" in label for label in labels), labels
    run(["hashbag"], ["sts3k"], tmp_path / "d", cache_dir=None)
    labels = [r.label for r in ranking(ResultsIndex(tmp_path / "d")) if r.suite == "sts"]
    assert labels == ["STS3k adv ρ", "STS3k non−adv gap"], labels


def test_a_single_task_row_of_a_reduced_result_names_its_options(tmp_path):
    run(["hashbag"], ["minimal-pairs,n_bases=10"], tmp_path / "q", cache_dir=None)
    labels = [r.label for r in ranking(ResultsIndex(tmp_path / "q")) if r.suite == "structure"]
    assert labels == ["minimal-pairs (n_bases=10) order_agreement"], labels
