"""Tiny random-weight replicas of the pinned sweep (``compeval:sweep``) in an offline Hub cache, under the
real names and at the revisions the list pins, plus fault replicas whose forward pass misbehaves:

- ``compeval-faults/exit-on-forward``: the forward calls ``os._exit(3)`` (a crash in the model's code);
- ``compeval-faults/oom-above-budget``: the forward raises torch's ``OutOfMemoryError`` (CUDA's message)
  when a batch holds more than ``oom_above`` tokens (padded);
- ``compeval-faults/hang-on-forward``: the forward sleeps for an hour.

The faults are the model's own code (``auto_map`` → ``faulty.py``, loaded with ``trust_remote_code``), so
they run exactly where a real model's would. Sentence-transformers names get a tiny BERT with mean
pooling; names whose mteb metadata counts more than a billion parameters get a tiny Qwen2 decoder (plain
transformers); the rest a plain tiny BERT.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))

from hub_fakes import build_bert, build_qwen2, build_sbert  # noqa: E402

FAULTY = '''"""A tiny BERT whose forward pass misbehaves as its config says (compeval's sweep tests)."""
import os
import time

import torch
from transformers import BertModel


class FaultyBertModel(BertModel):
    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        fault = getattr(self.config, "fault", "")
        if fault == "exit":
            os._exit(3)
        if fault == "hang":
            time.sleep(3600)
        if fault == "oom" and input_ids is not None and input_ids.numel() > self.config.oom_above:
            raise torch.OutOfMemoryError(
                f"CUDA out of memory. Tried to allocate the activations of {input_ids.numel()} tokens "
                f"(simulated: this replica fails above {self.config.oom_above} tokens per batch)")
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
'''

#: The sweep tests' task: generated, a few dozen texts, a cheap bootstrap.
TASK = "minimal-pairs,n_bases=3,bootstrap=50"

FAULTS = {"exit": "compeval-faults/exit-on-forward", "oom": "compeval-faults/oom-above-budget",
          "hang": "compeval-faults/hang-on-forward"}
OOM_ABOVE = 24  # tokens per batch (texts × longest) above which the OOM replica fails


def put_at(cache: Path, repo: str, folder: Path, commit: str) -> None:
    """``folder`` as the snapshot ``commit`` of ``repo``; ``main`` points at it."""
    root = cache / ("models--" + repo.replace("/", "--"))
    shutil.copytree(folder, root / "snapshots" / commit, dirs_exist_ok=True)
    (root / "refs").mkdir(parents=True, exist_ok=True)
    (root / "refs" / "main").write_text(commit)


def pinned_hub_specs() -> list[str]:
    """The Hub entries of ``compeval:sweep`` (the packaged and static models left out)."""
    from compeval.models.model_lists import expand_models

    return [s for s in expand_models(["compeval:sweep"]) if "/" in s.split(",")[0]]


def _revision(spec: str) -> str:
    for part in spec.split(",")[1:]:
        if part.startswith("revision="):
            return part.split("=", 1)[1]
    raise ValueError(f"{spec}: no revision")


def build_faulty(folder: Path, fault: str, seed: int = 0) -> Path:
    """The tiny BERT (same weights as ``build_bert(seed)``) with a misbehaving forward as remote code."""
    build_bert(folder, seed)
    config = json.loads((folder / "config.json").read_text())
    config.update({"auto_map": {"AutoModel": "faulty.FaultyBertModel"}, "fault": fault, "oom_above": OOM_ABOVE})
    (folder / "config.json").write_text(json.dumps(config, indent=1))
    (folder / "faulty.py").write_text(FAULTY)
    return folder


def build_replica_cache(root: Path, specs: list[str] | None = None, faults: bool = True) -> dict[str, str]:
    """Fill ``root/hub`` with replicas of ``specs`` (default: the pinned sweep) and the fault replicas.
    Returns {name: spec to run it with}."""
    from compeval.models.model_lists import model_metadata

    src = root / "src"
    kinds = {"sbert": build_sbert(src / "st"), "bert": build_bert(src / "bert", seed=1),
             "decoder": build_qwen2(src / "qwen2")}
    cache = root / "hub"
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, str] = {}
    for spec in (specs if specs is not None else pinned_hub_specs()):
        name = spec.split(",")[0]
        facts = model_metadata(name)
        kind = "decoder" if (facts.n_parameters or 0) > 1e9 else \
            "sbert" if name.startswith(("sentence-transformers/", "BAAI/", "intfloat/", "thenlper/")) else "bert"
        put_at(cache, name, kinds[kind], _revision(spec))
        out[name] = spec
    if faults:
        for fault, repo in FAULTS.items():
            put_at(cache, repo, build_faulty(src / f"faulty-{fault}", fault), hashlib.sha1(fault.encode()).hexdigest())
            out[repo] = f"{repo},trust_remote_code=true"
    return out
