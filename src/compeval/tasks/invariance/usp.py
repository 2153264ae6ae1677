"""Cheung & Penn's Task 2 data in the layout of Poon & Domingos's USP release (docs/invariance.md).

Each answer block becomes one QA item; entities of the answer file (``&amp;``) are decoded."""
from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from ... import textfile
from ...errors import DataError, MalformedDataError
from .generator import QAItem

_BLOCK = re.compile(r'<question\s+str="(?P<q>[^"]*)"\s*>(?P<body>.*?)</question>', re.S)
_SENTENCE = re.compile(r'<sentence\s+id="(?P<id>[^"]+)"\s*>(?P<text>.*?)</sentence>', re.S)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _norm(text: str) -> str:
    """Text of the answer file (XML-escaped): entities decoded once, whitespace collapsed."""
    return _squash(html.unescape(text))


def read_abstract(texts_dir: Path, aid: str) -> list[str]:
    """The non-blank lines of abstract ``aid`` (``<aid>.txt`` or ``<aid>``), whitespace collapsed."""
    for name in (f"{aid}.txt", aid):
        path = texts_dir / name
        if path.is_file():
            return [_squash(line) for _, line in textfile.lines(path) if line.strip()]  # plain text: no entities
    raise DataError(f"{texts_dir}: no abstract {aid!r} (expected {aid}.txt or {aid}, one sentence a line)")


def load_usp_answers(answers: str | Path, texts_dir: str | Path) -> tuple[list[QAItem], dict[str, str]]:
    """QA items from a USP answer file and the folder of GENIA abstracts; also a digest of the abstracts
    read (name → SHA-256), for the result's provenance. Errors name the answer file and line."""
    answers, texts_dir = Path(answers), Path(texts_dir)
    if not answers.is_file():
        raise DataError(f"{answers}: no such file (give USP's answer file; see docs/invariance.md)")
    if not texts_dir.is_dir():
        raise DataError(f"{texts_dir}: no such folder (give the GENIA abstracts, one file per abstract)")
    text = textfile.read_text(answers)
    abstracts: dict[str, list[str]] = {}
    items: list[QAItem] = []
    seen: dict[tuple[str, str], int] = {}
    for m in _BLOCK.finditer(text):
        line_no = text.count("\n", 0, m.start()) + 1
        question = _norm(m.group("q"))
        if not question:
            raise MalformedDataError(answers, line_no, "empty question (str=\"\")")
        sentence = _SENTENCE.search(m.group("body"))
        if sentence is None:
            raise MalformedDataError(answers, line_no, "question block without <sentence id=\"AID:N\">")
        sid = sentence.group("id").strip()
        aid, _, index = sid.rpartition(":")
        if not aid or not index.isdigit() or int(index) < 1:
            raise MalformedDataError(answers, line_no, f"sentence id {sid!r} is not ABSTRACT:N (N from 1)")
        key = (question, sid)
        if key in seen:  # the same pair twice (USP lists an answer per argument match): one item
            continue
        seen[key] = line_no
        if aid not in abstracts:
            abstracts[aid] = read_abstract(texts_dir, aid)
        document = abstracts[aid]
        k = int(index) - 1
        if k >= len(document):
            raise MalformedDataError(answers, line_no, f"sentence {sid}: abstract {aid} has {len(document)} sentences")
        quoted = _norm(sentence.group("text"))
        if quoted and quoted != document[k]:
            raise MalformedDataError(answers, line_no, f"sentence {sid} reads {quoted[:60]!r}… but line {k + 1} of "
                                                       f"abstract {aid} is {document[k][:60]!r}…")
        if len(document) < 2:
            raise MalformedDataError(answers, line_no, f"abstract {aid} has one sentence: nothing to rank against")
        repeats = [i for i, s in enumerate(document) if s == document[k] and i != k]
        if repeats:
            raise MalformedDataError(answers, line_no, f"sentence {sid} is repeated as line {repeats[0] + 1} of "
                                                       f"abstract {aid}; a document must hold exactly one answer")
        items.append(QAItem(qid=f"{sid}|{question}", question=question, document=list(document), answer=k,
                            tags=[""] * len(document)))
    if not items:
        raise DataError(f"{answers}: no <question str=…> blocks (is this USP's answer file?)")
    digest = {}
    for aid in sorted(abstracts):
        path = texts_dir / f"{aid}.txt" if (texts_dir / f"{aid}.txt").is_file() else texts_dir / aid
        digest[aid] = hashlib.sha256(path.read_bytes()).hexdigest()
    return items, digest
