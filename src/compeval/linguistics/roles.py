"""Where role parses come from: released files (hand-corrected VerbNet, GPT-4), a user's file, or a labeler.
Released files are keyed by pair id (row ``k-1`` of the sentence file is pair ``k``), looked up by pair
first (the paper used per-pair parses of a sentence parsed twice), then by sentence text."""
from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .. import textfile
from ..data.registry import DataContext, sha256_file
from ..errors import DataError, MalformedDataError, SpecError

ROLES = ("Agent", "Verb", "Patient", "Theme", "Time", "Manner", "Location", "Trajectory")
EMPTY_MARKERS = {"", "NONE", "NA", "N/A", "NULL"}

RoleParse = dict  # role -> str | None, for the eight ROLES


def normalize_text(text: str) -> str:
    """The lookup key of a sentence: surrounding space stripped, inner runs of space collapsed."""
    return " ".join(text.split())


def clean_parse(raw: Mapping[str, object] | None) -> RoleParse:
    """Keep the eight roles (the authors' code weighs only these); ``"NONE"`` and ``"NA"`` become ``None``."""
    raw = raw or {}
    out: RoleParse = {}
    for role in ROLES:
        value = raw.get(role)
        value = value.strip() if isinstance(value, str) else None
        out[role] = None if value is None or value.upper() in EMPTY_MARKERS else value
    return out


def parse_context(data_dir: Path | None = None) -> DataContext:
    """Where released parses are read from: the runner's --data-dir, else $COMPEVAL_DATA_DIR, else download."""
    return DataContext(data_dir)


@dataclass
class ParseTable:
    """Role parses by sentence pair and by sentence text, plus the hashes of the files they came from."""

    by_pair: dict[tuple[str, str], tuple[RoleParse, RoleParse]] = field(default_factory=dict)
    by_text: dict[str, RoleParse] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # name -> sha256
    conflicts: int = 0  # sentences parsed differently in different pairs (the first parse is kept)

    def add_pair(self, text_a: str, text_b: str, parse_a: RoleParse, parse_b: RoleParse) -> None:
        ka, kb = normalize_text(text_a), normalize_text(text_b)
        self.by_pair.setdefault((ka, kb), (parse_a, parse_b))
        for key, parse in ((ka, parse_a), (kb, parse_b)):
            self.add_text(key, parse)

    def add_text(self, text: str, parse: RoleParse) -> None:
        key = normalize_text(text)
        old = self.by_text.setdefault(key, parse)
        if old is not parse and old != parse:
            self.conflicts += 1

    @property
    def digest(self) -> str:
        """One hash over the parse files read (names and contents), for the model's id."""
        payload = json.dumps(sorted(self.files.items()))
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def pair(self, text_a: str, text_b: str) -> tuple[RoleParse | None, RoleParse | None]:
        ka, kb = normalize_text(text_a), normalize_text(text_b)
        hit = self.by_pair.get((ka, kb))
        if hit is not None:
            return hit
        return self.by_text.get(ka), self.by_text.get(kb)


def missing_parse_error(text: str, source: str) -> DataError:
    return DataError(
        f"no role parse for the sentence {text!r} in parses={source}. Use parses=spacy (the built-in "
        "labeler parses any text), give a file that covers it (parses=PATH), or add missing=nan to "
        "score such pairs as missing (NaN)"
    )


# ----------------------------------------------------------------------------------------------
# File readers
# ----------------------------------------------------------------------------------------------

def read_sentence_pairs(path: Path) -> list[tuple[str, str]]:
    """Sentence pairs of a ``s1;s2;score`` file (STS3k authors' layout), or of an AMR parse JSON."""
    if path.suffix == ".json":
        data = _load_json(path)
        return [(str(v[0]), str(v[1])) for _, v in sorted(data.items(), key=lambda kv: int(kv[0]))]
    pairs = []
    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.rstrip("\n").rsplit(";", 2)
            if len(parts) != 3:
                raise MalformedDataError(path, line_no, "expected 'sentence 1;sentence 2;score'")
            pairs.append((parts[0], parts[1]))
    return pairs


def _load_json(path: Path) -> dict:
    try:
        with textfile.open_text(path) as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise MalformedDataError(path, exc.lineno, f"not valid JSON ({exc.msg})") from None


def add_id_keyed_json(table: ParseTable, path: Path, pairs: Sequence[tuple[str, str]]) -> None:
    """``{"1": [roles_s1, roles_s2], …}`` (VerbNet ``*_mod.json``, GPT-4 extract); pair k is row k-1."""
    data = _load_json(path)
    for key, value in data.items():
        try:
            row = int(key) - 1
            parse_a, parse_b = value
        except (ValueError, TypeError):
            raise MalformedDataError(path, 1, f"entry {key!r} is not 'pair id: [roles_1, roles_2]'") from None
        if not 0 <= row < len(pairs):
            raise DataError(f"{path}: pair id {key} has no row in the sentence file ({len(pairs)} pairs)")
        table.add_pair(pairs[row][0], pairs[row][1], clean_parse(parse_a), clean_parse(parse_b))
    table.files[path.name] = sha256_file(path)


