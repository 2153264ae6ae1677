"""Cosine between compeval's vectors for each seed system (its bare repo id, as a user writes it) and
the model card's own reference path, on tiny random-weight replicas in an offline Hub cache
(``tests/models/replicas.py``). Run it with one checkout's source first on the path to measure that
checkout, e.g. before and after a change:

    PYTHONPATH=/path/to/checkout/src python benchmarks/recipe_cosines.py

Each system runs twice: as its bare repo id (the recipe compeval picks), and with the card's recipe
spelled out as hf:/sbert: options (what a user who knows the card would write; these specs mean the
same to every checkout). Prints one row per system and spec: the minimum cosine over a mixed-length
batch and the largest difference between the unit vectors, or the one-line error.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "models"))


STS = '"Instruct: Retrieve semantically similar text.\\nQuery: "'
SPELLED = {  # the card's recipe as explicit options
    "facebook/dpr-question_encoder-single-nq-base": "hf:{},pool=cls",
    "facebook/dpr-ctx_encoder-single-nq-base": "hf:{},pool=cls",
    "allenai/specter": "hf:{},pool=cls",
    "cl-nagoya/defsent-bert-base-uncased-cls": "hf:{},pool=cls",
    "nghuyong/ernie-2.0-base-en": "hf:{},pool=mean",
    "NovaSearch/stella_en_1.5B_v5": "sbert:{},prompt_name=s2s_query",
    "intfloat/e5-mistral-7b-instruct": "hf:{},pool=last,prompt=" + STS,
    "Alibaba-NLP/gte-Qwen2-1.5B-instruct": "sbert:{},prompt=" + STS,
    "openai-community/openai-gpt": "hf:{},pool=mean",
    "openai-community/gpt2": "hf:{},pool=mean",
}


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
        print(f"{'system':48s} {'spec':8s} {'min cos':>9s} {'max diff':>9s}  family / recipe or error")
        for repo, (_, reference, _) in SEEDS.items():
            ref = reference(folders[repo], TEXTS)
            for label, spec in (("bare", repo), ("spelled", SPELLED.get(repo, "").format(repo))):
                if not spec:
                    continue
                try:
                    model = load_model(spec)
                    cos, diff = same_vectors(model.encode(TEXTS), ref)
                    recipe = model.config.settings.get("recipe", "-")
                    print(f"{repo:48s} {label:8s} {cos:9.4f} {diff:9.2e}  {model.config.family} recipe={recipe}")
                except Exception as exc:  # a row per system, whatever goes wrong
                    line = str(exc).splitlines()[0] if str(exc) else ""
                    print(f"{repo:48s} {label:8s} {'error':>9s} {'':>9s}  {type(exc).__name__}: {line[:150]}")


if __name__ == "__main__":
    main()
