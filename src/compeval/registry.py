"""``Registry``: the type of every name → thing mapping, as spaCy's ``catalogue``. A second registration of a
name is a ``RegistryError`` naming both origins (the same object again is a no-op); discovery and entry
points (docs/contributing.md) run at the first read; a plug-in that fails to load goes to ``plugins.BROKEN``.
``reg[name] = obj`` and ``del reg[name]`` skip the check, for tests (``monkeypatch``).

Not ``catalogue``: it overwrites duplicates silently, keeps no origin, and has one global table tests cannot restore.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

from . import plugins
from .errors import RegistryError

T = TypeVar("T")

#: Modules whose frames are registration plumbing: ``called_from`` reports the first frame outside them.
PLUMBING = {"compeval.registry", "compeval.tasks.registry", "compeval.models.registry", "compeval.data.registry",
            "compeval.report.sections"}


def called_from() -> str:
    """``file:line`` of the call that registers (the first frame outside the registries' own modules)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in PLUMBING:
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "?"


def origin_of(obj: Any) -> str:
    """``module:qualname`` of a class or function; else where the registering call was made."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}:{qualname}"
    return called_from()


class Registry(MutableMapping[str, T], Generic[T]):
    """Name -> registered object (module docstring). ``discover``: the built-in discovery, run before the first
    read. ``collect``: turns a loaded entry point that declares rather than registers (data sources) into
    ``(name, object)`` pairs. ``versioned``: each name holds ``{version: object}`` (model families, ``NAME.vN``)."""

    def __init__(self, kind: str, *, group: str | None = None, discover: Callable[[], None] | None = None,
                 collect: Callable[[Any], Iterable[tuple[str, T]]] | None = None, versioned: bool = False):
        self.kind, self.group, self.versioned = kind, group, versioned
        self._discover, self._collect = discover, collect
        self._entries: dict[str, Any] = {}
        self._origins: dict[str, str] = {}  # name (or NAME.vN when versioned) -> origin
        self._loaded = False

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} registered{'' if self._loaded else ', not loaded'})"

    # -- registering ------------------------------------------------------------------------------------

    def register(self, name: str, obj: T, *, origin: str | None = None, version: int | None = None) -> T:
        """Add ``obj`` under ``name`` (and ``version`` in a versioned registry); a different object under a
        name already taken is a ``RegistryError`` naming both origins (``origin`` else ``origin_of(obj)``).
        Returns ``obj``."""
        if self.versioned != (version is not None):
            raise TypeError(f"{self.kind} registry: version= is {'required' if self.versioned else 'not taken'}")
        origin = origin or origin_of(obj)
        key = f"{name}.v{version}" if self.versioned else name
        if self.versioned:
            versions = self._entries.setdefault(name, {})
            old = versions.get(version, _MISSING)
        else:
            old = self._entries.get(name, _MISSING)
        if old is not _MISSING:
            if old is obj:
                return obj
            raise RegistryError(f"{self.kind} {key!r} is registered twice: by {self._origins.get(key, '?')} and "
                                f"by {origin}; rename one of them")
        if self.versioned:
            versions[version] = obj
        else:
            self._entries[name] = obj
        self._origins[key] = origin
        return obj

    def origin(self, name: str, version: int | None = None) -> str | None:
        """Where ``name`` (``version``) was registered: ``module:qualname``, ``file:line`` or an entry point."""
        self.load()
        return self._origins.get(f"{name}.v{version}" if version is not None else name)

    def peek(self, name: str) -> T | None:
        """The object under ``name`` if registered so far, without discovering anything (for registering code)."""
        return self._entries.get(name)

    # -- loading ----------------------------------------------------------------------------------------

    def load(self) -> None:
        """Run the built-in discovery and the entry-point group, once per process (a read does this)."""
        if self._loaded:
            return
        self._loaded = True  # before discovering: a module read during discovery sees what is registered so far
        if self._discover is not None:
            self._discover()
        if self.group is None:
            return
        for where, loaded in plugins.load_entry_points(self.group):
            if self._collect is None:
                continue  # importing the module registered its objects (decorators), with their own origins
            try:
                found = list(self._collect(loaded))
            except Exception as exc:  # noqa: BLE001 - one broken plug-in must not take the others down
                plugins.record_broken(where, exc)
                continue
            for name, obj in found:
                try:
                    self.register(name, obj, origin=where)
                except RegistryError as exc:  # a clash drops the second one only, named with both origins
                    plugins.record_broken(f"{where} [{name!r}]", exc)

    def forget_discovery(self) -> None:
        """Let the next read discover again (tests that add a suite folder or an entry point)."""
        self._loaded = False

    def only(self, names: Iterable[str]) -> "Registry[T]":
        """A registry holding only ``names`` (with their origins), discovery done: a stand-in for tests that run
        a subset (``monkeypatch.setattr(module, "TASKS", TASKS.only([...]))``)."""
        part: Registry[T] = Registry(self.kind, versioned=self.versioned)
        for name in names:
            part._entries[name] = self[name]
            part._origins.update({k: v for k, v in self._origins.items() if k == name or k.startswith(f"{name}.v")})
        part._loaded = True
        return part

    def snapshot(self) -> tuple[dict, dict, bool]:
        """The registry's state, for ``restore`` (tests that register throw-away objects)."""
        entries = {k: dict(v) if self.versioned else v for k, v in self._entries.items()}
        return entries, dict(self._origins), self._loaded

    def restore(self, state: tuple[dict, dict, bool]) -> None:
        entries, origins, loaded = state
        self._entries, self._origins, self._loaded = dict(entries), dict(origins), loaded

    # -- the mapping ------------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> T:
        self.load()
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self.load()
        return len(self._entries)

    def __setitem__(self, name: str, obj: T) -> None:
        self._entries[name] = obj
        self._origins[name] = called_from()

    def __delitem__(self, name: str) -> None:
        del self._entries[name]
        self._origins.pop(name, None)
        for key in [k for k in self._origins if k.startswith(f"{name}.v")]:
            del self._origins[key]


_MISSING = object()
