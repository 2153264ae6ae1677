"""ELMo (Peters et al. 2018): the pretrained biLM of bilm-tf, read from its ``options.json`` and HDF5 weights.

The network, in the arithmetic of bilm-tf (which AllenNLP's ``Elmo`` reproduces):

- **Characters.** A word is its UTF-8 bytes, cut to ``max_characters_per_token - 2``, between a
  begin-of-word (258) and an end-of-word (259) mark, padded with 260, every id plus one (0 is masking).
  The sentence is framed by ``<S>`` and ``</S>``, whose characters are begin-of-word, 256 (257 for ``</S>``),
  end-of-word. The boundary positions are dropped from the output.
- **Character CNN.** 16-d character embeddings (``char_embed``, a zero row 0 prepended); one 1-d
  convolution per filter width (``CNN/W_cnn_i``, ``b_cnn_i``), max over positions, then the activation
  (relu or tanh); the widths concatenated.
- **Highway** (``CNN_high_k``): ``g = sigmoid(x W_carry + b_carry)``, ``x = g * relu(x W_transform +
  b_transform) + (1 - g) * x`` (relu whatever the CNN's activation, as in bilm-tf).
- **Projection** (``CNN_proj/W_proj``, ``b_proj``) to ``projection_dim``: the context-free token vector.
- **biLSTM** (``RNN_{0 forward, 1 backward}/RNN/MultiRNNCell/Cell{k}/LSTMCell``): TensorFlow's
  ``LSTMCell`` with projection. ``[i, j, f, o] = [x, h] W_0 + B`` (gate order of TensorFlow), ``c = sigmoid(f
  + 1) * c + sigmoid(i) * tanh(j)`` (forget bias 1) clipped to ``±cell_clip``, ``h = (sigmoid(o) * tanh(c))
  W_P_0`` clipped to ``±proj_clip``. From the second layer on each layer adds its input (skip connection).
  Every sentence starts from zero states: vectors never depend on what was encoded before (AllenNLP's
  ``Elmo`` carries states across batches, which makes its vectors depend on batch history).

Layers, ``mix=`` and the weights (``elmo:original`` downloaded into ``<cache>/models/elmo/`` and checked
against ``PUBLISHED``, or ``elmo:PATH``): docs/models.md § ELMo.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np

from ... import textfile
from ...errors import SpecError
from pydantic import Field

from ...options import setting
from ..options import DTYPES, TorchOptions, dtype_field
from ..registry import register_model
from ..transformers_common import TorchModel, TorchSetup, torch_dtype

# Character ids of bilm-tf's UnicodeCharsVocabulary (before the +1 that frees 0 for masking).
BOS_CHAR, EOS_CHAR, BOW_CHAR, EOW_CHAR, PAD_CHAR = 256, 257, 258, 259, 260
LAYER_CHOICES = ("all", "0", "1", "2", "mix")
TOKENISATION = "ptb-lite.v1"  # how encode() splits a sentence into words (identity)
_WORDS = re.compile(r"\w+(?=n't\b)|n't\b|'\w+|\w+(?:[-.,]\w+)*|[^\w\s]")

_BASE = "https://allennlp.s3.amazonaws.com/models/elmo/2x4096_512_2048cnn_2xhighway/"


@dataclass(frozen=True)
class Published:
    """A published ELMo: where its files are, its options (checked by content) and its weights' SHA-256."""

    options_url: str
    weights_url: str
    options: dict
    weights_sha256: str | None  # None: not known to compeval; the user's sha256= option is then required


ORIGINAL_OPTIONS = {
    "lstm": {"use_skip_connections": True, "projection_dim": 512, "cell_clip": 3, "proj_clip": 3, "dim": 4096,
             "n_layers": 2},
    "char_cnn": {"activation": "relu", "filters": [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]],
                 "n_highway": 2, "embedding": {"dim": 16}, "n_characters": 262, "max_characters_per_token": 50},
}

PUBLISHED: dict[str, Published] = {
    "original": Published(_BASE + "elmo_2x4096_512_2048cnn_2xhighway_options.json",
                          _BASE + "elmo_2x4096_512_2048cnn_2xhighway_weights.hdf5", ORIGINAL_OPTIONS, None),
}


# ---------------------------------------------------------------------------------------------------------
# Options and weights files


