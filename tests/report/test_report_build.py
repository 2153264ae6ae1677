"""Building the report and its tables from a small folder the runner writes with toy models (seconds, no
data or weights): sections follow the suites present, paired tests recompute the stored scores, exports
and CLI work, and bad folders give one clear error."""
from __future__ import annotations

import io
from html import unescape
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from compeval.errors import CompevalError
from compeval.report import build_report, leaderboard_frame, leaderboard_text, paired_comparisons
from compeval.report.loading import ResultsIndex
from compeval.results import ResultStore, results_frame

TOY_SUITES = {"invariance", "structure", "modifiers"}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "compeval.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def toy_report(toy_results, tmp_path_factory):
    out = tmp_path_factory.mktemp("toy-report")
    info = build_report(toy_results, out / "report.html", figures_dir=out / "figs", figure_format="png",
                        n_resamples=200, n_permutations=200)
    return info, (out / "report.html").read_text(encoding="utf-8")


def test_sections_follow_the_suites_present(toy_report):
    info, html = toy_report
    assert info.sections == ["leaderboard", "suite-structure", "suite-modifiers", "suite-invariance", "paired",
                             "provenance"]
    for absent in ("suite-sts", "suite-probing", "suite-lexcomp"):
        assert f'id="{absent}"' not in html
    assert set(info.figures) == {"fig-headline", "fig-minimal-pairs", "fig-modifiers-test3",
                                 "fig-invariance-relation", "fig-invariance-qa", "fig-paired"}
    for fid in info.figures:
        assert html.count(f'<figure class="figure" id="{fid}"') == 1
    assert not info.warnings


def test_headline_figure_first_and_published_rows_behind_a_toggle(toy_report):
    info, html = toy_report
    assert info.figures[0] == "fig-headline"
    first_figure = html.index("<figure")
    assert first_figure == html.index('id="fig-headline"') - len('<figure class="figure" ')
    assert first_figure < html.index('<table class="board"')  # above the leaderboard tables
    published = html.index('<tr class="published">')
    toggle = html.rindex("<details", 0, published)
    assert html.index("</details>", toggle) > published  # every published row sits in a closed <details>
    assert html.count('<tr class="published">') == html[toggle:].count('<tr class="published">')


def test_html_is_self_contained(toy_report):
    _, html = toy_report
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert csp and unescape(csp.group(1)).startswith("default-src 'none'; img-src data:")
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert re.findall(r"url\((?!#)", html) == []  # only in-document references (SVG clip paths)
    assert "http://" not in html and "https://" not in html  # not even the SVG namespace or DTD URIs
    assert re.findall(r'\s(?:src|href)="(?!#)', html) == []
    # raster parts of figures are inline data, and every figure is inline SVG
    assert html.count("<svg") == html.count('<figure class="figure"')


