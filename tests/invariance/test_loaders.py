"""The JSON Lines loaders: well-formed files load; malformed ones fail naming the line."""
import json

import pytest

from compeval.errors import DataError, MalformedDataError
from compeval.tasks.invariance.loaders import load_qa_jsonl, load_relation_jsonl


def write(tmp_path, lines, name="data.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def rel(text, label, relation="acq", entities=("A", "B"), **extra):
    return {"relation": relation, "entities": list(entities), "text": text, "label": label, **extra}


def test_relation_file_groups_by_relation_and_entities(tmp_path):
    path = write(tmp_path, [rel("A bought B.", "E", tag="active"), rel("B was bought by A.", "E"), "",
                            rel("B bought A.", "NE", tag="reversed"),
                            rel("C bought D.", "E", entities=("C", "D")), rel("D got C.", "E", entities=("C", "D")),
                            rel("D sued C.", "NE", entities=("C", "D"))])
    groups = load_relation_jsonl(path)
    assert [(g.relation, g.entities, len(g.sentences)) for g in groups] == [("acq", ("A", "B"), 3), ("acq", ("C", "D"), 3)]
    assert groups[0].sentences[0].tag == "active" and groups[0].sentences[2].label == "NE"


@pytest.mark.parametrize("bad, line_no, message", [
    ("{not json", 2, "not valid JSON"),
    ("[1, 2]", 2, "expected a JSON object"),
    (json.dumps({"entities": ["A", "B"], "text": "x", "label": "E"}), 2, "missing field 'relation'"),
    (json.dumps(rel("x", "maybe")), 2, "'label' must be"),
    (json.dumps(rel("   ", "E")), 2, "non-empty string"),
    (json.dumps(rel("x", "E", entities=["A"])), 2, "at least two"),
    (json.dumps(rel("x", "E", tag=3)), 2, "'tag' must be a string"),
])
def test_relation_file_errors_name_the_line(tmp_path, bad, line_no, message):
    path = write(tmp_path, [rel("A bought B.", "E"), bad, rel("B bought A.", "NE")])
    with pytest.raises(MalformedDataError, match=message) as info:
        load_relation_jsonl(path)
    assert info.value.line_no == line_no and info.value.path == str(path)


def test_relation_group_needs_two_positives_and_a_negative(tmp_path):
    path = write(tmp_path, [rel("A bought B.", "E"), rel("B bought A.", "NE")])
    with pytest.raises(MalformedDataError, match="1 E and 1 NE") as info:
        load_relation_jsonl(path)
    assert info.value.line_no == 1


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(DataError, match="empty"):
        load_relation_jsonl(write(tmp_path, [""]))
    with pytest.raises(DataError, match="no such file"):
        load_qa_jsonl(tmp_path / "absent.jsonl")


def qa(**kw):
    return {"id": "q1", "question": "What did A buy?", "document": ["A bought B.", "B bought A."], "answer": 0, **kw}


def test_qa_file_loads(tmp_path):
    items = load_qa_jsonl(write(tmp_path, [qa(tags=["active", "reversed"]), qa(id="q2", answer=1)]))
    assert [(i.qid, i.answer, i.tags) for i in items] == [("q1", 0, ["active", "reversed"]), ("q2", 1, ["", ""])]


@pytest.mark.parametrize("record, message", [
    (qa(answer=2), "0-based index"),
    (qa(answer=True), "0-based index"),
    (qa(answer="0"), "0-based index"),
    (qa(document=["only one"]), "at least two"),
    (qa(document=["A bought B.", ""]), "document sentence 1"),
    (qa(document=["A bought B.", "x", "A bought B."]), "repeated at index 2"),
    (qa(tags=["one"]), "one string per document sentence"),
    (qa(question=""), "'question'"),
])
def test_qa_file_errors_name_the_line(tmp_path, record, message):
    path = write(tmp_path, [qa(id="ok"), record])
    with pytest.raises(MalformedDataError, match=message) as info:
        load_qa_jsonl(path)
    assert info.value.line_no == 2


def test_qa_duplicate_id(tmp_path):
    with pytest.raises(MalformedDataError, match="already used on line 1"):
        load_qa_jsonl(write(tmp_path, [qa(), qa()]))
