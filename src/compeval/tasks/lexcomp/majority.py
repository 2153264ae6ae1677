"""Majority baselines (spec: Majority_All, Majority_1, Majority_2 and the best of them).

Span tasks key on the first / last constituent of the phrase. For phrase type (no single phrase per
sentence) we key per word: Majority_1 on the word itself, Majority_2 on (previous word, word); each
falls back to the most frequent tag, and stray ``I`` tags are repaired to ``O``. The best of the three
is chosen on validation, as every other setting is.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from . import bio
from .data import SpanItem, TagItem

NAMES = ("Majority_All", "Majority_1", "Majority_2")


def _most_common(c: Counter):
    # ties broken by value so the result does not depend on file order
    best = max(c.values())
    return min(k for k, v in c.items() if v == best)


def fit_span(train: list[SpanItem]) -> dict:
    overall = _most_common(Counter(i.label for i in train))
    by = {1: {}, 2: {}}
    for i in train:
        by[1].setdefault(i.key1, Counter())[i.label] += 1
        by[2].setdefault(i.key2, Counter())[i.label] += 1
    return {"all": overall, 1: {k: _most_common(c) for k, c in by[1].items()},
            2: {k: _most_common(c) for k, c in by[2].items()}}


def predict_span(model: dict, items: list[SpanItem]) -> dict[str, np.ndarray]:
    return {
        "Majority_All": np.full(len(items), model["all"]),
        "Majority_1": np.array([model[1].get(i.key1, model["all"]) for i in items]),
        "Majority_2": np.array([model[2].get(i.key2, model["all"]) for i in items]),
    }


def _bigram(words, k):
    return ((words[k - 1].lower() if k else "<s>"), words[k].lower())


def fit_tags(train: list[TagItem]) -> dict:
    overall = _most_common(Counter(t for i in train for t in i.tags))
    uni, bi = {}, {}
    for it in train:
        for k, (w, t) in enumerate(zip(it.words, it.tags)):
            uni.setdefault(w.lower(), Counter())[t] += 1
            bi.setdefault(_bigram(it.words, k), Counter())[t] += 1
    return {"all": overall, 1: {k: _most_common(c) for k, c in uni.items()},
            2: {k: _most_common(c) for k, c in bi.items()}}


def predict_tags(model: dict, items: list[TagItem]) -> dict[str, list[list[str]]]:
    out = {n: [] for n in NAMES}
    for it in items:
        out["Majority_All"].append(bio.repair([model["all"]] * len(it.words)))
        out["Majority_1"].append(bio.repair([model[1].get(w.lower(), model["all"]) for w in it.words]))
        out["Majority_2"].append(bio.repair([model[2].get(_bigram(it.words, k), model["all"])
                                             for k in range(len(it.words))]))
    return out
