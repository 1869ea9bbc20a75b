"""What every file tool shares: argument checks and path resolution (pi-host §2.1).

A path is resolved against the working directory; a leading ``@`` (models echo the UI's
file mentions) is dropped with the quotes of a quoted mention (``@"my notes.md"``), ``~`` is
expanded and unusual Unicode spaces become plain ones.
Paths outside the working directory are allowed: it is the user's machine. What is never
allowed is reaching the engine's stores through a tool: a fold, mark or evidence id is not a
path, so when no file of that name exists the call is refused with a pointer to
``pi_fold_context`` instead of being looked up anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from pifold_agent.tools.protocol import ToolOutcome
from pifold_core.canonical import JsonValue

ENGINE_ID = re.compile(r"(fold-[0-9a-f]{12}|mark-[0-9]+|evidence-[0-9a-f]{64})")
"""The ids the engine hands out; never read as paths."""

_UNUSUAL_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


class ToolInputError(ValueError):
    """The call's arguments are unusable; the message says which and why."""


def failure(text: str, details: dict[str, JsonValue] | None = None) -> ToolOutcome:
    """An error result."""
    return ToolOutcome(text, is_error=True, details=details or {})


def required_string(arguments: dict[str, JsonValue], name: str) -> str:
    """A required text argument."""
    value = arguments.get(name)
    if value is None:
        raise ToolInputError(f"missing required argument '{name}'")
    if not isinstance(value, str):
        raise ToolInputError(f"argument '{name}' must be a string, got {type(value).__name__}")
    return value


def optional_string(arguments: dict[str, JsonValue], name: str) -> str | None:
    """An optional text argument (absent or null is None)."""
    value = arguments.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolInputError(f"argument '{name}' must be a string, got {type(value).__name__}")
    return value


def optional_integer(arguments: dict[str, JsonValue], name: str, minimum: int) -> int | None:
    """An optional integer argument of at least ``minimum`` (a whole float is accepted:
    some models send ``20.0``)."""
    value = arguments.get(name)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolInputError(f"argument '{name}' must be an integer, got {value!r}")
    if value < minimum:
        raise ToolInputError(f"argument '{name}' must be at least {minimum}, got {value}")
    return value


def optional_number(arguments: dict[str, JsonValue], name: str) -> float | None:
    """An optional positive number."""
    value = arguments.get(name)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise ToolInputError(f"argument '{name}' must be a positive number, got {value!r}")
    return float(value)


def optional_boolean(arguments: dict[str, JsonValue], name: str) -> bool:
    """An optional flag (absent is False)."""
    value = arguments.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ToolInputError(f"argument '{name}' must be true or false, got {value!r}")
    return value


def resolve_path(raw: str, cwd: Path) -> Path:
    """The absolute path a tool argument names.

    Raises:
        ToolInputError: the path is empty or holds a NUL, names the home of an unknown user
            (``~nobody9``), or it is an engine id and no such file exists.
    """
    text = _UNUSUAL_SPACES.sub(" ", raw.strip())
    if text.startswith("@"):
        text = text[1:]
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]  # a quoted mention: the app quotes a path holding a space
    if not text:
        raise ToolInputError("the path is empty")
    if "\x00" in text:
        raise ToolInputError(f"the path {text!r} holds a NUL character, which no file name can")
    try:
        path = Path(text).expanduser()
    except RuntimeError:
        # "~name" for a user this machine does not know: pathlib cannot expand it.
        raise ToolInputError(f"'{text}' names the home folder of an unknown user") from None
    resolved = path if path.is_absolute() else cwd / path
    if ENGINE_ID.fullmatch(text) and not resolved.exists():
        raise ToolInputError(
            f"'{text}' is an id of the context engine, not a file path; "
            "use the pi_fold_context tool (action 'peek') to read it"
        )
    return resolved


__all__ = [
    "ENGINE_ID",
    "ToolInputError",
    "failure",
    "optional_boolean",
    "optional_integer",
    "optional_number",
    "optional_string",
    "required_string",
    "resolve_path",
]
