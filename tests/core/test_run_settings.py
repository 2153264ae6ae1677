"""Run settings are declared once, on ``RunContext``: each one reaches ``compeval run --help`` (flag and help),
``run()``'s keywords (and the context the run uses) and the README's table, from that declaration alone."""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from compeval.context import RunContext
from compeval.errors import CompevalError
from compeval.runner import run, runner

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = RunContext.settings()


def readme_table() -> str:
    """The README's run-settings table as the declaration writes it."""
    rows = ["| keyword | `compeval run` | default | what |", "|---|---|---|---|"]
    for name, f in SETTINGS.items():
        m = f.metadata
        flag = f"`{', '.join(filter(None, [m['short'], m['flag']]))}`" if m["flag"] else "(Python only)"
        default = "" if f.default is None else f"`{f.default}`"
        what = m["help"].replace("|", r"\|")
        rows.append(f"| `{name}` | {flag} | {default} | {what} |")
    return "\n".join(rows)


def other_value(name: str, tmp_path: Path):
    """A valid value other than the default, by the declared type."""
    kind = typing.get_type_hints(RunContext)[name]
    default = SETTINGS[name].default
    if name == "device":
        return "cpu"
    if name == "threads":
        return "1"
    if Path in typing.get_args(kind):
        return tmp_path / name
    if kind in (bool, bool | None):
        return not default if default is not None else False
    return {int: 5, int | None: 5, float | None: 30.0}[kind]


def test_every_setting_is_an_option_of_compeval_run_with_its_declared_help():
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "--help"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "200"})
    text = " ".join(r.stdout.split())
    for name, f in SETTINGS.items():
        m = f.metadata
        if m["flag"] is None:  # Python objects' and progress' settings: no command-line form
            assert name in ("progress", "reuse_objects"), name
            continue
        flags = m["flag"].replace("/", " / ")
        assert re.search(rf"(^| ){re.escape(flags)} ", text), name
        assert re.sub(r"\s", "", m["help"]) in re.sub(r"\s", "", text), name  # wrapped at any width
        if m["short"]:
            assert f"{m['short']}, {m['flag']}" in text


def test_every_setting_is_a_keyword_of_run_and_reaches_its_context(tmp_path, monkeypatch):
    seen = []

    def stop(models, tasks, ctx):
        seen.append(ctx)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "plan", stop)
    for name in SETTINGS:
        value = other_value(name, tmp_path)
        assert value != SETTINGS[name].default
        with pytest.raises(KeyboardInterrupt):
            run([], [], **{"output_dir": tmp_path / "out", "cache_dir": None, name: value})
        assert getattr(seen[-1], name) == (value.absolute() if isinstance(value, Path) else value), name
    given = RunContext.for_run(tmp_path / "out", cache_dir=None, seed=3)  # the same object, given whole
    with pytest.raises(KeyboardInterrupt):
        run([], [], given)
    assert dataclasses.replace(seen[-1], resolved_device=None, progress=None) == given
    with pytest.raises(CompevalError, match=r"^run settings given twice: a RunContext and seed=…; give one$"):
        run([], [], given, seed=4)
    with pytest.raises(CompevalError, match=r"^unknown run setting 'sed'; settings: output_dir, data_dir, "):
        run([], [], tmp_path / "out", sed=4)


def test_the_readme_lists_every_setting_as_declared():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- run-settings [^\n]*-->\n(.*?)\n\n", text, re.S)
    assert block is not None and block.group(1) == readme_table(), readme_table()


def test_folder_errors_name_the_option_on_the_command_line_and_the_keyword_in_python(tmp_path):
    a_file = tmp_path / "bnc.xml"
    a_file.write_text("")
    with pytest.raises(CompevalError, match=rf"^bnc_dir {re.escape(str(a_file))} is a file; give a folder$"):
        run([], [], tmp_path / "out", cache_dir=None, bnc_dir=a_file)
    r = subprocess.run([sys.executable, "-m", "compeval", "run", "-m", "hashbag", "-t", "gs2011", "-o",
                        str(tmp_path / "out"), "--no-cache", "--bnc-dir", str(a_file)], capture_output=True, text=True)
    assert r.returncode == 2 and f"error: --bnc-dir {a_file} is a file; give a folder" in " ".join(r.stderr.split())
    with pytest.raises(CompevalError, match=r"^--seed -1: must be an integer from 0 to 4294967295$"):
        run([], [], tmp_path / "out", seed=-1)  # a value's own check names the option everywhere, as before
