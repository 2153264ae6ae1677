"""Token-budget batching: batches whose padded size (texts × longest) stays under a budget, halved on
out-of-memory. Each row pools its own masked tokens, so the budget is a run setting, not identity.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .. import threads
from ..errors import CompevalError

#: Default budget (padded tokens per forward pass) per model family, when the run gives no
#: ``--max-batch-tokens``. ``sbert`` holds small encoders (20M-600M parameters); ``hf`` also runs
#: decoder LLM embedders (1-8B, pooled at the last token) whose activations per token are larger.
FAMILY_DEFAULT_TOKENS = {"sbert": 16384, "hf": 8192}
DEFAULT_TOKENS = 8192


def family_default(family: str) -> int:
    """The family's default budget (``hf.v1`` and ``hf`` alike)."""
    return FAMILY_DEFAULT_TOKENS.get(family.split(".")[0], DEFAULT_TOKENS)


@dataclass
class Budget:
    """A model's budget across its encode calls: ``tokens`` halves on each out-of-memory error and stays
    halved (the next call does not run out of memory again); ``backoffs`` counts the halvings."""

    tokens: int
    max_texts: int | None = None  # a cap on texts per batch as well (the run's --batch-size), or None
    backoffs: int = 0

    def __post_init__(self):
        if self.tokens < 1:
            raise CompevalError(f"--max-batch-tokens {self.tokens}: must be a positive integer")

    def settings(self) -> dict[str, int]:
        """What a result records as run settings (never identity)."""
        out = {"max_batch_tokens": self.tokens}
        if self.backoffs:
            out["oom_backoffs"] = self.backoffs
        return out


def is_out_of_memory(exc: BaseException) -> bool:
    """A CUDA (or MPS) out-of-memory error: torch's ``OutOfMemoryError``, or the RuntimeError older
    kernels raise with "out of memory" in the message. Host memory errors (``MemoryError``) are not."""
    torch = sys.modules.get("torch")
    oom = getattr(torch, "OutOfMemoryError", None) if torch is not None else None
    if oom is not None and isinstance(exc, oom):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def _release_cached_memory() -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


def batches(lengths: Sequence[int], order: Sequence[int], budget: int, max_texts: int | None) -> list[list[int]]:
    """Consecutive runs of ``order`` (indices sorted by length, longest first) whose padded size
    ``len(batch) * max(length)`` stays within ``budget``; a text longer than the budget alone."""
    out: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        n = max(int(lengths[i]), 1)
        wider = max(longest, n)
        if current and ((len(current) + 1) * wider > budget or (max_texts and len(current) >= max_texts)):
            out.append(current)
            current, wider = [], n
        current.append(i)
        longest = wider
    if current:
        out.append(current)
    return out


def encode_budgeted(texts: Sequence[str], lengths: Sequence[int], forward: Callable[[list[str]], np.ndarray],
                    budget: Budget) -> np.ndarray:
    """The vectors of ``texts`` in their order, computed in token-budget batches (longest first, so an
    out-of-memory error comes at the start). On out-of-memory the budget halves and the texts not yet
    encoded are batched again; a single text that does not fit re-raises the error."""
    if len(texts) != len(lengths):
        raise ValueError("one token length per text")
    if not len(texts):
        return forward([])
    order = sorted(range(len(texts)), key=lambda i: (-int(lengths[i]), i))
    rows: list[np.ndarray | None] = [None] * len(texts)
    todo = list(order)
    while todo:
        plan = batches(lengths, todo, budget.tokens, budget.max_texts)
        done = 0
        try:
            for batch in plan:
                threads.adapt()  # the cores other programs leave free (compeval/threads.py)
                vectors = np.asarray(forward([texts[i] for i in batch]))
                for i, v in zip(batch, vectors):
                    rows[i] = v
                done += len(batch)
        except Exception as exc:
            if not is_out_of_memory(exc) or len(batch) == 1:  # not memory, or nothing left to split
                raise
            _release_cached_memory()
            budget.tokens = max(budget.tokens // 2, 1)
            budget.backoffs += 1
        todo = todo[done:]
    return np.stack(rows)


def token_lengths(tokenizer, texts: Sequence[str], max_length: int | None) -> list[int]:
    """Tokens per text as the model will see them (special tokens in, truncated at ``max_length``)."""
    if not len(texts):
        return []
    kwargs = {"truncation": True, "max_length": max_length} if max_length else {}
    return [len(ids) for ids in tokenizer(list(texts), **kwargs)["input_ids"]]
