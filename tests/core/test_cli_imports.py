"""The listings answer at once: ``compeval tasks``, ``tasks NAME``, ``models``, ``--help`` and ``--version``
import no torch, transformers, spaCy or matplotlib, and leave pandas, SciPy and scikit-learn unloaded
(``compeval.lazy``: loaded on first use by scoring code). Each command runs in a fresh interpreter, as a
user's would, and that interpreter reports what it loaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__import__("compeval").__file__).resolve().parents[1])

PROBE = """
import json, sys
from compeval.cli import main
sys.argv = ["compeval", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    status = exc.code
def loaded(name):  # a lazy_module that no code touched yet is in sys.modules but not run
    return name in sys.modules and type(sys.modules[name]).__name__ != "_LazyModule"
names = ["torch", "transformers", "sentence_transformers", "spacy", "matplotlib", "pandas", "scipy.stats",
         "sklearn", "compeval.runner", "compeval.report"]
sys.stderr.write("\\nLOADED " + json.dumps({"status": status, "loaded": [n for n in names if loaded(n)]}) + "\\n")
"""


def _loaded(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]), "COLUMNS": "80"}
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=300)
    line = next(x for x in r.stderr.splitlines() if x.startswith("LOADED "))
    return json.loads(line[len("LOADED "):])


@pytest.mark.parametrize("args", [("tasks",), ("tasks", "sts3k"), ("tasks", "pairs"), ("models",),
                                  ("models", "glove-6b-50d"), ("--help",), ("--version",)])
def test_listing_loads_no_heavy_module(args):
    got = _loaded(*args)
    assert got["status"] in (0, None), got
    assert got["loaded"] == [], f"`compeval {' '.join(args)}` loaded {got['loaded']}"


def test_the_probe_sees_a_heavy_import(tmp_path):
    """The check can fail: a command that reads results (here, an empty folder's) loads pandas."""
    got = _loaded("results", str(tmp_path))
    assert "pandas" in got["loaded"]
