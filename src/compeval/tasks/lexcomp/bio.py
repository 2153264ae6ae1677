"""BIO tags for phrase type: span extraction, span-level F1, and constrained (Viterbi) decoding.

A legal sequence never has an ``I`` without a ``B``/``I`` right before it."""
from __future__ import annotations

import numpy as np


def spans(tags) -> set[tuple[int, int, str]]:
    """Typed (start, end inclusive, type) spans; a stray ``I`` opens no span."""
    out, start, typ = set(), None, None
    for i, t in enumerate(list(tags) + ["O"]):
        if t == "I" and start is not None:
            continue
        if start is not None:
            out.add((start, i - 1, typ))
            start = None
        if t.startswith("B-"):
            start, typ = i, t[2:]
    return out


def span_counts(gold: list, pred: list, read=spans) -> np.ndarray:
    """(n, 3) per-sentence [true positives, predicted spans, gold spans], for F1 and its bootstrap;
    ``read`` turns a tag sequence into its set of spans (``spans``, or another scorer's reading)."""
    rows = []
    for g, p in zip(gold, pred):
        gs, ps = read(g), read(p)
        rows.append((len(gs & ps), len(ps), len(gs)))
    return np.asarray(rows, dtype=np.float64).reshape(-1, 3)


def f1_from_counts(counts: np.ndarray, axis: int = 0) -> np.ndarray:
    tp, np_, ng = (counts.sum(axis=axis)[..., k] for k in range(3))
    denom = np_ + ng
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1e-12), 0.0)


def span_f1(gold: list, pred: list) -> float:
    return float(f1_from_counts(span_counts(gold, pred)))


def allowed_transitions(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(start_ok[K], trans_ok[K, K]): ``I`` may start nothing and follow only ``B-*`` or ``I``."""
    is_i = np.array([t == "I" for t in labels])
    inside_ok = np.array([t == "I" or t.startswith("B-") for t in labels])
    start_ok = ~is_i
    trans_ok = np.ones((len(labels), len(labels)), dtype=bool)
    trans_ok[:, is_i] = inside_ok[:, None]
    return start_ok, trans_ok


def viterbi(log_probs: np.ndarray, labels: list[str]) -> list[str]:
    """Most probable legal tag sequence for one sentence given (n_words, K) log-probabilities."""
    n = len(log_probs)
    if n == 0:
        return []
    start_ok, trans_ok = allowed_transitions(labels)
    neg = -1e9
    trans = np.where(trans_ok, 0.0, neg)
    score = np.where(start_ok, log_probs[0], neg)
    back = np.zeros((n, len(labels)), dtype=np.int64)
    for t in range(1, n):
        cand = score[:, None] + trans  # prev x next
        back[t] = cand.argmax(0)
        score = cand.max(0) + log_probs[t]
    best = [int(score.argmax())]
    for t in range(n - 1, 0, -1):
        best.append(int(back[t, best[-1]]))
    return [labels[k] for k in reversed(best)]


def repair(tags: list[str]) -> list[str]:
    """Turn a stray ``I`` into ``O`` (for baselines that predict tags word by word)."""
    out, prev = [], "O"
    for t in tags:
        if t == "I" and prev == "O":
            t = "O"
        out.append(t)
        prev = t
    return out


def label_errors(gold: list, pred: list) -> dict[str, dict]:
    """Per span type X, what became of each gold X span and each predicted X span (hand-written: no
    library scores typed BIO spans by error kind). Gold spans: ``correct`` (same boundaries and type),
    ``wrong_type`` (same boundaries, another type; ``confused_with`` counts which), ``wrong_boundary``
    (an overlapping prediction of type X with other boundaries), ``other_overlap`` (only overlapping
    predictions of other types and boundaries), ``missed`` (no overlapping prediction); they sum to
    ``gold``. Predicted X spans: ``predicted``, of which ``spurious`` overlap no gold span at all."""
    out: dict[str, dict] = {}

    def row(x: str) -> dict:
        return out.setdefault(x, {"gold": 0, "predicted": 0, "correct": 0, "wrong_type": 0, "wrong_boundary": 0,
                                  "other_overlap": 0, "missed": 0, "spurious": 0, "confused_with": {}})

    for g, p in zip(gold, pred):
        gs, ps = spans(g), spans(p)
        by_bounds = {(s, e): t for s, e, t in ps}
        for s, e, t in gs:
            r = row(t)
            r["gold"] += 1
            overlapping = [(ps_, pe, pt) for ps_, pe, pt in ps if ps_ <= e and s <= pe]
            if (s, e, t) in ps:
                r["correct"] += 1
            elif (s, e) in by_bounds:
                r["wrong_type"] += 1
                other = by_bounds[(s, e)]
                r["confused_with"][other] = r["confused_with"].get(other, 0) + 1
            elif any(pt == t for _, _, pt in overlapping):
                r["wrong_boundary"] += 1
            elif overlapping:
                r["other_overlap"] += 1
            else:
                r["missed"] += 1
        for s, e, t in ps:
            r = row(t)
            r["predicted"] += 1
            if not any(gs_ <= e and s <= ge for gs_, ge, _ in gs):
                r["spurious"] += 1
    return dict(sorted(out.items()))
