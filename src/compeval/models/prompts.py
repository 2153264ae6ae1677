"""``prompt=`` / ``prompt_name=`` / ``instruction=`` (docs/models.md) → one effective text
(``PromptChoice.text``), prepended and recorded, so two spellings of one prompt are one model.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import SpecError

#: The three options, in the order messages name them.
PROMPT_OPTIONS = ("prompt", "prompt_name", "instruction")
ST_CONFIG = "config_sentence_transformers.json"
_MARK = "\x00instruction\x00"


@dataclass(frozen=True)
class Template:
    """A card's instruction template: the text before and after the instruction."""

    before: str
    after: str

    @classmethod
    def of(cls, form: str | Callable[[str], Any] | None) -> "Template | None":
        """A template from ``"…{instruction}…"`` or from a function of the instruction (mteb's
        ``instruction_template``); None when it does not hold the instruction exactly once."""
        try:
            text = form(_MARK) if callable(form) else (form.replace("{instruction}", _MARK) if form else None)
        except Exception:  # a template function that needs more than the instruction
            return None
        if not isinstance(text, str) or text.count(_MARK) != 1:
            return None
        before, after = text.split(_MARK)
        return cls(before, after)

    @property
    def form(self) -> str:
        return f"{self.before}{{instruction}}{self.after}"

    def fill(self, instruction: str) -> str:
        """The prompt for ``instruction``; no instruction, no prompt (the cards' passages)."""
        return f"{self.before}{instruction}{self.after}" if instruction else ""

    def instruction_of(self, prompt: str) -> str | None:
        """The instruction inside ``prompt`` when it has this template's form ("" for no prompt), else None.
        The whitespace that ends the template may be left off (``"…\\nQuery:"`` is recognised)."""
        if not prompt:
            return ""
        tail, body = self.after.rstrip(), prompt.rstrip()
        if not (prompt.startswith(self.before) and body.endswith(tail) and len(body) >= len(self.before) + len(tail)):
            return None
        return body[len(self.before):len(body) - len(tail)]

    def wrap(self, instruction: str) -> str:
        """``instruction`` put into the template as it is (``fill`` leaves an empty one out)."""
        return f"{self.before}{instruction}{self.after}"


INSTRUCT_QUERY = Template("Instruct: ", "\nQuery: ")
"""e5-mistral's, gte-Qwen2's, stella's and NV-Embed's template."""


def named_prompts(directory: Path) -> dict[str, str]:
    """The prompts ``config_sentence_transformers.json`` names (empty when it has none)."""
    path = Path(directory) / ST_CONFIG
    try:
        data = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    prompts = data.get("prompts") if isinstance(data, dict) else None
    return {str(k): v for k, v in prompts.items() if isinstance(v, str)} if isinstance(prompts, dict) else {}


def default_prompt_name(directory: Path) -> str | None:
    """``default_prompt_name`` of ``config_sentence_transformers.json`` (sentence-transformers applies it
    when ``encode`` is given no prompt), or None."""
    path = Path(directory) / ST_CONFIG
    try:
        data = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        return None
    name = data.get("default_prompt_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def name_of(prompt: str, directory: Path) -> str | None:
    """The repo's name for ``prompt`` (the first in sorted order when several share its text), or None:
    derived from the text, so ``prompt_name=query`` and ``prompt="query: "`` record the same name."""
    if not prompt:
        return None
    return next((k for k, v in sorted(named_prompts(directory).items()) if v == prompt), None)


@dataclass(frozen=True)
class PromptChoice:
    """What a spec said about the prompt, before the model's folder is known: the option given (at most one)
    and its value, the family's default when none was given, and the card's template (if any)."""

    kind: str | None = None  # "prompt" | "prompt_name" | "instruction" | None (the family's default)
    value: str = ""
    template: Template | None = None
    default: str = ""  # the effective prompt when nothing was given
    use_default_name: bool = False  # sbert: the repo's default_prompt_name, as sentence-transformers applies it

    @classmethod
    def from_options(cls, opts: Any, where: str, *, template: Template | None = None, default: str = "",
                     use_default_name: bool = False) -> "PromptChoice":
        """From a family's options: those of ``PROMPT_OPTIONS`` it declares and that are not None."""
        given = [(k, getattr(opts, k)) for k in PROMPT_OPTIONS
                 if k in type(opts).model_fields and getattr(opts, k) is not None]
        if len(given) > 1:
            raise SpecError(f"{where}: give one of prompt=, prompt_name=, instruction= (got "
                            f"{', '.join(k + '=' for k, _ in given)})")
        kind, value = given[0] if given else (None, "")
        if kind == "instruction" and template is None:
            raise SpecError(f"{where}: this model's card defines no instruction template; give the whole text "
                            f"before each input with prompt=\"…\" (or a named prompt with prompt_name=)")
        return cls(kind, value, template, default, use_default_name)

    def text(self, directory: Path | None, where: str, name: str = "this model") -> str:
        """The effective prompt: what the model puts before each input and records in its identity."""
        if self.kind == "prompt":
            return self.value
        if self.kind == "instruction":  # a whole prompt given as the instruction is not wrapped twice
            assert self.template is not None
            inner = self.template.instruction_of(self.value) if self.value else None
            return self.template.wrap(inner) if inner is not None else self.template.fill(self.value)
        prompts = named_prompts(directory) if directory is not None else {}
        if self.kind == "prompt_name":
            if self.value not in prompts:
                if prompts:
                    raise SpecError(f"{where}: {name} has no prompt named {self.value!r}; its prompts: "
                                    f"{', '.join(sorted(prompts))}")
                raise SpecError(f"{where}: {name} names no prompts (no \"prompts\" in a {ST_CONFIG}); give the "
                                f"text before each input with prompt=\"…\"")
            return prompts[self.value]
        if self.use_default_name and directory is not None:
            chosen = default_prompt_name(directory)
            if chosen is not None:
                if chosen not in prompts:
                    raise SpecError(f"{where}: {name}'s {ST_CONFIG} sets default_prompt_name={chosen!r}, which "
                                    f"its prompts do not name ({', '.join(sorted(prompts)) or 'none'})")
                return prompts[chosen]
        return self.default


def without_prompt_defaults(given: set[str], defaults: dict[str, str]) -> dict[str, str]:
    """A recipe's settings less its prompt when the spec gives a prompt of its own (any of the three
    options replaces the recipe's, whichever spelling either uses)."""
    if given & set(PROMPT_OPTIONS):
        return {k: v for k, v in defaults.items() if k not in PROMPT_OPTIONS}
    return dict(defaults)


PROMPT_HELP = {
    "prompt": 'the whole text put before each input; quote it: prompt="query: "',
    "prompt_name": f"a prompt the repo names in {ST_CONFIG} (e.g. query)",
    "instruction": 'the task text put into the card\'s template ("Instruct: TASK\\nQuery: "), where it has one',
}
