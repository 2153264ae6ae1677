"""The registry of suite sections, each registered by its suite's ``report.py``; results of a suite without a
section still reach the leaderboard.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ... import plugins
from ...registry import Registry
from ..chance import CHANCE
from ..loading import Entry
from .base import BuildContext, ItemColumns, Section


def _no_items(entry: Entry) -> ItemColumns | None:
    return None


@dataclass(frozen=True)
class Headline:
    """A score that sums a suite up on the end-of-run ranking and the leaderboard exports: ``task``'s
    ``metric`` on ``subset`` (None: the task's main ones), ``direction`` +1 / -1 (0: as the result records);
    ``caveat``: where a model with no signal can win it, the one line that says so."""

    label: str
    task: str
    subset: str | None = None
    metric: str | None = None
    direction: int = 0
    caveat: str = ""  # one line where a degenerate model can win this score (shown under the ranking)


@dataclass(frozen=True)
class SuiteSection:
    """One suite's figures and tables (``build``), the per-item columns behind its main scores (``items``, for
    paired tests; None when a score is not a function of per-item values), its position among the sections
    (``order``, lower first) and its leaderboard columns in reading order (``task_order``)."""

    suite: str
    title: str
    order: int
    build: Callable[[BuildContext], Section | None]
    items: Callable[[Entry], ItemColumns | None] = _no_items
    task_order: tuple[str, ...] = ()
    headlines: tuple[Headline, ...] = ()
    headline_rest: bool = True  # the suite's other ranked tasks also get (mean) rows on the ranking
    headline_each: bool = False  # each of those tasks its own row, never a mean (tasks on unrelated data)
    #: Metric → the score of a model with no signal where the suite's design fixes it (probing: balanced
    #: labels, accuracy 0.5); the metric's own chance level (``chance.CHANCE``) otherwise.
    chance: Mapping[str, float] = field(default_factory=dict)


def _discover_sections() -> None:
    plugins.discover_suites("report")


#: Suite -> its section: every suite's ``report.py`` and the ``compeval.report`` entry points, found when first read.
SECTIONS: Registry[SuiteSection] = Registry("report section of suite", group="compeval.report",
                                            discover=_discover_sections)


@dataclass(frozen=True)
class Filled:
    """A section's ``build`` from its ``intro`` and ``fill(ctx, section, entries)``: the section is made only
    when its suite has results, so no suite repeats that opening."""

    suite: str
    title: str
    intro: str
    fill: Callable[[BuildContext, Section, list[Entry]], None]

    def __call__(self, ctx: BuildContext) -> Section | None:
        entries = ctx.index.suite(self.suite)
        if not entries:
            return None
        section = Section(id=f"suite-{self.suite}", suite=self.suite, title=self.title, intro=self.intro)
        self.fill(ctx, section, entries)
        return section


def register_section(suite: str, *, title: str, order: int,
                     build: Callable[[BuildContext], Section | None] | None = None, intro: str = "",
                     fill: Callable[[BuildContext, Section, list[Entry]], None] | None = None,
                     items: Callable[[Entry], ItemColumns | None] | None = None,
                     task_order: Sequence[str] = (), headlines: Sequence[Headline] = (),
                     headline_rest: bool = True, headline_each: bool = False,
                     chance: Mapping[str, float] | None = None) -> SuiteSection:
    """Called by a suite's ``report.py`` when it is imported, with ``build(ctx)`` (None: nothing to show) or
    ``intro`` and ``fill`` (``Filled``); a second section for one suite is a ``RegistryError`` naming both
    places (the same section again is a no-op)."""
    if (build is None) == (fill is None):
        raise TypeError(f"register_section({suite!r}): give build= or fill=, not both")
    build = build or Filled(suite, title, intro, fill)
    old = SECTIONS.peek(suite)
    if old is not None and old.build == build:
        return old
    section = SuiteSection(suite, title, order, build, items or _no_items, tuple(task_order), tuple(headlines),
                           headline_rest, headline_each, dict(chance or {}))
    return SECTIONS.register(suite, section)


def sections() -> list[SuiteSection]:
    """Every registered section, in report order (``order``, then suite name)."""
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.suite))


def section(suite: str) -> SuiteSection | None:
    return SECTIONS.get(suite)


def chance_level(suite: str, metric: str) -> float | None:
    """The score a model with no signal gets on ``metric`` in ``suite`` (its section's, else the metric's);
    None when none is known: then no model is marked best against it."""
    sec = section(suite)
    if sec is not None and metric in sec.chance:
        return sec.chance[metric]
    return CHANCE.get(metric)


def suite_order(suites: set[str]) -> list[str]:
    """Suites with a section in report order, then any other suite alphabetically."""
    known = [s.suite for s in sections() if s.suite in suites]
    return known + sorted(suites - set(known))


def task_order(suite: str, tasks: set[str]) -> list[str]:
    """A suite's tasks in its reading order, then any others alphabetically."""
    sec = section(suite)
    preferred = list(sec.task_order) if sec else []
    first = [t for t in preferred if t in tasks]
    return first + sorted(tasks - set(first))
