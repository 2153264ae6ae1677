"""``results_frame(folder)`` (README's Python API, no ``task_slug``) shows a result copied under another task
options' file name once: the copy's rows would stand beside the original's as a second, equal measurement."""
from __future__ import annotations

import shutil

from compeval.results import results_frame
from compeval.runner import run


def test_a_result_copied_under_another_file_name_is_shown_once_and_named(tmp_path, data_dir):
    summary = run(["hashbag"], ["gs2011,bootstrap=50"], tmp_path / "out", data_dir=data_dir, cache_dir=None)
    original = summary.outcomes[0].path
    clean = results_frame(tmp_path / "out")
    for stem in ("gs2011", "gs2011__bootstrap-100"):  # the default options' name, another option's name
        shutil.copy(original, original.with_name(f"{stem}.json"))
        shutil.copy(original.with_suffix(".predictions.jsonl"), original.with_name(f"{stem}.predictions.jsonl"))
    unreadable = []
    shown = results_frame(tmp_path / "out", unreadable)
    assert len(clean) == 2 and shown.equals(clean), shown
    assert len(unreadable) == 2
    assert all(why.startswith("it holds the model, task and options of ") for _, why in unreadable)
