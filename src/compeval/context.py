"""Run settings, apart from identity: ``RunContext`` declares each setting once (default, check, CLI flag,
help), and carries the values to model factories and tasks. None of it enters a model's or a task's id.

``compeval run`` takes its options from the declaration (``cli.settings_options``), ``runner.run`` takes a
``RunContext`` or the same keywords (``RunContext.for_run``). It is a plain frozen value, so it travels to
workers as it is; the model builder of the process that runs a job is attached there (``with_builder``).
Tasks read it as ``self.context`` (``DEFAULT_CONTEXT`` when no runner set one).
"""
from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from .errors import CompevalError
from .outputs import check_cache, check_output
from .paths import default_cache_dir
from .seeds import MAX_SEED
from .threads import check_threads

DEVICE_CHOICES = "auto|cpu|cuda|cuda:N|mps"
DEVICE_PATTERN = r"auto|cpu|cuda(?::\d+)?|mps"  # --device here, device= in model options
_DEVICE = re.compile(rf"^(?:{DEVICE_PATTERN})$")


def check_device(device: str, flag: str = "--device") -> str:
    """The device string, or a one-line error naming the option (no torch import: syntax only)."""
    text = str(device).strip().lower()
    if not _DEVICE.match(text):
        raise CompevalError(f"{flag} {device!r}: choose {DEVICE_CHOICES}")
    return text


@lru_cache(maxsize=None)
def resolve_device(device: str = "auto") -> str:
    """``auto`` = ``cuda``, then ``mps``, then ``cpu``; a named device this machine lacks is a one-line error.
    A run resolves ``--device`` once (``RunContext.resolve``); the model builder a spec's own ``device=``."""
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
    mps = getattr(torch.backends, "mps", None)
    has_mps = mps is not None and mps.is_available()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu"
    if device == "mps" and not has_mps:
        raise CompevalError("--device mps: Apple's MPS backend is not available on this machine "
                            "(use --device cpu or auto)")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise CompevalError(f"--device {device}: no CUDA device is available on this machine "
                            "(use --device cpu or auto)")
    if device.startswith("cuda") and int(device.partition(":")[2] or 0) >= torch.cuda.device_count():
        raise CompevalError(f"--device {device}: this machine has {torch.cuda.device_count()} CUDA "
                            f"device(s), numbered from 0")
    return device


def _seed(value: Any, flag: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_SEED:
        raise CompevalError(f"{flag} {value!r}: must be an integer from 0 to {MAX_SEED}")
    return int(value)  # a numpy integer would not serialise into a result


def _positive(value: Any, flag: str) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1):
        raise CompevalError(f"{flag} {value!r}: must be a positive integer")
    return None if value is None else int(value)


def _seconds(value: Any, flag: str) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or not 0 < value < math.inf):  # nan fails too
        raise CompevalError(f"{flag} {value!r}: must be a positive number of seconds")
    return None if value is None else float(value)


def _yes_no(value: Any, flag: str) -> bool | None:
    """A switch is True or False (None: decided per run): ``overwrite="false"`` would be true."""
    if value is not None and not isinstance(value, bool):
        raise CompevalError(f"{flag} {value!r}: must be True or False")
    return value


