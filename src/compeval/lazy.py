"""Heavy modules (pandas, SciPy, scikit-learn) loaded on first attribute access, so that the CLI's listings
answer fast. Only the module is deferred: write ``pd = lazy_module("pandas")``, not ``from pandas import …``."""
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
