"""Named random streams (docs/architecture.md): a stream is ``(seed, *names)``, the names hashed with
SHA-256 into a NumPy ``SeedSequence`` spawn key, so differently named streams are independent whatever the seed.

Nothing seeds a global generator (tests/core/test_seeds.py checks the source) except ``torch_scope``, which
forks torch's global state and restores it. Results record ``SEED_RULE``; another rule's result is recomputed."""
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
    """An integer in 0…2³²−1 for the stream ``(seed, *names)``, for libraries that take a seed."""
    return int(sequence(seed, *names).generate_state(1, np.uint32)[0])


def rng(seed: int, *names: str | int) -> np.random.Generator:
    """A NumPy ``Generator`` (PCG64) for the stream ``(seed, *names)``."""
    return np.random.default_rng(sequence(seed, *names))


def python_random(seed: int, *names: str | int) -> random.Random:
    """A ``random.Random`` of its own for the stream; the module-level generator is never touched."""
    return random.Random(derive(seed, *names))


def keyed(key: str) -> int:
    """A 64-bit integer fixed by ``key`` alone (SHA-256, first 8 bytes little-endian), for values that are a
    pure function of their content. Frozen: it is part of model ids (``random``, ``hashbag``, ``wwlk``, SMATCH,
    the conformance encoder)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")


def keyed_rng(key: str) -> np.random.Generator:
    """NumPy's ``default_rng(keyed(key))``."""
    return np.random.default_rng(keyed(key))


def torch_generator(seed: int, *names: str | int, device: Any = "cpu"):
    """A local ``torch.Generator`` on ``device`` for the stream; the global one is never touched."""
    import torch

    return torch.Generator(device=device).manual_seed(_state64(seed, *names))


def _state64(seed: int, *names: str | int) -> int:
    return int(sequence(seed, *names).generate_state(1, np.uint64)[0])


@contextmanager
def torch_scope(seed: int, *names: str | int, device: Any = "cpu") -> Iterator[None]:
    """Run code that draws from torch's *global* generators (module initialisation, dropout) on the
    stream: the CPU generator and the device's (``cuda``, ``mps``) are seeded inside ``fork_rng``, restored after."""
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
    """For a library that seeds the global generators itself (the ``Trainer``'s ``set_seed``):
    Python's, NumPy's legacy and torch's CPU and CUDA states are restored after the block."""
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
    """Inside ``library_scope``, the global generators seeded as transformers' ``Trainer`` seeds them."""
    from transformers import set_seed

    with library_scope():
        set_seed(derive(seed, *names))
        yield


def trainer_epoch_order(data_seed: int, epoch: int, n: int) -> list[int]:
    """Epoch ``epoch``'s order as Accelerate's ``SeedableRandomSampler`` draws it: ``randperm``
    seeded with ``data_seed + epoch``, the one offset seed, kept to reproduce the Trainer's batches."""
    import torch

    order = torch.Generator().manual_seed(data_seed + epoch)
    return torch.randperm(n, generator=order).tolist()

