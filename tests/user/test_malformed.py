"""Every malformed user file stops the command line with one line naming file, line and column, exit 2."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from compeval.cli import main

from .helpers import pair_rows, role_rows, write_csv

PAIRS = "a=s1,b=s2,score=gold"


def run_cli(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["compeval", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return exc.value.code, captured.err.strip().splitlines()


def _pairs(tmp_path, edit):
    rows = pair_rows(12)
    edit(rows)
    return write_csv(tmp_path / "bad.csv", rows)


CASES = {
    # name: (rows editor or file text, option string, expected message after "bad.csv:")
    "missing column": (lambda rows: None, "a=s1,b=sentence2,score=gold",
                       "1: column 'sentence2' (given as b=) is not in the file; its columns are 's1', 's2', 'gold', 'kind'"),
    "empty text": (lambda rows: rows[4].update(s2="  "), PAIRS, "6: column 's2': empty text"),
    "non-numeric score": (lambda rows: rows[2].update(gold="high"), PAIRS, "4: column 'gold': score 'high' is not a number"),
    "infinite score": (lambda rows: rows[0].update(gold="inf"), PAIRS, "2: column 'gold': score 'inf' is not a finite number"),
    "duplicate item": (lambda rows: rows[7].update(s1=rows[3]["s1"], s2=rows[3]["s2"]), PAIRS,
                       "9: column 's1, s2': duplicate item"),
    "too few rows": (lambda rows: rows.__delitem__(slice(2, None)), PAIRS,
                     "3: only 2 row(s); the pairs method needs at least 3"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_pairs_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, case):
    edit, options, expected = CASES[case]
    path = _pairs(tmp_path, edit)
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", f"pairs:{path},{options}",
                          "-o", str(tmp_path / "out"))
    assert code == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: {path}:{expected}"), lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.json"))


@pytest.mark.parametrize("text, expected", [
    ("anchor,closer\nthe a,the b,extra\n", "2: 3 fields where the header names 2"),
    ("anchor,anchor\nx,y\n", "1: column 'anchor' is named twice in the header"),
    ("", "1: the file is empty; the first line must name the columns"),
    ("anchor,closer,farther\n", "1: no rows (the file holds no data)"),
    ('anchor,closer,farther\n"the a,the b,the c\n', "2: not valid CSV"),
])
def test_a_file_that_is_not_a_table_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, text, expected):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", f"triplets:{path}", "-o",
                          str(tmp_path / "out"))
    assert (code, len(lines)) == (2, 1), lines
    assert lines[0].startswith(f"error: {path}:{expected}"), lines[0]


def test_bad_json_lines_and_the_same_text_twice_in_an_item(tmp_path, monkeypatch, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"anchor": "the a", "closer": "the b", "farther": "the c"}\n{"anchor": "the a"\n')
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", f"triplets:{path}", "-o",
                          str(tmp_path / "out"))
    assert (code, len(lines)) == (2, 1) and lines[0].startswith(f"error: {path}:2: not valid JSON"), lines
    path.write_text('{"anchor": "the a", "closer": "the b", "farther": "the a"}\n' * 2)
    code, lines = run_cli(monkeypatch, capsys, "run", "-m", "hashbag", "-t", f"triplets:{path}", "-o",
                          str(tmp_path / "out"))
    assert (code, len(lines)) == (2, 1)
    assert lines[0] == (f"error: {path}:1: column 'anchor, closer, farther': the same text twice in one item; its "
                        "order is undefined"), lines


def test_through_the_installed_command(tmp_path):
    """The console script itself (a separate process): one line on stderr, exit status 2."""
    rows = role_rows(5)
    rows[3]["swap"] = ""
    path = write_csv(tmp_path / "roles.csv", rows)
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "-m", "hashbag", "-t",
                        f"triplets:{path},anchor=sentence,closer=paraphrase,farther=swap", "-o", str(tmp_path / "o")],
                       capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {path}:5: column 'swap': empty text"
