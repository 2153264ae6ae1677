"""The CLI's model lists (``--models``, ``--models-file``, ``compeval models --from``) and ``--plan``."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from rich.console import Console
from rich.table import Table


def model_specs(model: Sequence[str] | None, models: Sequence[str] | None, models_file: Optional[Path]) -> list[str]:
    """``--model`` specs, then ``--models`` lists (``mteb:QUERY``, ``compeval:sweep``, or specs), then the
    lines of ``--models-file``; repeats kept once. Empty when none was given."""
    from ..models.model_lists import expand_models, read_models_file

    items = list(model or []) + list(models or [])
    if models_file is not None:
        items += read_models_file(models_file)
    return expand_models(items) if items else []


def list_from(query: str, out: Console) -> None:
    """``compeval models --from mteb:QUERY`` (or ``compeval:sweep``): what it selects, with mteb's facts."""
    from ..errors import CompevalError
    from ..models.model_lists import QUERY_KEYS, expand_models, model_metadata

    if not (query.startswith("mteb:") or query.startswith("compeval:")):
        raise CompevalError(f"--from {query!r}: give mteb:KEY=VALUE,… (keys: {', '.join(QUERY_KEYS)}) "
                            "or compeval:sweep")
    specs = expand_models([query])
    table = Table(title=f"{query}: {len(specs)} model(s)")
    for c in ("spec", "params", "released", "licence"):
        table.add_column(c, overflow="fold")
    for spec in specs:
        facts = model_metadata(spec.split(",")[0])
        table.add_row(spec, f"{facts.n_parameters / 1e6:,.0f}M" if facts.n_parameters else "",
                      facts.release_date or "", facts.license or "")
    out.print(table)


def print_plan(models: Sequence[str], tasks: Sequence[str], data_dir: Optional[Path], device: Optional[str],
               run_device: str = "auto", out: Console | None = None, wide: bool = False) -> None:
    """``--plan``: the cost table on stdout, nothing loaded or run; ``device`` None: the kind of device the
    run would use (``run_device``)."""
    import textwrap

    from ..runner.cost import PLAN_COLUMNS, default_plan_device, plan_cells, plan_costs, plan_footer, plan_head
    from .tables import Col, fitted_tables, print_tables

    out = out or Console()
    kind = device or default_plan_device(run_device)
    plan = plan_costs(models, tasks, data_dir=data_dir, device=kind)
    columns = [Col(h, justify="right" if right else "left", key=(k == 0)) for k, (h, right) in enumerate(PLAN_COLUMNS)]

    def say(text: str) -> None:
        lines = [text] if wide else textwrap.wrap(text, out.width, break_long_words=False, break_on_hyphens=False)
        for line in lines:
            out.print(line, highlight=False, soft_wrap=True, markup=False)

    say(plan_head(plan))
    print_tables(out, fitted_tables(columns, plan_cells(plan), out.width, wide=wide))
    for line in plan_footer(plan):
        say(line)


def write_leaderboard(directory: Path, output: Path, mteb_results: Optional[Path], console: Console) -> None:
    """``compeval report DIR --leaderboard [--mteb-results MTEB]`` (``report.html`` becomes ``leaderboard.html``)."""
    from ..report.leaderboard import build_leaderboard

    target = output.with_name("leaderboard.html") if output == Path("report.html") else output
    info = build_leaderboard(directory, target, mteb_results=mteb_results)
    for note in info.notes:
        console.print(f"[yellow]note:[/] {note}", soft_wrap=True)
    console.print(f"leaderboard: {info.path} ({info.models} models, {info.headlines} headlines, "
                  f"{info.scatter} MTEB scatter(s)) in {info.seconds:.1f}s", highlight=False)
