"""Readers that refuse ambiguity, and one-line errors: a JSON Lines row that gives a key twice, labels that are
equal JSON numbers (one label) or of two kinds (refused), a raw U+2028 inside a JSON string, a bad
declaration among several task files, a boolean for a count, the listed resample bound, and a Skip-Thought
options pickle that unpickles to the wrong thing."""
from __future__ import annotations

import json
import pickle
import sys

import numpy as np
import pytest

from compeval.cli import main
from compeval.errors import MalformedDataError, SpecError
from compeval.tasks.registry import get_tasks

from .helpers import NOUNS, VERBS, pair_rows, write_csv, write_jsonl


def run_cli(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["compeval", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return exc.value.code, captured.out, captured.err.strip().splitlines()


def _pairs_jsonl(path, rows):
    return write_jsonl(path, [{"s1": r["s1"], "s2": r["s2"], "gold": float(r["gold"])} for r in rows])


@pytest.mark.parametrize("line", ['{"s1": "a b", "s2": "c d", "gold": 1.0, "gold": 4.0}',
                                  '{"s1": "a b", "s2": "c d", "gold": 1.0, "meta": {"k": 1, "k": 2}}'])
def test_a_json_lines_row_that_gives_a_key_twice_is_refused_with_its_line(tmp_path, line):
    path = _pairs_jsonl(tmp_path / "dup.jsonl", pair_rows(12))
    lines = path.read_text().splitlines()
    lines.insert(2, line)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MalformedDataError) as exc:
        get_tasks(f"pairs:{path},a=s1,b=s2,score=gold")
    assert exc.value.line_no == 3 and "given twice" in str(exc.value) and str(path) in str(exc.value)


def test_a_precomputed_vectors_line_that_gives_a_key_twice_is_refused(tmp_path):
    from compeval.models.families.precomputed import read_precomputed

    path = tmp_path / "vectors.jsonl"
    path.write_text('{"text": "a", "vector": [1, 2]}\n{"text": "b", "vector": [1, 2], "vector": [3, 4]}\n')
    with pytest.raises(MalformedDataError) as exc:
        read_precomputed(path)
    assert exc.value.line_no == 2 and "'vector' is given twice" in str(exc.value)


def test_a_raw_line_separator_inside_a_json_string_is_text(tmp_path):
    rows = [{"s1": r["s1"], "s2": r["s2"], "gold": float(r["gold"])} for r in pair_rows(12)]
    rows[4]["s1"] = "the witness\u2028called the lawyer\x85 again\x0c"
    path = tmp_path / "sep.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")  # raw, as JSON allows
    (task,) = get_tasks(f"pairs:{path},a=s1,b=s2,score=gold")
    task.load(None)
    assert len(task.texts()) == 24 and "the witness\u2028called the lawyer\x85 again" in task.texts()


def _agents(label_of) -> list[dict]:
    rng = np.random.default_rng(1)
    rows = []
    for v in VERBS[:3]:
        for k in range(24):
            a, b = rng.choice(NOUNS, 2, replace=False)
            rows.append({"sentence": f"the {a} {v} the {b} {'today' if k % 2 else 'yesterday'} {k}",
                         "label": label_of(NOUNS.index(a) >= 5, k)})
    return rows


def test_equal_json_numbers_are_one_label(tmp_path):
    """1 and 1.0 are one number: a two-label probe stays one probe, not three one-vs-rest probes."""
    path = write_jsonl(tmp_path / "agents.jsonl", _agents(lambda late, k: (1 if k % 2 else 1.0) if late else 0))
    (task,) = get_tasks(f"probe:{path},text=sentence,label=label")
    assert task.values == ["0", "1"] and task.choices == ["label=1"]
    assert "logreg/label=1" not in task.subset_names()


@pytest.mark.parametrize("first, second, other, kinds", [(1, "1", 0, ("text", "a number")),
                                                          (1, True, 0, ("a boolean", "a number")),
                                                          (True, "true", False, ("text", "a boolean"))])
def test_labels_of_two_kinds_are_refused_naming_both_lines(tmp_path, first, second, other, kinds):
    path = write_jsonl(tmp_path / "mixed.jsonl", _agents(lambda late, k: (second if k == 3 else first) if late else other))
    with pytest.raises(MalformedDataError) as exc:
        get_tasks(f"probe:{path},text=sentence,label=label")
    message = str(exc.value)
    assert "write every value of the column as one kind" in message
    assert all(k in message for k in kinds), message


