"""Stimulus generation: every phrase, sub-phrase and synonym variant as ids into one string table."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import numpy as np

from .words import ADJECTIVES, NOUNS, TYPE_SHORT

PAD = -1  # id of a missing slot (an AN phrase has no third word and one split only)


class StringTable:
    """Deduplicating list of strings; ``ids`` maps texts to stable integer ids."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._index: dict[str, int] = {}

    def id(self, text: str) -> int:
        got = self._index.get(text)
        if got is None:
            got = self._index[text] = len(self.strings)
            self.strings.append(text)
        return got

    def ids(self, texts: Iterable[str]) -> np.ndarray:
        return np.fromiter((self.id(t) for t in texts), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.strings)


def generate_phrases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(adj1, adj2, noun) index arrays of all 44,652 phrases; adj2 = PAD for AN phrases.

    In the authors' ``group()`` order, so row numbers match ``phrase_id`` in ``an_phrases_regenerated.tsv``."""
    n_adj, n_noun = len(ADJECTIVES), len(NOUNS)
    rows = []
    for noun in range(n_noun):
        for last in range(n_adj):
            rows.append((last, PAD, noun))
            rows.extend((first, last, noun) for first in range(n_adj) if first != last)
    arr = np.array(rows, dtype=np.int64)
    return arr[:, 0], arr[:, 1], arr[:, 2]


@dataclass(frozen=True)
class Stimuli:
    """Phrases and the string ids every measure needs, in phrase order; absent slots hold ``PAD``.

    AAN splits: (w1 | "w2 w3"), (w2 | "w1 w3"), (w3 | "w1 w2")."""

    strings: tuple[str, ...]
    adj1: np.ndarray  # (P,) adjective index of the first word
    adj2: np.ndarray  # (P,) adjective index of the second word, PAD for AN
    noun: np.ndarray  # (P,)
    phrase: np.ndarray  # (P,) string id of the phrase
    words: np.ndarray  # (P, 3) string ids of the single words
    parts: np.ndarray  # (P, 3, 2) string ids of the two parts of each split
    syn_phrase: np.ndarray  # (P,) phrase with its first word replaced by its synonym
    syn_words: np.ndarray  # (P, 3) synonym of each single word
    syn_parts: np.ndarray  # (P, 3, 2) each part with its first word replaced by its synonym
    an_grid: np.ndarray  # (61, 12) string id of "adj noun"

    @property
    def n_adjectives(self) -> np.ndarray:
        return np.where(self.adj2 == PAD, 1, 2)

    @property
    def is_an(self) -> np.ndarray:
        return self.adj2 == PAD

    def phrase_texts(self) -> list[str]:
        return [self.strings[i] for i in self.phrase]

    def type_config(self) -> np.ndarray:
        """Subset name per phrase: the adjective types in phrase order, e.g. "S-I" or "NS-Pl|S-I"."""
        t1 = np.array([TYPE_SHORT[a.type_id] for a in ADJECTIVES], dtype=object)
        first = t1[self.adj1]
        second = np.where(self.is_an, "", t1[np.where(self.is_an, 0, self.adj2)])
        return np.array([f if not s else f"{f}|{s}" for f, s in zip(first, second)], dtype=object)


@lru_cache(maxsize=1)
def build_stimuli() -> Stimuli:
    """Generate all phrases and register every string the measures use (once per process)."""
    adj1, adj2, noun = generate_phrases()
    table = StringTable()
    adj_words = [a.word for a in ADJECTIVES]
    adj_syns = [a.synonym for a in ADJECTIVES]
    noun_words = [n for n, _ in NOUNS]
    noun_syns = [s for _, s in NOUNS]

    # Word slots of every phrase in phrase order; each slot is (word, synonym).
    is_an = adj2 == PAD
    slots = []
    for a1, a2, n in zip(adj1.tolist(), adj2.tolist(), noun.tolist()):
        w = [(adj_words[a1], adj_syns[a1])]
        if a2 != PAD:
            w.append((adj_words[a2], adj_syns[a2]))
        w.append((noun_words[n], noun_syns[n]))
        slots.append(w)

    def join(ws):
        return " ".join(ws)

    P = len(slots)
    phrase = np.empty(P, np.int64)
    syn_phrase = np.empty(P, np.int64)
    words = np.full((P, 3), PAD, np.int64)
    syn_words = np.full((P, 3), PAD, np.int64)
    parts = np.full((P, 3, 2), PAD, np.int64)
    syn_parts = np.full((P, 3, 2), PAD, np.int64)
    for i, w in enumerate(slots):
        plain = [x for x, _ in w]
        phrase[i] = table.id(join(plain))
        syn_phrase[i] = table.id(join([w[0][1]] + plain[1:]))
        for k, (x, s) in enumerate(w):
            words[i, k] = table.id(x)
            syn_words[i, k] = table.id(s)
        # Splits {w_k | rest in original order}; for two words the one split is (w1 | w2).
        for k in range(1 if len(w) == 2 else 3):
            rest = [w[j] for j in range(len(w)) if j != k]
            parts[i, k] = (table.id(w[k][0]), table.id(join([x for x, _ in rest])))
            syn_parts[i, k] = (table.id(w[k][1]), table.id(join([rest[0][1]] + [x for x, _ in rest[1:]])))

    an_grid = np.full((len(ADJECTIVES), len(NOUNS)), PAD, np.int64)
    an_grid[adj1[is_an], noun[is_an]] = phrase[is_an]
    return Stimuli(tuple(table.strings), adj1, adj2, noun, phrase, words, parts, syn_phrase, syn_words,
                   syn_parts, an_grid)


def strings_for(stimuli: Stimuli, *id_arrays: np.ndarray) -> np.ndarray:
    """Sorted unique string ids referenced by the given arrays (PAD dropped)."""
    ids = np.unique(np.concatenate([np.ravel(a) for a in id_arrays]))
    return ids[ids != PAD]