@dataclass(frozen=True)
class ElmoFiles:
    options: dict
    weights: Path
    options_path: Path
    weights_sha256: str
    name: str


_REQUIRED = ("char_cnn.activation", "char_cnn.filters", "char_cnn.n_highway", "char_cnn.embedding.dim",
             "char_cnn.max_characters_per_token", "lstm.projection_dim", "lstm.dim", "lstm.n_layers",
             "lstm.cell_clip", "lstm.proj_clip")


def check_options(options: Any, where: str, source: str) -> dict:
    """The options of a bilm-tf ELMo, or one SpecError naming the key that is missing or unsupported."""
    fix = "give the options.json that was published with the weights (bilm-tf / AllenNLP layout)"
    if not isinstance(options, dict):
        raise SpecError(f"{where}: {source} is not an ELMo options file (a JSON object); {fix}")
    for key in _REQUIRED:
        node: Any = options
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise SpecError(f"{where}: {source} has no {key}, so it is not an ELMo options file; {fix}")
            node = node[part]
    cnn, lstm = options["char_cnn"], options["lstm"]
    if cnn["activation"] not in ("relu", "tanh"):
        raise SpecError(f"{where}: {source}: char_cnn.activation {cnn['activation']!r} is not supported "
                        "(bilm-tf has relu and tanh); " + fix)
    if not lstm.get("use_skip_connections"):
        raise SpecError(f"{where}: {source}: lstm.use_skip_connections is not true; compeval runs the published "
                        "biLMs, which all have them; " + fix)
    if not (isinstance(cnn["filters"], list) and cnn["filters"]
            and all(isinstance(f, list) and len(f) == 2 for f in cnn["filters"])):
        raise SpecError(f"{where}: {source}: char_cnn.filters must be [[width, count], …]; {fix}")
    if int(cnn["max_characters_per_token"]) < 3 or int(lstm["n_layers"]) < 1:
        raise SpecError(f"{where}: {source}: max_characters_per_token must be at least 3 and n_layers at least 1")
    return options


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@lru_cache(maxsize=8)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    return _sha256(Path(path))


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, computed once per process for an unchanged file."""
    st = path.stat()
    return _sha256_cached(str(path.resolve()), st.st_size, st.st_mtime_ns)


def _read_options(path: Path, where: str) -> dict:
    try:
        return check_options(json.loads(textfile.read_text(path)), where, path.name)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"{where}: cannot read ELMo options {path} ({type(exc).__name__}: {exc}); give the "
                        "options.json published with the weights") from None


def local_files(arg: str, where: str) -> ElmoFiles:
    """A folder with one ``*options.json`` and one ``*.hdf5``, or an options file with its weights beside it."""
    path = Path(arg).expanduser()
    if path.is_dir():
        opts = sorted(path.glob("*options.json"))
        weights = sorted(path.glob("*.hdf5"))
        if len(opts) != 1 or len(weights) != 1:
            raise SpecError(f"{where}: the folder must hold exactly one *options.json and one *.hdf5 (found "
                            f"{len(opts)} and {len(weights)}); or give the options file: elmo:PATH/options.json")
        options_path, weights_path = opts[0], weights[0]
    elif path.is_file():
        options_path = path
        _read_options(path, where)  # an options file that is wrong is named before any missing weights
        twin = path.with_name(path.name.replace("options.json", "weights.hdf5"))
        candidates = [twin] if twin != path and twin.is_file() else sorted(path.parent.glob("*.hdf5"))
        if len(candidates) != 1:
            raise SpecError(f"{where}: no weights for {path.name}: put {twin.name} (or one .hdf5) beside it")
        weights_path = candidates[0]
    else:
        raise SpecError(f"{where}: {arg!r} is neither a published ELMo ({', '.join(PUBLISHED)}) nor a folder or "
                        "options file; use elmo:original or elmo:PATH")
    options = _read_options(options_path, where)
    return ElmoFiles(options, weights_path, options_path, file_sha256(weights_path), options_path.parent.name)


def _download(url: str, dest: Path, sha256: str | None, where: str) -> None:
    """Fetch ``url`` into ``dest`` atomically (a temporary file in the same folder, renamed when complete and,
    when ``sha256`` is given, only if its hash matches)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".part")
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            for block in iter(lambda: resp.read(1 << 20), b""):
                h.update(block)
                out.write(block)
        if sha256 is not None and h.hexdigest() != sha256:
            raise SpecError(f"{where}: {url} has SHA-256 {h.hexdigest()}, not the pinned {sha256}; the download "
                            "was discarded (retry, or check the file's source)")
        os.replace(tmp, dest)
    except OSError as exc:
        raise SpecError(f"{where}: cannot download {url} ({type(exc).__name__}: {exc}); download it yourself "
                        "and use elmo:PATH") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def published_files(name: str, where: str, sha256: str | None, cache: Path) -> ElmoFiles:
    """A published ELMo from the compeval cache, downloaded first when missing."""
    pub = PUBLISHED[name]
    pin = pub.weights_sha256 or sha256
    if pub.weights_sha256 and sha256 and sha256 != pub.weights_sha256:
        raise SpecError(f"{where}: sha256={sha256} differs from the published weights' {pub.weights_sha256}; "
                        "drop the option")
    if pin is None:
        raise SpecError(f"{where}: compeval has no SHA-256 pinned for the {name} weights ({pub.weights_url}); "
                        "give the hash you trust with ,sha256=HEX, or download the files and use elmo:PATH")
    folder = cache / "models" / "elmo" / name
    options_path = folder / pub.options_url.rsplit("/", 1)[1]
    weights_path = folder / pub.weights_url.rsplit("/", 1)[1]
    if not options_path.is_file():
        _download(pub.options_url, options_path, None, where)
    options = _read_options(options_path, where)
    if options != pub.options:
        raise SpecError(f"{where}: {options_path} is not the published {name} options file; delete it to "
                        "download it again")
    if not weights_path.is_file():
        _download(pub.weights_url, weights_path, pin, where)
    digest = file_sha256(weights_path)
    if digest != pin:
        raise SpecError(f"{where}: {weights_path} has SHA-256 {digest}, not the pinned {pin}; delete it to "
                        "download it again")
    return ElmoFiles(options, weights_path, options_path, digest, f"elmo-{name}")


