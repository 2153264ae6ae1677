"""JSON Lines formats for users' own invariance data (docs/invariance.md gives both formats)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ... import textfile
from ...errors import DataError, MalformedDataError
from .generator import QAItem, RelationGroup, Sentence


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise DataError(f"{path}: no such file (give the path of a JSON Lines file)")
    for line_no, line in textfile.lines(path):  # UTF-8, a byte-order mark stripped, as every reader
        if not line.strip():
            continue
        obj = textfile.json_line(line, path, line_no)
        if not isinstance(obj, dict):
            raise MalformedDataError(path, line_no, f"expected a JSON object, got {type(obj).__name__}")
        yield line_no, obj


def _text(obj: dict, key: str, path: Path, line_no: int) -> str:
    if key not in obj:
        raise MalformedDataError(path, line_no, f"missing field {key!r}")
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise MalformedDataError(path, line_no, f"field {key!r} must be a non-empty string, got {value!r}")
    return value


def load_relation_jsonl(path: str | Path) -> list[RelationGroup]:
    """Read Task 1 sentences and group them; raises MalformedDataError naming file and line."""
    path = Path(path)
    groups: dict[tuple[str, tuple[str, ...]], RelationGroup] = {}
    first_line: dict[tuple[str, tuple[str, ...]], int] = {}
    for line_no, obj in _records(path):
        relation = _text(obj, "relation", path, line_no)
        entities = obj.get("entities")
        if (not isinstance(entities, list) or len(entities) < 2
                or not all(isinstance(e, str) and e.strip() for e in entities)):
            raise MalformedDataError(path, line_no, f"field 'entities' must list at least two non-empty names, got {entities!r}")
        text = _text(obj, "text", path, line_no)
        label = obj.get("label")
        if label not in ("E", "NE"):
            raise MalformedDataError(path, line_no, f"field 'label' must be \"E\" or \"NE\", got {label!r}")
        tag = obj.get("tag", "")
        if not isinstance(tag, str):
            raise MalformedDataError(path, line_no, f"field 'tag' must be a string, got {tag!r}")
        key = (relation, tuple(entities))
        if key not in groups:
            groups[key] = RelationGroup(relation, tuple(entities))  # type: ignore[arg-type]
            first_line[key] = line_no
        groups[key].sentences.append(Sentence(text, label, tag))
    if not groups:
        raise DataError(f"{path}: no sentences (the file is empty)")
    for key, group in groups.items():
        n_e = sum(s.label == "E" for s in group.sentences)
        n_ne = len(group.sentences) - n_e
        if n_e < 2 or n_ne < 1:
            raise MalformedDataError(
                path, first_line[key],
                f"group {key[0]!r} {list(key[1])} has {n_e} E and {n_ne} NE sentences; "
                "an AUC needs at least two E (for E × E pairs) and one NE",
            )
    return list(groups.values())


def load_qa_jsonl(path: str | Path) -> list[QAItem]:
    """Read Task 2 questions; raises MalformedDataError naming file and line."""
    path = Path(path)
    items: list[QAItem] = []
    ids: dict[str, int] = {}
    for line_no, obj in _records(path):
        qid = obj.get("id", f"line{line_no}")
        if not isinstance(qid, (str, int)):
            raise MalformedDataError(path, line_no, f"field 'id' must be a string, got {qid!r}")
        qid = str(qid)
        if qid in ids:
            raise MalformedDataError(path, line_no, f"id {qid!r} already used on line {ids[qid]}")
        ids[qid] = line_no
        question = _text(obj, "question", path, line_no)
        document = obj.get("document")
        if not isinstance(document, list) or len(document) < 2:
            raise MalformedDataError(path, line_no, "field 'document' must be a list of at least two sentences")
        for i, s in enumerate(document):
            if not isinstance(s, str) or not s.strip():
                raise MalformedDataError(path, line_no, f"document sentence {i} must be a non-empty string, got {s!r}")
        answer = obj.get("answer")
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(document):
            raise MalformedDataError(
                path, line_no, f"field 'answer' must be the 0-based index of one sentence (0..{len(document) - 1}), got {answer!r}"
            )
        duplicates = [i for i, s in enumerate(document) if s == document[answer] and i != answer]
        if duplicates:
            raise MalformedDataError(path, line_no, f"the answer sentence is repeated at index {duplicates[0]}; "
                                                    "a document must hold exactly one answer")
        tags = obj.get("tags", [""] * len(document))
        if not isinstance(tags, list) or len(tags) != len(document) or not all(isinstance(t, str) for t in tags):
            raise MalformedDataError(path, line_no, "field 'tags' must list one string per document sentence")
        items.append(QAItem(qid, question, list(document), answer, list(tags)))
    if not items:
        raise DataError(f"{path}: no questions (the file is empty)")
    return items
