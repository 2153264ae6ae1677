"""Every package compeval imports is declared in pyproject.toml: in the core dependencies, or in the extra of
the part that imports it (a model family's ``register_model(extra=…)``, or ``OWNERS`` below for the helper
modules of an extra). Imports are read with ``ast``; a top-level module maps to its distribution through
``importlib.metadata.packages_distributions`` (the test environment has ``compeval[all,test]``)."""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "compeval"

#: Helper modules (paths under src/compeval, a folder ending in "/") that belong to an extra without
#: registering a family themselves; family modules get theirs from the model registry.
OWNERS = {
    "models/hub.py": ("transformers",),  # huggingface_hub, the packaged MiniLM
    "models/transformers_common.py": ("transformers",),
    "models/word_states.py": ("transformers",),
    "models/recipes.py": ("transformers", "mteb"),  # mteb's ModelMeta fills recipes where installed
    "models/model_lists.py": ("mteb",),  # --models mteb:QUERY
    "models/families/graphs/": ("graphs",),
    "models/families/distributional/": ("spacy", "lda"),
    "linguistics/labeler.py": ("spacy",),
    "runner/cost.py": ("transformers",),  # --plan reads Hub configs
    "runner/ray_executor.py": ("ray",),
    "report/figures.py": ("plots",),
    "report/leaderboard.py": ("mteb",),  # MTEB STS scores beside the leaderboard
    "tasks/user/hub.py": ("datasets",),
}


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0]).lower()


def declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = {k: {_name(r) for r in v if not r.startswith("compeval[")}
              for k, v in project["optional-dependencies"].items()}
    return core, extras


def imports(path: Path) -> set[str]:
    """The top-level names of the absolute imports in ``path`` (module level and inside functions alike)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return {n for n in out if n not in sys.stdlib_module_names and n not in ("compeval", "__future__")}


def family_extras() -> dict[str, tuple[str, ...]]:
    """Family module path → the extras its ``register_model`` declares."""
    from compeval.models.registry import FAMILIES, discover

    discover()
    out: dict[str, tuple[str, ...]] = {}
    for versions in FAMILIES.values():
        for family in versions.values():
            module = sys.modules[family.factory.__module__]
            rel = Path(module.__file__).resolve().relative_to(SRC).as_posix()
            extra = (family.extra,) if isinstance(family.extra, str) else tuple(family.extra or ())
            out[rel] = tuple(dict.fromkeys(out.get(rel, ()) + extra))
    return out


def owners(rel: str, families: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    found = families.get(rel, ())
    for prefix, extras in OWNERS.items():
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            found += extras
    return found


def test_every_imported_package_is_declared_where_its_importer_belongs():
    core, extras = declared()
    families = family_extras()
    dists = packages_distributions()
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        allowed = set(core).union(*(extras[e] for e in owners(rel, families)))
        for module in sorted(imports(path)):
            names = {_name(d) for d in dists.get(module, ())}
            if not names:
                problems.append(f"{rel}: imports {module}, which no installed distribution provides")
            elif not names & allowed:
                where = ", ".join(owners(rel, families)) or "core only"
                problems.append(f"{rel}: imports {module} ({', '.join(sorted(names))}), not declared in "
                                f"core or its extra ({where})")
    assert not problems, "\n".join(problems)


def test_owner_paths_and_extras_exist_and_all_covers_every_extra():
    _, extras = declared()
    for prefix, names in OWNERS.items():
        assert (SRC / prefix).exists(), prefix
        assert set(names) <= set(extras), (prefix, names)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    everything = {x.strip() for r in project["optional-dependencies"]["all"]
                  for x in re.fullmatch(r"compeval\[(.*)\]", r).group(1).split(",")}
    assert everything == set(extras) - {"all", "test"}  # compeval[all] is every extra but the test tools


@pytest.mark.parametrize("requirement, name", [("torch==2.13.0", "torch"), ("Jinja2>=3.1", "jinja2"),
                                               ("pot==0.9.7.post1", "pot"), ("en_core_web_sm>=3; x", "en-core-web-sm")])
def test_requirement_names(requirement, name):
    assert _name(requirement) == name
