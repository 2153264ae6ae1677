"""Run settings, apart from identity: ``RunContext`` carries what a run may change without changing what
a score means (device, batch size, folders, seed, progress) to model factories and tasks, explicitly.

None of it enters a model's or a task's id: a model built on ``cuda`` and on ``cpu`` has one
configuration id, and a task's slug never holds a folder. It is a plain frozen value, so it travels to
Ray workers as it is; the model builder of the process that runs a job is attached there
(``with_builder``) and never pickled.

Tasks read it as ``self.context`` (set by the runner before ``load``; ``DEFAULT_CONTEXT`` otherwise):
``self.context.torch_device()`` (the run's device, resolved once) for heads they train,
``self.context.cache_dir`` for caches of their own, ``self.context.model_builder`` for baseline models
(behind the run's cache), ``self.context.bnc_dir`` for corpora the user supplies.
"""
from __future__ import annotations

import os
import re
import numbers
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from .errors import CompevalError
from .seeds import MAX_SEED  # noqa: F401  (--seed is checked against it here; options read it here)

DEVICE_CHOICES = "auto|cpu|cuda|cuda:N|mps"
DEVICE_PATTERN = r"auto|cpu|cuda(?::\d+)?|mps"  # the one pattern: --device here, device= in model options
_DEVICE = re.compile(rf"^(?:{DEVICE_PATTERN})$")


def check_device(device: str) -> str:
    """The device string, or a one-line error naming the option (no torch import: syntax only)."""
    text = str(device).strip().lower()
    if not _DEVICE.match(text):
        raise CompevalError(f"--device {device!r}: choose {DEVICE_CHOICES}")
    return text


@lru_cache(maxsize=None)
def resolve_device(device: str = "auto") -> str:
    """The one function that resolves a device: ``auto`` = ``cuda``, then ``mps``, then ``cpu``; a named
    device that this machine lacks is a one-line error. Imports torch only when it must look.

    A run calls it once, for ``--device`` (``RunContext.resolve``, from ``make_context``); the model
    builder calls it for a spec's own ``device=`` only. Trainers and models take the resolved value."""
    device = check_device(device)
    if device == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError:
        if device == "auto":
            return "cpu"
        raise CompevalError(f"--device {device}: torch is not installed, though compeval depends on it; "
                            "pip install torch==2.13.0 (README: Installing with pip)") from None
    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        return "mps" if mps is not None and mps.is_available() else "cpu"
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise CompevalError(f"--device {device}: no CUDA device is available on this machine "
                                "(use --device cpu or auto)")
        index = int(device.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise CompevalError(f"--device {device}: this machine has {torch.cuda.device_count()} CUDA "
                                f"device(s), numbered from 0")
        return device
    mps = getattr(torch.backends, "mps", None)
    if mps is None or not mps.is_available():
        raise CompevalError("--device mps: Apple's MPS backend is not available on this machine "
                            "(use --device cpu or auto)")
    return "mps"


@dataclass(frozen=True)
class RunContext:
    """Settings every job of a run shares; plain values only (plus this process's model builder)."""

    output_dir: Path | None = None
    data_dir: Path | None = None
    cache_dir: Path | None = None  # None: vectors in memory only
    seed: int = 0
    download: bool = True
    overwrite: bool = False
    allow_modified_data: bool = False  # data files whose SHA-256 differs from the registry's pin are used
    reuse_stale: bool = False  # keep stored results whose seed, data or package versions differ (recorded)
    reuse_objects: bool = False  # reuse vectors and results of Python objects identified by their output only
    device: str = "auto"  # what --device asks: auto | cpu | cuda | cuda:N | mps
    #: ``device`` resolved on the machine that runs the jobs (``resolve``; read it with ``torch_device()``).
    #: None in a context never resolved: ``DEFAULT_CONTEXT``, and a run on a remote Ray cluster, whose
    #: workers have devices of their own.
    resolved_device: str | None = None
    batch_size: int | None = None  # None: each model family's own default
    max_batch_tokens: int | None = None  # token budget per forward pass (models/batching.py); None: family's
    bnc_dir: Path | None = None  # the British National Corpus (lexcomp); else $COMPEVAL_BNC_DIR
    progress: bool = True  # report encoding progress to the run's reporter
    env: tuple[tuple[str, str], ...] = ()  # COMPEVAL_* variables workers need (never secrets)
    #: This process's model builder (spec -> model behind the run's cache), attached where jobs run.
    model_builder: Callable[[str], Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "device", check_device(self.device))
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) \
                or not 0 <= self.seed <= MAX_SEED:
            raise CompevalError(f"--seed {self.seed}: must be an integer from 0 to {MAX_SEED}")
        if self.batch_size is not None and self.batch_size < 1:
            raise CompevalError(f"--batch-size {self.batch_size}: must be a positive integer")
        if self.max_batch_tokens is not None and self.max_batch_tokens < 1:
            raise CompevalError(f"--max-batch-tokens {self.max_batch_tokens}: must be a positive integer")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["model_builder"] = None  # a builder holds open caches: each process attaches its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def resolve(self) -> "RunContext":
        """This context with its device resolved here, once (``make_context`` does it for a run whose jobs
        run on this machine): a named device this machine lacks is one line before any work."""
        if self.resolved_device is not None:
            return self
        return replace(self, resolved_device=resolve_device(self.device))

    def torch_device(self) -> str:
        """The run's device as ``resolve`` found it (``cuda``, ``cuda:1``, ``mps`` or ``cpu``): what model
        builders and trainers receive. A context never resolved resolves ``device`` on each call."""
        return self.resolved_device or resolve_device(self.device)

    def with_builder(self, build: Callable[[str], Any] | None) -> "RunContext":
        """This context with the process's model builder attached (for tasks' baseline models)."""
        return replace(self, model_builder=build)

    def apply_env(self) -> None:
        """In a worker: take the driver's COMPEVAL_* settings."""
        for k, v in self.env:
            os.environ[k] = v


#: The settings a task sees when no runner set its context (tests, direct use of a Task).
DEFAULT_CONTEXT = RunContext()
