"""``compeval verify`` recomputes a user task from its predictions and its data file (the recorded path,
checked by its digest) like a built-in task; it lists a data file that is gone, a saved dataset whose rows
changed and predictions whose rows were dropped or repeated; ``results`` leaves out a result whose input
file changed since, instead of showing it beside the new content's result under the same task name."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from compeval.cli import app
from compeval.cli.verify import Recomputed, verify_folder
from compeval.results import results_frame
from compeval.results.store import content_checksum, predictions_jsonl
from compeval.runner import run

from .helpers import pair_rows, role_rows, write_csv, write_jsonl

MODEL = "random,dim=8"


def _run(spec: str, out: Path) -> Path:
    summary = run([MODEL], [spec], out, cache_dir=None, progress=False, report=False)
    assert [o.status for o in summary.outcomes] == ["done"]
    (path,) = sorted(out.glob("*/*.json"))
    return path


def _resign(path: Path, change) -> None:
    """An edit whose author also rewrote the predictions' SHA-256 and the result's checksum."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    pred = path.with_name(doc["predictions_file"])
    doc["predictions_sha256"] = hashlib.sha256(pred.read_bytes()).hexdigest()
    doc["checksum"] = None
    doc["checksum"] = content_checksum(doc)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _verify(out: Path) -> tuple[list[str], dict[Path, Recomputed]]:
    done: dict[Path, Recomputed] = {}
    findings, _ = verify_folder(out, recomputed=done)
    return [p for f in findings for p in f.problems], done


def _specs(tmp: Path) -> dict[str, str]:
    roles = write_csv(tmp / "roles.csv", role_rows()[::6])
    pairs = write_jsonl(tmp / "pairs.jsonl", pair_rows(25))
    probe = write_csv(tmp / "probe.csv", [{"text": r["sentence"], "label": r["verb"] in ("helped", "called")}
                                          for r in role_rows()[::4]])
    mods = write_csv(tmp / "mods.csv", [{"adjective": a, "noun": n, "category": c}
                                        for a, c in (("red", "S-I"), ("fake", "NS-Pr"), ("former", "NS-Pl"))
                                        for n in ("gun", "car", "coin")])
    return {
        "pairs": f"pairs:{pairs},a=s1,b=s2,score=gold,subset=kind,bootstrap=50",
        "triplets": f"triplets:{roles},anchor=sentence,closer=paraphrase,farther=swap,category=verb,bootstrap=50",
        "probe": f"probe:{probe}",
        "modifiers": f"modifiers:{mods},n_resamples=40",
    }


