"""The import graph, read from the source with ``ast`` (every import, also those inside functions):
no cycles, layers that only import downwards, and tasks that see models only through the protocol."""
from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import compeval

ROOT = Path(compeval.__file__).parent

DOC = ROOT.parents[1] / "docs" / "architecture.md"


def documented_layers() -> list[set[str]]:
    """compeval's packages and top-level modules from the bottom up, as docs/architecture.md writes them
    down (the numbered list between ``<!-- layers -->`` markers): the layering this test checks is the one
    the document states."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("<!-- layers -->"):text.index("<!-- /layers -->")]
    layers = []
    for line in re.findall(r"^\s*\d+\. (.+)$", block, re.M):
        layers.append({"compeval" if n.strip() == "compeval" else f"compeval.{n.strip()}" for n in line.split(",")})
    return layers


LAYERS = documented_layers()
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}
# What a task may import from compeval.models: the protocol, the registry (baselines by spec) and the kit.
TASK_MAY_IMPORT = {"compeval.models", "compeval.models.protocol", "compeval.models.registry",
                   "compeval.models.conformance"}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ["compeval", *path.relative_to(ROOT).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _targets(module: str, is_package: bool, node: ast.AST, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix for a in node.names]
    out = []
    for name in names:
        if name.split(".")[0] != "compeval":
            continue
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        out.append(name)
    return out


class Graph:
    def __init__(self, nodes):
        self.nodes = set(nodes)
        self.edges: set[tuple[str, str]] = set()

    def cycle(self) -> list[str] | None:
        deps: dict[str, set[str]] = {n: set() for n in self.nodes}
        for a, b in self.edges:
            deps.setdefault(a, set()).add(b)
        try:
            TopologicalSorter(deps).prepare()
        except CycleError as exc:
            return exc.args[1]
        return None


@pytest.fixture(scope="module")
def graph() -> Graph:
    modules = _modules()
    known = set(modules)
    g = Graph(known)
    for module, (path, is_package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, is_package, node, known):
                    # A module reaching its own package (``import compeval.models as pkg`` for discovery,
                    # an ``__init__`` re-exporting its modules) is how packages work, not a dependency.
                    if target != module and not module.startswith(target + "."):
                        g.edges.add((module, target))
    return g


def _package(module: str) -> str:
    """The layer a module belongs to: its top-level package, except a suite's report section
    (``compeval.tasks.<suite>.report``), which lives in its suite's folder but plugs into the report."""
    parts = module.split(".")
    if len(parts) == 4 and parts[1] == "tasks" and parts[3] == "report":
        return "compeval.report"
    return ".".join(parts[:2])


def test_the_graph_was_read(graph):
    """A parser that found nothing would pass every check below."""
    assert len(graph.nodes) > 100 and len(graph.edges) > 200
    assert ("compeval.runner.session", "compeval.models.protocol") in graph.edges
    assert ("compeval.cli", "compeval.runner") in graph.edges  # an import inside a function counts too


def test_the_cycle_check_finds_a_cycle():
    g = Graph(["a", "b", "c"])
    g.edges |= {("a", "b"), ("b", "c"), ("c", "a")}
    assert set(g.cycle()) == {"a", "b", "c"}


def test_no_import_cycles(graph):
    assert graph.cycle() is None, f"import cycle between modules: {' -> '.join(graph.cycle())}"
    packages = Graph({_package(m) for m in graph.nodes})
    packages.edges = {(_package(a), _package(b)) for a, b in graph.edges if _package(a) != _package(b)}
    assert packages.cycle() is None, f"import cycle between packages: {' -> '.join(packages.cycle())}"


def test_every_package_has_a_layer(graph):
    """A new package must be placed in LAYERS (deliberately, not by default)."""
    missing = sorted({_package(m) for m in graph.nodes} - set(LAYER))
    assert missing == [], f"packages without a layer in this test: {missing}"


def test_no_upward_imports(graph):
    upward = sorted(f"{a} -> {b}" for a, b in graph.edges if LAYER[_package(a)] < LAYER[_package(b)])
    assert upward == [], "imports of a higher layer:\n" + "\n".join(upward)
    # The rule as the issue states it, independent of the layer table above.
    low, high = {"compeval.data", "compeval.metrics", "compeval.results", "compeval.models"}, \
        {"compeval.runner", "compeval.tasks", "compeval.report", "compeval.cli"}
    assert not [(a, b) for a, b in graph.edges if _package(a) in low and _package(b) in high]


def test_tasks_import_no_concrete_model(graph):
    concrete = sorted(f"{a} -> {b}" for a, b in graph.edges
                      if a.startswith("compeval.tasks") and _package(b) == "compeval.models"
                      and b not in TASK_MAY_IMPORT)
    assert concrete == [], "tasks importing concrete models:\n" + "\n".join(concrete)


def test_models_know_nothing_of_tasks_or_the_runner(graph):
    assert not [(a, b) for a, b in graph.edges if _package(a) in {"compeval.models", "compeval.linguistics"}
                and _package(b) in {"compeval.tasks", "compeval.runner", "compeval.cache"}]


def test_model_machinery_imports_no_family(graph):
    """``models/families/`` build on the machinery beside them; the machinery reaches them by discovery only."""
    families = "compeval.models.families"
    assert {m for m in graph.nodes if m.startswith(families + ".")}, "no family modules found"
    assert not sorted(f"{a} -> {b}" for a, b in graph.edges if _package(a) == "compeval.models"
                      and not a.startswith(families) and b.startswith(families))


def test_the_one_exception_to_the_layers_is_the_one_documented(graph):
    """The document states the exception the layer check applies: a suite's report.py is in the report layer."""
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index("<!-- /layers -->"):].split("\n\n")[1]
    assert "with one exception" in after and "`compeval/tasks/<suite>/report.py`" in after and "report layer" in after
    moved = {m for m in graph.nodes if _package(m) != ".".join(m.split(".")[:2])}
    reports = {".".join(("compeval", *p.relative_to(ROOT).with_suffix("").parts))
               for p in ROOT.glob("tasks/*/report.py")}
    assert moved == reports and len(reports) >= 6


def test_the_cli_docstring_names_every_command():
    import typer.main

    import compeval.cli as cli

    listed = set(re.search(r"\): ([a-z |\n]+)", cli.__doc__).group(1).replace("\n", " ").replace("|", " ").split())
    assert listed == set(typer.main.get_command(cli.app).commands)
