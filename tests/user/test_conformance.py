"""Every kind keeps the task contract: the spec a worker rebuilds it from, deterministic scores, the result
schema, and only the texts it lists are encoded."""
from __future__ import annotations

import pytest

from compeval.cache.cached import EmbeddingCache
from compeval.runner.jobs import task_spec
from compeval.tasks.conformance import CheckEncoder, check_output, check_recomputation
from compeval.tasks.registry import get_tasks

from .helpers import pair_rows, role_rows, write_csv, write_jsonl


def _specs(tmp):
    roles = write_csv(tmp / "roles.csv", role_rows()[::6])
    pairs = write_jsonl(tmp / "pairs.jsonl", pair_rows(25))
    probe = write_csv(tmp / "probe.csv", [{"text": r["sentence"], "label": r["verb"] in ("helped", "called")}
                                          for r in role_rows()[::4]])
    mods = write_csv(tmp / "mods.csv", [{"adjective": a, "noun": n, "category": c}
                                        for a, c in (("red", "S-I"), ("fake", "NS-Pr"), ("former", "NS-Pl"))
                                        for n in ("gun", "car", "coin")])
    (tmp / "roles.toml").write_text('kind = "triplets"\nsource = "roles.csv"\n[columns]\nanchor = "sentence"\n'
                                    'closer = "paraphrase"\nfarther = "swap"\n[options]\nbootstrap = 50\n')
    return {
        "pairs": f"pairs:{pairs},a=s1,b=s2,score=gold,subset=kind,bootstrap=50,norm=zscore",
        "triplets": f"triplets:{roles},anchor=sentence,closer=paraphrase,farther=swap,category=verb,bootstrap=50",
        "triplets-file": str(tmp / "roles.toml"),
        "probe": f"probe:{probe},classifiers=logreg+mlp,mlp_max_iter=20",
        "modifiers": f"modifiers:{mods},n_resamples=40",
    }


@pytest.mark.parametrize("kind", ["pairs", "triplets", "triplets-file", "probe", "modifiers"])
def test_kind_conforms(kind, tmp_path):
    spec = _specs(tmp_path)[kind]
    (task,) = get_tasks(spec)
    rebuilt_spec = task_spec(task)
    assert rebuilt_spec is not None  # a task of a registered kind, which workers may receive
    (twin,) = get_tasks(rebuilt_spec)
    assert (type(twin), twin.params, twin.slug) == (type(task), task.params, task.slug)
    encoder = CheckEncoder()
    model = EmbeddingCache(None).wrap(encoder)
    for t in (task, twin):
        t.load(None)
    first = task.evaluate(model, seed=4)
    check_output(task, first)
    second = twin.evaluate(model, seed=4)
    assert [s.model_dump() for s in first.scores] == [s.model_dump() for s in second.scores]
    # verify's recomputation: the twin, which loaded the data but scored nothing of its own, gives back the
    # scores from the predictions as written
    assert type(task).recomputes_scores()
    check_recomputation(twin, first, 4)
    assert encoder.requested <= set(task.texts())
    assert task.metadata.suite == "user" and task.slug.startswith(task.name + "__")
