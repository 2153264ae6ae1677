"""Tables that fit the terminal (80 columns in a pipe) without cutting a token in two, as rich does
(``all-Mi│niLM-L│6-v2``): each column is at least as wide as its longest token, optional columns show only
when the table fits, and columns that still do not fit are split over tables that repeat the key columns."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence, Union

from rich.console import Console
from rich.table import Table
from rich.text import Text

GAP = 2  # columns between two cells (padding 1 on each side, none at the table's edges)
_BREAK = re.compile(r"(?<=[ ,;|>/])")

Cell = Union[str, tuple[str, str]]  # text, or (text, rich style)


@dataclass
class Col:
    header: str
    justify: str = "left"
    optional: bool = False  # shown only when every column fits at its natural width (else with --wide)
    key: bool = False  # repeated in every part when the other columns are split over several tables
    whole: bool = False  # a cell's lines are never broken (a number and its interval): as wide as its longest


def tokens(text: str) -> list[str]:
    """The pieces a cell may be broken between (each keeps its trailing space or separator)."""
    return [t for line in str(text).split("\n") for t in _BREAK.split(line) if t]


def min_width(text: str) -> int:
    return max((len(t.rstrip()) for t in tokens(text)), default=0)


def natural_width(text: str) -> int:
    return max((len(line) for line in str(text).split("\n")), default=0)


def wrap(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken only between tokens (a token longer than
    ``width`` stays whole on its own line: callers give every column its longest token's width)."""
    lines = []
    for para in str(text).split("\n"):
        line = ""
        for tok in _BREAK.split(para):
            if not tok:
                continue
            if line and len(line + tok.rstrip()) > width:
                lines.append(line.rstrip())
                line = tok.lstrip() if tok.strip() else ""
            else:
                line += tok
        lines.append(line.rstrip())
    return "\n".join(lines)


def _text(cell: Cell) -> str:
    return cell[0] if isinstance(cell, tuple) else str(cell)


def fitted_tables(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], width: int, *, wide: bool = False,
                  title: str | None = None) -> list[Table]:
    """One table, or several, each at most ``width`` characters wide (``wide``: one, at natural width)."""
    cols = list(range(len(columns)))
    texts = [[_text(c) for c in r] for r in rows]
    mins = [max([min_width(columns[i].header)] + [(natural_width if columns[i].whole else min_width)(r[i])
                                                   for r in texts]) for i in cols]
    nats = [max([natural_width(columns[i].header)] + [natural_width(r[i]) for r in texts]) for i in cols]
    if wide:
        return [_table(columns, rows, cols, nats, title, wrap_cells=False)]

    def total(idx):
        return sum(mins[i] for i in idx) + GAP * (len(idx) - 1)

    if sum(nats) + GAP * (len(cols) - 1) > width:  # optional columns only when no cell has to wrap
        cols = [i for i in cols if not columns[i].optional]
    keys = [i for i in cols if columns[i].key]
    rest = [i for i in cols if not columns[i].key]
    parts: list[list[int]] = []
    for i in rest:  # the other columns in groups, each with the key columns
        if parts and total(sorted(keys + parts[-1] + [i])) <= width:
            parts[-1].append(i)
        else:
            parts.append([i])
    tables = []
    for n, part in enumerate(parts or [[]]):
        idx = sorted(keys + part)
        widths = dict(zip(idx, _share(idx, mins, nats, width, texts)))
        tables.append(_table(columns, rows, idx, widths, title if n == 0 else None, wrap_cells=True))
    return tables


