"""Task registry: name → Task class (``TASKS`` discovers the suite folders and ``compeval.tasks`` entry
points when first read); suites group tasks so ``--task sts`` runs them all.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import plugins
from ..errors import SpecError
from ..registry import Registry
from ..specs import parse_spec


def _discover_suites() -> None:
    plugins.discover_suites()
    for registry in (TASKS, SPEC_KINDS, DECLARATIONS):  # the same folders and entry points fill all three
        registry.load()


TASKS: Registry[type] = Registry("task", group="compeval.tasks", discover=_discover_suites)
BROKEN = plugins.BROKEN  # module -> import error, shown by the CLI and checked by tests
#: Task kinds on a user's data, ``KIND:SOURCE[,…]``: kind -> its task class (``cls.from_spec(spec)`` builds it).
SPEC_KINDS: Registry[type] = Registry("task kind", discover=_discover_suites)
#: Files that declare a task, by suffix (``--task roles.toml``): suffix -> builder(path).
DECLARATIONS: Registry[Callable[[str], Any]] = Registry("task file suffix", discover=_discover_suites)


def register_task(cls: type) -> type:
    """Class decorator: registers a Task subclass under ``cls.metadata.name``."""
    TASKS.register(cls.metadata.name, cls)
    return cls


def discover() -> None:
    """Import every suite folder under ``compeval.tasks`` and every ``compeval.tasks`` entry point (each
    registers its tasks); reading ``TASKS`` does this by itself."""
    TASKS.load()


def suites() -> dict[str, list[str]]:
    discover()
    out: dict[str, list[str]] = {}
    for name, cls in TASKS.items():
        out.setdefault(cls.metadata.suite, []).append(name)
    return out


def get_tasks(spec: str) -> list[Any]:
    """A task spec ``NAME[,KEY=VALUE…]`` or a suite name → Task instances, each keeping its own spec."""
    discover()
    parsed = parse_spec(spec)
    if parsed.arg is not None and parsed.name in SPEC_KINDS:  # a user's data: KIND:SOURCE,…
        return [SPEC_KINDS[parsed.name].from_spec(parsed)]
    suffix = "." + parsed.name.rpartition(".")[2] if "." in parsed.name else ""
    if parsed.arg is None and suffix in DECLARATIONS:  # a task file
        if parsed.options:
            raise SpecError(f"task file {parsed.name}: options go in the file, not after it")
        return [DECLARATIONS[suffix](parsed.name)]
    if parsed.arg is not None:
        raise SpecError(f"task spec {spec!r}: tasks take options as ',key=value', not ':'")
    names = [parsed.name] if parsed.name in TASKS else suites().get(parsed.name)
    if not names and parsed.name in SPEC_KINDS:
        raise SpecError(f"{parsed.name!r} is a task kind on your own data: give {parsed.name}:FILE[,OPTION=VALUE…]; "
                        f"`compeval tasks {parsed.name}` lists its columns and options")
    if not names:
        import difflib

        close = difflib.get_close_matches(parsed.name, [*TASKS, *suites(), *SPEC_KINDS], 1, 0.6)
        hint = f"did you mean {close[0]}? " if close else ""
        raise SpecError(f"unknown task {parsed.name!r}; {hint}`compeval tasks` lists tasks and suites "
                        f"({', '.join(sorted(suites()))}); task kinds on your own data: "
                        f"{', '.join(sorted(SPEC_KINDS))}")
    # Each task's Options converts and checks the CLI's strings (one-line SpecError naming the option).
    tasks = [TASKS[n](**parsed.options) for n in names]
    for task in tasks:
        task.spec = task.name + task.options.spec_suffix()
    return tasks


def list_tasks() -> list[dict[str, str]]:
    discover()
    return [
        {"name": n, "suite": c.metadata.suite, "data": ", ".join(c.metadata.data_sources) or "generated",
         "description": c.metadata.description}
        for n, c in sorted(TASKS.items(), key=lambda kv: (kv[1].metadata.suite, kv[0]))
    ]


def quick_tasks() -> list[str]:
    """``compeval run --quick``: per suite of the default run, the task that declares ``Task.quick`` (reduced
    sizes) as a task spec, in suite order; the options are in each result's name."""
    discover()
    chosen = sorted((cls.metadata.suite, name, cls.quick) for name, cls in TASKS.items()
                    if cls.default_run and cls.quick is not None)
    return [",".join(x for x in (name, options) if x) for _, name, options in chosen]


def quick_note(specs: list[str]) -> str:
    """The line ``compeval run --quick`` prints: which tasks run at reduced settings (not the papers')."""
    reduced = [f"{name} {options}" for name, _, options in (s.partition(",") for s in specs) if options]
    if not reduced:
        return "quick mode: every task at its defaults"
    return ("quick mode: reduced settings, not the papers' protocol: " + "; ".join(reduced)
            + " (the other tasks at their defaults; the options are in each result's name)")


def result_slug(result: Any) -> str | None:
    """The file name (without ``.json``) a stored result's task and recorded options are written under, or
    None when this compeval cannot rebuild that task (a user's data task, an unknown name, options it no
    longer takes): what ``ResultStore(task_slug=…)`` compares a result's file name with."""
    import json

    try:
        key = (result.task.name, json.dumps(result.task.params, sort_keys=True, default=str))
    except (TypeError, ValueError):
        return None
    if key not in _SLUGS:
        discover()
        cls = TASKS.get(result.task.name)
        try:
            _SLUGS[key] = None if cls is None else cls(**result.task.params).slug
        except Exception:  # options this version refuses: the name check (results.store.file_problem) stands
            _SLUGS[key] = None
    return _SLUGS[key]


_SLUGS: dict[tuple[str, str], str | None] = {}  # a sweep's report reads each task's options many times

