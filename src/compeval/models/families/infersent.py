"""InferSent (Conneau et al. 2017) from the released ``infersent1.pkl`` / ``infersent2.pkl`` state dict
(``enc_lstm``: one bidirectional LSTM, 300 → 2 × 2048) over its word-vector file; docs/models.md has the
tokenisation and the identity. A sentence is max-pooled over its own positions only: the released
version-1 code lets a shorter sentence's zero padding into the max, so its vector would depend on its
batch. The weights are read with ``torch.load(weights_only=True)``: no pickled code runs.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np

from ... import textfile
from ...errors import SpecError
from .elmo import file_sha256
from ..options import DTYPES, TorchOptions, dtype_field, identity_field
from ..registry import register_model
from ..transformers_common import TorchModel, TorchSetup

BOUNDARIES = {1: ("<s>", "</s>"), 2: ("<p>", "</p>")}
LSTM_KEYS = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
TOKENISATION = {"released": "nltk-word_tokenize.v1", "line": "nltk-word_tokenize-line.v1"}


def tokenize(text: str, version: int, tok: str = "released") -> list[str]:
    """The released tokenisation (``InferSent.tokenize``): NLTK ``word_tokenize``; version 2 adds the
    ``n't`` rewrite. ``tok=line`` passes ``preserve_line=True`` (no sentence split, no Punkt data)."""
    from nltk.tokenize import word_tokenize

    try:
        words = word_tokenize(text, preserve_line=(tok == "line"))
    except LookupError:
        raise SpecError("infersent: tok=released needs NLTK's Punkt model (python -m nltk.downloader punkt_tab); "
                        "or use tok=line (no sentence split: the same tokens for one-sentence texts)") from None
    if version == 2:
        return " ".join(words).replace(" n't ", "n 't ").split()
    return words


