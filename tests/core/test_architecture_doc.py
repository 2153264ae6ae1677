"""docs/architecture.md names only files that exist: the package tree (each entry under the folder it is
indented below) and every path in the prose, as the doc writes them (relative to the repository, to ``src/``
or to ``src/compeval/``), so that a moved or removed module cannot stay named there."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "compeval"
#: A file or folder name as the doc writes one: ``report/chance.py``, ``tasks/<suite>/report.py``, ``cli/``.
PATH = re.compile(r"(?<![\w.<>/-])((?:[\w<>-]+/)*[\w<>-]+\.py|(?:[\w<>-]+/)+)(?![\w/-])")


def _exists(base: Path, name: str) -> bool:
    """``<suite>``-style placeholders stand for any one folder."""
    pattern = re.sub(r"<[^>]+>", "*", (base / name.rstrip("/")).relative_to(ROOT).as_posix())
    return any(p.is_dir() if name.endswith("/") else p.is_file() for p in ROOT.glob(pattern))


def tree_entries() -> list[tuple[int, str, Path]]:
    """(line number, name, folder it is listed under) of every entry of the package tree."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("src/compeval/")
    out, folders = [], [(-1, PACKAGE)]  # (indent, folder) of the enclosing entries
    for n, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("```"):
            return out
        indent = len(line) - len(line.lstrip())
        head = re.split(r"\s{2,}", line.strip())[0]
        if indent >= 20 or not head:  # a description's continuation
            continue
        while folders[-1][0] >= indent:
            folders.pop()
        names = PATH.findall(head)
        out += [(n, name, folders[-1][1]) for name in names]
        if len(names) == 1 and names[0].endswith("/") and head.startswith(names[0]):
            folders.append((indent, folders[-1][1] / names[0].rstrip("/")))
    raise AssertionError("the package tree's block never closes")


def prose_paths() -> list[tuple[int, str]]:
    """(line number, path) of every path with a folder in it outside the package tree."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("src/compeval/")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    return [(n, name) for n, line in enumerate(lines, 1) if not start <= n - 1 <= end
            for name in PATH.findall(line) if "/" in name.rstrip("/") and not name.startswith("docs/")]


def test_the_tree_is_read():
    entries = tree_entries()
    assert len(entries) > 60
    assert any(name == "chance.py" or name.endswith("/chance.py") for _, name, _ in entries)


def test_every_file_in_the_package_tree_exists():
    missing = [f"line {n}: {name} (under {folder.relative_to(ROOT)})" for n, name, folder in tree_entries()
               if not _exists(folder, name)]
    assert not missing, missing


def test_every_path_in_the_prose_exists():
    bases = (ROOT, ROOT / "src", PACKAGE)
    missing = [f"line {n}: {name}" for n, name in prose_paths() if not any(_exists(b, name) for b in bases)]
    assert len(prose_paths()) > 15
    assert not missing, missing


def test_no_file_is_listed_twice():
    seen: dict[Path, int] = {}
    twice = []
    for n, name, folder in tree_entries():
        if name.endswith("/") or "<" in name:
            continue
        path = (folder / name).resolve()
        if path in seen:
            twice.append(f"{name}: lines {seen[path]} and {n}")
        seen.setdefault(path, n)
    assert not twice, twice
