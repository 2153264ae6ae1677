"""Loaders for the six lexcomp tasks, as uniform span and tagging items the models and baselines share."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ... import textfile
from ...data.registry import DataContext
from ...errors import MalformedDataError
from . import bnc

SOURCE = "lexcomp"
SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class SpanItem:
    words: tuple[str, ...]
    start: int  # inclusive
    end: int  # inclusive
    label: int  # 1 = the positive class (VPC / LVC / literal / paraphrase right)
    key1: str  # first constituent, for Majority_1
    key2: str  # last constituent, for Majority_2
    paraphrase: tuple[str, ...] | None = None
    ident: str = ""

    @property
    def span_words(self) -> tuple[str, ...]:
        return self.words[self.start : self.end + 1]


@dataclass(frozen=True)
class TagItem:
    words: tuple[str, ...]
    tags: tuple[str, ...]


def read_jsonl(path: Path) -> list[dict]:
    rows = []
    with textfile.open_text(path) as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise MalformedDataError(path, i, str(exc)) from None
    return rows


def _bool(raw: str, path: Path, line: int) -> int:
    low = str(raw).strip().lower()
    if low in ("true", "literal"):
        return 1
    if low in ("false", "non-literal"):
        return 0
    raise MalformedDataError(path, line, f"unknown label {raw!r}")


def _check_span(words, s, e, path, line):
    if not (0 <= s <= e < len(words)):
        raise MalformedDataError(path, line, f"span {s}..{e} outside a {len(words)}-word sentence")


def parse_nc_literality(rows: list[dict], path: Path) -> list[SpanItem]:
    out = []
    for i, r in enumerate(rows, 1):
        words = tuple(r["sentence"].split())
        t = int(r["target_index"])
        _check_span(words, t, t, path, i)
        mod, _, head = r["nc"].partition("_")
        out.append(SpanItem(words, t, t, _bool(r["label"], path, i), mod.lower(), (head or mod).lower(),
                            ident=f"{r['nc']}:{r['target_word']}"))
    return out


def parse_paraphrase_task(rows: list[dict], path: Path) -> list[SpanItem]:
    """NC relations and AN attributes: an inclusive span plus a paraphrase to accept or reject."""
    out = []
    for i, r in enumerate(rows, 1):
        words = tuple(r["sentence"].split())
        s, e = int(r["start"]), int(r["end"])
        _check_span(words, s, e, path, i)
        out.append(SpanItem(words, s, e, _bool(r["label"], path, i), words[s].lower(), words[e].lower(),
                            paraphrase=tuple(r["paraphrase"].split()), ident=r.get("span", " ".join(words[s:e + 1]))))
    return out


def parse_tagging(rows: list[dict], path: Path) -> list[TagItem]:
    out = []
    for i, r in enumerate(rows, 1):
        words, tags = tuple(r["sentence_words"]), tuple(r["sentence_tags"])
        if len(words) != len(tags):
            raise MalformedDataError(path, i, f"{len(words)} words but {len(tags)} tags")
        out.append(TagItem(words, tags))
    return out


def parse_bnc_task(rows: list[dict], path: Path, sentences: dict[str, bnc.BNCSentence]) -> list[SpanItem]:
    out = []
    for i, r in enumerate(rows, 1):
        sent = sentences[r["bnc_id"]]
        try:
            s, e = bnc.locate_span(sent, r["span_text"])
        except ValueError as exc:
            raise MalformedDataError(path, i, str(exc)) from None
        parts = r["span_text"].lower().split()
        out.append(SpanItem(sent.words, s, e, _bool(r["label"], path, i), parts[0], parts[-1],
                            ident=r["bnc_id"]))
    return out


def parse_bnc_labels(rows: list[dict], path: Path) -> list[SpanItem]:
    """VPC/LVC span-only items from the id files, no BNC: enough for the majority baselines."""
    out = []
    for i, r in enumerate(rows, 1):
        try:
            parts = tuple(str(r["span_text"]).split())
            label = r["label"]
        except KeyError as exc:
            raise MalformedDataError(path, i, f"missing field {exc}") from None
        if not parts:
            raise MalformedDataError(path, i, "empty span_text")
        out.append(SpanItem(parts, 0, len(parts) - 1, _bool(label, path, i), parts[0].lower(), parts[-1].lower(),
                            ident=str(r.get("bnc_id", ""))))
    return out


def load_splits(data: DataContext, folder: str, kind: str, bnc_dir: str | None = None,
                task: str = "", labels_only: bool = False) -> dict[str, list]:
    """{split: items} for one task folder; ``kind`` is literality | paraphrase | tagging | bnc.
    ``labels_only`` (bnc tasks): span-only items from the id files, without reading the BNC."""
    out = {}
    if kind == "bnc" and labels_only:
        paths = {s: data.path(SOURCE, f"{folder}/ids_{s}.jsonl") for s in SPLITS}
        return {s: parse_bnc_labels(read_jsonl(p), p) for s, p in paths.items()}
    if kind == "bnc":
        root = bnc.resolve_bnc_dir(bnc_dir, task)  # fail before reading anything else
        paths = {s: data.path(SOURCE, f"{folder}/ids_{s}.jsonl") for s in SPLITS}
        rows = {s: read_jsonl(p) for s, p in paths.items()}
        sentences = bnc.read_sentences(root, [r["bnc_id"] for rs in rows.values() for r in rs])
        return {s: parse_bnc_task(rows[s], paths[s], sentences) for s in SPLITS}
    for s in SPLITS:
        p = data.path(SOURCE, f"{folder}/{s}.jsonl")
        rows = read_jsonl(p)
        out[s] = {"literality": parse_nc_literality, "paraphrase": parse_paraphrase_task,
                  "tagging": parse_tagging}[kind](rows, p)
    return out