def _share(idx: list[int], mins: list[int], nats: list[int], width: int, texts: list[list[str]]) -> list[int]:
    """Each column its minimum, then the room left given out where it saves most wrapped lines per
    character (the first column, the rows' labels, first: up to a third of the width)."""
    widths = [mins[i] for i in idx]
    room = width - sum(widths) - GAP * (len(idx) - 1)
    if idx and room > 0:
        add = min(max(0, min(nats[idx[0]], width // 3) - widths[0]), room)
        widths[0] += add
        room -= add
    counts = [Counter(r[i] for r in texts) for i in idx]

    def lines(k: int, w: int) -> int:
        return sum(n * (wrap(t, w).count("\n") + 1) for t, n in counts[k].items())

    while room > 0:
        best = None  # (saved lines per character, column, characters)
        for k, i in enumerate(idx):
            now = lines(k, widths[k])
            for d in range(1, min(room, nats[i] - widths[k]) + 1):
                saved = now - lines(k, widths[k] + d)
                if saved > 0:
                    if best is None or saved / d > best[0]:
                        best = (saved / d, k, d)
                    break
        if best is None:
            break
        widths[best[1]] += best[2]
        room -= best[2]
    return widths


def _table(columns, rows, idx, widths, title, *, wrap_cells: bool) -> Table:
    widths = widths if isinstance(widths, dict) else dict(zip(range(len(widths)), widths))
    table = Table(title=title, box=None, pad_edge=False, header_style="bold", show_edge=False, title_justify="left")
    for i in idx:
        header = wrap(columns[i].header, widths[i]) if wrap_cells else columns[i].header
        if columns[i].justify == "right":
            header = "\n".join(line.rjust(widths[i]) for line in header.split("\n"))
        table.add_column(header, justify=columns[i].justify, no_wrap=True, width=widths[i], overflow="ignore")
    for r in rows:
        cells = []
        for i in idx:
            text, style = (r[i] if isinstance(r[i], tuple) else (str(r[i]), ""))
            text = wrap(text, widths[i]) if wrap_cells else text
            if columns[i].justify == "right":  # padded here: a no-wrap cell is not justified by rich
                text = "\n".join(line.rjust(widths[i]) for line in text.split("\n"))
            cells.append(Text(text, style=style))
        table.add_row(*cells)
    return table


def print_tables(out: Console, tables: list[Table]) -> None:
    """Print tables one after another, each as wide as it was made (a console narrower than a ``wide``
    table would crop it: the table gets a console of its own width)."""
    for n, table in enumerate(tables):
        if n:
            out.print()
        need = out.measure(table, options=out.options.update_width(100_000)).maximum
        if need <= out.width:
            out.print(table, crop=False)
        else:
            Console(file=out.file, width=need, color_system=out.color_system and "standard", highlight=False,
                    force_terminal=out.is_terminal).print(table, crop=False)


def _number(v) -> str:
    if v is None or v != v:
        return ""
    if isinstance(v, float) and 0 < abs(v) < 5e-5:  # a tiny p-value is not 0.0000
        return f"{v:.2g}"
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def fmt_cell(cell, digits: int = 3) -> str:
    from ..report.ranking import fmt_cell as fmt

    return fmt(cell, digits)


def print_results(out: Console, records: list[dict], columns: list[str], *, wide: bool = False) -> None:
    """``compeval results DIR``: with ``wide``, every column of every row on one line; else one table per
    model (its name a heading), the value and its interval in one cell, the options column left out when
    the rest would not fit and no task of the model ran with two sets of options."""
    if wide:
        print_tables(out, fitted_tables([Col(c) for c in columns], [[_number(r.get(c)) for c in columns]
                                                                    for r in records], out.width, wide=True))
        return
    by_model: dict[str, list[dict]] = {}
    for r in records:
        by_model.setdefault(str(r["model"]), []).append(r)
    for k, (model, rows) in enumerate(by_model.items()):
        # the options column is needed where one task ran with two sets of options; else only when it fits
        options: dict[str, set] = {}
        for r in rows:
            options.setdefault(str(r.get("task")), set()).add(str(r.get("params")))
        cols = [Col("task", key=True), Col("params", optional=all(len(v) == 1 for v in options.values())),
                Col("subset"), Col("metric"), Col("value [95% interval]", justify="right"),
                Col("n", justify="right")]
        if k:
            out.print()
        out.print(Text(model, style="bold"), soft_wrap=True)
        body = []
        for r in rows:
            v, lo, hi = (None if x is None or x != x else float(x) for x in (r.get("value"), r.get("ci_low"),
                                                                             r.get("ci_high")))
            value = "" if v is None else fmt_cell((v, lo, hi), digits=4)
            if v is not None and lo is None and 0 < abs(v) < 5e-5:  # a tiny p-value is not 0.0000
                value = f"{v:.2g}"
            body.append([str(r.get("task", "")), str(r.get("params", "") or ""), str(r.get("subset", "")),
                         str(r.get("metric", "")), value, _number(r.get("n"))])
        print_tables(out, fitted_tables(cols, body, out.width))
    out.print(Text("--wide: every column on one line per row; --format csv|json: numbers", style="dim"))
