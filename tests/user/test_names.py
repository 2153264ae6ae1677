"""The rule for names (``compeval.names``), walked through every view: hostile task names, subset values and
model names are either refused when the task or model is made, with one line, or shown as written in the
results JSON, ``compeval results`` (csv, json, markdown, the terminal table), the leaderboard (markdown and
its HTML page), the report's HTML and its figures.

Markdown is read back by a CommonMark renderer with GitHub's tables (markdown-it-py), HTML by the standard
library's parser: a view passes when the text a reader sees is the name, character for character.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from markdown_it import MarkdownIt

from compeval.errors import CompevalError, MalformedDataError, SpecError
from compeval.models.protocol import ModelConfig
from compeval.names import markdown, task_name_problem, text_problem
from compeval.report import build_report
from compeval.results.store import results_frame
from compeval.runner import run
from compeval.specs import quote_value
from compeval.tasks.registry import get_tasks

from .helpers import BigramEncoder, pair_rows, write_csv

#: Each a name a careless or hostile user could give: markup of every view, paths, separators, invisible and
#: right-to-left characters, look-alikes, and names compeval gives its own scores.
HOSTILE = [
    "|", "a|b", "<script>alert(1)</script>", "<b>", "$\\frac{$", "$x$", "négation", "a+b", "../x", "a/b", "a\nb", "a\tb",
    "x" * 300, "\u202eevil", "שלום עולם", "`code`", "*", "_a_", "**b**", "[x](javascript:alert(1))", "&lt;",
    "[bold]red[/bold]", "[red]x", "a  b", " lead", "trail ", "e\u0301", "zero\u200bwidth", "a,b", 'q"uote', "=1+1", "🙂",
    "all", "non_minus_adv", "\\", "%s", "{0}", "a:b", ".", "..", "-", "CON", "\x00",
]


class Named(BigramEncoder):
    """The bigram encoder under a given display name."""

    def __init__(self, name: str):
        super().__init__()
        self.config = ModelConfig(family="named.v1", name=name, params={"dim": self.dim})


def _one_line(exc: BaseException) -> bool:
    return isinstance(exc, CompevalError) and "\n" not in str(exc) and 0 < len(str(exc)) < 400


class Cells(HTMLParser):
    """The text of every ``td``/``th`` cell, per row; every tag seen."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def html_cells(html: str) -> Cells:
    parser = Cells()
    parser.feed(html)
    return parser


def markdown_cells(text: str) -> Cells:
    return html_cells(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))


def cli(*args: str) -> tuple[int, str, str]:
    """``compeval ARGS`` in this process (a wide terminal): exit status, stdout, stderr."""
    from compeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv, rc = sys.argv, 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", "4000")
        sys.argv = ["compeval", *args]
        try:
            main()
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        finally:
            sys.argv = argv
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """Every hostile name tried as a task name, a subset value and a model name; the accepted ones run
    (one model per name, one pairs task whose subsets are the names), as a user's run would."""
    tmp = tmp_path_factory.mktemp("names")
    refused: dict[str, dict[str, str]] = {"task": {}, "subset": {}, "model": {}}
    plain = write_csv(tmp / "plain.csv", pair_rows(12))
    spec = f"pairs:{plain},a=s1,b=s2,score=gold,bootstrap=40"
    for k, name in enumerate(HOSTILE):
        try:
            get_tasks(spec + f",name={quote_value(name)}")
        except SpecError as exc:
            assert _one_line(exc) and task_name_problem(name) is not None, (name, exc)
            refused["task"][name] = str(exc)
        else:
            assert task_name_problem(name) is None
        rows = [dict(r, kind=name if i % 2 else "plain") for i, r in enumerate(pair_rows(12, seed=k))]
        try:
            get_tasks(f"pairs:{write_csv(tmp / f'subset{k}.csv', rows)},a=s1,b=s2,score=gold,subset=kind")
        except MalformedDataError as exc:
            assert _one_line(exc), (name, exc)
            refused["subset"][name] = str(exc)
        try:
            Named(name)
        except SpecError as exc:
            assert _one_line(exc), (name, exc)
            refused["model"][name] = str(exc)
    given = [n for n in HOSTILE if n not in refused["subset"]]
    subsets = [n.strip() for n in given]  # a cell's surrounding spaces are not part of it (the reader's rule)
    models = [n for n in HOSTILE if n not in refused["model"]]
    rows = [dict(r, kind=given[i % len(given)]) for i, r in enumerate(pair_rows(4 * len(given)))]
    data = write_csv(tmp / "hostile.csv", rows)
    out = tmp / "out"
    summary = run([Named(n) for n in models], [f"pairs:{data},a=s1,b=s2,score=gold,subset=kind,bootstrap=40,"
                                               "name=hostile"], out, cache_dir=None, report=False)
    assert all(o.status == "done" for o in summary.outcomes) and not summary.warnings
    return {"out": out, "refused": refused, "subsets": subsets, "models": models, "tmp": tmp}


