"""``register_section(intro=, fill=)``: the section's opening (no results, no section; its id, title and
intro) is made once by ``sections.Filled``, and a suite's ``fill`` only adds to it."""
from __future__ import annotations

import pytest

from compeval.errors import RegistryError
from compeval.report import sections
from compeval.report.sections import Filled, register_section
from compeval.report.sections.base import BuildContext, Section


class Index:
    def __init__(self, entries: dict[str, list[str]]):
        self.entries = entries

    def suite(self, suite: str) -> list[str]:
        return self.entries.get(suite, [])


def fill(ctx, section: Section, entries) -> None:
    section.notes.append(f"{len(entries)} entries: {', '.join(entries)}")


@pytest.fixture()
def restored():
    sections.SECTIONS.load()
    state = sections.SECTIONS.snapshot()
    yield
    sections.SECTIONS.restore(state)


def test_a_filled_section_is_made_only_for_a_suite_with_results(restored):
    registered = register_section("toyfill", title="Toy", order=99, intro="What it shows.", fill=fill)
    assert isinstance(registered.build, Filled)
    assert registered.build(BuildContext(index=Index({}), sink=None)) is None
    built = registered.build(BuildContext(index=Index({"toyfill": ["a", "b"]}), sink=None))
    assert (built.id, built.suite, built.title, built.intro) == ("suite-toyfill", "toyfill", "Toy", "What it shows.")
    assert built.notes == ["2 entries: a, b"]


def test_the_same_section_again_is_no_clash_and_another_is(restored):
    first = register_section("toyfill", title="Toy", order=99, intro="What it shows.", fill=fill)
    assert register_section("toyfill", title="Toy", order=99, intro="What it shows.", fill=fill) is first
    with pytest.raises(RegistryError, match="report section of suite 'toyfill' is registered twice"):
        register_section("toyfill", title="Toy", order=99, intro="Something else.", fill=fill)


def test_build_or_fill_not_both():
    with pytest.raises(TypeError, match="give build= or fill=, not both"):
        register_section("toyfill", title="Toy", order=99, build=lambda ctx: None, fill=fill)
    with pytest.raises(TypeError, match="give build= or fill=, not both"):
        register_section("toyfill", title="Toy", order=99)


def test_no_built_in_section_makes_its_own_opening():
    suites = {"sts", "structure", "modifiers", "probing", "lexcomp", "invariance", "user"}
    built_in = {s.suite: s.build for s in sections.sections() if s.suite in suites}
    assert set(built_in) == suites
    assert all(isinstance(build, Filled) for build in built_in.values())