# ---------------------------------------------------------------------------------------------------------
# The network


def char_ids(words: Sequence[str], max_chars: int) -> np.ndarray:
    """(len(words) + 2, max_chars) character ids of ``<S> words </S>``, each id plus one (0 = masking)."""
    out = np.full((len(words) + 2, max_chars), PAD_CHAR, dtype=np.int64)
    out[:, 0] = BOW_CHAR
    out[0, 1:3] = (BOS_CHAR, EOW_CHAR)
    out[-1, 1:3] = (EOS_CHAR, EOW_CHAR)
    for i, w in enumerate(words, start=1):
        b = w.encode("utf-8", "ignore")[: max_chars - 2]
        out[i, 1 : len(b) + 1] = np.frombuffer(b, dtype=np.uint8)
        out[i, len(b) + 1] = EOW_CHAR
    return out + 1


def _dataset(fin: Any, key: str, shape: tuple[int, ...] | None, where: str, source: str) -> np.ndarray:
    if key not in fin:
        raise SpecError(f"{where}: {source} has no {key}; the weights do not fit this ELMo options file")
    arr = np.asarray(fin[key][...], dtype=np.float32)
    if shape is not None and arr.shape != shape:
        raise SpecError(f"{where}: {source}: {key} has shape {arr.shape}, the options need {shape}; the weights "
                        "do not fit this options file")
    return arr