def test_every_hostile_name_is_refused_in_one_line_or_accepted(walk):
    refused = walk["refused"]
    # what no view shows as written, every role refuses
    for name in ("a\nb", "a\tb", "\u202eevil", "a  b", " lead", "e\u0301", "zero\u200bwidth", "\x00"):
        assert name in refused["task"] and name in refused["model"], name
        assert name in refused["subset"] or name.strip() in walk["subsets"], name
    # a task name is an identifier: it names files as written (nothing for a reader to map back)
    for name in ("négation", "a+b", "../x", "|", "$\\frac{$", ".", "..", "-"):
        assert name in refused["task"], name
    # names compeval gives its own scores, and the separator of its own subset names
    for name in ("all", "non_minus_adv", "a/b", "../x"):
        assert "compeval's own" in refused["subset"][name]
    assert "x" * 300 in refused["subset"] and "x" * 300 not in refused["model"]  # any length for a model's name
    # everything else any view can show is accepted as a subset and a model name, markup included
    assert "<script>alert(1)</script>" in walk["models"]  # a subset refuses it for its '/'
    for name in ("|", "$\\frac{$", "négation", "a+b", "`code`", "[red]x",
                 "שלום עולם", "🙂", "=1+1", "\\"):
        assert name in walk["subsets"] and name in walk["models"], name


def _labels(out: Path) -> dict[str, str]:
    """Model name → the label every view shows (its display: the name and its fingerprint)."""
    labels = {}
    for path in out.glob("*/*.json"):
        model = json.loads(path.read_text())["model"]
        labels[model["name"]] = model["display"]
    return labels


def test_results_json_files_and_file_names(walk):
    out = walk["out"]
    files = sorted(out.glob("*/*.json"))
    assert len(files) == len(walk["models"])
    assert all(p.resolve().is_relative_to(out.resolve()) for p in out.rglob("*"))  # nothing outside OUTPUT
    assert all(p.name.startswith("hostile__") for p in files)
    unreadable: list = []
    frame = results_frame(out, unreadable)
    assert unreadable == []  # every result the run wrote, its readers own
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["model"]["name"] in walk["models"]
        assert {s["subset"] for s in doc["scores"]} == {"all", *walk["subsets"]}
    assert set(frame["subset"]) == {"all", *walk["subsets"]}
    assert set(_labels(out)) == set(walk["models"])


def test_compeval_results_csv_json_table(walk):
    out, labels = walk["out"], _labels(walk["out"])
    rc, csv, err = cli("results", str(out), "-f", "csv")
    assert rc == 0, err
    frame = pd.read_csv(io.StringIO(csv), keep_default_na=False)
    assert set(frame["subset"]) == {"all", *walk["subsets"]} and set(frame["model"]) == set(labels.values())
    rc, text, err = cli("results", str(out), "-f", "json")
    rows = json.loads(text)
    assert rc == 0 and {r["subset"] for r in rows} == {"all", *walk["subsets"]}
    assert {r["model"] for r in rows} == set(labels.values())
    rc, table, err = cli("results", str(out), "--wide")
    assert rc == 0, err
    for label in labels.values():
        assert label in table, label  # the terminal table reads no markup in a name ([bold]…)
    for subset in walk["subsets"]:
        assert subset in table, subset


def test_markdown_results_and_leaderboard_read_back_as_written(walk):
    out, labels = walk["out"], _labels(walk["out"])
    rc, text, err = cli("results", str(out), "-f", "markdown")
    assert rc == 0, err
    page = markdown_cells(text)
    header, *rows = page.rows
    assert header[:4] == ["model", "task", "params", "subset"] and all(len(r) == len(header) for r in rows)
    assert {r[0] for r in rows} == set(labels.values()) and {r[3] for r in rows} == {"all", *walk["subsets"]}
    assert not {"script", "a", "em", "strong", "code", "del"} & set(page.tags)  # no markup from a name
    rc, text, err = cli("results", str(out), "--leaderboard", "-f", "markdown", "--no-published")
    assert rc == 0, err
    page = markdown_cells(text)
    header, *rows = page.rows
    assert all(len(r) == len(header) for r in rows)
    assert {r[0] for r in rows} == set(labels.values())
    assert not {"script", "a", "em", "code", "del"} & set(page.tags)  # bold marks compeval's best cell only


