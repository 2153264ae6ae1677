"""Published reference rows (each suite's ``published.py``, carried by its tasks' metadata): each carries a
citation, and the tables transcribed from the method specs match the specs' own tables (read from
``shared/spec`` beside the data folder)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compeval.results.schema import PublishedScore
from compeval.tasks.registry import TASKS, discover


def published() -> list[tuple[str, PublishedScore]]:
    """(task name, row) for every published row of every registered task."""
    discover()
    return [(name, p) for name, cls in TASKS.items() for p in cls.metadata.published]


def published_for(task: str) -> list[PublishedScore]:
    return [p for t, p in published() if t == task]


def published_value(model: str, task: str, subset: str, metric: str) -> PublishedScore | None:
    return next((p for t, p in published() if (p.model, t, p.subset, p.metric) == (model, task, subset, metric)),
                None)


def test_every_row_names_a_task_and_a_citation():
    rows = published()
    assert len(rows) > 100
    for task, p in rows:
        assert p.citation and p.model and p.metric, p
        assert -1.0 <= p.value <= 1.0, p  # every figure is on the 0-1 (or -1-1) scale compeval reports
        meta = TASKS[task].metadata
        assert p.subset in meta.subsets, (task, p)
        if p.subset == meta.main_subset and meta.ranked:
            assert p.metric == meta.main_metric, (task, p)
    keys = [(p.model, task, p.subset, p.metric) for task, p in rows]
    assert len(keys) == len(set(keys)), "a published figure is listed twice"


def _spec(data_dir: Path, name: str) -> str:
    path = data_dir.parent / "spec" / name
    if not path.is_file():
        pytest.skip(f"no method spec at {path}")
    return path.read_text(encoding="utf-8")


def _number(cell: str) -> float | None:
    cell = cell.strip().replace("−", "-")
    if cell in ("–", ""):
        return None
    return float(cell)


def test_sts_table_matches_the_spec(data_dir):
    text = _spec(data_dir, "sts.md")
    header = next(line for line in text.splitlines() if line.startswith("| model | STSb-capt"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    wanted = {"STSb-test": ("stsb", "all"), "SICK": ("sick", "all"), "STSS-131": ("stss131", "all"),
              "STS3k-all": ("sts3k", "all"), "STS3k-non": ("sts3k", "non"), "STS3k-adv": ("sts3k", "adv")}
    rows = 0
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| model") or "---" in line:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(cols) or not re.match(r"^[−\-.\d–]", cells[1]):
            continue
        rows += 1
        for col, (task, subset) in wanted.items():
            value = _number(cells[cols.index(col)])
            got = published_value(cells[0], task, subset, "spearman")
            if value is None:
                assert got is None, (cells[0], col)
            else:
                assert got is not None and got.value == pytest.approx(value), (cells[0], col)
    assert rows == 16


def test_inference_auc_table_matches_the_spec(data_dir):
    text = _spec(data_dir, "inference.md")
    averages = {}
    for line in text.splitlines():
        m = re.match(r"^\| ([^|]+?) \|(?: [.\d]* \|){4} ([.\d]+) \|$", line)
        if m:
            averages[m.group(1)] = float(m.group(2))
    assert averages["Overlap"] == pytest.approx(0.7427)
    for model, value in averages.items():
        assert published_value(model, "invariance-relation", "all", "auc").value == pytest.approx(value)
    assert len(published_for("invariance-relation")) == len(averages) + 4  # + E&P and TFP add / mult


def _modifier_tables(text: str) -> dict[int, dict[str, dict[str, float]]]:
    """Every table of the modifier spec: number -> the spec's model name -> column header -> value."""
    tables = {}
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        number = int(re.match(r"Table (\d)", block).group(1))
        lines = [line for line in block.splitlines() if line.startswith("| ")]
        cols = [c.strip() for c in lines[0].strip("|").split("|")][1:]
        tables[number] = {cells[0]: dict(zip(cols, map(float, cells[1:]), strict=True))
                          for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[1:])}
    return tables


def test_modifier_tables_match_the_spec(data_dir):
    """Tables 2-8 of Carvalho et al. (2024) as the spec prints them: every cell of every model in
    ``published.py``, and the results carry Tables 2, 6, 7 and 8 (the four-decimal appendix tables)."""
    from compeval.tasks.modifiers import published as pub

    tables = _modifier_tables(_spec(data_dir, "modifiers-tables.md"))
    assert sorted(tables) == [2, 3, 4, 5, 6, 7, 8]
    names = dict(zip(tables[2], pub.MODELS, strict=True))  # the spec's names, in the paper's row order
    assert names == {"DPR": "DPR", "LaBSE": "LaBSE", "Specter": "Specter", "TE3-small": "text-embedding-3-small",
                     "NV-Embed-v2": "NV-Embed-v2", "stella_en_1.5B_v5": "stella", "Glove": "GloVe",
                     "Word2Vec": "word2vec"}
    columns = {2: pub.MODIFIER_TYPES, 3: pub.TABLE3_PAIRS, 4: pub.TABLE7_PAIRS[:5], 5: pub.MODIFIER_TYPES,
               6: pub.TABLE6_PAIRS, 7: pub.TABLE7_PAIRS, 8: pub.MODIFIER_TYPES}
    for number, rows in tables.items():
        assert list(rows) == list(names), number
        for spec_name, row in rows.items():
            header = [c if isinstance(c, str) else f"({c[0]}, {c[1]})" for c in columns[number]]
            assert list(row) == header, number
            assert getattr(pub, f"TABLE{number}")[names[spec_name]] == tuple(row.values()), (number, spec_name)
    carried = {(task, p.model, p.subset): p.value for task, p in published() if task.startswith("modifiers-")}
    for number, task, metric in ((2, "modifiers-test1", "test1_macro"), (6, "modifiers-test1", "test1_macro"),
                                 (7, "modifiers-test2", "test2_macro"), (8, "modifiers-test3", "test3_macro")):
        for spec_name, row in tables[number].items():
            for col, value in zip(columns[number], row.values()):
                subset = col if isinstance(col, str) else f"{col[0]}|{col[1]}"
                assert carried.pop((task, names[spec_name], subset)) == value, (number, spec_name, col)
    # what is left: the AN aggregate of the models at 1.0 in every type of Table 2
    assert carried == {("modifiers-test1", m, "AN"): 1.0
                       for m in ("LaBSE", "text-embedding-3-small", "stella", "GloVe", "word2vec")}


def test_modifier_body_tables_against_the_appendix(data_dir):
    """The body's Tables 3-5 are the appendix's 6-8 to two decimals except in nine printed cells, which the
    reproduction rows compare at their own rounding; a change of the spec that adds or removes one shows here."""
    from compeval.tasks.modifiers import published as pub

    differ = set()
    for number, body, full in ((3, pub.TABLE3, pub.TABLE6), (4, pub.TABLE4, pub.TABLE7), (5, pub.TABLE5, pub.TABLE8)):
        for model in pub.MODELS:
            for k, (short, long) in enumerate(zip(body[model], full[model][:5])):
                if abs(short - long) > 0.005 + 1e-9:
                    differ.add((model, number, k))
    assert differ == {("DPR", 3, 4), ("LaBSE", 4, 1), ("text-embedding-3-small", 3, 0), ("text-embedding-3-small", 3, 1),
                      ("text-embedding-3-small", 3, 2), ("text-embedding-3-small", 3, 4), ("NV-Embed-v2", 4, 3),
                      ("stella", 3, 1), ("stella", 4, 1)}
