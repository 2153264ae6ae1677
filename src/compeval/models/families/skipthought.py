"""Skip-Thought vectors (Kiros et al. 2015) from the released files of ryankiros/skip-thoughts (the seven
files and the options are listed in docs/models.md). The pickled options are read by an unpickler that
builds plain containers only (a pickle can run code; these files need none).

The released GRU, ``r = σ(x W_r + b_r + h U_r)``, ``u = σ(x W_u + b_u + h U_u)``,
``h̃ = tanh(x Wx + bx + r ⊙ (h Ux))``, ``h ← u ⊙ h + (1 − u) ⊙ h̃``, is torch's ``nn.GRU`` exactly (gates r,
z = u, n), so the released matrices are transposed into it; the test checks the vectors against these
equations in numpy. NLTK's word tokenizer today is not byte-for-byte the 2015 one (quotes become
``` `` ``` and ``''``), as for anyone who runs the released code now. An empty text gives the GRU's
initial state, the zero vector (the release fails on it).
"""
from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
from pydantic import Field

from ...errors import SpecError
from .elmo import file_sha256
from ..options import DTYPES, TorchOptions, dtype_field, identity_field
from ..registry import register_model
from ..transformers_common import TorchModel, TorchSetup, torch_dtype

VARIANTS = ("combine", "uni", "bi")
TOKENISERS = ("punkt", "line")
DICTIONARY = "dictionary.txt"
#: Released file names of each encoder: parameters and word table.
FILES = {"uni": ("uni_skip.npz", "utable.npy"), "bi": ("bi_skip.npz", "btable.npy")}
UNK, EOS = "UNK", "<eos>"
GRU_KEYS = ("W", "b", "U", "Wx", "Ux", "bx")


class _PlainUnpickler(pickle.Unpickler):
    """Builds dicts, lists, strings and numbers only: an options file that names any class is refused."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in (("collections", "OrderedDict"),):
            from collections import OrderedDict

            return OrderedDict
        raise pickle.UnpicklingError(f"the options file names {module}.{name}; a Skip-Thought options file is a "
                                     "plain dict")


def read_options(path: Path, where: str) -> dict:
    """The released training options (``*.npz.pkl``): a dict with positive integer ``dim`` and ``dim_word``.
    A damaged or foreign pickle fails in many ways (TypeError, IndexError, EOFError…); each is this one line."""
    try:
        with open(path, "rb") as f:
            options = _PlainUnpickler(f, encoding="latin1").load()
    except OSError as exc:
        raise SpecError(f"{where}: cannot read Skip-Thought options {path} ({exc.strerror or exc})") from None
    except Exception as exc:  # whatever a malformed pickle raises while it is rebuilt
        raise SpecError(f"{where}: cannot read Skip-Thought options {path} ({type(exc).__name__}: {exc}); give "
                        "the .npz.pkl released with the weights") from None
    if not isinstance(options, dict) or not all(type(options.get(k)) is int and options[k] > 0
                                                for k in ("dim", "dim_word")):
        raise SpecError(f"{where}: {path.name} has no positive integer dim and dim_word, so it is not a "
                        "Skip-Thought options file")
    if options.get("encoder", "gru") != "gru":
        raise SpecError(f"{where}: {path.name}: encoder {options['encoder']!r}; the released encoders are GRUs")
    return options


@dataclass(frozen=True)
class Encoder:
    """One released encoder (uni or bi) as numpy arrays, checked against its options."""

    kind: str
    dim: int
    dim_word: int
    gru: dict[str, dict[str, np.ndarray]]  # prefix -> {W, b, U, Wx, Ux, bx}
    table: np.ndarray  # (n_words, dim_word), memory-mapped
    digest: str  # SHA-256 of parameters, options and table


def read_encoder(folder: Path, kind: str, n_words: int, where: str) -> Encoder:
    params_name, table_name = FILES[kind]
    params_path, options_path, table_path = folder / params_name, folder / f"{params_name}.pkl", folder / table_name
    for p in (params_path, options_path, table_path):
        if not p.is_file():
            raise SpecError(f"{where}: {p} is missing; a Skip-Thought folder holds the released {params_name}, "
                            f"{params_name}.pkl, {table_name} and {DICTIONARY}")
    options = read_options(options_path, where)
    dim, dim_word = options["dim"], options["dim_word"]
    shapes = {"W": (dim_word, 2 * dim), "b": (2 * dim,), "U": (dim, 2 * dim), "Wx": (dim_word, dim),
              "Ux": (dim, dim), "bx": (dim,)}
    prefixes = ("encoder",) if kind == "uni" else ("encoder", "encoder_r")
    gru: dict[str, dict[str, np.ndarray]] = {}
    try:
        with np.load(params_path, allow_pickle=False) as archive:
            for prefix in prefixes:
                gru[prefix] = {}
                for key in GRU_KEYS:
                    name = f"{prefix}_{key}"
                    if name not in archive.files:
                        raise SpecError(f"{where}: {params_path.name} has no {name}; it is not a released {kind}-skip "
                                        "encoder")
                    arr = np.asarray(archive[name], dtype=np.float32)
                    if arr.shape != shapes[key]:
                        raise SpecError(f"{where}: {params_path.name}: {name} has shape {arr.shape}, the options "
                                        f"(dim={dim}, dim_word={dim_word}) need {shapes[key]}")
                    gru[prefix][key] = arr
    except (OSError, ValueError) as exc:
        raise SpecError(f"{where}: cannot read {params_path} ({type(exc).__name__}: {exc})") from None
    try:
        table = np.load(table_path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise SpecError(f"{where}: cannot read {table_path} as a numeric array ({type(exc).__name__}: {exc})") from None
    if table.ndim != 2 or table.shape[1] != dim_word or table.shape[0] != n_words:
        raise SpecError(f"{where}: {table_name} has shape {table.shape}; {DICTIONARY} has {n_words} words and the "
                        f"options dim_word={dim_word}, so it must be ({n_words}, {dim_word})")
    digest = hashlib.sha256("".join(file_sha256(p) for p in (params_path, options_path, table_path)).encode())
    return Encoder(kind, dim, dim_word, gru, table, digest.hexdigest())


def read_dictionary(path: Path, where: str) -> tuple[dict[str, int], int, str]:
    """Word -> row (a repeated word: its last row, as the release's OrderedDict), the number of lines (the
    tables have a row per line) and the file's SHA-256."""
    if not path.is_file():
        raise SpecError(f"{where}: {path} is missing; a Skip-Thought folder holds the released {DICTIONARY}")
    try:
        words = [line.decode("utf-8").strip() for line in path.read_bytes().splitlines()]
    except UnicodeDecodeError as exc:
        raise SpecError(f"{where}: {path} is not UTF-8 ({exc})") from None
    index = {w: i for i, w in enumerate(words)}
    if UNK not in index:
        raise SpecError(f"{where}: {path.name} has no {UNK} line; the released encoder maps unknown words to it")
    return index, len(words), file_sha256(path)


