"""The STS3k scatter is coloured by pair type whenever any model ran sts3k-types: types come from the pairs'
parses, not from the model, so one model's run colours every model's panel."""
from __future__ import annotations

import shutil

from compeval.report.figures import FigureSink
from compeval.report.loading import ResultsIndex
from compeval.report.sections.base import BuildContext
from compeval.tasks.sts.report import scatter_panels

TYPES_LEGEND = "types inferred by sts3k-types"


def _panels(folder, tmp_path):
    index = ResultsIndex(folder)
    ctx = BuildContext(index=index, sink=FigureSink(tmp_path / "figs", "svg"))
    return {e.model: (frame, legend) for e, frame, legend in scatter_panels(ctx, index.firsts("sts3k"))}


def test_one_models_types_colour_every_panel(real_results, tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(real_results, folder)
    full = _panels(folder, tmp_path)
    assert len(full) == 2 and all(legend == TYPES_LEGEND for _, legend in full.values())
    # Only the first model keeps its sts3k-types result: the other model's panel keeps the same colours.
    first, second = sorted(full)
    for path in folder.glob("*/sts3k-types*"):
        if ResultsIndex(folder).first(second, "sts3k-types").path.parent == path.parent:
            path.unlink()
    assert ResultsIndex(folder).first(second, "sts3k-types") is None
    partial = _panels(folder, tmp_path)
    assert partial[second][1] == TYPES_LEGEND
    colours = lambda m, p: p[m][0].set_index("item")["colour_by"].sort_index()
    assert colours(second, partial).equals(colours(second, full))
    assert (colours(second, partial) != "other").mean() > 0.5  # real types, not the negative/other fallback
    # No model ran sts3k-types: negative / other only, said so in the legend.
    for path in folder.glob("*/sts3k-types*"):
        path.unlink()
    bare = _panels(folder, tmp_path)
    assert all(legend.startswith("subset") for _, legend in bare.values())
    assert set(bare[first][0]["colour_by"]) <= {"negative", "other"}
