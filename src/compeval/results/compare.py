"""Are two results folders the same run? Used to check that executors, machines or re-runs reproduce.

Everything is compared except what legitimately varies between identical runs: timings, dates, cache
counters and the package environment.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VOLATILE = {"started_at", "environment", "cache", "token_cache", "checksum"}  # checksum covers the timings
LOG_FOLDER = "logs"  # tracebacks of failed jobs (compeval.runner.session), not results


def stable(x: Any) -> Any:
    """``x`` without volatile keys (and any key ending in ``seconds``), recursively."""
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE and not k.endswith("seconds")}
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def result_files(root: Path | str) -> list[Path]:
    root = Path(root)
    return sorted(p.relative_to(root) for p in root.glob("*/*")
                  if p.is_file() and not p.name.startswith(".") and p.parent.name != LOG_FOLDER)


def differences(a: Path | str, b: Path | str) -> list[str]:
    """What differs between two results folders; an empty list means the same results."""
    a, b = Path(a), Path(b)
    fa, fb = result_files(a), result_files(b)
    if fa != fb:
        return [f"files differ: only in {a}: {sorted(set(fa) - set(fb))}; only in {b}: {sorted(set(fb) - set(fa))}"]
    out = []
    for rel in fa:
        if rel.suffix == ".json":
            ja, jb = json.loads((a / rel).read_text()), json.loads((b / rel).read_text())
            if ja.get("main_score") != jb.get("main_score") or ja.get("scores") != jb.get("scores"):
                out.append(f"{rel}: main_score or scores differ")
            elif stable(ja) != stable(jb):
                out.append(f"{rel}: differs outside timings/cache/environment")
        elif (a / rel).read_bytes() != (b / rel).read_bytes():
            out.append(f"{rel}: predictions differ")
    return out
