"""Train the count-based distributional models (M&L, E&P, TFP, D&L) from plain-text files.

    python benchmarks/train_distributional.py build-corpus /tmp/corpus.txt      # from $COMPEVAL_DATA_DIR
    python benchmarks/train_distributional.py train ml /tmp/corpus.txt --out /tmp/dist/ml
    python benchmarks/train_distributional.py train dl /tmp/corpus.txt --out /tmp/dist/dl --n-topics 100
    python benchmarks/train_distributional.py train dl /tmp/corpus.txt --out /tmp/dist/dlv --lda-method variational

``build-corpus`` writes the unique sentences of SICK, STS-B, STS3k, lexcomp and Ettinger et al. (2018)
found under the shared data folder into one file outside the repository (never commit it). Each
``train`` call runs in its own process, so its peak memory is the model's own.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def corpus_sentences(data_dir: Path):
    """Unique sentences from the shared data sets (read in place; nothing is copied into the repo)."""
    seen: set[str] = set()

    def emit(s: str):
        s = " ".join(s.split())
        if s and s not in seen:
            seen.add(s)
            return s
        return None

    sick = data_dir / "sick" / "SICK.txt"
    if sick.is_file():
        with open(sick, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                for key in ("sentence_A", "sentence_B"):
                    if (s := emit(row[key])):
                        yield s
    for split in ("train", "dev", "test"):
        path = data_dir / "stsb" / f"sts-{split}.csv"
        if path.is_file():
            with open(path, encoding="utf-8") as f:
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    for s in cols[5:7]:
                        if (s := emit(s)):
                            yield s
    sts3k = data_dir / "sts3k" / "STS3k_all.txt"
    if sts3k.is_file():
        with open(sts3k, encoding="utf-8") as f:
            for line in f:
                for s in line.split(";")[:2]:
                    if (s := emit(s)):
                        yield s
    lexcomp = data_dir / "lexcomp"
    for task in ("nc_literality", "nc_relations", "an_attribute_selection", "mwe_type"):
        for path in sorted((lexcomp / task).glob("*.jsonl")):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    obj = json.loads(line)
                    text = obj.get("sentence") or " ".join(obj.get("sentence_words", []))
                    if (s := emit(text)):
                        yield s
    for path in sorted((data_dir / "ettinger2018_compeval").glob("*/*.txt")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) > 2 and (s := emit(cols[2])):
                    yield s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build-corpus", help="write the shared data sets' sentences to one text file")
    b.add_argument("out")
    b.add_argument("--data-dir", default=os.environ.get("COMPEVAL_DATA_DIR"))
    t = sub.add_parser("train", help="train one model kind")
    t.add_argument("kind", choices=["ml", "ep", "tfp", "dl"])
    t.add_argument("corpus", nargs="+")
    t.add_argument("--out", required=True)
    t.add_argument("--parse-file", help="reuse / keep the parsed corpus here (shared by ep and tfp)")
    t.add_argument("--n-targets", type=int, default=30000)
    t.add_argument("--n-contexts", type=int, default=3000)
    t.add_argument("--theta", type=int, default=10)
    t.add_argument("--n-topics", type=int, default=1200)
    t.add_argument("--lda-method", choices=["gibbs", "variational"], default="gibbs",
                   help="dl: collapsed Gibbs sampling (tomotopy; the paper) or scikit-learn's variational Bayes")
    t.add_argument("--lda-iter", type=int, default=None, help="dl: iterations (default 600 gibbs, 20 variational)")
    t.add_argument("--dims", type=int, default=4096)
    t.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.cmd == "build-corpus":
        if not args.data_dir:
            ap.error("give --data-dir or set COMPEVAL_DATA_DIR")
        out = Path(args.out)
        n = 0
        with open(out, "w", encoding="utf-8") as f:
            for s in corpus_sentences(Path(args.data_dir)):
                f.write(s + "\n")
                n += 1
        print(f"wrote {n} sentences to {out} ({out.stat().st_size / 1e6:.1f} MB)")
        return 0
    import torch  # noqa: F401  (spaCy may pull it in; keep it to one thread)

    torch.set_num_threads(1)
    from compeval.models.families.distributional import train_distributional

    stats = train_distributional(
        args.kind, args.corpus, args.out, parse_file=args.parse_file, n_targets=args.n_targets,
        n_contexts=args.n_contexts, theta=args.theta, n_topics=args.n_topics, lda_method=args.lda_method,
        lda_iter=args.lda_iter, dims=args.dims, seed=args.seed,
    )
    print(json.dumps(stats, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