def tokenize(text: str, tok: str) -> list[str]:
    """Words as the released ``preprocess`` gives them (``punkt``), or with the whole text as one sentence."""
    from nltk.tokenize import sent_tokenize, word_tokenize

    sentences = sent_tokenize(text) if tok == "punkt" else [text]
    return [w for s in sentences for w in word_tokenize(s, preserve_line=True)]


def check_punkt(where: str) -> None:
    try:
        tokenize("A test. Another one.", "punkt")
    except LookupError:
        raise SpecError(f"{where}: tok=punkt (the release's sentence splitter) needs NLTK's punkt data, which is not "
                        "on this machine: run `python -m nltk.downloader punkt_tab`, or use tok=line (one sentence "
                        "per text)") from None


def gru_module(params: dict[str, np.ndarray]) -> Any:
    """torch ``nn.GRU`` holding one released GRU (gate order r, z = u, n; no hidden bias)."""
    import torch
    from torch import nn

    dim = params["Ux"].shape[0]
    gru = nn.GRU(params["W"].shape[0], dim, batch_first=True)
    W, U = params["W"], params["U"]
    with torch.no_grad():
        gru.weight_ih_l0.copy_(torch.from_numpy(np.concatenate([W[:, :dim].T, W[:, dim:].T, params["Wx"].T])))
        gru.weight_hh_l0.copy_(torch.from_numpy(np.concatenate([U[:, :dim].T, U[:, dim:].T, params["Ux"].T])))
        gru.bias_ih_l0.copy_(torch.from_numpy(np.concatenate([params["b"], params["bx"]])))
        gru.bias_hh_l0.zero_()
    return gru.eval().requires_grad_(False)


