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
