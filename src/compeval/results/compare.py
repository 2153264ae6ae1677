"""Are two results folders the same run (docs/architecture.md, "Reproducibility")? Every file and predictions
row present in both, non-floats equal, floats within ``FLOAT_TOLERANCE``: the encoder's thread count changes
float32 reduction order (executors and processors agree only to 1e-8). Timings, dates, cache counters, the
package environment and the hashes that cover them are not compared."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from .. import textfile

#: Absolute and relative tolerance for floats. float32 vectors carry about 7 significant digits; thread
#: counts move cosines by ~1e-8 and correlations over thousands of pairs by less.
FLOAT_TOLERANCE = 1e-6
# checksum and predictions_sha256 hash the timings and the predictions' last digits (compared below, within
# the tolerance), so they are as volatile as what they cover.
VOLATILE = {"started_at", "environment", "cache", "token_cache", "checksum", "predictions_sha256"}
LOG_FOLDER = "logs"  # tracebacks of failed jobs (compeval.runner.session), not results


def stable(x: Any) -> Any:
    """``x`` without volatile keys (and any key ending in ``seconds``), recursively."""
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE and not k.endswith("seconds")}
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def same(a: Any, b: Any, tol: float = FLOAT_TOLERANCE) -> bool:
    """``a == b``, except that floats (one of the two a float, neither a bool) agree within ``tol``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if (isinstance(a, float) or isinstance(b, float)) and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol) or (math.isnan(a) and math.isnan(b))
    return a == b


def result_files(root: Path | str) -> list[Path]:
    root = Path(root)
    return sorted(p.relative_to(root) for p in root.glob("*/*")
                  if p.is_file() and not p.name.startswith(".") and p.parent.name != LOG_FOLDER)


def _rows(path: Path) -> list[Any]:
    return [json.loads(line) for line in textfile.read_text(path).splitlines() if line.strip()]


def differences(a: Path | str, b: Path | str, tol: float = FLOAT_TOLERANCE) -> list[str]:
    """What differs between two results folders (see the module docstring); an empty list means the same
    results."""
    a, b = Path(a), Path(b)
    fa, fb = result_files(a), result_files(b)
    if fa != fb:
        return [f"files differ: only in {a}: {sorted(set(fa) - set(fb))}; only in {b}: {sorted(set(fb) - set(fa))}"]
    out = []
    for rel in fa:
        if rel.suffix == ".json":
            ja, jb = json.loads(textfile.read_text(a / rel)), json.loads(textfile.read_text(b / rel))
            if not same(ja.get("main_score"), jb.get("main_score"), tol) or \
                    not same(ja.get("scores"), jb.get("scores"), tol):
                out.append(f"{rel}: main_score or scores differ")
            elif not same(stable(ja), stable(jb), tol):
                out.append(f"{rel}: differs outside timings/cache/environment")
        elif rel.name.endswith(".jsonl"):
            if not same(_rows(a / rel), _rows(b / rel), tol):
                out.append(f"{rel}: predictions differ")
        elif (a / rel).read_bytes() != (b / rel).read_bytes():
            out.append(f"{rel}: files differ")
    return out