def test_report_html_and_figures(walk, tmp_path):
    out, labels = walk["out"], _labels(walk["out"])
    for fmt in ("svg", "png"):
        info = build_report(out, tmp_path / f"r-{fmt}.html", figures_dir=tmp_path / fmt, figure_format=fmt,
                            n_resamples=40, n_permutations=40)
        # a character the figure's font lacks is drawn as a box, and the report says so
        assert not info.errors and all("Glyph" in w and "missing from font" in w for w in info.warnings), info
        assert len(info.warnings) == 1  # 🙂
        assert "fig-user-hostile" in info.figures and info.figure_files
    page = html_cells((tmp_path / "r-svg.html").read_text(encoding="utf-8"))
    assert "script" not in page.tags
    text = "".join(page.text)
    for label in labels.values():
        assert label in text, label
    cells = {c for r in page.rows for c in r}
    assert set(labels.values()) <= cells


def test_leaderboard_page(walk, tmp_path):
    out, labels = walk["out"], _labels(walk["out"])
    rc, _, err = cli("report", str(out), "--leaderboard", "-o", str(tmp_path / "board.html"))
    assert rc == 0, err
    page = html_cells((tmp_path / "board.html").read_text(encoding="utf-8"))
    assert "script" not in page.tags
    assert set(labels.values()) <= {c for r in page.rows for c in r}


def test_mathtext_name_draws_in_a_run_s_own_report(tmp_path):
    """The crash as a user met it: a model named ``$\\frac{$`` (mathtext that does not parse) and a run
    that writes its report (compeval 56ab6b1: "report not written: \\frac{")."""
    rows = [dict(r, kind="$\\frac{$" if i % 2 else "plain") for i, r in enumerate(pair_rows(20))]
    data = write_csv(tmp_path / "p.csv", rows)
    summary = run([Named("$\\frac{$"), "hashbag"], [f"pairs:{data},a=s1,b=s2,score=gold,subset=kind,bootstrap=40"],
                  tmp_path / "out", cache_dir=None, report=True)
    assert not summary.warnings and summary.report is not None
    rc, _, err = cli("report", str(tmp_path / "out"), "-o", str(tmp_path / "r.html"), "--resamples", "40")
    assert rc == 0 and "Traceback" not in err, err


@pytest.mark.parametrize("text, seen", [
    ("a|b", "a|b"), ("<script>x</script>", "<script>x</script>"), ("_a_", "_a_"), ("**b**", "**b**"),
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))"), ("&lt;", "&lt;"), ("`c`", "`c`"),
    ("~~s~~", "~~s~~"), ("non_minus_adv", "non_minus_adv"), ("Overlap [published]", "Overlap [published]"),
    ("a\\|b", "a\\|b"), ("$x$", "$x$"), ("p__3f2a", "p__3f2a"), ("__init__", "__init__"), ("a__b__", "a__b__"),
    ("__a__b", "__a__b"), ("*a*_b_", "*a*_b_"), ("é_x_é", "é_x_é"), ("_é_", "_é_"),
])
def test_markdown_escape_reads_back_as_written(text, seen):
    (row,) = markdown_cells(f"| h |\n|---|\n| {markdown(text)} |\n").rows[1:]
    assert row == [seen]


def test_task_names_that_name_files_as_written():
    assert task_name_problem("roles-v2.1_b") is None
    assert "no '__'" in task_name_problem("a__b")
    assert "at most 100" in task_name_problem("x" * 101)
    assert text_problem("négation", "subset") is None and text_problem("ne\u0301gation", "subset") is not None


def test_a_task_name_that_is_not_a_file_name_is_refused_before_any_job(tmp_path):
    """``négation`` / ``a+b`` (compeval 56ab6b1: computed, written as ``a_b__…-<hash>.json``, then disowned by
    every reader and left out of the run's own ranking, exit 0): refused in one line, nothing computed."""
    data = write_csv(tmp_path / "négation.csv", pair_rows(12))
    for extra in (",name=a+b", ",name=négation", ""):  # "": the name is the file's
        rc, out, err = cli("run", "--no-cache", "--no-report", "-m", "hashbag", "-o", str(tmp_path / "out"),
                           "-t", f"pairs:{data},a=s1,b=s2,score=gold,bootstrap=40{extra}")
        assert rc == 2 and "task name" in err and "Traceback" not in err, err
        assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert not (tmp_path / "out").exists()


