"""Trainer settings declared once in compeval.training and nested in task options: the flat option names
users type map onto them, each setting is recorded once, and results of the flat layout are recomputed."""
import json
import warnings

import pytest

from compeval.results.store import content_checksum
from compeval.runner import run
from compeval.tasks.lexcomp.tasks import LexcompOptions
from compeval.tasks.probing.evaluation import ClassifierOptions
from compeval.tasks.registry import get_tasks
from compeval.training.settings import AdamSettings, EarlyStopping, LBFGSSettings

SMALL = "n_train=40,n_test=20,words=dog,generator_seed=3"


def test_flat_option_names_map_onto_the_trainers_settings():
    (task,) = get_tasks("probe-has-x,mlp_max_iter=300")
    assert task.options.mlp == AdamSettings(max_iter=300) and task.options.logreg == LBFGSSettings()
    assert task.params["mlp"] == {**AdamSettings().model_dump(), "max_iter": 300}
    assert not any(k.startswith(("mlp_", "logreg_")) for k in task.params)  # each setting recorded once
    assert task.slug == "probe-has-x__mlp_max_iter-300"  # the slug users know is unchanged
    assert task.options.spec_suffix() == ",mlp_max_iter=300"
    # ids carry non-default options only: the paper's 700 epochs is the plain id, 100 is named in its id; the
    # epochs are in every result's params, so a result trained at another cap is recomputed, never reused
    assert get_tasks("ettinger2018-sr,mlp_max_iter=700")[0].slug == "ettinger2018-sr"
    assert get_tasks("ettinger2018-sr,mlp_max_iter=100")[0].slug == "ettinger2018-sr__mlp_max_iter-100"
    # the Python API: a whole group, its recorded dict, or flat names all build the same options
    assert type(task)(mlp=AdamSettings(max_iter=300)).params == task.params
    assert type(task)(**task.params).params == task.params
    (lex,) = get_tasks("lexcomp-nc-literality,max_epochs=60,patience=10,batch_size=8")
    assert lex.options.training == EarlyStopping(max_epochs=60, patience=10, batch_size=8)
    assert lex.slug == "lexcomp-nc-literality__batch_size-8__max_epochs-60__patience-10"


def test_a_group_set_in_part_keeps_the_tasks_defaults_for_its_other_fields():
    """Every task with a settings group: one flat option changes that field only; the others stay at the
    task's own defaults (a probe's 700 iterations), never fall back to the trainer class's."""
    from compeval.tasks.registry import TASKS, discover

    discover()
    checked = 0
    for name, cls in sorted(TASKS.items()):
        for flat, (path, field, default) in cls.Options.flat_fields().items():
            if len(path) != 2 or not isinstance(default, (int, float)) or isinstance(default, bool):
                continue
            other = default + 1 if isinstance(default, int) else default / 2
            (task,) = get_tasks(f"{name},{flat}={other}")
            expect = {**cls.Options.default_params()[path[0]], path[1]: other}
            assert task.params[path[0]] == expect, (name, flat)
            assert task.options.non_default() == {flat: other}, (name, flat)
            checked += 1
    assert checked >= 20


def test_each_trainer_default_and_range_is_the_trainers_own():
    flat = ClassifierOptions.flat_fields()
    for name, field in AdamSettings.model_fields.items():
        assert flat[f"mlp_{name}"][1] is field  # the same declaration, not a copy
    for name, field in LBFGSSettings.model_fields.items():
        assert flat[f"logreg_{name}"][1] is field and flat[f"logreg_{name}"][2] == field.default
    assert flat["mlp_max_iter"][2] == 700 and AdamSettings().max_iter == 200  # the 2018 paper's, scikit-learn's
    lex = LexcompOptions.flat_fields()
    assert all(lex[name][1] is field for name, field in EarlyStopping.model_fields.items())
    assert "'lexcomp-vpc': option patience='0' must be a whole number, at least 1" in _error("lexcomp-vpc,patience=0")
    assert "unknown option 'mlp_momentum'" in _error("probe-has-x,mlp_momentum=0.9")


def _error(spec: str) -> str:
    from compeval.errors import SpecError

    with pytest.raises(SpecError) as exc:
        get_tasks(spec)
    return str(exc.value)


def test_a_result_with_flat_trainer_params_is_recomputed_with_a_message(tmp_path):
    """A result written when the trainer settings were flat options (``mlp_max_iter`` in params and again in
    counts) holds other params than today's nested ones: a rerun recomputes it and says why."""
    out, spec = tmp_path / "out", f"probe-has-x,{SMALL},classifiers=logreg+mlp,mlp_max_iter=20"
    with warnings.catch_warnings():
        first = run(["hashbag"], [spec], out, cache_dir=None)
    assert first.outcomes[0].status == "done"
    (path,) = out.glob("*/probe-has-x*.json")
    assert path.name == "probe-has-x__generator_seed-3__mlp_max_iter-20__n_test-20__n_train-40__words-dog.json"
    data = json.loads(path.read_text())
    assert data["task"]["params"]["mlp"]["max_iter"] == 20
    assert not any(k.startswith(("mlp_", "logreg_")) for k in data["counts"])
    assert "name" not in data["counts"]["trainer"]  # params name the trainer
    params = dict(data["task"]["params"])
    mlp, logreg = params.pop("mlp"), params.pop("logreg")
    flat = {**params, "mlp_max_iter": mlp["max_iter"], "mlp_early_stopping": mlp["early_stopping"],
            "mlp_tol": mlp["tol"], "mlp_n_iter_no_change": mlp["n_iter_no_change"], "logreg_tol": logreg["tol"]}
    old = dict(data, task=dict(data["task"], params=flat))
    path.write_text(json.dumps(dict(old, checksum=content_checksum(old))))  # as the previous version wrote it
    with warnings.catch_warnings():
        again = run(["hashbag"], [spec], out, cache_dir=None)
    assert again.outcomes[0].status == "done"
    assert any("other options" in w and "mlp_max_iter" in w for w in again.warnings), again.warnings
    redone = json.loads(path.read_text())
    assert redone["task"]["params"] == data["task"]["params"]
    assert [(s["subset"], s["value"]) for s in redone["scores"]] == [(s["subset"], s["value"]) for s in data["scores"]]