def build_network(files: ElmoFiles, where: str) -> Any:
    """The ELMo biLM as a torch module, weights read from the HDF5 file and checked against the options."""
    import h5py
    import torch
    from torch import nn

    opts = files.options
    cnn, lstm = opts["char_cnn"], opts["lstm"]
    char_dim, filters = int(cnn["embedding"]["dim"]), [(int(w), int(n)) for w, n in cnn["filters"]]
    n_filters, proj, cell = sum(n for _, n in filters), int(lstm["projection_dim"]), int(lstm["dim"])
    src = files.weights.name

    class CharEncoder(nn.Module):
        def __init__(self, fin: Any):
            super().__init__()
            table = _dataset(fin, "char_embed", None, where, src)
            if table.ndim != 2 or table.shape[1] != char_dim or table.shape[0] < PAD_CHAR + 1:
                raise SpecError(f"{where}: {src}: char_embed has shape {table.shape}, the options need "
                                f"(at least {PAD_CHAR + 1}, {char_dim})")
            self.embed = nn.Parameter(torch.from_numpy(np.concatenate([np.zeros((1, char_dim), np.float32), table])),
                                      requires_grad=False)
            self.convs = nn.ModuleList()
            for i, (width, num) in enumerate(filters):
                conv = nn.Conv1d(char_dim, num, width)
                w = _dataset(fin, f"CNN/W_cnn_{i}", (1, width, char_dim, num), where, src)
                conv.weight.data = torch.from_numpy(np.ascontiguousarray(w[0].transpose(2, 1, 0)))
                conv.bias.data = torch.from_numpy(_dataset(fin, f"CNN/b_cnn_{i}", (num,), where, src))
                self.convs.append(conv)
            self.highways = nn.ModuleList()
            for k in range(int(cnn["n_highway"])):
                layer = nn.Linear(n_filters, 2 * n_filters)  # rows: transform, then carry gate
                w = [_dataset(fin, f"CNN_high_{k}/W_{p}", (n_filters, n_filters), where, src) for p in ("transform", "carry")]
                b = [_dataset(fin, f"CNN_high_{k}/b_{p}", (n_filters,), where, src) for p in ("transform", "carry")]
                layer.weight.data = torch.from_numpy(np.concatenate([w[0].T, w[1].T]))
                layer.bias.data = torch.from_numpy(np.concatenate(b))
                self.highways.append(layer)
            if "CNN_proj" in fin:
                self.proj: Any = nn.Linear(n_filters, proj)
                self.proj.weight.data = torch.from_numpy(
                    np.ascontiguousarray(_dataset(fin, "CNN_proj/W_proj", (n_filters, proj), where, src).T))
                self.proj.bias.data = torch.from_numpy(_dataset(fin, "CNN_proj/b_proj", (proj,), where, src))
            elif n_filters == proj:
                self.proj = nn.Identity()
            else:
                raise SpecError(f"{where}: {src} has no CNN_proj, and the CNN's {n_filters} filters differ from "
                                f"projection_dim {proj}; the weights do not fit this options file")
            self.act = torch.relu if cnn["activation"] == "relu" else torch.tanh

        def forward(self, ids: Any) -> Any:  # (N, max_chars) -> (N, proj)
            x = nn.functional.embedding(ids, self.embed).transpose(1, 2)
            x = torch.cat([self.act(conv(x).max(dim=-1).values) for conv in self.convs], dim=-1)
            for layer in self.highways:
                transform, carry = layer(x).chunk(2, dim=-1)
                gate = torch.sigmoid(carry)
                x = gate * torch.relu(transform) + (1 - gate) * x
            return self.proj(x)

    class Direction(nn.Module):
        """One direction of one biLSTM layer: TensorFlow's LSTMCell with projection and clipping."""

        def __init__(self, fin: Any, direction: int, layer: int):
            super().__init__()
            key = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            w = _dataset(fin, f"{key}/W_0", (proj + proj, 4 * cell), where, src)
            self.w_in = nn.Parameter(torch.from_numpy(np.ascontiguousarray(w[:proj])), requires_grad=False)
            self.w_h = nn.Parameter(torch.from_numpy(np.ascontiguousarray(w[proj:])), requires_grad=False)
            bias = _dataset(fin, f"{key}/B", (4 * cell,), where, src).copy()
            bias[2 * cell : 3 * cell] += 1.0  # TensorFlow's forget_bias, added at run time there
            self.bias = nn.Parameter(torch.from_numpy(bias), requires_grad=False)
            self.w_p = nn.Parameter(torch.from_numpy(_dataset(fin, f"{key}/W_P_0", (cell, proj), where, src)),
                                    requires_grad=False)

        def forward(self, x: Any, lengths: Any, backward: bool) -> Any:
            """``x`` (B, T, proj), sequences of ``lengths``; the backward direction starts at each one's end."""
            b, t, _ = x.shape
            gates_in = x @ self.w_in + self.bias  # every time step at once
            h = x.new_zeros(b, proj)
            c = x.new_zeros(b, cell)
            out = x.new_zeros(b, t, proj)
            clip_c, clip_p = float(lstm["cell_clip"] or 0), float(lstm["proj_clip"] or 0)
            for step in (range(t - 1, -1, -1) if backward else range(t)):
                i, j, f, o = (gates_in[:, step] + h @ self.w_h).chunk(4, dim=-1)
                c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(j)
                if clip_c:
                    c_new = c_new.clamp(-clip_c, clip_c)
                h_new = (torch.sigmoid(o) * torch.tanh(c_new)) @ self.w_p
                if clip_p:
                    h_new = h_new.clamp(-clip_p, clip_p)
                live = (step < lengths).unsqueeze(-1)  # padding leaves the states as they were (zero, backward)
                c = torch.where(live, c_new, c)
                h = torch.where(live, h_new, h)
                out[:, step] = h * live
            return out

    class BiLM(nn.Module):
        def __init__(self, fin: Any):
            super().__init__()
            self.chars = CharEncoder(fin)
            self.layers = nn.ModuleList(
                nn.ModuleList([Direction(fin, 0, k), Direction(fin, 1, k)]) for k in range(int(lstm["n_layers"])))

        def forward(self, ids: Any, lengths: Any) -> Any:
            """``ids`` (B, T, max_chars) with boundaries; returns (B, n_layers + 1, T, 2 * proj)."""
            b, t, m = ids.shape
            tokens = self.chars(ids.reshape(b * t, m)).reshape(b, t, proj)
            outs = [torch.cat([tokens, tokens], dim=-1)]
            fwd_in = bwd_in = tokens
            for k, (fwd, bwd) in enumerate(self.layers):
                f, bk = fwd(fwd_in, lengths, False), bwd(bwd_in, lengths, True)
                if k > 0:  # skip connection
                    f, bk = f + fwd_in, bk + bwd_in
                outs.append(torch.cat([f, bk], dim=-1))
                fwd_in, bwd_in = f, bk
            return torch.stack(outs, dim=1)

    with h5py.File(files.weights, "r") as fin:
        return BiLM(fin).eval()


