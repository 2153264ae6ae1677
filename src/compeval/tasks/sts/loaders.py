"""Readers for the STS data sets. Each returns a DataFrame (sentence_1, sentence_2, gold, line) and
raises ``MalformedDataError`` naming file and line for anything it cannot read."""
from __future__ import annotations

import math
from pathlib import Path


from ... import textfile
from ...errors import MalformedDataError
from ...lazy import lazy_module

pd = lazy_module("pandas")


def _frame(rows: list[tuple[str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["sentence_1", "sentence_2", "gold", "line"])


def _check(path: Path, line_no: int, s1: str, s2: str, score: str) -> tuple[str, str, float]:
    if not s1.strip():
        raise MalformedDataError(path, line_no, "sentence 1 is empty")
    if not s2.strip():
        raise MalformedDataError(path, line_no, "sentence 2 is empty")
    try:
        value = float(score)
    except ValueError:
        raise MalformedDataError(path, line_no, f"score {score!r} is not a number") from None
    if not math.isfinite(value):  # float() takes "nan" and "inf": a NaN gold score turns every metric into NaN
        raise MalformedDataError(path, line_no, f"score {score!r} is not a finite number")
    return s1.strip(), s2.strip(), value


def read_semicolon(path: Path) -> pd.DataFrame:
    """``s1;s2;score`` without header (STS3k, its pilot, GS2011, KS2013, STSS-131 processed copies)."""
    rows = []
    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            head, sep, score = line.rpartition(";")
            parts = head.split(";")
            if not sep or len(parts) != 2:
                raise MalformedDataError(
                    path, line_no, f"expected 3 ';'-separated fields (s1;s2;score), found {line.count(';') + 1}"
                )
            rows.append((*_check(path, line_no, parts[0], parts[1], score), line_no))
    if not rows:
        raise MalformedDataError(path, 1, "no sentence pairs found")
    return _frame(rows)


def read_stsb(path: Path) -> pd.DataFrame:
    """Original STS-B release: tab-separated, no quoting; fields 4–6 are score, s1, s2."""
    rows = []
    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) < 7:
                raise MalformedDataError(path, line_no, f"expected at least 7 tab-separated fields, found {len(fields)}")
            rows.append((*_check(path, line_no, fields[5], fields[6], fields[4]), line_no))
    return _frame(rows)


def read_sick(path: Path, split: str = "all") -> pd.DataFrame:
    """SICK.txt: tab-separated with header; relatedness_score 1–5; SemEval_set TRAIN/TRIAL/TEST."""
    rows = []
    with textfile.open_text(path, newline="") as f:
        header = f.readline().rstrip("\r\n").split("\t")
        try:
            ia, ib, isc, iset = (header.index(c) for c in ("sentence_A", "sentence_B", "relatedness_score", "SemEval_set"))
        except ValueError:
            raise MalformedDataError(path, 1, "header lacks sentence_A / sentence_B / relatedness_score / SemEval_set") from None
        for line_no, line in enumerate(f, 2):
            line = line.rstrip("\r\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != len(header):
                raise MalformedDataError(path, line_no, f"expected {len(header)} tab-separated fields, found {len(fields)}")
            if split != "all" and fields[iset].lower() != split:
                continue
            rows.append((*_check(path, line_no, fields[ia], fields[ib], fields[isc]), line_no))
    return _frame(rows)


def read_indices(path: Path, n_rows: int) -> list[int]:
    out = []
    with textfile.open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                i = int(line.strip())
            except ValueError:
                raise MalformedDataError(path, line_no, f"expected a row index, got {line.strip()!r}") from None
            if not 0 <= i < n_rows:
                raise MalformedDataError(path, line_no, f"row index {i} outside 0..{n_rows - 1}")
            out.append(i)
    return out


def read_str2022(path: Path) -> pd.DataFrame:
    """STR-2022 ``sem_text_rel_ranked.csv``: comma-separated with a header; the quoted ``Text`` field holds
    the two sentences separated by one newline, ``Score`` the relatedness 0–1. Read with the csv module
    (quoted fields span lines); ``line`` is the data row's number (header = row 0)."""
    import csv

    rows = []
    with textfile.open_text(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or "Text" not in header or "Score" not in header:
            raise MalformedDataError(path, 1, "header lacks Text / Score")
        it, isc = header.index("Text"), header.index("Score")
        for row_no, fields in enumerate(reader, 1):
            if not fields:
                continue
            if len(fields) != len(header):
                raise MalformedDataError(path, reader.line_num, f"expected {len(header)} fields, found {len(fields)}")
            parts = fields[it].replace("\r\n", "\n").split("\n")
            if len(parts) != 2:
                raise MalformedDataError(path, reader.line_num,
                                         f"Text holds {len(parts)} lines, expected two sentences on two lines")
            rows.append((*_check(path, reader.line_num, parts[0], parts[1], fields[isc]), row_no))
    if not rows:
        raise MalformedDataError(path, 1, "no sentence pairs found")
    return _frame(rows)