def test_a_user_subset_named_as_compeval_s_own_score_is_refused(tmp_path):
    """``non_minus_adv`` (compeval 56ab6b1: two numbers under one (metric, subset) key, readers pick one by
    position) and ``all``, in pairs and triplets alike."""
    rows = [dict(r, kind=("non", "adv", "non_minus_adv")[i % 3]) for i, r in enumerate(pair_rows(12))]
    data = write_csv(tmp_path / "p.csv", rows)
    with pytest.raises(MalformedDataError, match=r"p.csv:4: column 'kind': 'non_minus_adv' names a subset of "
                                                 r"compeval's own \(all, non_minus_adv"):
        get_tasks(f"pairs:{data},a=s1,b=s2,score=gold,subset=kind")
    rows = [{"s": f"s{i}", "c": f"c{i}", "f": f"f{i}", "cat": "all"} for i in range(4)]
    data = write_csv(tmp_path / "t.csv", rows)
    with pytest.raises(MalformedDataError, match="'all' names a subset of compeval's own"):
        get_tasks(f"triplets:{data},anchor=s,closer=c,farther=f,category=cat")


def test_a_run_whose_result_its_readers_disown_exits_1(tmp_path):
    """The run's own ranking reads the folder back: a result it wrote that the readers leave out is an error
    line and exit status 1, never a quiet 0."""
    from rich.console import Console

    from compeval.cli.summary import end_of_run

    data = write_csv(tmp_path / "p.csv", pair_rows(12))
    summary = run(["hashbag"], [f"pairs:{data},a=s1,b=s2,score=gold,bootstrap=40"], tmp_path / "out", cache_dir=None)
    buf = io.StringIO()
    console = Console(file=buf, width=300)
    assert end_of_run(summary, tmp_path / "out", console=console, out=console, report=False) == 0
    (path,) = [o.path for o in summary.outcomes]
    path.write_text(path.read_text().replace('"name": "p"', '"name": "q"', 1))  # another task's, in p's file
    assert end_of_run(summary, tmp_path / "out", console=console, out=console, report=False) == 1
    assert "written by this run, is left out of its ranking" in buf.getvalue()


def test_a_library_error_s_first_line_names_its_type():
    """A report that cannot be built is a warning line; matplotlib's mathtext error starts with a newline and
    its first line is one token (``\\frac{``), so the line leads with the exception's type."""
    from compeval.runner.progress import first_line

    assert first_line(ValueError("\n\\frac{\n^\nExpected token")) == "ValueError: \\frac{"
    assert first_line(SpecError("task name 'a+b': use letters")) == "task name 'a+b': use letters"


def test_one_name_for_two_different_user_tasks_of_a_run_is_refused(tmp_path):
    """Two data files declared under one ``name=`` in one run: the run's ranking keeps one result per task name,
    so one of the two numbers would be left out with no word, and ``results`` would show two rows no reader can
    tell apart. Refused in one line before any job; the same declaration twice is one task."""
    rows = pair_rows(12)
    a = write_csv(tmp_path / "a.csv", rows)
    b = write_csv(tmp_path / "b.csv", [dict(r, gold=5 - float(r["gold"])) for r in rows])
    spec = ",a=s1,b=s2,score=gold,bootstrap=40,name=foo"
    rc, out, err = cli("run", "--no-cache", "--no-report", "-m", "hashbag", "-o", str(tmp_path / "out"),
                       "-t", f"pairs:{a}{spec}", "-t", f"pairs:{b}{spec}")
    assert rc == 2 and "task name 'foo'" in err and "Traceback" not in err, err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert not (tmp_path / "out").exists()
    rc, out, err = cli("run", "--no-cache", "--no-report", "-m", "hashbag", "-o", str(tmp_path / "out"),
                       "-t", f"pairs:{a}{spec}", "-t", f"pairs:{a}{spec}")
    assert rc == 0, err
    rc, out, err = cli("run", "--no-cache", "--no-report", "-m", "hashbag", "-o", str(tmp_path / "out2"),
                       "-t", f"pairs:{a}{spec}", "-t", f"pairs:{a}{spec},norm=center")
    assert rc == 0, err  # one file under other options: variants of one task


def test_a_task_name_the_folder_gives_to_another_data_set_is_refused(tmp_path, monkeypatch):
    """Two runs into one folder, one ``name=`` for two data files: the second is refused in one line (the folder
    would show two numbers under one task name); the same file again, by another relative name, runs."""
    rows = pair_rows(12)
    write_csv(tmp_path / "a.csv", rows)
    write_csv(tmp_path / "b.csv", [dict(r, gold=5 - float(r["gold"])) for r in rows])
    monkeypatch.chdir(tmp_path)
    spec = ",a=s1,b=s2,score=gold,bootstrap=40,name=foo"
    run = ["run", "--no-cache", "--no-report", "-m", "hashbag", "-o", "out"]
    rc, out, err = cli(*run, "-t", f"pairs:a.csv{spec}")
    assert rc == 0, err
    rc, out, err = cli(*run, "-t", f"pairs:b.csv{spec}")
    assert rc == 2 and "task name 'foo' already names another data set" in err and "Traceback" not in err, err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    rc, out, err = cli(*run, "-t", f"pairs:./a.csv{spec}")
    assert rc == 0, err
