"""The one seed rule: every random stream a task, trainer, generator, bootstrap or test uses is named.

A stream is ``(seed, *names)``: the run's ``--seed`` (or a declared option such as a data generator's
``generator_seed``) and the names that say which stream it is, e.g. ``derive(seed, "probe-has-x", "fold",
3)``. NumPy's ``SeedSequence`` turns the pair into generator state: the seed is its entropy and the names,
hashed with SHA-256 (stable across processes and machines, unlike Python's ``hash()``), its spawn key.
So streams with different names are independent, whatever the seed (no ``seed + k`` collisions between
one run's fold 1 and the next run's fold 0), and every seed 0…2³²−1 gives valid state everywhere: a
derived integer is always in 0…2³²−1, which NumPy's legacy ``RandomState`` and scikit-learn's
``random_state`` accept.

Generators are local objects: nothing in compeval seeds a global generator (``torch.manual_seed``,
``np.random.seed``, ``random.seed``; tests/core/test_seeds.py checks the source) except inside
``torch_scope``, which forks torch's global state for code that can only draw from it (a module's
initialisation, dropout) and restores it after. ``SEED_RULE`` is the version of this
rule; results record it, and a stored result computed under another rule is recomputed, never reused.
"""
from __future__ import annotations

import hashlib
import numbers
import random
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

#: Seeds every command and option accepts (``--seed``, ``generator_seed=``, a model's ``seed=``).
MAX_SEED = 2**32 - 1

#: Version of the derivation below. Results record it (``TaskResult.seed_rule``); a result computed under
#: another version (or before it was recorded: the ``seed + k`` era, version 0) is recomputed.
SEED_RULE = 1


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed {seed!r}: must be an integer from 0 to {MAX_SEED}")
    return int(seed)


def _spawn_key(names: tuple) -> tuple[int, ...]:
    """Four 32-bit words of SHA-256 over an unambiguous encoding of the names (type, length, value)."""
    if not names:
        raise ValueError("a random stream needs at least one name (what it is for)")
    h = hashlib.sha256()
    for name in names:
        if isinstance(name, str):
            raw = name.encode("utf-8", "surrogatepass")
            h.update(b"s" + len(raw).to_bytes(8, "little") + raw)
        elif isinstance(name, numbers.Integral) and not isinstance(name, bool):
            raw = str(int(name)).encode("ascii")
            h.update(b"i" + len(raw).to_bytes(8, "little") + raw)
        else:
            raise TypeError(f"stream name {name!r}: must be a str or an int")
    digest = h.digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def sequence(seed: int, *names: str | int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the stream ``(seed, *names)``."""
    return np.random.SeedSequence(_check_seed(seed), spawn_key=_spawn_key(names))


def derive(seed: int, *names: str | int) -> int:
    """An integer in 0…2³²−1 for the stream ``(seed, *names)``: the seed to hand a library that takes one
    (scikit-learn's ``random_state``, a nested ``derive``, a recorded per-head seed)."""
    return int(sequence(seed, *names).generate_state(1, np.uint32)[0])


def rng(seed: int, *names: str | int) -> np.random.Generator:
    """A NumPy ``Generator`` (PCG64) for the stream ``(seed, *names)``."""
    return np.random.default_rng(sequence(seed, *names))


def python_random(seed: int, *names: str | int) -> random.Random:
    """A ``random.Random`` of its own for the stream ``(seed, *names)`` (for code written against Python's
    ``random`` API: ``choice``, ``shuffle``); the module-level generator is never touched."""
    return random.Random(derive(seed, *names))


def keyed(key: str) -> int:
    """A 64-bit integer fixed by ``key`` alone (SHA-256, first 8 bytes little-endian): for values that are a
    pure function of their content rather than a stream, such as a baseline model's vector for a text,
    keyed by the model's ``seed`` option and the text. Frozen: those vectors are part of the models' ids
    (``random``, ``hashbag``, ``wwlk``'s unknown labels, SMATCH's pair restarts, the conformance encoder), so
    changing this would need their family versions bumped."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")


def keyed_rng(key: str) -> np.random.Generator:
    """NumPy's ``default_rng(keyed(key))``: the content-addressed generator (see ``keyed``)."""
    return np.random.default_rng(keyed(key))


def torch_generator(seed: int, *names: str | int, device: Any = "cpu"):
    """A local ``torch.Generator`` on ``device`` for the stream ``(seed, *names)`` (64 bits of state from
    the same sequence); the global torch generator is never touched."""
    import torch

    return torch.Generator(device=device).manual_seed(_state64(seed, *names))


def _state64(seed: int, *names: str | int) -> int:
    return int(sequence(seed, *names).generate_state(1, np.uint64)[0])


@contextmanager
def torch_scope(seed: int, *names: str | int, device: Any = "cpu") -> Iterator[None]:
    """Run code that draws from torch's *global* generators (``nn.Linear``'s initialisation, ``nn.Dropout``
    in training) on the stream ``(seed, *names)``, then put their state back: inside
    ``torch.random.fork_rng`` the CPU generator, and on a ``cuda`` device that device's generator, are
    seeded from the stream (on ``mps``, the MPS generator); on leaving, they are as they were. Nothing
    outside the block sees a seed."""
    import torch

    state = _state64(seed, *names)
    dev = torch.device(device)
    accelerator = dev.type in ("cuda", "mps")
    index = (dev.index if dev.index is not None else torch.cuda.current_device() if dev.type == "cuda" else 0) \
        if accelerator else None
    with torch.random.fork_rng(devices=[index] if accelerator else [],
                               device_type=dev.type if accelerator else "cuda"):
        torch.random.default_generator.manual_seed(state)
        if dev.type == "cuda":
            with torch.cuda.device(index):
                torch.cuda.manual_seed(state)
        elif dev.type == "mps":
            torch.mps.manual_seed(state)
        yield


@contextmanager
def library_scope() -> Iterator[None]:
    """For a library that seeds the *global* generators itself (transformers' ``Trainer`` calls
    ``set_seed``): Python's ``random``, NumPy's legacy global state and torch's CPU and CUDA generators are
    saved before and restored after, so its seeding stays inside the block."""
    import torch

    py, legacy = random.getstate(), np.random.get_state()
    cuda = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    try:
        with torch.random.fork_rng(devices=cuda, device_type="cuda"):
            yield
    finally:
        random.setstate(py)
        np.random.set_state(legacy)


@contextmanager
def trainer_scope(seed: int, *names: str | int) -> Iterator[None]:
    """Inside ``library_scope``, the global generators seeded as transformers' ``Trainer`` seeds them
    (``set_seed`` of the stream ``(seed, *names)``): a training loop that must give the Trainer's weights
    (dropout draws from the global generator) runs in this block, and the global state is restored after."""
    from transformers import set_seed

    with library_scope():
        set_seed(derive(seed, *names))
        yield


def trainer_epoch_order(data_seed: int, epoch: int, n: int) -> list[int]:
    """Epoch ``epoch``'s order of ``n`` examples as the Trainer's sampler draws it (Accelerate's
    ``SeedableRandomSampler``: ``randperm`` from a generator seeded with the data seed plus the epoch).
    It is compeval's one offset seed, kept so that fine-tuning reproduces the Trainer's batches;
    ``data_seed`` is itself a derived stream (``derive``)."""
    import torch

    order = torch.Generator().manual_seed(data_seed + epoch)
    return torch.randperm(n, generator=order).tolist()

