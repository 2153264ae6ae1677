"""Export a results folder in MTEB's results layout, so compeval scores sit beside MTEB leaderboards.

MTEB keeps ``<model name>/<revision>/<TaskName>.json`` with ``{"task_name", "dataset_revision",
"mteb_version", "evaluation_time", "kg_co2_emissions", "scores": {split: [{"hf_subset", "languages",
"main_score", <metric>: value, …}]}}`` and a ``model_meta.json`` beside the tasks. compeval has one split
(``test``), whose one ``hf_subset`` entry is the task's headline subset: MTEB's ``get_score`` averages
``main_score`` over the entries, and compeval's other subsets (a gap such as STS3k's ``non_minus_adv``, where
lower is better; the easy pairs) would move that average away from the number every other view shows.
They ride along under ``compeval.subsets`` in the same row form. The 95% interval of each metric is
``<metric>_ci_low`` / ``<metric>_ci_high``.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..paths import safe_component
from .loading import ResultsIndex

MTEB_VERSION = "1.14.0"  # the results format written (TaskResult of mteb 1.x)


def _folder(name: str) -> str:
    """MTEB's folder name of a model (``org/name`` → ``org__name``), through compeval's one file-name rule."""
    return safe_component(name.replace("/", "__"))


def export_mteb(results_dir: Path | str, output: Path | str) -> list[Path]:
    """Write one JSON per model × task (and a model_meta.json per model); return the task files written."""
    from ..outputs import check_output

    check_output(output, "export folder", results=results_dir)
    index = ResultsIndex(results_dir)
    out = Path(output)
    written: list[Path] = []
    for e in index.entries:
        r = e.result
        model_name = str(r.model.get("name") or e.model)
        revision = str(r.model.get("id") or "no_revision_available")
        folder = out / _folder(e.model) / safe_component(revision)
        folder.mkdir(parents=True, exist_ok=True)
        subsets: dict[str, dict] = {}
        for s in r.scores:
            row = subsets.setdefault(s.subset, {"hf_subset": s.subset, "languages": ["eng-Latn"]})
            row[s.metric] = s.value
            if s.ci_low is not None and s.ci_high is not None:
                row[f"{s.metric}_ci_low"], row[f"{s.metric}_ci_high"] = s.ci_low, s.ci_high
            if s.metric == r.task.main_metric:
                row["main_score"] = s.value
        headline = [row for name, row in subsets.items() if name == r.task.main_subset and "main_score" in row]
        others = [row for name, row in subsets.items() if not (name == r.task.main_subset and "main_score" in row)]
        revision_of_data = ";".join(f"{d.source}@{d.revision}" for d in r.data if d.revision) or None
        payload = {
            "dataset_revision": revision_of_data,
            "task_name": e.task,
            "mteb_version": MTEB_VERSION,
            "scores": {"test": headline},
            "evaluation_time": r.duration_seconds,
            "kg_co2_emissions": None,
            "compeval": {"task": r.task.name, "params": r.task.params, "main_subset": r.task.main_subset,
                         "main_metric": r.task.main_metric, "n_items": r.n_items, "seed": r.seed,
                         "subsets": others},
        }
        path = folder / f"{e.task}.json"
        path.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
        written.append(path)
        meta = {"name": model_name, "revision": revision, "release_date": None, "languages": ["eng-Latn"],
                "framework": [str(r.model.get("family") or "compeval")],
                "compeval_model": r.model}
        (folder / "model_meta.json").write_text(json.dumps(meta, indent=2, default=str), encoding="utf-8")
    return written