def add_text_keyed_json(table: ParseTable, path: Path) -> None:
    """``{"sentence": {role: filler, …}, …}``: the simplest format for a user's own parser output."""
    data = _load_json(path)
    for text, roles in data.items():
        if not isinstance(roles, dict):
            raise MalformedDataError(path, 1, f"value for {text[:40]!r} is not a role dict")
        table.add_text(text, clean_parse(roles))
    table.files[path.name] = sha256_file(path)


def add_fixed_csv(table: ParseTable, path: Path) -> None:
    """The authors' correction spreadsheets as CSV: ``Sentence 1, Sentence 2, Indx``, then the roles of
    sentence 1 (``Agent`` …) and of sentence 2 (``Agent.1`` …)."""
    with textfile.open_text(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "Sentence 1" not in rows[0] or "Agent.1" not in rows[0]:
        raise MalformedDataError(path, 1, "expected columns 'Sentence 1', 'Sentence 2', 'Agent' … 'Agent.1' …")
    for row in rows:
        if not (row.get("Sentence 1") or "").strip():
            continue
        a = clean_parse({r: row.get(r) for r in ROLES})
        b = clean_parse({r: row.get(f"{r}.1") for r in ROLES})
        table.add_pair(row["Sentence 1"], row["Sentence 2"], a, b)
    table.files[path.name] = sha256_file(path)


def load_parse_file(path: Path, sentences: Path | None = None) -> ParseTable:
    """A user's parse file: text-keyed JSON, pair-id JSON with ``sentences=`` (a ``s1;s2;score`` file),
    or a correction-spreadsheet CSV."""
    table = ParseTable()
    if not path.is_file():
        raise SpecError(f"parse file {path} does not exist")
    if path.suffix.lower() == ".csv":
        add_fixed_csv(table, path)
        return table
    data = _load_json(path)
    id_keyed = bool(data) and all(re.fullmatch(r"\d+", k) for k in data)
    if id_keyed:
        if sentences is None:
            raise SpecError(
                f"{path} is keyed by pair id; give the sentences it belongs to with "
                "sentences=PATH (a 's1;s2;score' file whose row k-1 is pair k)"
            )
        add_id_keyed_json(table, path, read_sentence_pairs(sentences))
        table.files[sentences.name] = sha256_file(sentences)
    else:
        add_text_keyed_json(table, path)
    return table


# ----------------------------------------------------------------------------------------------
# Released parse sets, through the data registry
# ----------------------------------------------------------------------------------------------

# (parse file in sts3k-parses, (data source, file) holding the sentences of the same pair ids).
# The STSb captions sentences come from the AMR parse JSON of the same pairs (it carries the texts,
# identical to STSb_captions_test.txt), because that file is not registered on its own.
HAND_FILES: tuple[tuple[str, tuple[str, str]], ...] = (
    ("verbnet/full_VerbNet_pass_STS3k_all_mod.json", ("sts3k", "STS3k_all.txt")),
    ("verbnet/full_VerbNet_pass_Fodor_pilot_2022_mod.json", ("sts3k", "pilot/Fodor_pilot_2022.txt")),
    ("verbnet/full_VerbNet_pass_GS2011_processed_mod.json", ("gs2011", "GS2011_processed.csv")),
    ("verbnet/full_VerbNet_pass_STSb_captions_test_mod.json",
     ("sts3k-parses", "amr/STSb_captions_test_AMR_parse.json")),
)

GPT4_LOCAL = "sts3k/parses/verbnet/STS3k_all_parse-GPT4_extracted.json"


def load_hand_parses(ctx: DataContext | None = None, files: Iterable[tuple[str, tuple[str, str]]] = HAND_FILES
                     ) -> ParseTable:
    """The hand-corrected VerbNet parses the paper used (STS3k, pilot, GS2011, STSb captions;
    KS2013 and STSS-131 have only uncorrected parses upstream)."""
    ctx = ctx or parse_context()
    table = ParseTable()
    for parse_rel, (src, sent_rel) in files:
        sent_path = ctx.path(src, sent_rel)
        add_id_keyed_json(table, ctx.path("sts3k-parses", parse_rel), read_sentence_pairs(sent_path))
    return table


def load_gpt4_parses(ctx: DataContext | None = None) -> ParseTable:
    """The GPT-4 role parse of STS3k. Upstream it exists only inside a spreadsheet, so this reads the
    JSON extracted from it in a local data folder (``<data_dir>/sts3k/parses/verbnet/…``)."""
    ctx = ctx or parse_context()
    if ctx.data_dir is None or not (ctx.data_dir / GPT4_LOCAL).is_file():
        raise DataError(
            "parses=gpt4 reads STS3k_all_parse-GPT4_extracted.json from a local data folder "
            f"(<data_dir>/{GPT4_LOCAL}); set COMPEVAL_DATA_DIR to a folder that has it, or pass "
            "parses=PATH"
        )
    table = ParseTable()
    add_id_keyed_json(table, ctx.data_dir / GPT4_LOCAL, read_sentence_pairs(ctx.path("sts3k", "STS3k_all.txt")))
    return table
