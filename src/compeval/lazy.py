"""Heavy third-party modules loaded on first use, so that the CLI's listings (``compeval tasks``, ``models``,
``--help``) answer without importing pandas, SciPy or scikit-learn, which only scoring needs.

``lazy_module("pandas")`` returns the module object at once and runs its code on the first attribute
access (the standard library's ``importlib.util.LazyLoader``); a module already imported is returned as
it is. Only the module itself is deferred: ``from x import y`` still imports ``x`` at once, so code that
should stay cheap to import writes ``pd = lazy_module("pandas")`` and ``pd.DataFrame`` where it is used.
"""
from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

_lock = threading.Lock()


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module whose code runs on first attribute access (its parents are imported now)."""
    with _lock:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loader.exec_module(module)
        parent, _, child = name.rpartition(".")
        if parent:  # as an import would: the submodule is an attribute of its package
            setattr(sys.modules[parent], child, module)
        return module