@pytest.mark.parametrize("kind", ["pairs", "triplets", "probe", "modifiers"])
def test_an_edited_score_with_its_checksum_rewritten_is_flagged_with_the_recomputed_value(kind, tmp_path):
    path = _run(_specs(tmp_path)[kind], tmp_path / "out")
    problems, done = _verify(tmp_path / "out")
    assert problems == [] and done[path].metrics  # recomputed, not "only checked"
    doc = json.loads(path.read_text(encoding="utf-8"))
    main = next(s for s in doc["scores"] if (s["subset"], s["metric"]) == (doc["task"]["main_subset"],
                                                                          doc["task"]["main_metric"]))
    true = main["value"]

    def bump(d):
        for s in d["scores"]:
            if s is not None and (s["subset"], s["metric"]) == (main["subset"], main["metric"]):
                s["value"] = true + 0.123
        d["main_score"] = true + 0.123

    _resign(path, bump)
    result = CliRunner().invoke(app, ["verify", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert f"{main['metric']} on {main['subset']}: value recomputed from its predictions is {true:.6g}, the " \
           f"result says {true + 0.123:.6g}" in result.output
    assert "not a registered task" not in result.output


def test_a_data_file_that_is_gone_is_one_line(tmp_path):
    spec = _specs(tmp_path)["triplets"]
    _run(spec, tmp_path / "out")
    (tmp_path / "roles.csv").unlink()
    problems, _ = _verify(tmp_path / "out")
    assert problems == [f"input file {tmp_path / 'roles.csv'} no longer exists"]


@pytest.mark.parametrize("edit", ["drop", "repeat", "swap"])
def test_triplets_predictions_with_dropped_or_repeated_rows_are_refused(edit, tmp_path):
    path = _run(_specs(tmp_path)["triplets"], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    frame = pd.read_json(pred, lines=True, dtype=False)
    if edit == "drop":
        frame = frame.drop(index=3)
    elif edit == "repeat":
        frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    else:  # one row dropped, another repeated in its place: as many rows as the data
        frame = pd.concat([frame.drop(index=3), frame.iloc[[2]]], ignore_index=True)
    pred.write_text(predictions_jsonl(frame), encoding="utf-8")
    _resign(path, lambda d: None)
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "could not be recomputed" in problems[0] and "once each" in problems[0]


@pytest.mark.parametrize("kind", ["pairs", "probe", "modifiers"])
@pytest.mark.parametrize("edit", ["drop", "repeat"])
def test_every_kind_refuses_predictions_with_dropped_or_repeated_rows(kind, edit, tmp_path):
    path = _run(_specs(tmp_path)[kind], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    lines = pred.read_text(encoding="utf-8").splitlines()
    lines = lines[:2] + lines[3:] if edit == "drop" else lines + lines[2:3]
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _resign(path, lambda d: None)
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "could not be recomputed" in problems[0]


def test_pairs_rows_are_known_by_their_item_number(tmp_path):
    """Without the sentence columns, a dropped pair with another repeated in its place (as many rows as the
    data) is still refused: the item numbers must be the data's, once each."""
    path = _run(_specs(tmp_path)["pairs"], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    frame = pd.read_json(pred, lines=True, dtype=False).drop(columns=["sentence_1", "sentence_2"])
    frame = pd.concat([frame.drop(index=3), frame.iloc[[2]]], ignore_index=True)
    pred.write_text(predictions_jsonl(frame), encoding="utf-8")
    _resign(path, lambda d: None)
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "not the data's 25 items once each (25 rows, 1 item(s) repeated, 1 absent)" \
        in problems[0]


def test_a_stale_result_is_left_out_and_verify_says_what_a_rerun_does(tmp_path):
    spec = _specs(tmp_path)["triplets"]
    old = _run(spec, tmp_path / "out")
    rows = role_rows()[::6]
    rows[0]["swap"] = "the waiter questioned the chef again"
    write_csv(tmp_path / "roles.csv", rows)
    run([MODEL], [spec], tmp_path / "out", cache_dir=None, progress=False, report=False)
    assert len(list((tmp_path / "out").glob("*/*.json"))) == 2  # a new id: the old file stays beside it
    left_out: list = []
    frame = results_frame(tmp_path / "out", left_out)
    assert [p for p, _ in left_out] == [old] and left_out[0][1].startswith("stale: its input file")
    assert frame.task.unique().tolist() == ["roles"] and len(frame[frame.subset == "all"]) == 1
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "a re-run computes a new result beside it under a new id" in problems[0]
    listed = CliRunner().invoke(app, ["results", str(tmp_path / "out"), "--leaderboard", "-f", "csv"])
    assert listed.exit_code == 1 and "stale: its input file" in listed.output


def test_an_edited_saved_dataset_is_noticed_by_verify(tmp_path):
    datasets = pytest.importorskip("datasets")
    rows = [{"anchor": r["sentence"], "closer": r["paraphrase"], "farther": r["swap"]} for r in role_rows()[::6]]
    folder = tmp_path / "ds"
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    _run(f"triplets:hf-dataset:{folder},bootstrap=50", tmp_path / "out")
    assert _verify(tmp_path / "out")[0] == []
    rows[0]["farther"] = "the waiter questioned the chef again"
    shutil.rmtree(folder)
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and problems[0].startswith(f"its data hf-dataset:{folder.resolve()} now has content "
                                                         "digest")
    shutil.rmtree(folder)
    assert _verify(tmp_path / "out")[0] == [f"its dataset folder {folder.resolve()} no longer exists"]


@pytest.mark.parametrize("kind", ["pairs", "triplets"])
@pytest.mark.parametrize("item", ["1", True, [1], {"n": 1}, 1.5, None])
def test_an_item_number_of_another_kind_is_one_line(kind, item, tmp_path):
    """Item 1's number written as text, a boolean, a list, an object or a fraction is no item of the data:
    verify lists the result in one line (no traceback, never "holds")."""
    path = _run(_specs(tmp_path)[kind], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    rows = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    rows[1]["item"] = item
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _resign(path, lambda d: None)
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "could not be recomputed" in problems[0] and "once each" in problems[0]


@pytest.mark.parametrize("edit", ["gold as a list", "a line that is a JSON list"])
def test_predictions_of_another_shape_are_one_line(edit, tmp_path):
    """Predictions rewritten by hand into shapes pandas cannot read as numbers or rows: one line, no traceback."""
    path = _run(_specs(tmp_path)["pairs"], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    rows = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    if edit == "gold as a list":
        rows[0]["gold"] = [rows[0]["gold"]]
    else:
        rows[-1] = [1, 2]
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _resign(path, lambda d: None)
    problems, _ = _verify(tmp_path / "out")
    assert len(problems) == 1 and "could not be recomputed" in problems[0]


@pytest.mark.parametrize("argv", [["results", "--leaderboard"], ["report", "--resamples", "40"], ["cite"]])
def test_a_folder_of_stale_results_only_says_why_it_shows_nothing(argv, tmp_path):
    """When every result is stale (its input file edited since), the leaderboard, the report and cite say that
    the folder's results were left out and why, not that the folder holds none."""
    spec = _specs(tmp_path)["triplets"]
    _run(spec, tmp_path / "out")
    rows = role_rows()[::6]
    rows[0]["swap"] = "the waiter questioned the chef again"
    write_csv(tmp_path / "roles.csv", rows)
    extra = ["-o", str(tmp_path / "r.html")] if argv[0] == "report" else []
    shown = CliRunner().invoke(app, [argv[0], str(tmp_path / "out"), *argv[1:], *extra])
    said = str(shown.exception)  # main() prints a CompevalError as one line, exit status 2
    assert type(shown.exception).__name__ == "CompevalError" and "1 file(s) left out" in said and "stale: its input file" in said


def test_verify_never_prints_an_empty_list_of_why_results_were_only_checked(tmp_path):
    """A result not recomputed because of a problem (listed above with ✗) is counted among the "only
    checked" ones: that line names where its reason is, never ends in an empty list."""
    import io

    from rich.console import Console

    from compeval.cli.verify import verify

    path = _run(_specs(tmp_path)["pairs"], tmp_path / "out")
    pred = path.with_name(json.loads(path.read_text())["predictions_file"])
    pred.write_text(pred.read_text(encoding="utf-8").replace('"gold":', '"gold":1', 1), encoding="utf-8")
    _resign(path, lambda d: None)
    said = io.StringIO()
    console = Console(file=said, width=200)
    assert verify(tmp_path / "out", None, None, True, console, console) == 1
    line = next(line for line in said.getvalue().splitlines() if line.startswith("only checked"))
    assert not line.rstrip().endswith(":") and "listed above" in line, line
