"""A tool call's argument text, read at the door: a value the engine admits, or the text itself.

The model streams its arguments as JSON text. Parsed, they must be what every later reader
takes (:mod:`pifold_core.admission`): no ``NaN`` or infinity, nesting at most
:data:`~pifold_core.admission.MAX_DEPTH` levels, no lone surrogate. Python's parser accepts
``NaN`` and gives up on deep nesting with a ``RecursionError``, so neither is left to it:
constants are refused while parsing, and depth is measured on the text before parsing.

Text that does not give such a value is kept as the text (a string the engine admits, lone
surrogates replaced), so the call is recorded as the model made it; the loop answers it with
an error result, and :func:`arguments_problem` says what was wrong.
"""

from __future__ import annotations

import json

from pifold_core.admission import MAX_DEPTH, AdmissionError, admit, replace_lone_surrogates
from pifold_core.canonical import JsonValue


class _Constant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in the text."""


def _refuse_constant(name: str) -> JsonValue:
    raise _Constant(name)


def nesting_depth(text: str) -> int:
    """How deep the brackets of JSON ``text`` nest, strings skipped (no parsing, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest


def read_arguments(text: str) -> tuple[JsonValue, str | None]:
    """The arguments ``text`` holds and ``None``, or the text itself and what is wrong with it.

    An empty (or blank) text is ``{}``: a call with no arguments.
    """
    if not text.strip():
        return {}, None
    kept = replace_lone_surrogates(text)
    # Counting brackets is cheap; walking the text only happens when it could nest too deep.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = nesting_depth(text)
        if depth > MAX_DEPTH:
            return kept, f"they nest {depth:,} levels deep, more than the {MAX_DEPTH} allowed"
    try:
        value: JsonValue = json.loads(text, parse_constant=_refuse_constant)
    except _Constant as constant:
        return kept, f"they hold {constant}, which JSON does not allow"
    except json.JSONDecodeError as error:
        return kept, f"they are not valid JSON ({error.msg} at character {error.pos:,})"
    except RecursionError:
        return kept, "they nest too deeply to read"
    try:
        return admit(value, "the arguments"), None
    except AdmissionError as error:
        return kept, str(error)


def parse_arguments(text: str) -> JsonValue:
    """Streamed argument text as JSON: an empty text is ``{}``, text that does not give an
    admissible value stays text (see :func:`read_arguments`)."""
    return read_arguments(text)[0]


def arguments_problem(arguments: JsonValue) -> str:
    """Why ``arguments`` are not a JSON object the tool can take, for the call's error result."""
    if isinstance(arguments, str):
        _, problem = read_arguments(arguments)
        if problem is not None:
            return f"the text sent is not a JSON object: {problem}"
        return f"got the text {_short(arguments)}, which is not a JSON object"
    return f"got {_short(arguments)}"


def _short(value: JsonValue) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["arguments_problem", "nesting_depth", "parse_arguments", "read_arguments"]
