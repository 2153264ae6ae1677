"""Cosine between compeval's vectors for each seed system (its bare repo id, as a user writes it) and
the model card's own reference path, on tiny random-weight replicas in an offline Hub cache
(``tests/models/replicas.py``). Run it with one checkout's source first on the path to measure that
checkout, e.g. before and after a change:

    PYTHONPATH=/path/to/checkout/src python benchmarks/recipe_cosines.py

Prints one row per system: the minimum cosine over a mixed-length batch and the largest difference between
the unit vectors, or the one-line error.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "models"))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "hub"
        os.environ["HF_HUB_CACHE"] = str(cache)
        os.environ["HF_HUB_OFFLINE"] = "1"
        import compeval
        from compeval.models.registry import load_model
        from replicas import SEEDS, TEXTS, build_all, same_vectors

        folders = build_all(Path(tmp) / "build", cache)
        print(f"compeval from {Path(compeval.__file__).parent}")
        print(f"{'system':48s} {'min cos':>9s} {'max diff':>9s}  family / recipe or error")
        for repo, (_, reference, _) in SEEDS.items():
            try:
                model = load_model(repo)
                got = model.encode(TEXTS)
                ref = reference(folders[repo], TEXTS)
                cos, diff = same_vectors(got, ref)
                recipe = model.config.settings.get("recipe", "-")
                print(f"{repo:48s} {cos:9.4f} {diff:9.2e}  {model.config.family} recipe={recipe}")
            except Exception as exc:  # a row per system, whatever goes wrong
                line = str(exc).splitlines()[0] if str(exc) else ""
                print(f"{repo:48s} {'error':>9s} {'':>9s}  {type(exc).__name__}: {line[:150]}")


if __name__ == "__main__":
    main()
