"""``compeval`` as a user runs it: a subprocess of this checkout's CLI, importable from any working folder
(the tests that need another folder, environment variables or a fresh process share this one helper)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__import__("compeval").__file__).resolve().parents[1])  # this checkout, from any folder


def cli(*args, cwd=None, **env):
    path = os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "compeval.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path, **env}, cwd=cwd, timeout=180)