def test_a_bad_declaration_among_several_task_files_is_named(tmp_path, monkeypatch, capsys):
    data = write_csv(tmp_path / "pairs.csv", pair_rows(12))
    folder = tmp_path / "tasks"
    folder.mkdir()
    good = 'kind = "pairs"\nsource = "../pairs.csv"\n[columns]\na = "s1"\nb = "s2"\nscore = "gold"\n'
    (folder / "a_good.toml").write_text(good)
    (folder / "b_bad.toml").write_text(good.replace('b = "s2"', 'b = "sentence_two"'))
    (folder / "c_good.toml").write_text(good.replace('kind = "pairs"', 'kind = "pairs"\nname = "other"'))
    code, _, lines = run_cli(monkeypatch, capsys, "tasks", "--path", str(folder))
    assert (code, len(lines)) == (2, 1), lines
    assert lines[0].startswith(f"error: {folder / 'b_bad.toml'}: {folder / '..' / data.name}:1: column 'sentence_two'"), lines[0]


def test_a_boolean_is_not_a_count(tmp_path, monkeypatch, capsys):
    write_csv(tmp_path / "pairs.csv", pair_rows(12))
    toml = tmp_path / "t.toml"
    toml.write_text('kind = "triplets"\nsource = "pairs.csv"\n[columns]\nanchor = "s1"\ncloser = "s2"\n'
                    'farther = "kind"\n[options]\nbootstrap = true\n')
    with pytest.raises(SpecError, match=r"option bootstrap=true: expected a whole number, at least 40, not true"):
        get_tasks(str(toml))
    with pytest.raises(SpecError, match="not true or false"):
        get_tasks("sts3k")[0].Options.build("sts3k", {"bootstrap": True})


def test_the_listed_resample_bound_is_the_enforced_one(monkeypatch, capsys):
    code, out, _ = run_cli(monkeypatch, capsys, "tasks", "sts3k", "--wide")
    row = next(line for line in out.splitlines() if line.startswith("bootstrap"))
    assert ">= 40" in row and ">= 1 " not in row + " "
    with pytest.raises(SpecError, match="at least 40"):
        get_tasks("sts3k,bootstrap=39")
    assert get_tasks("sts3k,bootstrap=40")[0].options.bootstrap == 40


@pytest.mark.parametrize("payload", [
    b"\x80\x02ccollections\nOrderedDict\nq\x00K\x01\x85q\x01Rq\x02.",  # OrderedDict(1): a TypeError inside pickle
    b"\x80\x02}q\x00(]q\x01K\x01aK\x02u.",  # a dict keyed by a list: unhashable
    b"\x80\x02}q\x00(X\x03\x00\x00\x00dimq\x01",  # truncated
    pickle.dumps({"dim": True, "dim_word": 4}),  # a boolean is no dimension
    pickle.dumps({"dim": -5, "dim_word": 4}),
])
def test_a_skipthought_options_pickle_of_the_wrong_shape_is_one_line(tmp_path, payload):
    from compeval.models.families.skipthought import read_options

    path = tmp_path / "uni_skip.npz.pkl"
    path.write_bytes(payload)
    with pytest.raises(SpecError) as exc:
        read_options(path, "skipthought:X")
    assert len(str(exc.value).splitlines()) == 1 and "Skip-Thought options" in str(exc.value)


def test_the_label_rule_on_large_fractional_and_non_finite_numbers():
    from compeval.tasks.user.base import label_column
    from compeval.tasks.user.tables import Table

    values = [10**400, 2.5, 2.50, 2.0**60, 2**60, 1e300, 10**300, -0.0, 0]
    table = Table("x.jsonl", "x", ["label"], [{"label": v} for v in values], list(range(1, 10)), "digest")
    labels = label_column(table, "label", "label")
    assert labels[:5] == [str(10**400), "2.5", "2.5", str(2**60), str(2**60)] and labels[7:] == ["0", "0"]
    assert labels[5] == str(int(1e300)) != labels[6]  # the float 1e300 is not the integer 10**300
    table.rows[2]["label"] = float("nan")
    with pytest.raises(MalformedDataError, match="x.jsonl:3: column 'label': nan is not a label"):
        label_column(table, "label", "label")
