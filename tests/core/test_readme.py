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
