"""Default folders, in a module of their own so that any layer (data downloads, the embedding cache)
can ask for them without importing the layers above it."""
from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$COMPEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/compeval``, else ``~/.cache/compeval``."""
    env = os.environ.get("COMPEVAL_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "compeval"
