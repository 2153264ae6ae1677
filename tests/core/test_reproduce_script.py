"""benchmarks/reproduce.py: the row catalogue is well formed and the table says why a row was not run."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reproduce.py"


def _module():
    spec = importlib.util.spec_from_file_location("reproduce", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_groups_are_unique_and_rows_point_at_their_tasks():
    mod = _module()
    gs = mod.groups()
    assert len({g.key for g in gs}) == len(gs)
    for g in gs:
        names = {t.split(",")[0] for t in g.tasks}
        for row in g.rows:
            assert (row.result_task or g.tasks[0].split(",")[0]) in names


def test_table_fills_values_differences_and_skip_reasons():
    mod = _module()
    gs = [g for g in mod.groups() if g.key in ("sts3k-human", "sentbert-center")]
    args = SimpleNamespace(mpnet=None, numberbatch=None)
    results = {"sts3k-human": ({("sts3k-reliability", "all", "split_half"): 0.9537}, None),
               "sentbert-center": ({}, "needs --mpnet")}
    text = mod.table(results, gs, args)
    assert "| humans | all | split_half | 0.953 | 0.954 | +0.001 |" in text
    assert "skipped: needs --mpnet" in text and "MPNET_DIR" in text
    assert "not in results" in text  # rows of a run group that produced no value say so


def test_rewrite_keeps_the_hand_maintained_sections(tmp_path):
    mod = _module()
    out = tmp_path / "reproduction.md"
    out.write_text(f"old generated table\n\n{mod.KEEP_FROM} -->\n## Hand rows\n| a | b |\n", encoding="utf-8")
    mod.main(["--only", "sentbert-center", "--mpnet", "", "--write", str(out), "--output-dir", str(tmp_path / "r")])
    text = out.read_text(encoding="utf-8")
    assert "old generated table" not in text and "skipped: needs --mpnet" in text
    assert text.count(mod.KEEP_FROM) == 1 and text.endswith("## Hand rows\n| a | b |\n")


def test_status_reproduced_within_rounding_or_interval_else_the_reason():
    mod = _module()
    row = mod.Row("P", "Table 8", "GloVe", "S-I", "test3_macro", 0.6060, "50 d vectors", 4)
    assert mod.status(row, 0.60604, None, None, False) == "reproduced"  # within half a unit of the 4th decimal
    assert mod.status(row, 0.6061, None, None, False) == "explained: 50 d vectors"
    assert mod.status(row, 0.5, (0.40, 0.61), None, False) == "reproduced"  # the printed value lies in the interval
    assert mod.status(row, 0.5, (0.40, 0.60), None, False) == "explained: 50 d vectors"
    assert mod.status(mod.Row("P", "T", "m", "s", "x", 0.5, "", 2), 0.6, None, None, False) == "unexplained"
    assert mod.status(row, None, None, "weights not here", True) == "not computable here: weights not here"
    assert mod.status(row, None, None, "needs --mpnet", False) == "not run: needs --mpnet"
    assert mod.status(row, None, None, None, False) == "missing: not in results"
    assert mod.status(mod.Row("P", "T", "m", "s", "x", None), 0.6, None, None, False) == "no published value"


def test_modifier_tables_rows_cover_every_printed_glove_cell_and_the_other_models():
    mod = _module()
    from compeval.tasks.modifiers import published as pub

    gs = {g.key: g for g in mod.groups() if g.key.startswith("modifiers-tables-")}
    glove = gs.pop("modifiers-tables-glove")
    assert [(r.table, r.subset, r.published) for r in glove.rows] == (
        [("Table 3", f"{a}|{b}", v) for (a, b), v in zip(pub.TABLE3_PAIRS, pub.TABLE3["GloVe"])]
        + [("Table 6", f"{a}|{b}", v) for (a, b), v in zip(pub.TABLE6_PAIRS, pub.TABLE6["GloVe"])]
        + [("Table 7", f"{a}|{b}", v) for (a, b), v in zip(pub.TABLE7_PAIRS, pub.TABLE7["GloVe"])]
        + [("Table 8", t, v) for t, v in zip(pub.MODIFIER_TYPES, pub.TABLE8["GloVe"])])
    assert sorted(r.model for g in gs.values() for r in g.rows) == sorted(
        m for m in pub.MODELS if m != "GloVe" for _ in range(4))
    assert all(g.unavailable and g.status_table for g in gs.values())


def test_modifier_tables_on_a_real_glove_run(tmp_path, monkeypatch, capsys):
    """GloVe's rows of Tables 3 and 6-8 from a real run (few resamples): known values, a status on every row,
    and the counts by status printed and written."""
    mod = _module()
    real = mod.groups

    def small():
        gs = [g for g in real() if g.key in ("modifiers-tables-glove", "modifiers-tables-dpr")]
        for g in gs:
            g.tasks = [f"{t},n_resamples=50,permutations=0" for t in g.tasks]
        return gs

    monkeypatch.setattr(mod, "groups", small)
    out = tmp_path / "reproduction.md"
    mod.main(["--only", "modifiers-tables-*", "--write", str(out), "--output-dir", str(tmp_path / "r"),
              "--cache-dir", str(tmp_path / "cache")])
    text = out.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| Carvalho")]
    assert len(rows) == 50 + 4
    statuses = [line.split(" | ")[-2] for line in rows]
    n = {s: sum(x.startswith(s) for x in statuses) for s in ("reproduced", "explained", "not computable here")}
    assert sum(n.values()) == len(rows) and n["not computable here"] == 4
    line = (f"Rows by status: reproduced {n['reproduced']}, explained {n['explained']}, "
            f"not computable here {n['not computable here']}.")
    assert line in text
    assert f"rows by status: reproduced {n['reproduced']}, explained {n['explained']}, not computable here 4" \
        in capsys.readouterr().out
    # the diagonal of test 2 is 0.5 by symmetry, as printed; test 3's S-I is 44 of 132 phrases (1/3)
    assert any(r.startswith("| Carvalho et al. 2024 | Table 7 | GloVe | A\\|A | test2_macro | 0.5000 | 0.5000 [")
               and r.endswith("| reproduced | `compeval run --model 'glove-6b-50d' --task "
                              "'modifiers-test2,n_resamples=50,permutations=0'` |") for r in rows)
    assert any("| Table 8 | GloVe | S-I | test3_macro | 0.6060 | 0.3333 [" in r and "| explained: GloVe 6B at 50 d" in r
               for r in rows)
    assert any("| Table 6 | GloVe | NS-Pr\\|S-I | test1_macro | 0.9393 | 0.8939 [" in r for r in rows)
    assert "| Table 6 | DPR | all 25 columns | test1_macro | 0.3529–0.6409 (25 values) | – |  | not computable here" in text
