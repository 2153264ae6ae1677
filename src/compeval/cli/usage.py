"""Usage errors in at most three lines: the message, the usage line, a hint ("did you mean --model?").
typer vendors its own click, so errors are recognised by duck typing (``format_message``), not by class."""
from __future__ import annotations

import difflib
from typing import Any


def is_usage_error(exc: BaseException) -> bool:
    """A click or typer usage error (bad option, missing argument, unknown command), not an Exit."""
    names = {c.__name__ for c in type(exc).__mro__}
    return "UsageError" in names and hasattr(exc, "format_message")


def is_click_exception(exc: BaseException) -> bool:
    return "ClickException" in {c.__name__ for c in type(exc).__mro__} and hasattr(exc, "format_message")


def _options(ctx: Any) -> list[str]:
    """Every long option of the command the context belongs to (--help included)."""
    names: list[str] = []
    for param in getattr(ctx.command, "params", []):
        names += [o for o in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
                  if o.startswith("--")]
    return names + ["--help"]


def _commands(ctx: Any) -> list[str]:
    lister = getattr(ctx.command, "list_commands", None)
    return list(lister(ctx)) if lister else []


def suggestion(exc: BaseException) -> str | None:
    """The closest option or command to what was typed, or None."""
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return None
    option = getattr(exc, "option_name", None)
    if option:
        found = list(getattr(exc, "possibilities", None) or []) or difflib.get_close_matches(option, _options(ctx), 1, 0.5)
        return found[0] if found else None
    message = str(getattr(exc, "message", "") or "")
    if message.startswith("No such command"):
        typed = message.split("'")[1] if message.count("'") >= 2 else ""
        found = difflib.get_close_matches(typed, _commands(ctx), 1, 0.5)
        return found[0] if found else None
    return None


def usage_lines(exc: BaseException, prog: str = "compeval") -> list[str]:
    """The three lines shown for a usage error (no colour, no traceback)."""
    ctx = getattr(exc, "ctx", None)
    message = exc.format_message()
    if getattr(exc, "option_name", None):
        message = str(getattr(exc, "message", message))  # click appends "(Possible options: …)"; the hint says it
    path = getattr(ctx, "command_path", None) or prog
    usage = ctx.get_usage().strip() if ctx is not None else f"Usage: {prog} COMMAND [OPTIONS]"
    close = None if "did you mean" in message.lower() else suggestion(exc)
    hint = f"did you mean {close}? " if close else ""
    return [f"error: {message}", usage.splitlines()[0], f"hint: {hint}`{path} --help` lists every option"]
