"""Matplotlib figures for the report, without pyplot (no global backend state). Inline SVG: text as paths,
dense clouds as a ``data:`` PNG (~60 kB instead of ~1 MB), ids salted so the same results give the same bytes.
"""
from __future__ import annotations

import importlib.util
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CompevalError
from ..names import PLAIN_TEXT

#: Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
HUMAN = "#222222"
PUBLISHED_COLOUR = "#9a9a9a"
FORMATS = ("svg", "png")


def require_matplotlib() -> None:
    """Fail early with the install hint, before any result is read."""
    if importlib.util.find_spec("matplotlib") is None:
        raise CompevalError("the report draws its figures with matplotlib, a core dependency of compeval: "
                            "pip install 'matplotlib>=3.8'")


def new_figure(width: float, height: float):
    """A pyplot-free Figure (safe to build in any thread, nothing left open afterwards)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def style_axes(ax, grid_axis: str = "y") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    if grid_axis:
        ax.grid(axis=grid_axis, color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)


def label_axes(ax, ylabel: str, title: str, legend: str = "outside right upper") -> None:
    """The closing of a one-axes figure: labels, the figure's legend of this axes' entries, the house style."""
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.figure.legend(*ax.get_legend_handles_labels(), loc=legend, frameon=False)
    style_axes(ax)


def model_colours(models: list[str]) -> dict[str, str]:
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}


@dataclass
class RenderedFigure:
    """A figure ready for the page: its id, caption and inline SVG; ``files`` lists any exports."""

    id: str
    title: str
    caption: str
    svg: str
    files: list[str] = field(default_factory=list)


class FigureSink:
    """Renders figures inline and, when asked (``--figures DIR``), also writes them as files."""

    def __init__(self, directory: Path | str | None = None, fmt: str = "svg"):
        if fmt not in FORMATS:
            raise CompevalError(f"figure format {fmt!r}; choose {' or '.join(FORMATS)}")
        self.directory = Path(directory) if directory else None
        self.fmt = fmt
        if self.directory:
            self.directory.mkdir(parents=True, exist_ok=True)

    def render(self, fig, fig_id: str, title: str, caption: str) -> RenderedFigure:
        svg = inline_svg(fig, fig_id)
        files = []
        if self.directory:
            path = self.directory / f"{fig_id}.{self.fmt}"
            _save(fig, fig_id, path, self.fmt)
            files.append(str(path))
        return RenderedFigure(id=fig_id, title=title, caption=caption, svg=svg, files=files)


def _rc(fig_id: str) -> dict:
    return {**PLAIN_TEXT, "svg.hashsalt": fig_id, "svg.fonttype": "path", "font.size": 9, "axes.titlesize": 10,
            "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8}


def _save(fig, fig_id: str, path: Path, fmt: str) -> None:
    import matplotlib

    with matplotlib.rc_context(_rc(fig_id)):
        _as_written(fig)
        meta = {"Date": None} if fmt == "svg" else {}
        fig.savefig(path, format=fmt, dpi=150 if fmt == "png" else 100, metadata=meta)


def _as_written(fig) -> None:
    """Every text of ``fig`` drawn as written (``names.PLAIN_TEXT``): a model or subset named ``$\\frac{$`` is a
    label, not mathematics. Texts made before drawing read the settings when they were made, so each is set
    here, where every figure is drawn; texts made while drawing (new ticks) read ``_rc``."""
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        text.set_parse_math(False)
        text.set_usetex(False)


_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_NS = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_SIZE = re.compile(r'<svg\b([^>]*?)\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"')


def inline_svg(fig, fig_id: str) -> str:
    """The figure as an ``<svg>`` element for HTML: no prologue, DOCTYPE, metadata or namespace URIs."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_rc(fig_id)):
        _as_written(fig)
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = _PROLOGUE.sub("", buf.getvalue(), count=1)
    text = _METADATA.sub("", text, count=1)
    # The HTML parser puts inline <svg> in the SVG namespace by itself (xlink:href included).
    head, rest = text.split(">", 1)
    head = _NS.sub("", head)
    text = head + ">" + rest
    text = _SIZE.sub(lambda m: f'<svg{m.group(1)} width="{m.group(2)}pt" height="{m.group(3)}pt" '
                               f'role="img" aria-labelledby="{fig_id}-title"', text, count=1)
    return text.strip()


def heatmap(ax, matrix, rows: list[str], cols: list[str], *, vmin: float = 0.0, vmax: float = 1.0,
            cmap: str = "viridis", digits: int = 2, hatch_rows: set[int] | None = None):
    """A labelled heatmap with the value written in each cell (blank where NaN); returns the image."""
    import numpy as np

    m = np.asarray(matrix, dtype=float)
    im = ax.imshow(np.ma.masked_invalid(m), vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    norm = im.norm
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if np.isfinite(m[i, j]):
                shade = im.cmap(norm(m[i, j]))
                light = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2]
                ax.text(j, i, f"{m[i, j]:.{digits}f}", ha="center", va="center", fontsize=8,
                        color="black" if light > 0.55 else "white")
    for i in hatch_rows or ():
        ax.add_patch(_row_frame(i, m.shape[1]))
    return im


def _row_frame(row: int, n_cols: int):
    from matplotlib.patches import Rectangle

    return Rectangle((-0.5, row - 0.5), n_cols, 1, fill=False, hatch="//", edgecolor="#ffffff", linewidth=0,
                     alpha=0.35)
