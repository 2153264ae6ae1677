"""One module per suite, in report order; a suite whose results are absent contributes nothing."""
from __future__ import annotations

from types import ModuleType

from . import invariance, lexcomp, modifiers, probing, structure, sts

SECTIONS: tuple[ModuleType, ...] = (sts, structure, modifiers, probing, lexcomp, invariance)
BY_SUITE: dict[str, ModuleType] = {m.SUITE: m for m in SECTIONS}
#: Tasks whose result does not depend on the model (shown in their section, never ranked).
NOT_RANKED: set[str] = set(structure.NOT_RANKED)


def suite_order(suites: set[str]) -> list[str]:
    """Known suites in report order, then any other suite alphabetically."""
    known = [m.SUITE for m in SECTIONS if m.SUITE in suites]
    return known + sorted(suites - set(known))


def task_order(suite: str, tasks: set[str]) -> list[str]:
    """A suite's tasks in its reading order, then any others alphabetically."""
    mod = BY_SUITE.get(suite)
    preferred = list(getattr(mod, "TASK_ORDER", [])) if mod else []
    first = [t for t in preferred if t in tasks]
    return first + sorted(tasks - set(first))
