"""The trained heads' iteration caps (issue 36): the probes' MLPs stop at ``mlp_max_iter`` epochs (100 by
default), the logistic regressions at ``logreg_max_iter`` L-BFGS iterations (1,000), and a result counts the
fits the cap stopped short of the tolerance, so a capped fit is never silent."""
import numpy as np
from sklearn.model_selection import StratifiedKFold

from compeval.context import RunContext
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks
from compeval.training.logreg import logreg_cv
from compeval.training.settings import LBFGSSettings


def _problem(seed, n=300, p=12):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, p)).astype(np.float32)
    y = x @ rng.standard_normal(p) + rng.standard_normal(n) > 0
    return x, y, rng.standard_normal((50, p)).astype(np.float32)


def test_a_fit_stopped_by_the_cap_is_counted_and_a_converged_one_is_not():
    x, y, xt = _problem(0)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(x, y))
    cs = np.logspace(-3, 3, 7)
    full = logreg_cv(x, y, xt, Cs=cs, folds=folds)
    assert full.unconverged == 0 and full.n_iter.max() < LBFGSSettings().max_iter
    capped = logreg_cv(x, y, xt, Cs=cs, folds=folds, settings=LBFGSSettings(max_iter=2))
    assert capped.n_iter.max() == 2
    # every model still short of the tolerance after two iterations is counted; here all 42 are
    assert capped.unconverged == (capped.n_iter == 2).sum() == 42


def test_a_flat_objective_stops_at_the_cap_with_the_same_choice(data_dir, tmp_path):
    """Stop-word-free GloVe makes an active sentence and its passive the same bag of words, so a pair's two
    labels cannot be told apart (the quick mode's task; at the old 10,000-iteration cap one of its folds ran
    for minutes). Whether a fold creeps to the cap depends on the sample, so the cap is forced here: at 5
    iterations the fits stopped short are counted, and the flat task still chooses C=0.001 at exactly chance
    (the pair's members get one prediction), as at the default cap, where nothing is stopped short."""
    from compeval.cache import EmbeddingCache

    model = load_model("glove-6b-50d,tok=sts3k", cache=EmbeddingCache(tmp_path / "c"))
    outs = {}
    for cap in (LBFGSSettings().max_iter, 5):
        (task,) = get_tasks(f"probe-x-as-agent,words=school,n_train=200,n_test=100,classifiers=logreg,"
                            f"logreg_max_iter={cap}")
        task.context = RunContext(device="cpu")
        task.load(DataContext(data_dir, download=False))
        outs[cap] = task.evaluate(model, seed=0)
    for cap, out in outs.items():
        fitted = out.counts["fitted"]["logreg"]["school"]
        assert fitted["C"] == 0.001
        assert (fitted["unconverged"] >= 1) == (cap == 5)
        assert next(s for s in out.scores if s.subset == "logreg").value == 0.5
    assert outs[LBFGSSettings().max_iter].counts["fitted"]["control-gaussian"]["school"]["unconverged"] == 0


def test_the_probes_mlps_stop_at_the_default_cap(data_dir):
    """The default probing task trains its MLPs for at most 100 epochs (recorded per head); with the paper's
    700 the same head trains longer, so the cap is what stopped it."""
    model = load_model("random,dim=16")
    n_iter = {}
    for extra in ("", ",mlp_max_iter=700"):
        (task,) = get_tasks(f"probe-has-x,words=dog,n_train=100,n_test=40{extra}")
        task.context = RunContext(device="cpu")
        task.load(DataContext(data_dir, download=False))
        n_iter[extra] = task.evaluate(model, seed=0).counts["fitted"]["mlp"]["dog"]["n_iter"]
    assert get_tasks("probe-has-x")[0].params["mlp"]["max_iter"] == 100
    assert n_iter[""] == 100 < n_iter[",mlp_max_iter=700"]


def test_the_sklearn_trainer_counts_its_capped_fits_too():
    from compeval.tasks.probing.classifiers import fit_predict
    from compeval.training.settings import AdamSettings

    x, y, xt = _problem(1)
    for max_iter, expected in ((2, 35), (1000, 0)):  # 5 folds × 7 Cs fold fits
        _, info = fit_predict("logreg", x, y, xt, seed=0, mlp=AdamSettings(), logreg=LBFGSSettings(max_iter=max_iter))
        assert info["unconverged"] == expected