class SkipThoughtModel(TorchModel):
    """uni-skip, bi-skip or combine-skip sentence vectors from the released files (see the module docstring)."""

    def __init__(self, folder: str | Path, variant: str = "combine", tok: str = "punkt", eos: bool = False,
                 use_norm: bool = True, setup: Any = None, where: str = "skipthought",
                 options: "SkipThoughtOptions | None" = None):
        folder = Path(folder).expanduser()
        if not folder.is_dir():
            raise SpecError(f"{where}: {folder} is not a folder; give the folder holding the released Skip-Thought "
                            f"files ({', '.join(n for p, t in FILES.values() for n in (p, p + '.pkl', t))}, {DICTIONARY})")
        if variant not in VARIANTS or tok not in TOKENISERS:
            raise SpecError(f"{where}: variant must be one of {VARIANTS} and tok one of {TOKENISERS}")
        self.where, self.variant, self.tok, self.eos, self.use_norm = where, variant, tok, eos, use_norm
        self.setup = setup or TorchSetup.outside_a_run()
        self.index, n_lines, dict_digest = read_dictionary(folder / DICTIONARY, where)
        if eos and EOS not in self.index:
            raise SpecError(f"{where}: eos=true needs a {EOS} line in {DICTIONARY}")
        kinds = ("uni", "bi") if variant == "combine" else (variant,)
        self.encoders = [read_encoder(folder, k, n_lines, where) for k in kinds]
        if tok == "punkt":
            check_punkt(where)
        digest = hashlib.sha256((dict_digest + "".join(e.digest for e in self.encoders)).encode()).hexdigest()
        self.dim = sum(e.dim * (1 if e.kind == "uni" else 2) for e in self.encoders)
        if options is None:  # made directly: the options its arguments amount to (checked above)
            options = SkipThoughtOptions.model_construct(variant=variant, tok=tok, eos=eos, use_norm=use_norm,
                                                         dtype=self.setup.dtype)
        self._config = options.to_model_config(f"{variant}-skip", location=str(folder),
                                               facts={"weights": "sha256:" + digest})
        self._nets: list[Any] | None = None

    def _load(self) -> list[Any]:
        if self._nets is None:
            dtype = torch_dtype(self.setup.dtype)
            self._nets = [[gru_module(e.gru[p]).to(device=self.device, dtype=dtype) for p in e.gru]
                          for e in self.encoders]
            self._config = self._config.model_copy(update={"settings": self.setup.settings()})
        return self._nets

    def close(self) -> None:
        self._nets = None

    def word_ids(self, text: str) -> list[int]:
        unk = self.index[UNK]
        ids = [self.index.get(w, unk) for w in tokenize(text, self.tok)]
        return ids + [self.index[EOS]] if self.eos else ids

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text; texts of equal length are batched together (no padding, as released)."""
        import torch

        nets = self._load()
        ids = [self.word_ids(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        by_length: dict[int, list[int]] = {}
        for i, seq in enumerate(ids):
            if seq:
                by_length.setdefault(len(seq), []).append(i)
        dtype = torch_dtype(self.setup.dtype)
        with torch.inference_mode():
            for length, rows in sorted(by_length.items()):
                for start in range(0, len(rows), self.setup.batch):
                    batch = rows[start:start + self.setup.batch]
                    words = np.array([ids[i] for i in batch], dtype=np.int64)
                    parts = []
                    for enc, grus in zip(self.encoders, nets):
                        x = torch.from_numpy(np.asarray(enc.table[words.ravel()], dtype=np.float32)
                                             .reshape(len(batch), length, enc.dim_word)).to(self.device, dtype)
                        states = [grus[0](x)[1][0]]  # last state of the forward GRU
                        if enc.kind == "bi":
                            states.append(grus[1](torch.flip(x, dims=[1]))[1][0])  # encoder_r on reversed words
                        vec = torch.cat(states, dim=-1).float()
                        if self.use_norm:
                            vec = vec / vec.norm(dim=-1, keepdim=True)
                        parts.append(vec)
                    out[batch] = torch.cat(parts, dim=-1).cpu().numpy()
        return out


class SkipThoughtOptions(TorchOptions):
    variant: Literal[VARIANTS] = identity_field(  # type: ignore[valid-type]  (shown by the name, uni-skip…)
        "combine", show="never", description="combine = uni-skip then bi-skip (4800-d, the paper's); uni or bi "
                                             "alone (2400-d)")
    tok: Literal[TOKENISERS] = Field(  # type: ignore[valid-type]
        "punkt", description="punkt = NLTK sentence split then word tokenizer (released); line = one sentence per text")
    eos: bool = Field(False, description="append <eos> to every text (released encode's use_eos)")
    # the release's name: a model option called norm is read as the pair tasks' norm= by older results' check
    use_norm: bool = Field(True, description="divide uni- and bi-skip by their L2 norm each (released use_norm)")

    dtype: Literal[DTYPES] = dtype_field(show="never")  # type: ignore[valid-type]  (recorded, never in the name)


@register_model("skipthought", 1, "Skip-Thought GRU encoders (uni-skip, bi-skip, combine-skip) from the released "
                "ryankiros/skip-thoughts files", ("skipthought:PATH",), extra="skipthought", options=SkipThoughtOptions)
def _skipthought(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    if not resolved.arg:
        raise SpecError(f"{where}: give the folder of the released files: skipthought:PATH (the weights are not "
                        "downloaded: 4.8 GB from www.cs.toronto.edu/~rkiros/models/)")
    if opts.max_length is not None:
        raise SpecError(f"{where}: max_length does not apply to Skip-Thought (the GRU reads whole texts); drop it")
    try:
        import nltk  # noqa: F401  (the released tokenizer)
        import torch  # noqa: F401
    except ImportError as exc:
        raise ImportError(exc.name or "nltk") from exc
    return SkipThoughtModel(resolved.arg, variant=opts.variant, tok=opts.tok, eos=opts.eos, use_norm=opts.use_norm,
                            setup=TorchSetup.of(resolved, builder), where=where, options=opts)
