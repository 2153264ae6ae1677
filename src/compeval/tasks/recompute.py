"""What ``Task.score_predictions`` implementations share: reading a score column back from a predictions
file after checking that its rows are the loaded data's."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import DataError
from ..results.store import as_written
from ..lazy import lazy_module

pd = lazy_module("pandas")


def checked_column(slug: str, predictions: pd.DataFrame, data: pd.DataFrame, keys: Iterable[str],
                   column: str) -> np.ndarray:
    """The predictions' float ``column`` as written (null is NaN), after checking one row per row of ``data``
    with its ``keys`` (compared as text), in order; a ``DataError`` otherwise."""
    if len(predictions) != len(data) or column not in predictions:
        raise DataError(f"{slug}: the predictions hold {len(predictions)} rows"
                        f"{'' if column in predictions else f' without a {column} column'}; the data has {len(data)}")
    for key in keys:
        if key not in predictions or predictions[key].astype(str).tolist() != data[key].astype(str).tolist():
            raise DataError(f"{slug}: the predictions' {key} differ from the data's")
    return as_written(pd.to_numeric(predictions[column], errors="coerce").to_numpy(dtype=np.float64))
