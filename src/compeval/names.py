"""Names users give (tasks, models, subsets) must read the same in every view (docs/architecture.md): each is
either refused when made (``task_name_problem``, ``text_problem``) or escaped by its view's one function
(``markdown``, ``PLAIN_TEXT``, ``html.escape``, ``json``/``csv``, ``paths.safe_component``).
Subset names compeval gives its own scores (``all``, ``non_minus_adv``) are reserved by each user-task kind."""
from __future__ import annotations

import re
import unicodedata

#: A task name: letters, digits, ``.``, ``_`` and ``-``, starting and ending with a letter or digit, at most
#: ``MAX_TASK_NAME`` characters. It is a file name as written (no slug that a reader must map back), a word
#: on the command line (``compeval tasks NAME``) and an HTML id (``fig-user-NAME``).
TASK_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
MAX_TASK_NAME = 100
#: A subset or label: at most this many characters (a figure's axis and a table's column stay legible).
MAX_LABEL = 100
#: Unicode categories no view shows as written: controls (newline, tab), format characters (right-to-left
#: overrides, zero-width spaces), line and paragraph separators, surrogates, private use, unassigned.
_INVISIBLE = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
#: Markdown's inline syntax in a table cell, each made literal by a backslash (CommonMark 2.4): ``|`` ends
#: the cell; code, emphasis, HTML, entities and GitHub's strikethrough and math; a run of ``_`` except between
#: letters or digits, where it never marks emphasis (``non_minus_adv``, ``p__3f2a``); ``[``/``(`` right after
#: ``]`` (only then do brackets make a link: a name such as ``Overlap [published]`` stays as written).
_MARKDOWN = re.compile(r"[\\|`*<>&~$]|(?<=\])[(\[]|_+")
#: matplotlib's settings that draw a text as written: no mathtext (``$\frac{$`` is a label, not a formula
#: that fails to parse) and no LaTeX. Every report figure is drawn under them (``rc_context``).
PLAIN_TEXT = {"text.parse_math": False, "text.usetex": False}


def text_problem(text: object, what: str, limit: int | None = MAX_LABEL) -> str | None:
    """Why ``text`` (a name, a subset, a label) cannot be shown unchanged in every view, or None.
    ``what`` names it in the line ("subset 'x'")."""
    if not isinstance(text, str):
        return f"{what} must be text, got {text!r}"
    shown = repr(text) if len(text) <= 60 else repr(text[:60]) + "…"  # repr escapes what is not printable
    if not text.strip():
        return f"{what} is empty"
    bad = next((c for c in text if unicodedata.category(c) in _INVISIBLE), None)
    if bad is not None:
        return (f"{what} {shown} holds U+{ord(bad):04X} ({unicodedata.name(bad, 'a control character').lower()}), "
                "which no table or figure shows as written; remove it")
    if text != text.strip() or "  " in text or any(c.isspace() and c != " " for c in text):
        return f"{what} {shown}: spaces only single and between words (HTML and markdown collapse the others)"
    if not unicodedata.is_normalized("NFC", text):
        return (f"{what} {shown} is not in Unicode's composed form (NFC) and would look like another name; "
                "write it composed")
    if limit is not None and len(text) > limit:
        return f"{what} {shown} has {len(text)} characters; at most {limit}"
    return None


def task_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a task, or None (``TASK_NAME``)."""
    problem = text_problem(name, "task name", MAX_TASK_NAME)
    if problem is None and not TASK_NAME.fullmatch(name):
        return (f"task name {name!r}: use letters a-z, A-Z, digits, '.', '_' and '-', starting and "
                "ending with a letter or digit (it names the result files and is typed on the command line)")
    if problem is None and "__" in name:
        return f"task name {name!r}: no '__' (it separates a task's name from its options in file names)"
    return problem


def markdown(text: object) -> str:
    """``text`` as one markdown table cell that renders as written (markup escaped, one line)."""
    text = " ".join(str(text).split())

    def escaped(m: re.Match) -> str:
        run = m.group(0)
        if run[0] == "_" and 0 < m.start() and m.end() < len(text) and text[m.start() - 1].isalnum() \
                and text[m.end()].isalnum():
            return run
        return "".join("\\" + c for c in run)

    return _MARKDOWN.sub(escaped, text)