def _folder(value: Any, flag: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise CompevalError(f"{flag} {value!r}: give a folder name")
    return Path(value).expanduser().absolute()  # workers may start elsewhere


def _results(value: Any, flag: str) -> Path | None:
    if value is not None and str(value).strip() == ".":  # "" is refused by _folder
        check_output(value, flag)  # its one line: model folders would mix with the current folder's files
    return _folder(value, flag)


def _named(setting: Any) -> str:
    """A setting's name in its errors: its CLI flag, or its keyword where the flag says otherwise (--offline)."""
    meta = setting.metadata
    return setting.name if meta["negate"] or not meta["flag"] else meta["flag"].split("/")[0]


def run_setting(default: Any, flag: str | None, help: str, *, short: str | None = None, negate: bool = False,
                check: Callable[[Any, str], Any] | None = None) -> Any:
    """A run setting's declaration: ``flag`` is its ``compeval run`` option (None: Python API only), ``negate``
    a flag that sets it to False (``--offline``), ``check(value, flag)`` returns the value or raises one line
    (a switch's: True, False or None)."""
    check = check or (_yes_no if default is None or isinstance(default, bool) else None)
    return field(default=default, metadata={"flag": flag, "short": short, "help": help, "negate": negate,
                                            "check": check})


@dataclass(frozen=True)
class RunContext:
    """Settings every job of a run shares; plain values only (plus this process's model builder). Field order
    is the order of ``compeval run``'s options."""

    output_dir: Path | None = run_setting(None, "--output-dir", "results folder (default: results, with --quick "
                                          "results-quick)", short="-o", check=_results)
    data_dir: Path | None = run_setting(None, "--data-dir", "local data folder (else $COMPEVAL_DATA_DIR); data sets "
                                        "it lacks come from the cache or are downloaded", check=_folder)
    download: bool = run_setting(True, "--offline", "never download data: use --data-dir and the cache only",
                                 negate=True)
    cache_dir: Path | None = run_setting(None, "--cache-dir", "embedding cache (else $COMPEVAL_CACHE_DIR or "
                                         "~/.cache/compeval)", check=_folder)  # None: vectors in memory only
    overwrite: bool = run_setting(False, "--overwrite", "recompute and replace existing results")
    seed: int = run_setting(0, "--seed", "seed for bootstrap resampling, generators and classifiers", check=_seed)
    bnc_dir: Path | None = run_setting(None, "--bnc-dir", "British National Corpus XML folder (lexcomp VPC/LVC); "
                                       "else $COMPEVAL_BNC_DIR", check=_folder)
    device: str = run_setting("auto", "--device", "torch device for models and trained heads: auto (cuda, then "
                              "mps, then cpu) | cpu | cuda | cuda:N | mps; not part of any id", check=check_device)
    batch_size: int | None = run_setting(None, "--batch-size", "texts per model batch (else each family's "
                                         "default); not part of any id", check=_positive)
    allow_modified_data: bool = run_setting(False, "--allow-modified-data", "use local data files whose SHA-256 "
                                            "differs from the registry's pin (recorded in each result); else "
                                            "such files are an error")
    reuse_stale: bool = run_setting(False, "--reuse-stale", "keep stored results computed with another seed, other "
                                    "data or other package versions (each recorded in OUTPUT/stale-reuse.jsonl); "
                                    "else they are recomputed")
    isolate: bool | None = run_setting(None, "--isolate/--no-isolate", "each model in its own worker process "
                                       "(default: when more than one torch model runs on a GPU)")
    model_timeout: float | None = run_setting(None, "--model-timeout", "seconds a model's worker may run before "
                                              "it is stopped and its jobs fail (implies --isolate)", check=_seconds)
    max_batch_tokens: int | None = run_setting(None, "--max-batch-tokens", "padded tokens per forward pass of "
                                               "torch models (else each family's default); halves on CUDA "
                                               "out-of-memory; not part of any id", check=_positive)
    threads: str = run_setting("auto", "--threads", "CPU threads: auto (encoding on the cores other programs "
                               "leave free, looked at before each batch; trained heads of several tasks at once, "
                               "one per free core) | N (N threads, one job at a time); recorded in each result, "
                               "not part of any id", check=check_threads)
    progress: bool | None = run_setting(None, None, "draw encoding progress (None: when a reporter is given or "
                                        "stderr is a terminal)")
    reuse_objects: bool = run_setting(False, None, "reuse vectors and results of Python objects identified by "
                                      "their output only (else recomputed in every run)")
    #: ``device`` resolved where the jobs run (``resolve``); None where never resolved (``DEFAULT_CONTEXT``, a
    #: run on a remote Ray cluster, whose workers have devices of their own).
    resolved_device: str | None = None
    env: tuple[tuple[str, str], ...] = ()  # COMPEVAL_* variables workers need (never secrets)
    #: This process's model builder (spec -> model behind the run's cache), attached where jobs run.
    model_builder: Callable[[str], Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        for f in fields(self):
            if f.metadata.get("check") is not None:
                object.__setattr__(self, f.name, f.metadata["check"](getattr(self, f.name), _named(f)))

    @classmethod
    def settings(cls) -> dict[str, Any]:
        """Setting name → its field, in declaration order."""
        return {f.name: f for f in fields(cls) if "flag" in f.metadata}

    @classmethod
    def for_run(cls, output_dir: Path | str = "results", *, cache_dir: Path | str | None = "default",
                flags: bool = False, **settings: Any) -> "RunContext":
        """A run's context from keywords (errors name them; ``flags``: name the CLI's options): folders where
        compeval must not write refused, ``bnc_dir`` else ``$COMPEVAL_BNC_DIR``, the COMPEVAL_* variables
        workers need. ``cache_dir="default"``: ``$COMPEVAL_CACHE_DIR`` or ``~/.cache/compeval``."""
        declared = cls.settings()
        unknown = sorted(set(settings) - set(declared))
        if unknown:
            raise CompevalError(f"unknown run setting {unknown[0]!r}; settings: {', '.join(declared)}")
        name = (lambda n: declared[n].metadata["flag"]) if flags else (lambda n: n)
        if output_dir is None or not str(output_dir).strip() or str(output_dir).strip() == ".":
            check_output(output_dir or "", name("output_dir"))  # its one line for "", "." and None
        from_env = not settings.get("bnc_dir") and bool(os.environ.get("COMPEVAL_BNC_DIR"))
        settings["bnc_dir"] = settings.get("bnc_dir") or os.environ.get("COMPEVAL_BNC_DIR") or None
        ctx = cls(output_dir=output_dir, cache_dir=default_cache_dir() if cache_dir == "default" else cache_dir,
                  env=forwarded_env(), **settings)
        return ctx.checked({**{n: name(n) for n in ("output_dir", "data_dir", "cache_dir", "bnc_dir")},
                            **({"cache_dir": "$COMPEVAL_CACHE_DIR or the default"} if cache_dir == "default" else {}),
                            **({"bnc_dir": "$COMPEVAL_BNC_DIR"} if from_env else {})})

    def checked(self, names: dict[str, str] | None = None) -> "RunContext":
        """This context, refused where compeval must not write (``outputs``) or where a folder is a file: every
        route into ``runner.run`` passes here, a RunContext built directly too. ``names``: how errors name them."""
        name = (names or {}).get
        if self.output_dir is None:
            raise CompevalError("RunContext.output_dir is None: give the results folder")
        check_output(self.output_dir, name("output_dir", "output_dir"), data_dir=self.data_dir)
        check_cache(self.cache_dir, data_dir=self.data_dir, what=name("cache_dir", "cache_dir"))
        for key in ("data_dir", "cache_dir", "bnc_dir"):
            folder = getattr(self, key)
            if folder is not None and folder.exists() and not folder.is_dir():
                raise CompevalError(f"{name(key, key)} {folder} is a file; give a folder")
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "model_builder": None}  # a builder holds open caches: each process attaches its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def resolve(self) -> "RunContext":
        """This context with its device resolved here, once: a named device this machine lacks is one line
        before any work."""
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


_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def forwarded_env() -> tuple[tuple[str, str], ...]:
    """COMPEVAL_* variables of this process except credentials (set those where the workers run)."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("COMPEVAL_") and not any(w in k for w in _SECRET_WORDS)))


#: The settings a task sees when no runner set its context (tests, direct use of a Task).
DEFAULT_CONTEXT = RunContext()