def test_figures_written_as_files_when_asked(toy_report):
    info, _ = toy_report
    assert len(info.figure_files) == len(info.figures)
    for f in info.figure_files:
        with open(f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n", f


def test_figures_are_deterministic(toy_results, tmp_path):
    a = build_report(toy_results, tmp_path / "a.html", n_resamples=50, n_permutations=50)
    b = build_report(toy_results, tmp_path / "b.html", n_resamples=50, n_permutations=50)
    strip = lambda p: re.sub(r"built [^·]+ by", "", p.read_text())  # noqa: E731 - the build time differs
    assert a.figures == b.figures
    assert strip(a.path) == strip(b.path)


def test_paired_tests_recompute_the_stored_main_scores(toy_results):
    comparisons = paired_comparisons(ResultsIndex(toy_results), n_resamples=100, n_permutations=100)
    by_task = {c.a.task_name: c for c in comparisons}
    assert set(by_task) >= {"invariance-relation", "invariance-qa", "minimal-pairs", "modifiers-test3"}
    for c in comparisons:
        assert c.result is not None, (c.task, c.note)
        assert c.recomputed_ok, (c.task, c.note)
        assert c.result.score_a == pytest.approx(c.a.main.value, abs=1e-3)
        assert c.result.score_b == pytest.approx(c.b.main.value, abs=1e-3)
        assert c.result.ci_low <= c.result.difference <= c.result.ci_high
        assert 0 < c.result.p_value <= 1
        # adjacent ranks: the better-ranked model is A (higher is better for all of these)
        assert c.a.main.value >= c.b.main.value
    # units: entity pairs for the relation task, nouns for the modifier test
    assert by_task["invariance-relation"].result.n_units < by_task["invariance-relation"].result.n_items
    assert by_task["modifiers-test3"].result.n_units == 12


def test_leaderboard_frame_holds_the_stored_scores(toy_results):
    frame = leaderboard_frame(toy_results)
    store = ResultStore(toy_results)
    displays = {r.model["display"] for _, r in store.iter_results()}
    assert frame.index.name == "model" and set(frame.index) == displays and len(displays) == 2
    assert frame.columns.names == ["suite", "task", "stat"]
    rows = results_frame(toy_results)
    for path, r in store.iter_results():
        model = r.model["display"]
        got = frame.loc[model, (r.task.suite, path.stem, "value")]
        assert got == pytest.approx(r.main_score)
        assert frame.loc[model, (r.task.suite, path.stem, "ci_low")] <= got <= frame.loc[model, (r.task.suite, path.stem, "ci_high")]
    assert len(rows) > 0
    with_pub = leaderboard_frame(toy_results, include_published=True)
    published = [m for m in with_pub.index if m.endswith("[published]")]
    assert "Overlap [published]" in published  # Cheung & Penn's AUC for invariance-relation
    rel = next(t for s, t, _ in with_pub.columns if t.startswith("invariance-relation"))
    assert with_pub.loc["Overlap [published]", ("invariance", rel, "value")] == pytest.approx(0.7427)
    assert np.isnan(with_pub.loc["Overlap [published]", ("invariance", rel, "ci_low")])


def test_leaderboard_exports(toy_results):
    md = leaderboard_text(toy_results, "markdown")
    assert md.splitlines()[0].startswith("| model | ")
    assert "[published]" in md and re.search(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", md)
    csv = pd.read_csv(io.StringIO(leaderboard_text(toy_results, "csv")), index_col=0)
    assert any(c.startswith("invariance/invariance-relation") for c in csv.columns) and "hashbag" in csv.index
    tex = leaderboard_text(toy_results, "latex")
    assert "\\begin{table}" in tex and "\\toprule" in tex and "95\\% intervals" in tex
    with pytest.raises(CompevalError, match="unknown leaderboard format"):
        leaderboard_text(toy_results, "xml")


def test_cli_report_and_latex(toy_results, tmp_path):
    r = cli("report", str(toy_results), "-o", str(tmp_path / "r.html"), "--figures", str(tmp_path / "f"),
            "--format", "svg", "--resamples", "100")
    assert r.returncode == 0, r.stderr
    assert "report:" in r.stderr and (tmp_path / "r.html").stat().st_size > 10_000
    svgs = sorted(p.name for p in (tmp_path / "f").glob("*.svg"))
    assert "fig-invariance-relation.svg" in svgs and "fig-paired.svg" in svgs
    tex = cli("results", str(toy_results), "--format", "latex")
    assert tex.returncode == 0, tex.stderr
    assert "\\begin{tabular}" in tex.stdout or "\\begin{longtable}" in tex.stdout
    assert "normalised\\_rank" in tex.stdout  # underscores escaped
    board = cli("results", str(toy_results), "--leaderboard", "--format", "latex")
    assert board.returncode == 0 and "\\begin{table}" in board.stdout


def test_empty_and_malformed_folders_give_clear_errors(tmp_path, toy_results):
    with pytest.raises(CompevalError, match="does not exist"):
        build_report(tmp_path / "nope", tmp_path / "r.html")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CompevalError, match="holds no results"):
        build_report(tmp_path / "empty", tmp_path / "r.html")
    bad = tmp_path / "bad"
    shutil.copytree(toy_results, bad)
    victim = sorted(bad.glob("*/*.json"))[0]
    n_results = len(list(bad.glob("*/*.json")))
    # A damaged or foreign file is left out, named with why, and the report is still built from the rest.
    for content, why in (("{ not json", "not valid JSON"), (json.dumps({"schema_version": "1.0", "model": {}}), "")):
        victim.write_text(content)
        info = build_report(bad, tmp_path / "r.html", n_resamples=50, n_permutations=50)
        left_out = [w for w in info.warnings if w.startswith("left out")]
        assert len(left_out) == 1 and victim.name in left_out[0] and why in left_out[0]
        assert len(ResultsIndex(bad).entries) == n_results - 1
    r = cli("report", str(tmp_path / "empty"), "-o", str(tmp_path / "r.html"))
    assert r.returncode == 2 and "holds no results" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr


def test_missing_predictions_skip_the_paired_test_not_the_report(toy_results, tmp_path):
    folder = tmp_path / "nopreds"
    shutil.copytree(toy_results, folder)
    for p in folder.glob("*/invariance-qa*.predictions.jsonl"):
        p.unlink()
    info = build_report(folder, tmp_path / "r.html", n_resamples=50, n_permutations=50)
    html = (tmp_path / "r.html").read_text()
    assert "fig-invariance-qa" in info.figures  # drawn from the stored scores
    assert "no per-item form of this score (or no predictions)" in html


def test_modifier_type_test_and_published_rows_are_tables(toy_report, toy_results):
    """The adjective-type test of each modifier result (H, df, both p-values), and each paper table whose task
    ran: compeval's rows with their intervals, the paper's rows (Table 8, all eight models) marked published
    behind a toggle below them."""
    info, html = toy_report
    index = ResultsIndex(toy_results)
    entry = index.firsts("modifiers-test3")[0]
    h = entry.score("types_kw_h", "AN")
    start = html.index('id="table-modifiers-types"')
    table = html[start:html.index("</table>", start)]
    assert f">{h.value:.3f}<" in table and f">{h.details['df']}<" in table
    # the headline p is the permutation p with the adjective as the unit; the χ² p is labelled with its unit
    from compeval.tasks.modifiers.report import _p
    head = table[:table.index("</thead>")] if "</thead>" in table else table
    assert "p (unit: adjective; permuted)" in head and "p (unit: phrase or comparison; asymptotic χ²)" in head
    rows = [r for r in table.split("<tr")[1:] if ">test 3, AN phrases<" in r]
    cells = [re.sub("<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", rows[0], re.S)]
    assert cells[0] == entry.model  # the table's first test-3 row is the first model's, as firsts() orders them
    perm, chi2 = entry.score("types_kw_p", "AN").value, entry.score("types_kw_p_chi2", "AN").value
    assert cells[5:7] == [_p(perm), _p(chi2)], cells
    for absent in ("table2", "table6", "table7"):  # no test 1 or test 2 result in the toy folder
        assert f'id="table-modifiers-{absent}' not in html
    start = html.index('id="table-modifiers-table8"')
    table = html[start:html.index("</table>", start)]
    s = entry.score("test3_macro", "NS-Pr")
    assert f'>{s.value:.4f}<span class="ci">[{s.ci_low:.4f}, {s.ci_high:.4f}]</span><' in table
    assert "(published)" not in table
    toggle = html.index("<details", start)
    start = html.index('id="table-modifiers-table8-published"')
    assert toggle < start < html.index("</details>", toggle)
    table = html[start:html.index("</table>", start)]
    assert table.count('<tr class="published">') == 8
    assert "GloVe (published)" in table and "text-embedding-3-small (published)" in table
    assert ">0.6060<" in table and ">0.3889<" in table  # GloVe S-I and text-embedding-3-small A of Table 8

def test_modifier_paper_tables_beside_computed_rows(tmp_path):
    """Tests 1 and 2 of a toy model: Tables 2, 6 and 7 in the paper's column order, compeval's values in the
    visible rows, the paper's eight models behind the toggle with the printed values."""
    from compeval.runner import run

    out = tmp_path / "res"
    summary = run(["hashbag"], ["modifiers-test1,n_resamples=40,permutations=0",
                                "modifiers-test2,n_resamples=40,permutations=0"], out, cache_dir=None, download=False)
    assert not summary.failed, [o.error for o in summary.failed]
    build_report(out, tmp_path / "r.html", n_resamples=40, n_permutations=40)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    index = ResultsIndex(out)
    t1, t2 = index.firsts("modifiers-test1")[0], index.firsts("modifiers-test2")[0]
    assert 'id="table-modifiers-table8' not in html  # no test 3 result

    def table(table_id):
        start = html.index(f'id="{table_id}"')
        return html[start:html.index("</table>", start)]

    t6 = table("table-modifiers-table6")
    heads = re.findall(r"<th>([^<]*)</th>", t6)
    assert heads[:4] == ["model", "(S-I, S-I)", "(S-NI, S-I)", "(NS-Pl, S-I)"] and heads[-1] == "(A, A)"
    assert len(heads) == 26
    s = t1.score("test1_macro", "NS-Pr|S-I")
    assert f">{s.value:.4f}<span" in t6 and "(published)" not in t6
    pub6 = table("table-modifiers-table6-published")
    assert pub6.count('<tr class="published">') == 8
    assert re.search(r"GloVe \(published\)</td>(<td[^>]*>[^<]*</td>){3}<td[^>]*>0\.9393</td>", pub6)
    t7 = table("table-modifiers-table7")
    assert re.findall(r"<th>([^<]*)</th>", t7)[1:3] == ["(S-I, S-I)", "(S-I, S-NI)"]
    assert f">{t2.score('test2_macro', 'S-I|S-NI').value:.4f}<span" in t7
    pub7 = table("table-modifiers-table7-published")
    assert pub7.count('<tr class="published">') == 8 and ">0.6565<" in pub7 and ">0.9982<" in pub7
    pub2 = table("table-modifiers-table2-published")
    assert pub2.count('<tr class="published">') == 8 and ">0.67<" in pub2  # NV-Embed-v2's S-NI
