"""The one discovery every registry uses: importing a plug-in module is what registers it.

Model families are the modules of ``compeval.models``; a suite is one folder ``compeval/tasks/<suite>/``
holding its tasks (the package itself), its data sources (``sources.py``), its report section
(``report.py``) and its published reference rows. A registry asks for the modules it needs and each is
imported once per process; nothing keeps a central list, so adding a suite or a family edits no file
outside its own folder or module.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import warnings

#: The package whose sub-packages are suites.
SUITES = "compeval.tasks"
#: Module -> import error: one broken plug-in must not take the others down; the CLI and tests show these.
BROKEN: dict[str, str] = {}
_done: set[tuple[str, str | None]] = set()


def discover(package: str, submodule: str | None = None) -> None:
    """Import every module and sub-package of ``package`` (one level; a sub-package imports its own
    registering modules), or with ``submodule`` only ``<sub-package>.<submodule>`` where it exists.

    Each (package, submodule) is scanned once per process; modules whose name starts with ``_`` are skipped.
    """
    key = (package, submodule)
    if key in _done:
        return
    pkg = importlib.import_module(package)
    for mod in pkgutil.iter_modules(pkg.__path__, prefix=f"{package}."):
        if mod.name.rsplit(".", 1)[-1].startswith("_") or (submodule and not mod.ispkg):
            continue
        name = f"{mod.name}.{submodule}" if submodule else mod.name
        try:
            if submodule and importlib.util.find_spec(name) is None:
                continue
            importlib.import_module(name)
        except Exception as exc:  # one broken plug-in must not take the others down
            BROKEN[name] = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"compeval: could not import {name} ({BROKEN[name]})", stacklevel=2)
    _done.add(key)


def discover_suites(part: str | None = None) -> None:
    """Import every suite (``part=None``: its package, which registers its tasks) or one part of each
    suite that has it (``"sources"``, ``"report"``)."""
    discover(SUITES, part)
