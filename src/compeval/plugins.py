"""Discovery for every registry (``compeval.registry.Registry``): importing a plug-in module registers it, so
no central list exists; installed packages add plug-ins through the entry-point groups ``compeval.tasks``,
``compeval.models``, ``compeval.data`` and ``compeval.report`` (docs/architecture.md)."""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import pkgutil
import warnings
from types import ModuleType
from typing import Any

#: The package whose sub-packages are suites.
SUITES = "compeval.tasks"
#: Module (or entry point) -> import error: one broken plug-in must not take the others down; the CLI and
#: tests show these.
BROKEN: dict[str, str] = {}
_done: dict[tuple[str, str | None], list[ModuleType]] = {}


def record_broken(name: str, exc: BaseException) -> None:
    BROKEN[name] = f"{type(exc).__name__}: {exc}"
    warnings.warn(f"compeval: could not import {name} ({BROKEN[name]})", stacklevel=3)


def discover(package: str, submodule: str | None = None) -> list[ModuleType]:
    """Import every module and sub-package of ``package`` (one level), or with ``submodule`` only
    ``<sub-package>.<submodule>`` where it exists, once per process; ``_``-prefixed modules are skipped."""
    key = (package, submodule)
    if key in _done:
        return _done[key]
    pkg = importlib.import_module(package)
    found: list[ModuleType] = []
    for mod in pkgutil.iter_modules(pkg.__path__, prefix=f"{package}."):
        if mod.name.rsplit(".", 1)[-1].startswith("_") or (submodule and not mod.ispkg):
            continue
        name = f"{mod.name}.{submodule}" if submodule else mod.name
        try:
            if submodule and importlib.util.find_spec(name) is None:
                continue
            found.append(importlib.import_module(name))
        except Exception as exc:  # one broken plug-in must not take the others down
            record_broken(name, exc)
    _done[key] = found
    return found


def discover_suites(part: str | None = None) -> list[ModuleType]:
    """Import every suite (``part=None``: its package, which registers its tasks) or one part of each
    suite that has it (``"sources"``, ``"report"``); returns the modules."""
    return discover(SUITES, part)


def load_entry_points(group: str) -> list[tuple[str, Any]]:
    """``(origin, loaded object)`` of every entry point of ``group``; a failure goes to ``BROKEN``."""
    out = []
    for ep in importlib.metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        where = f"entry point {ep.name} = {ep.value} ({group}" + (f", package {dist.name})" if dist else ")")
        try:
            out.append((where, ep.load()))
        except Exception as exc:  # noqa: BLE001 - a broken plug-in is recorded, never fatal to the others
            record_broken(where, exc)
    return out
