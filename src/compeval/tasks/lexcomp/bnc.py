"""Read sentences from the user's British National Corpus (XML edition) by id (``K/KB/KBB.xml/2349``).

The BNC licence forbids redistributing the text, so the VPC and LVC files hold only ids."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ...errors import MissingDataError

ENV_VAR = "COMPEVAL_BNC_DIR"
# The BNC XML edition unpacks as download/Texts/A/A0/A00.xml; accept the folder at any of these levels.
_PREFIXES = ("", "Texts", "download/Texts")


@dataclass(frozen=True)
class BNCSentence:
    words: tuple[str, ...]
    lemmas: tuple[str, ...]  # the BNC head word (``hw``) of each word, lower-case; punctuation = itself


def resolve_bnc_dir(bnc_dir: str | None, task: str) -> Path:
    """The run's BNC folder (``RunContext.bnc_dir``), with a message naming the corpus."""
    if not bnc_dir:
        raise MissingDataError(
            f"{task} needs the British National Corpus (BNC XML edition, http://www.ota.ox.ac.uk/desc/2554): "
            f"its data files hold BNC sentence ids only. Give the folder with compeval run --bnc-dir PATH "
            f"or the environment variable {ENV_VAR}."
        )
    path = Path(bnc_dir).expanduser()
    if not path.is_dir():
        raise MissingDataError(f"{task}: BNC folder {path} (from --bnc-dir / {ENV_VAR}) does not exist")
    return path


def _find_file(root: Path, rel: str) -> Path:
    for prefix in _PREFIXES:
        p = root / prefix / rel
        if p.is_file():
            return p
    raise MissingDataError(
        f"BNC file {rel} not found under {root} (looked in {', '.join(str(root / p) for p in _PREFIXES)}); "
        "is this the BNC XML edition?"
    )


def parse_id(bnc_id: str) -> tuple[str, str]:
    """``K/KB/KBB.xml/2349`` -> (``K/KB/KBB.xml``, ``2349``)."""
    rel, _, n = bnc_id.rpartition("/")
    if not rel or not n:
        raise ValueError(f"malformed BNC id {bnc_id!r}; expected FILE.xml/SENTENCE_NUMBER")
    return rel, n


def read_sentences(root: Path, ids: list[str]) -> dict[str, BNCSentence]:
    """Every requested sentence, each BNC file parsed once (streamed, elements freed as we go)."""
    wanted: dict[str, set[str]] = {}
    for i in ids:
        rel, n = parse_id(i)
        wanted.setdefault(rel, set()).add(n)
    out: dict[str, BNCSentence] = {}
    for rel, ns in wanted.items():
        path = _find_file(root, rel)
        for _, elem in ET.iterparse(path, events=("end",)):
            if elem.tag != "s":
                continue
            n = elem.get("n")
            if n in ns:
                words, lemmas = [], []
                for tok in elem.iter():
                    if tok.tag in ("w", "c"):
                        text = "".join(tok.itertext()).strip()
                        if text:
                            words.append(text)
                            lemmas.append((tok.get("hw") or text).lower())
                out[f"{rel}/{n}"] = BNCSentence(tuple(words), tuple(lemmas))
            elem.clear()
        missing = [n for n in ns if f"{rel}/{n}" not in out]
        if missing:
            raise MissingDataError(f"BNC file {path} has no sentence(s) n={', '.join(sorted(missing)[:5])}")
    return out


def locate_span(sentence: BNCSentence, span_text: str) -> tuple[int, int]:
    """Inclusive (start, end) of the candidate: the first word whose head word (or form) is the span's
    first word, to the next word after it matching the span's last word (particles and nouns can be
    separated from the verb: "take the question on")."""
    parts = span_text.lower().split()
    first, last = parts[0], parts[-1]
    forms = [w.lower() for w in sentence.words]
    for i, (lem, form) in enumerate(zip(sentence.lemmas, forms)):
        if first in (lem, form):
            if len(parts) == 1:
                return i, i
            for j in range(i + 1, len(forms)):
                if last in (sentence.lemmas[j], forms[j]):
                    return i, j
    raise ValueError(f"span {span_text!r} not found in BNC sentence {' '.join(sentence.words)!r}")