def read_state(path: Path, where: str) -> dict[str, np.ndarray]:
    """The released state dict: exactly the eight ``enc_lstm`` tensors of a one-layer biLSTM, shapes checked."""
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several kinds for a file that is not a tensor pickle
        raise SpecError(f"{where}: {path} is not a PyTorch state dict ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict):
        raise SpecError(f"{where}: {path} holds a {type(state).__name__}, not InferSent's state dict")
    want = {f"enc_lstm.{k}{s}" for k in LSTM_KEYS for s in ("", "_reverse")}
    if set(state) != want:
        extra, missing = sorted(set(state) - want), sorted(want - set(state))
        raise SpecError(f"{where}: {path} is not InferSent's biLSTM state dict (missing {missing or 'none'}, "
                        f"unexpected {extra or 'none'})")
    out = {k[len("enc_lstm."):]: state[k].float().numpy() for k in want}
    four_h, d = out["weight_ih_l0"].shape
    h = four_h // 4
    for s in ("", "_reverse"):
        for k, shape in (("weight_ih_l0", (4 * h, d)), ("weight_hh_l0", (4 * h, h)), ("bias_ih_l0", (4 * h,)),
                         ("bias_hh_l0", (4 * h,))):
            if out[k + s].shape != shape:
                raise SpecError(f"{where}: enc_lstm.{k}{s} has shape {out[k + s].shape}, expected {shape}")
    return out


class WordVectors:
    """A word-vector text file (``word v1 … vD`` per line, the release's format), read lazily: each scan keeps
    only the words asked for, and words found or known absent are remembered, so a file of millions of
    words is read once per batch of new words, never held whole."""

    def __init__(self, path: Path, dim: int, where: str):
        self.path, self.dim, self.where = path, dim, where
        self.table: dict[str, np.ndarray] = {}
        self.absent: set[str] = set()

    def lookup(self, words: set[str]) -> None:
        todo = words - set(self.table) - self.absent
        if not todo:
            return
        for line_no, line in textfile.lines(self.path):  # UTF-8, BOM stripped, .gz, streamed
            word, _, rest = line.partition(" ")
            if word in todo:
                vec = np.array(rest.split(), dtype=np.float32)
                if vec.shape != (self.dim,):
                    raise SpecError(f"{self.where}: {self.path}:{line_no}: {word!r} has {vec.size} values; "
                                    f"the weights take {self.dim}-dimensional word vectors")
                self.table[word] = vec
        self.absent |= todo - set(self.table)


class InferSentModel(TorchModel):
    """The released InferSent encoder: biLSTM over word vectors, max pooling (module docstring)."""

    def __init__(self, weights: Path, vectors: Path, version: int, tok: str = "released", setup: Any = None,
                 where: str = "infersent", options: "InferSentOptions | None" = None):
        if version not in BOUNDARIES:
            raise SpecError(f"{where}: version={version}: InferSent has versions 1 (GloVe) and 2 (fastText)")
        self.where, self.version, self.tok = where, version, tok
        self.state = read_state(weights, where)
        self.hidden = self.state["weight_hh_l0"].shape[1]
        self.vectors = WordVectors(vectors, self.state["weight_ih_l0"].shape[1], where)
        self.setup = setup or TorchSetup.outside_a_run()
        if options is None:  # made directly: the options its arguments amount to (checked above)
            options = InferSentOptions.model_construct(vectors=str(vectors), version=version, tok=tok,
                                                       dtype=self.setup.dtype)
        self._config = options.to_model_config(
            f"infersent{version}", location=str(weights),
            resolved={"vectors": "sha256:" + file_sha256(vectors), "tok": TOKENISATION[tok]},
            facts={"weights": "sha256:" + file_sha256(weights), "pool": "max"})
        self._net: Any = None

    def _load(self) -> Any:
        if self._net is None:
            import torch

            lstm = torch.nn.LSTM(self.vectors.dim, self.hidden, 1, bidirectional=True)
            lstm.load_state_dict({k: torch.from_numpy(v) for k, v in self.state.items()})
            self._net = lstm.to(self.device).eval()
            self._config = self._config.model_copy(update={"settings": self.setup.settings()})
        return self._net

    def close(self) -> None:
        self._net = None

    def words(self, text: str) -> list[str]:
        """The words the encoder reads for ``text``: boundaries added, words without a vector dropped."""
        bos, eos = BOUNDARIES[self.version]
        kept = [w for w in [bos, *tokenize(text, self.version, self.tok), eos] if w in self.vectors.table]
        return kept or ([eos] if eos in self.vectors.table else [])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One 2 × hidden vector per text; a text none of whose words (nor ``</s>``) has a vector is all zeros
        (its cosine is missing, as the tasks' missing-score policy counts)."""
        import torch
        from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

        bos, eos = BOUNDARIES[self.version]
        tokens = [tokenize(t, self.version, self.tok) for t in texts]
        self.vectors.lookup({w for ws in tokens for w in ws} | {bos, eos})
        sentences = [self.words(t) for t in texts]
        net = self._load()
        out = np.zeros((len(texts), 2 * self.hidden), dtype=np.float32)
        order = [i for i in sorted(range(len(texts)), key=lambda i: -len(sentences[i])) if sentences[i]]
        with torch.inference_mode():
            for b in range(0, len(order), self.setup.batch):
                idx = order[b: b + self.setup.batch]
                lengths = [len(sentences[i]) for i in idx]
                x = np.zeros((lengths[0], len(idx), self.vectors.dim), dtype=np.float32)
                for r, i in enumerate(idx):
                    x[: lengths[r], r] = np.stack([self.vectors.table[w] for w in sentences[i]])
                packed = pack_padded_sequence(torch.from_numpy(x).to(self.device), lengths)
                states = pad_packed_sequence(net(packed)[0], padding_value=float("-inf"))[0]
                out[idx] = states.max(dim=0).values.float().cpu().numpy()
        return out


class InferSentOptions(TorchOptions):
    vectors: str | None = identity_field(None, show="never", description="the word-vector text file the weights "
                                         "were trained on (GloVe 840B 300d for version 1, fastText crawl-300d-2M for "
                                         "version 2)")  # recorded by its content's SHA-256
    version: int = identity_field(1, show="always", ge=1, le=2, description="1: GloVe, <s> </s>; 2: fastText, "
                                  "<p> </p>, Moses-like n't")
    tok: Literal["released", "line"] = identity_field("released", show="never", description="released: NLTK "
                                                      "word_tokenize (needs Punkt); line: no sentence split "
                                                      "(preserve_line)")  # recorded as TOKENISATION names it

    dtype: Literal[DTYPES] = dtype_field(show="never")  # type: ignore[valid-type]  (recorded, never in the name)


@register_model("infersent", 1, "InferSent (Conneau et al. 2017): released biLSTM-max weights over word vectors",
                ("infersent:PATH",), extra="infersent", options=InferSentOptions)
def _infersent(resolved, builder):
    opts, where = resolved.options, str(resolved.spec)
    if not resolved.arg:
        raise SpecError(f"{where}: name the weights: infersent:PATH (infersent1.pkl or infersent2.pkl),"
                        "vectors=PATH")
    if not opts.vectors:
        raise SpecError(f"{where}: name the word vectors the weights were trained on: ,vectors=PATH (GloVe 840B "
                        "300d text file for version 1, fastText crawl-300d-2M for version 2)")
    if opts.max_length is not None:
        raise SpecError(f"{where}: max_length does not apply to InferSent (it reads whole sentences); drop it")
    if opts.dtype != "float32":
        raise SpecError(f"{where}: InferSent runs in float32 (the released weights' precision); drop dtype=")
    weights, vectors = Path(resolved.arg).expanduser(), Path(opts.vectors).expanduser()
    for what, path in (("weights", weights), ("vectors", vectors)):
        if not path.is_file():
            raise SpecError(f"{where}: {what} file {path} not found")
    try:
        import nltk  # noqa: F401  (the released tokenisation)
    except ImportError as exc:
        raise ImportError("nltk") from exc
    return InferSentModel(weights, vectors, opts.version, opts.tok,
                          setup=TorchSetup.of(resolved, builder), where=where, options=opts)
