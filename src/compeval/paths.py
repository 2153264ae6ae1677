"""Default folders, importable from any layer."""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_cache_dir() -> Path:
    """``$COMPEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/compeval``, else ``~/.cache/compeval``."""
    env = os.environ.get("COMPEVAL_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "compeval"


def safe_component(text: str, limit: int = 150) -> str:
    """``text`` as one file-name component (``[A-Za-z0-9._-]``, no leading dot); a changed name gets
    a short hash of the original, so two names never map to one file (``a/b`` and ``a_b`` stay apart)."""
    text = str(text)
    out = _UNSAFE.sub("_", text).lstrip("._-")[:limit].rstrip("._-") or "x"
    if out != text:
        out = f"{out[: limit - 9]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return out
