"""Majority baselines (Majority_All, Majority_1, Majority_2 and the best of them, chosen on validation)."""
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


# --- The paper's phrase-type baseline (Table 4: 26.6) -------------------------------------------------
# The authors score BIO tagging with AllenNLP's SpanBasedF1Measure (their ``seq_label`` model). Its span
# reader knows only ``B-X``/``I-X``: the data's untyped ``I`` has type "" and, after a ``B-X``, opens a new
# span of type "" instead of continuing the ``B-X`` one; "" spans count like any other type. A per-word
# majority tagger (each word's most frequent training tag, as written, no repair) scored that way gives
# the published figure; compeval's own ``span_f1`` keeps ``B-X I …`` as one typed span.


def allennlp_spans(tags) -> set[tuple[str, int, int]]:
    """Spans as AllenNLP's ``bio_tags_to_spans`` reads them (type, start, end inclusive)."""
    out, active, start = set(), None, 0
    for i, t in enumerate(list(tags)):
        kind, label = t[0], t[2:]
        if kind == "O":
            if active is not None:
                out.add((active, start, i - 1))
            active = None
        elif kind == "I" and label == active:
            continue
        else:  # B, or an I whose type differs from the open span: a new span starts here
            if active is not None:
                out.add((active, start, i - 1))
            active, start = label, i
    if active is not None:
        out.add((active, start, len(tags) - 1))
    return out


def allennlp_span_counts(gold: list, pred: list) -> np.ndarray:
    """(n, 3) per-sentence [true positives, predicted spans, gold spans] under ``allennlp_spans``."""
    return bio.span_counts(gold, pred, read=allennlp_spans)


def fit_word_tags(train: list[TagItem]) -> dict:
    """Each word form's most frequent training tag (case kept), and the overall most frequent tag."""
    by_word: dict[str, Counter] = {}
    for it in train:
        for w, t in zip(it.words, it.tags):
            by_word.setdefault(w, Counter())[t] += 1
    overall = _most_common(Counter(t for i in train for t in i.tags))
    return {"all": overall, "word": {w: _most_common(c) for w, c in by_word.items()}}


def predict_word_tags(model: dict, items: list[TagItem]) -> list[list[str]]:
    """Per-word majority tags, unrepaired (a stray ``I`` stays, as the paper's scorer sees it)."""
    return [[model["word"].get(w, model["all"]) for w in it.words] for it in items]
