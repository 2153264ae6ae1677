"""The README's "is my model compositional?" example runs as written and prints a ranking."""
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- example: is-my-model-compositional")
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)


def test_readme_example_runs_as_written(data_dir, tmp_path):
    code = readme_example()
    assert 8 <= len([line for line in code.splitlines() if line.strip()]) <= 12  # short enough to copy
    script = tmp_path / "example.py"
    script.write_text(code)
    env = {**os.environ, "COMPEVAL_DATA_DIR": str(data_dir),
           "COMPEVAL_CACHE_DIR": os.environ.get("COMPEVAL_CACHE_DIR", str(tmp_path / "cache"))}
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "MyModel" in lines[0] and "glove-6b-50d" in lines[0] and "best" in lines[0]
    rows = {line.split("  ")[0]: line for line in lines[2:]}
    assert set(rows) == {"STS3k adv ρ ↑", "STS3k non−adv gap ↓", "modifiers test 3 (NS-Pr) ↑"}, r.stdout
    assert all(len(re.findall(r"-?\d\.\d{3} \[-?\d\.\d{2}, -?\d\.\d{2}\]", line)) == 2 for line in rows.values())
    assert sorted(p.name for p in (tmp_path / "my-results").glob("*/*.json")) == \
        ["modifiers-test3.json", "modifiers-test3.json", "sts3k.json", "sts3k.json"]


# --- every command the README shows: its flags exist, its task names are tasks; the safe ones run -------------

import shlex  # noqa: E402

import typer.main  # noqa: E402

from compeval.cli import app  # noqa: E402

#: README commands that only read and print (no run, no download): run as written, placeholders aside
SAFE = ("models", "tasks", "cite", "--version", "--help")


def readme_commands() -> list[str]:
    """Every ``compeval …`` command of the README: the lines of its code blocks (continuations joined) and
    its inline code spans, with comments dropped."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        current = None
        for line in block.splitlines():
            code = line.split("  #")[0].rstrip()
            if re.match(r"\s*(HF_HUB_OFFLINE=1 )?compeval ", code):
                if current:
                    commands.append(current)
                current = code.strip().rstrip("\\").strip()
            elif current is not None and line.startswith(" ") and code.strip():
                current += " " + code.strip().rstrip("\\").strip()
            else:
                if current:
                    commands.append(current)
                current = None
        if current:
            commands.append(current)
    commands += [span for span in re.findall(r"`((?:HF_HUB_OFFLINE=1 )?compeval [^`]+)`", text)]
    return [c.removeprefix("HF_HUB_OFFLINE=1 ") for c in commands]


def _options(command) -> set[str]:
    return {o for p in command.params for o in (*p.opts, *p.secondary_opts)}


def test_readme_commands_use_real_subcommands_and_flags():
    group = typer.main.get_command(app)
    root = _options(group)
    checked = 0
    for command in readme_commands():
        words = command.split()
        sub = words[1]
        if sub.startswith("-"):
            assert sub in root, command
            continue
        assert sub in group.commands, command
        known = _options(group.commands[sub]) | root | {"--help"}
        for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", " ".join(words[2:])):
            assert flag in known, f"{command}: {flag} is not an option of `compeval {sub}`"
            checked += 1
    assert checked > 40  # the command list, the run line and the inline commands were all read


def test_readme_task_names_are_tasks():
    from compeval.tasks.registry import TASKS, suites
    from compeval.tasks.registry import SPEC_KINDS as KINDS

    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"(?:--task|-t) ([\w.:/-]+)", text))
    named |= set(re.findall(r"--task=?([\w.:/-]+)", text))
    assert {"sts3k", "stsb", "sick", "sts"} <= {n.split(",")[0] for n in named}
    for name in named:
        head = name.split(",")[0]
        if head in ("SUITE", "T", "…"):
            continue
        kind = head.split(":")[0]
        assert head in TASKS or head in suites() or kind in KINDS, name
    table = re.findall(r"^\| (\w+) \| `([\w-]+)` \|", text, re.M)  # the Suites and tasks table
    assert {t for _, t in table} == set(TASKS)
    for suite, task in table:
        assert TASKS[task].metadata.suite == suite, task


def _runnable(command: str) -> list[str] | None:
    words = command.split()
    if words[1] not in SAFE:
        return None
    plain = re.sub(r"\[[^\]]*\]", "", command)  # optional parts left out
    if re.search(r"[A-Z]{3,}|…|\|", plain.replace("MiniLM", "")):  # a placeholder (DIR, QUERY) or a choice
        return None
    args = shlex.split(plain)[1:]
    return None if any("/" in a for a in args) else args  # a results folder this test has not made


def test_readme_safe_commands_run_as_written(tmp_path):
    env = {**os.environ, "COLUMNS": "80", "COMPEVAL_CACHE_DIR": str(tmp_path / "cache")}
    ran = []
    for command in readme_commands():
        args = _runnable(command)
        if args is None or args in ran:
            continue
        r = subprocess.run([sys.executable, "-m", "compeval", *args], capture_output=True, text=True, env=env,
                           timeout=300, cwd=tmp_path)
        assert r.returncode == 0, (command, r.stderr)
        assert r.stdout.strip() and "Traceback" not in r.stderr, command
        ran.append(args)
    assert ["models"] in ran and ["--version"] in ran and ["tasks"] in ran and ["tasks", "sts3k"] in ran
    assert not (tmp_path / "cache").exists()  # a listing writes nothing
