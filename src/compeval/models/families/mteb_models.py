"""Models through MTEB (``mteb:NAME``), loaded by ``mteb.get_model`` so a model runs exactly as MTEB runs it.
An MTEB encoder picks its prompt by task; compeval's tasks are not MTEB's, so the model is told it runs the
MTEB task of the user's choice (default ``STSBenchmark``).
"""
from __future__ import annotations

import json
import re
from importlib import metadata
from typing import Any, Literal, Sequence

import numpy as np

from ...errors import SpecError
from pydantic import Field

from ..options import KeepsConfig, ModelOptions, batch_setting, identity_field
from ..protocol import register_object_adapter
from ..registry import register_model

PROMPT_TYPES = ("none", "query", "document")


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _loader_name(loader: Any) -> str:
    if loader is None:
        return "none"
    target = getattr(loader, "func", loader)  # functools.partial
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', type(target).__name__)}"


def stable(value: Any) -> Any:
    """Loader settings as JSON that is the same in every process: functions and classes by their import
    path, other objects by their text without memory addresses."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): stable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [stable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if callable(value):
        return _loader_name(value)
    return _ADDRESS.sub("", str(value))


class MtebModel(KeepsConfig):
    """An MTEB model; weights load on first use (``mteb.get_model``), metadata at once (no weights)."""

    def __init__(self, name: str, revision: str | None = None, task: str = "STSBenchmark",
                 prompt_type: str = "none", batch_size: int = 32, loaded: Any = None,
                 trust_remote_code: bool = False, options: "MtebOptions | None" = None):
        import mteb

        if prompt_type not in PROMPT_TYPES:
            raise SpecError(f"mteb:{name}: prompt_type={prompt_type!r}; choose one of {', '.join(PROMPT_TYPES)}")
        meta = getattr(loaded, "mteb_model_meta", None)
        if meta is None:
            try:
                meta = mteb.get_model_meta(name, revision)
            except Exception as exc:  # mteb raises KeyError/ValueError with its own wording
                raise SpecError(f"mteb:{name}: MTEB does not know this model or revision ({exc}); "
                                "`mteb.get_model_metas()` lists them") from None
        try:
            task_meta = mteb.get_task(task).metadata
        except Exception as exc:
            raise SpecError(f"mteb:{name}: task={task!r} is not an MTEB task ({exc})") from None
        if (meta.loader_kwargs or {}).get("trust_remote_code") and not trust_remote_code and loaded is None:
            raise SpecError(f"mteb:{name}: MTEB loads it with the Python code its repo ships (trust_remote_code); "
                            "add ,trust_remote_code=true to run it, after reading it")
        self.name, self.revision, self.batch_size = name, meta.revision, batch_size
        self.meta, self.task_metadata = meta, task_meta
        self.prompt_type = None if prompt_type == "none" else prompt_type
        self._model = loaded
        if options is None:  # made directly: the options its arguments amount to (checked above)
            options = MtebOptions.model_construct(revision=revision, task=task, prompt_type=prompt_type,
                                                  batch=batch_size, trust_remote_code=trust_remote_code)
        facts = {"loader": _loader_name(meta.loader),
                 "loader_kwargs": json.dumps(stable(meta.loader_kwargs or {}), sort_keys=True),
                 "similarity": meta.similarity_fn_name, "mteb": metadata.version("mteb")}
        self._config = options.to_model_config(
            meta.name or name, facts=facts,
            resolved={"revision": meta.revision, "task": f"{task_meta.name} ({task_meta.type})"})

    def load(self) -> None:
        """Load the weights now (the runner times this apart from encoding)."""
        _ = self.model

    @property
    def model(self):
        if self._model is None:
            import mteb

            if re.fullmatch(r"[0-9a-f]{40}", self.revision or ""):  # a pinned Hub commit: present, or one line
                from ..hub import snapshot

                snapshot(self.name, self.revision)
            self._model = mteb.get_model(self.name, self.revision)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        from datasets import Dataset
        from mteb.types import PromptType
        from torch.utils.data import DataLoader

        if not texts:
            return np.zeros((0, 0), np.float32)
        loader = DataLoader(Dataset.from_dict({"text": list(texts)}), batch_size=self.batch_size)
        out = self.model.encode(loader, task_metadata=self.task_metadata, hf_split="test", hf_subset="default",
                                prompt_type=PromptType(self.prompt_type) if self.prompt_type else None)
        if hasattr(out, "detach"):
            out = out.detach().float().cpu().numpy()
        return np.asarray(out, dtype=np.float32)


@register_object_adapter("mteb")
def from_mteb_object(obj: Any, task: str = "STSBenchmark", prompt_type: str = "none") -> MtebModel | None:
    """An encoder ``mteb.get_model`` returned, handed over as a Python object (``as_model`` asks this);
    None for any other object."""
    meta = getattr(obj, "mteb_model_meta", None)
    if meta is None or not callable(getattr(obj, "encode", None)):
        return None
    return MtebModel(meta.name or type(obj).__name__, meta.revision, task, prompt_type, loaded=obj)


class MtebOptions(ModelOptions):
    """Identity as the model resolves it: the revision MTEB's metadata gives (null where it gives none), the
    task by its name and type."""

    revision: str | None = identity_field(None, record="null", show="never", description="the model revision MTEB pins "
                                                                          "(default: its metadata's)")
    task: str = identity_field("STSBenchmark", show="never", description="the MTEB task whose prompts the model "
                                                                         "is given")
    prompt_type: Literal[PROMPT_TYPES] = Field("none", description="query or document prompts")  # type: ignore[valid-type]
    batch: int = batch_setting(32, "texts per batch (else the run's --batch-size)")
    trust_remote_code: bool = identity_field(False, record="changed", show="never", description="run the Python "
                                             "code the repo ships, where MTEB's loader does (explicit opt-in)")

    refused = {k: "mteb gives the model its MTEB prompts by task= and prompt_type=; for a prompt of your own run "
                  "the repo as hf:ORG/NAME or sbert:ORG/NAME with prompt=, prompt_name= or instruction="
               for k in ("prompt", "prompt_name", "instruction")}


@register_model("mteb", 1, "a model through mteb.get_model, with its MTEB prompts, loader and revision",
                ("mteb:NAME",), extra="mteb",
                options=MtebOptions)
def _mteb(resolved, builder):
    opts = resolved.options
    if not resolved.arg:
        raise SpecError(f"{resolved.spec}: give the MTEB model name, e.g. mteb:intfloat/multilingual-e5-small")
    batch = opts.batch if "batch" in opts.model_fields_set or not builder.batch_size else builder.batch_size
    return MtebModel(resolved.arg, revision=opts.revision, task=opts.task, prompt_type=opts.prompt_type,
                     batch_size=batch, trust_remote_code=opts.trust_remote_code, options=opts)
