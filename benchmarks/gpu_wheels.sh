#!/usr/bin/env bash
# Prepare .gpu-check/ (git-ignored) for benchmarks/gpu_check.py on an offline GPU machine whose Python 3.12
# has torch, transformers and sentence-transformers but not compeval's other dependencies:
#   .gpu-check/wheels/        compeval's core dependencies as cp312 manylinux / pure-Python wheels (no
#                             torch, transformers, sentence-transformers, numpy or scipy), plus setuptools
#                             (compeval's build backend) and accelerate; requirements.txt names them
#   .gpu-check/assets/        the packaged MiniLM's tokenizer files and config.json (no weights), the STS3k
#                             and modifier texts, the probing and lexcomp data folders (copied, hashes intact)
#   .gpu-check/finetune/      section finetune-task: all-MiniLM-L6-v2 (fp16-rounded, embedding rows STS3k uses)
#                             and the sts3k data files (carried in a call of its own with the wheels)
# Run here (needs PyPI and compeval's own environment):
#   PYTHONPATH=src COMPEVAL_DATA_DIR=/path/to/data bash benchmarks/gpu_wheels.sh [PYTHON]
# The device command (install offline, leaving installed packages alone, then run) is in README.md
# "GPU check". Versions are those compeval's tests ran with.
set -euo pipefail
PY=${1:-python}
OUT=.gpu-check
mkdir -p "$OUT/wheels"
# Exact pins: the versions this project's environment tests with (pip freeze there).
PKGS=(pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5
      typing-extensions==4.16.0 typer==0.29.2 click==8.5.1 annotated-doc==0.0.7 shellingham==1.5.4 rich==15.0.0
      markdown-it-py==4.3.0 mdurl==0.1.2 pygments==2.21.0 httpx==0.28.1 httpcore==1.0.9 h11==0.16.0
      anyio==4.16.0 idna==3.20 certifi==2026.10.19.post1 pandas==3.1.1 python-dateutil==4.0.0 tzdata==2026.6
      openpyxl==3.1.5 et-xmlfile==2.0.0 jinja2==3.1.6 markupsafe==3.0.4 scikit-learn==1.9.1 joblib==1.6.0 cloudpickle==3.1.3
      threadpoolctl==3.8.0 narwhals==2.29.0 accelerate==1.15.0 psutil==7.2.2 "setuptools>=77")
# --no-deps: the list above is complete for what the device lacks; numpy/scipy/torch stay the device's own.
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --abi cp312 --abi abi3 --abi none --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_28_x86_64 --platform any -d "$OUT/wheels" "${PKGS[@]}"
# Names only: on the device pip installs what is missing and leaves what is present alone.
printf '%s\n' "${PKGS[@]}" | sed -E 's/[=<>].*//' | grep -v -x -e setuptools -e accelerate -e psutil > "$OUT/wheels/requirements.txt"
"$PY" benchmarks/gpu_check.py --prepare "$OUT/assets"
"$PY" benchmarks/gpu_check.py --prepare-finetune "$OUT/finetune"
du -sh "$OUT/wheels" "$OUT/assets" "$OUT/finetune"; du -sh "$OUT"
