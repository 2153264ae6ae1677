"""Extra STS3k files derived from pinned upstream files (participant ratings, modifier-type index lists).

The derived files' SHA-256 are checked too, so a derivation that changes is an error, never another table."""
from __future__ import annotations

import ast
import io
import json
from pathlib import Path
from typing import Sequence

from ... import textfile
from ...data.registry import DataFile, DataSource, Derivation
from ...errors import DataError

_REV = "c310abbe8a50f38135a67939d3e71a878ef359bb"
_RAW = f"https://raw.githubusercontent.com/bmmlab/compositional-semantics-eval/{_REV}"

XLSX = DataFile("upstream/STS3k_all_participant_data.xlsx", f"{_RAW}/Data-experiment/STS3k_all_participant_data.xlsx",
                "38f2e9d586ec82eb56014946ddc43f47875d3dbaca79b1e667ad87e9e106bbc7")
NOTEBOOK = DataFile("upstream/Check_split_half_reliability.ipynb", f"{_RAW}/Check_split_half_reliability.ipynb",
                    "b7e2a41ebfe431481f092a0e3c9afb8f8c86e73fea62744509a10344ce5379ac")

SHEET = "Expr_501_every_subject"
N_PARTICIPANTS = 501
#: The notebook's list variables (cell ``TYPES_CELL``) and the modifier type each lists, in file order.
TYPES_CELL = 5
TYPE_LISTS = {"places": "PLACE", "times": "TIME", "manner": "MANNER", "IOBJ": "add_IOBJ",
              "SUBJ_adj": "SUBJ_adj", "DOBJ_adj": "DOBJ_adj", "IOBJ_adj": "IOBJ_adj", "passive": "PASSIVE"}
TYPES_NOTE = ("bmmlab/compositional-semantics-eval Check_split_half_reliability.ipynb (commit "
              f"{_REV}), resampling cell; 0-based row indices into STS3k_all.txt; first modifier type of "
              "ONLY_MOD (added-modifier) pairs")


def ratings_long(paths: Sequence[Path]) -> bytes:
    """The spreadsheet's participant ratings as a long TSV: one row per rating, sheet rows in order
    (pair_index 0…2799), participant columns 1…501 in order, blank cells skipped."""
    import openpyxl

    book = openpyxl.load_workbook(paths[0], read_only=True, data_only=True)
    try:
        rows = book[SHEET].iter_rows(values_only=True)
        header = next(rows)
        expected = ("Main ID", "Adversarial", "Sentence pair", *range(1, N_PARTICIPANTS + 1), "Mean", "Std")
        if tuple(header) != expected:
            raise DataError(f"{paths[0]}: sheet {SHEET!r} does not have the columns Main ID, Adversarial, "
                            f"Sentence pair, 1…{N_PARTICIPANTS}, Mean, Std")
        out = io.StringIO()
        out.write("pair_index\tmain_id\tparticipant\trating_1to7\n")
        for pair, row in enumerate(rows):
            main_id = row[0]
            for participant, value in enumerate(row[3:3 + N_PARTICIPANTS], start=1):
                if value is None or value == "":
                    continue
                if not isinstance(value, int) or not 1 <= value <= 7:
                    raise DataError(f"{paths[0]}: sheet {SHEET!r} row {pair + 2}, participant {participant}: "
                                    f"{value!r} is not a rating 1–7")
                out.write(f"{pair}\t{main_id}\t{participant}\t{value}\n")
    finally:
        book.close()
    return out.getvalue().encode("utf-8")


def modifier_type_indices(paths: Sequence[Path]) -> bytes:
    """The eight index lists of the notebook's resampling cell as JSON. The notebook is read as JSON and
    the cell's code parsed (``ast``); each list is a literal read with ``ast.literal_eval``: nothing runs."""
    notebook = json.loads(textfile.read_text(paths[0]))
    cell = notebook["cells"][TYPES_CELL]
    source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    found: dict[str, list[int]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in TYPE_LISTS:
            values = ast.literal_eval(node.value)
            if not isinstance(values, list) or not all(isinstance(v, int) for v in values):
                raise DataError(f"{paths[0]}: cell {TYPES_CELL}: {node.targets[0].id} is not a list of integers")
            found[node.targets[0].id] = values
    missing = [name for name in TYPE_LISTS if name not in found]
    if missing:
        raise DataError(f"{paths[0]}: cell {TYPES_CELL} does not define {', '.join(missing)}")
    data = {"source": TYPES_NOTE, "indices": {TYPE_LISTS[name]: found[name] for name in TYPE_LISTS}}
    return json.dumps(data, indent=1).encode("utf-8")


STS3K_RATINGS = DataSource(
    name="sts3k-ratings",
    description=("STS3k participant ratings as a long table (60,120 ratings, from the upstream spreadsheet) "
                 "and the modifier-type index lists of 242 added-modifier pairs (from an upstream notebook)"),
    homepage="https://github.com/bmmlab/compositional-semantics-eval",
    revision=_REV,
    license="no licence file; released with Fodor, De Deyne & Suzuki (2024), cite the paper",
    folder="sts3k",
    download_size=3_084_520,
    files=(
        DataFile("STS3k_ratings_long.tsv", None,
                 "fe7efeb5c90fdcfc1c0134ebfca3932fe5fc5020ecbd6b426a2de355217aadaa",
                 Derivation((XLSX,), ratings_long,
                            f"sheet {SHEET}, rows in order, participant columns 1…501, blanks skipped")),
        DataFile("STS3k_only_mod_modifier_type_indices.json", None,
                 "635d5dd79d72a65e80ce73c115aab443c3b9e7c62c0c0515927ca501b24b91e9",
                 Derivation((NOTEBOOK,), modifier_type_indices,
                            f"the eight index lists of notebook cell {TYPES_CELL}, read as literals")),
    ),
)

#: What the registry reads (``compeval.data.registry``): importing this module registers nothing.
SOURCES = (STS3K_RATINGS,)
