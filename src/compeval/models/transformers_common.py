"""What torch-backed families share: the weights (``hub.resolve``), device, dtype, batch, remote code and
quiet loading. ``dtype`` and ``trust_remote_code`` are identity (recorded only away from float32 / false,
so earlier ids stay valid); ``device`` and ``batch`` are run settings.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..context import resolve_device
from ..errors import SpecError
from .hub import Weights, resolve  # noqa: F401  (resolve: the families import it from here)
from .options import DTYPES, KeepsConfig, TorchOptions, identity_field


def revision_field() -> Any:
    """Recorded as the commit it names (the family resolves it), never shown: the display stays the repo's."""
    return identity_field(None, show="never", description="branch, tag or commit of a Hub repo (default main)")


class HubOptions(TorchOptions):
    """Options of families that load a Hub repo or local folder through transformers."""

    revision: str | None = revision_field()
    trust_remote_code: bool = identity_field(False, record="changed", show="never",
                                             description="run the Python code a Hub repo ships (explicit opt-in)")
    weights_arg: ClassVar[bool] = True  # the spec's argument names weights (registry.resolve_model locates them)


def model_arg(spec: Any) -> str:
    """The weights a ``hf:``/``sbert:`` spec names; naming none is an error, never a default model."""
    if not spec.arg:
        raise SpecError(f"{spec}: name the weights: {spec.name}:ORG/NAME, {spec.name}:PATH or "
                        f"{spec.name}:all-MiniLM-L6-v2 (the packaged model)")
    return spec.arg


def torch_dtype(name: str) -> Any:
    import torch

    if name not in DTYPES:
        raise SpecError(f"dtype={name!r}: choose one of {', '.join(DTYPES)}")
    return getattr(torch, name)


@dataclass
class TorchSetup:
    """Device (resolved), precision, batch and length settings of one torch model, as the spec gave them."""

    device: str  # resolved: ResolvedModel.device, or resolve_device for a model made outside a builder
    dtype: str = "float32"
    batch: int = 32
    max_length: int | None = None
    trust_remote_code: bool = False
    max_batch_tokens: int | None = None  # the run's --max-batch-tokens (None: the family's default)

    @classmethod
    def outside_a_run(cls, device: str = "auto", **settings: Any) -> "TorchSetup":
        """The setup of a model made directly (not by a run's builder): its device resolved here, once."""
        return cls(device=resolve_device(device), **settings)

    @classmethod
    def of(cls, resolved: Any, builder: Any) -> "TorchSetup":
        """The setup of a resolved model (its device resolved already): the spec's own ``batch=`` wins, else
        the run's ``--batch-size`` (``ModelBuilder``), else the family's declared default."""
        opts = resolved.options
        run_batch = getattr(builder, "batch_size", None)
        batch = opts.batch if "batch" in opts.model_fields_set or not run_batch else run_batch
        return cls(device=resolved.device, dtype=opts.dtype, batch=batch, max_length=opts.max_length,
                   trust_remote_code=bool(getattr(opts, "trust_remote_code", False)),
                   max_batch_tokens=getattr(builder, "max_batch_tokens", None))

    def settings(self) -> dict[str, Any]:
        """Recorded beside each result: the device resolved at build time, so a process that never loads the
        weights (a Ray stage reading cached vectors) records the same."""
        out = {"device": self.device, "batch": self.batch}
        if self.max_batch_tokens:
            out["max_batch_tokens"] = self.max_batch_tokens  # the budget set; models/batching.py may lower it
        return out


def needs_remote_code(directory: Path) -> str | None:
    """Why loading ``directory`` would run code from the repo (``auto_map`` in its model or tokenizer
    config, or a custom module), or None."""
    for name in ("config.json", "tokenizer_config.json"):
        config = directory / name
        if config.is_file():
            try:
                if "auto_map" in json.loads(config.read_text()):
                    return f"its {name} maps to Python code in the repo (auto_map)"
            except (json.JSONDecodeError, UnicodeDecodeError, TypeError):
                pass
    modules = directory / "modules.json"
    if modules.is_file():
        try:
            types = [m.get("type", "") for m in json.loads(modules.read_text())]
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            types = []
        custom = [t for t in types if t and not t.startswith("sentence_transformers.")]
        if custom:
            return f"its modules.json names custom modules ({', '.join(custom)})"
    return None


def check_remote_code(weights: Weights, setup: TorchSetup, where: str) -> None:
    reason = needs_remote_code(weights.directory)
    if reason and not setup.trust_remote_code:
        raise SpecError(f"{where}: {weights.name} ships its own code ({reason}); add ,trust_remote_code=true "
                        "to run it, after reading it")


def quiet() -> None:
    """No progress bars or tokenizer thread warnings from the libraries. The Hub itself is left as the
    user's environment sets it (``HF_HUB_OFFLINE``…): models are read from the resolved local folder."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:
        pass


class TorchModel(KeepsConfig):
    """What the torch families' model classes share: the kept configuration (its settings filled in when the
    weights load), the resolved device (``OnDevice``) and ``load`` (``Loadable``, timed apart from encoding)."""

    setup: TorchSetup

    @property
    def device(self) -> str:
        return self.setup.device

    def load(self) -> None:
        """Load the weights now (they load on first use otherwise)."""
        self._load()

    def _load(self) -> Any:
        raise NotImplementedError
