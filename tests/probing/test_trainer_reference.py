"""The batched torch trainer against scikit-learn's estimators fitted one by one, on a small real probing
problem (GloVe vectors of generated sentences) at the default settings (the 2018 paper's 700-epoch MLP cap, the
1,000-iteration logistic regressions): the same chosen C, and predictions that agree on ≥ 97% of the test
items per head (the MLPs follow scikit-learn's trajectory up to float32 rounding; float64 there)."""
import numpy as np

from compeval.cache import EmbeddingCache
from compeval.context import RunContext
from compeval.data.registry import DataContext
from compeval.models.registry import load_model
from compeval.tasks.registry import get_tasks

SPEC = "probe-has-x,words=dog,n_train=200,n_test=100"


def test_torch_trainer_agrees_with_sklearn_on_a_real_probe(data_dir, tmp_path):
    model = load_model("glove-6b-50d", cache=EmbeddingCache(tmp_path / "c"))
    outs = {}
    for trainer in ("torch", "sklearn"):
        (task,) = get_tasks(f"{SPEC},trainer={trainer}")
        task.context = RunContext(device="cpu")
        task.load(DataContext(data_dir, download=False))
        outs[trainer] = task.evaluate(model, seed=0)
    torch_out, sk_out = outs["torch"], outs["sklearn"]
    for subset in ("logreg", "control-gaussian"):
        assert torch_out.counts["fitted"][subset]["dog"]["C"] == sk_out.counts["fitted"][subset]["dog"]["C"]
    assert torch_out.counts["fitted"]["mlp"]["dog"]["n_iter"] == sk_out.counts["fitted"]["mlp"]["dog"]["n_iter"]
    for subset in ("logreg", "mlp", "control-gaussian"):
        agree = (torch_out.predictions[f"pred_{subset}"] == sk_out.predictions[f"pred_{subset}"]).mean()
        assert agree >= 0.97, (subset, agree)