# ---------------------------------------------------------------------------------------------------------
# The model


class ElmoModel(TorchModel):
    """ELMo token layers for token tasks (``encode_tokens``) and their word mean for sentence tasks."""

    def __init__(self, files: ElmoFiles, layer: str = "all", mix: tuple[float, ...] | None = None,
                 setup: Any = None, where: str = "elmo", options: "ElmoOptions | None" = None):
        n_layers = int(files.options["lstm"]["n_layers"]) + 1
        if layer not in ("all", "mix") and not (layer.isdigit() and int(layer) < n_layers):
            raise SpecError(f"{where}: layer={layer}: this ELMo has layers 0..{n_layers - 1} (0 = the character "
                            "CNN, then the biLSTM layers); use one of them, mix or all")
        if mix is not None and (layer != "mix" or len(mix) != n_layers):
            raise SpecError(f"{where}: mix= needs layer=mix and {n_layers} weights (w0/…/w{n_layers - 1})")
        self.files, self.layer, self.where, self.n_layers = files, layer, where, n_layers
        self.setup = setup or TorchSetup.outside_a_run()
        w = np.asarray(mix if mix is not None else [0.0] * n_layers, dtype=np.float64)
        self.mix_weights = (np.exp(w - w.max()) / np.exp(w - w.max()).sum()).astype(np.float32)
        shown_mix = None if mix is None else "/".join(f"{x:g}" for x in mix)
        if options is None:  # made directly: the options its arguments amount to (checked above)
            options = ElmoOptions.model_construct(layer=layer, mix=shown_mix, dtype=self.setup.dtype)
        self._config = options.to_model_config(
            files.name, resolved={"mix": shown_mix}, location=str(files.weights),
            facts={"weights": "sha256:" + files.weights_sha256, "tok": TOKENISATION})
        self._net: Any = None

    def _load(self) -> Any:
        if self._net is None:
            net = build_network(self.files, self.where)
            self._net = net.to(device=self.device, dtype=torch_dtype(self.setup.dtype))
            self._config = self._config.model_copy(update={"settings": self.setup.settings()})
        return self._net

    def close(self) -> None:
        """Release the weights (they load again on the next encode)."""
        self._net = None

    def layers(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Every layer of every word: one (n_words, n_layers, dim) array per sentence; longest batched first."""
        import torch

        net = self._load()
        max_chars = int(self.files.options["char_cnn"]["max_characters_per_token"])
        dim = 2 * int(self.files.options["lstm"]["projection_dim"])
        out: list[np.ndarray | None] = [None] * len(sentences)
        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        with torch.inference_mode():
            for b in range(0, len(order), self.setup.batch):
                idx = order[b : b + self.setup.batch]
                width = len(sentences[idx[0]]) + 2
                ids = np.zeros((len(idx), width, max_chars), dtype=np.int64)  # padding positions: all 0
                for r, i in enumerate(idx):
                    ids[r, : len(sentences[i]) + 2] = char_ids(sentences[i], max_chars)
                lengths = torch.tensor([len(sentences[i]) + 2 for i in idx], device=self.device)
                hidden = net(torch.from_numpy(ids).to(self.device), lengths).float().cpu().numpy()
                for r, i in enumerate(idx):
                    n = len(sentences[i])
                    out[i] = np.ascontiguousarray(hidden[r, :, 1 : n + 1].transpose(1, 0, 2))
        return [o if o is not None and o.size else np.zeros((0, self.n_layers, dim), np.float32) for o in out]

    def _select(self, vecs: np.ndarray) -> np.ndarray:
        if self.layer == "all":
            return vecs
        if self.layer == "mix":
            return np.einsum("wld,l->wd", vecs, self.mix_weights)[:, None, :]
        return vecs[:, int(self.layer)][:, None, :]

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """(n_words, n_layers, dim) per sentence: all layers (``layer=all``) or the one chosen."""
        return [self._select(v) for v in self.layers(sentences)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The mean over a text's words (split as ``tokenize``) of the chosen layer (``all``: their average)."""
        dim = 2 * int(self.files.options["lstm"]["projection_dim"])
        vecs = self.layers([tokenize(t) for t in texts])
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, v in enumerate(vecs):
            if len(v):
                sel = self._select(v)
                out[i] = sel.mean(axis=(0, 1)) if self.layer == "all" else sel[:, 0].mean(0)
        return out


def tokenize(text: str) -> list[str]:
    """Words as ELMo's training text had them (Penn-Treebank-like): punctuation split off, ``n't`` and
    ``'s``-type clitics separate (``don't`` → ``do n't``)."""
    return _WORDS.findall(text)


def _mix_weights(raw: str | None, where: str) -> tuple[float, ...] | None:
    if raw is None:
        return None
    try:
        values = tuple(float(x) for x in raw.split("/"))
    except ValueError:
        raise SpecError(f"{where}: mix={raw!r} must be numbers separated by '/', e.g. mix=0.2/1.0/-0.5") from None
    if not all(np.isfinite(values)):
        raise SpecError(f"{where}: mix={raw!r} must be finite numbers")
    return values


class ElmoOptions(TorchOptions):
    layer: Literal[LAYER_CHOICES] = Field(  # type: ignore[valid-type]
        "all", description="all = every layer to token tasks; 0 = char CNN, 1-2 = biLSTM; mix = weighted")
    mix: str | None = Field(None, description="ScalarMix weights w0/w1/w2 for layer=mix (softmax; default equal)")
    sha256: str | None = setting(None, pattern=r"^[0-9a-f]{64}$", form="64 lower-case hex digits",
                                 description="a 64-hex-digit SHA-256 that the downloaded weights must have")

    dtype: Literal[DTYPES] = dtype_field(show="never")  # type: ignore[valid-type]  (recorded, never in the name)


@register_model("elmo", 1, "ELMo biLM (bilm-tf options.json + HDF5 weights): character CNN and 2 biLSTM layers",
                ("elmo:original|PATH",), extra="elmo", options=ElmoOptions)
def _elmo(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    from ...paths import default_cache_dir

    if opts.max_length is not None:
        raise SpecError(f"{where}: max_length does not apply to ELMo (it reads whole sentences); drop it")
    arg = resolved.arg or "original"
    if arg in PUBLISHED:
        files = published_files(arg, where, opts.sha256, default_cache_dir())
    else:
        if opts.sha256 is not None:
            raise SpecError(f"{where}: sha256= checks a download; a local ELMo is identified by its weights' hash")
        files = local_files(arg, where)
    try:
        import h5py  # noqa: F401  (needed to read the weights)
    except ImportError as exc:
        raise ImportError("h5py") from exc
    return ElmoModel(files, layer=opts.layer, mix=_mix_weights(opts.mix, where),
                     setup=TorchSetup.of(resolved, builder), where=where, options=opts)
