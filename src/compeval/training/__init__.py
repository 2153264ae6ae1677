"""One trainer for every trained head (probing classifiers, lexcomp encoders, STS regressors).

Torch, float32, seeded, on an explicit device. ``settings`` imports no torch, so task discovery stays
cheap; ``device`` (the run's device as a ``torch.device``), ``mlp`` (batched scikit-learn-compatible
MLPs, Adam), ``logreg`` (batched cross-validated logistic regression, full-batch L-BFGS) and ``loop``
(early stopping on validation) import it.
"""
