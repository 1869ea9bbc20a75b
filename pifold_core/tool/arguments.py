"""Parsing a model's tool arguments into one typed action (DESIGN §7, §12).

Arguments come from a model, so they may be any JSON value, or a JSON string holding one.
:func:`parse_arguments` checks them completely before anything reaches the engine and either
returns one action dataclass or raises :class:`ToolArgumentError` naming the argument and
what was wrong with it. The rules mirror :func:`pifold_core.tool.schema.action_schemas`, with
two leniencies a model benefits from: an optional argument given as ``null`` counts as
absent, and a number with no fractional part (``5.0``) is an integer, as JSON Schema says.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Final

from pifold_core.admission import AdmissionError, admit_text
from pifold_core.briefs import BriefError, validate_supplied_brief
from pifold_core.canonical import CanonicalError, parse_json
from pifold_core.entries import looks_like_path
from pifold_core.search import SearchError, parse_query
from pifold_core.tool.actions import (
    BriefAction,
    ExpandAction,
    PeekAction,
    PinAction,
    ReboundaryAction,
    RefoldAction,
    SearchAction,
    StatusAction,
    ToolAction,
    UnmarkAction,
    UnpinAction,
)
from pifold_core.tool.schema import (
    ACTIONS,
    DEFAULT_PAGE_SIZE,
    FOLD_ID_HEX_DIGITS,
    MAX_ID_CHARS,
    MAX_PAGE_SIZE,
    MAX_PIN_IDS,
    STATUS_DETAILS,
    action_arguments,
    required_arguments,
)

FOLD_ID: Final = re.compile(rf"fold-[0-9a-f]{{{FOLD_ID_HEX_DIGITS},64}}")
"""A fold handle: 12 hex digits, more only after a collision."""

MARK_ID: Final = re.compile(r"mark-[1-9][0-9]*")
"""A pending mark: ``mark-`` and a positive number."""

EVIDENCE_ID: Final = re.compile(r"evidence-[0-9a-f]{64}")
"""An evidence artifact: ``evidence-`` and the SHA-256 of the original record."""


MAX_ARGUMENT_DEPTH: Final = 8
"""Deepest nesting of arrays and objects accepted. The tool needs two levels (an object
holding an array of ids); the limit is checked without recursion, so a hostile value is an
error result, never a ``RecursionError``."""

_JSON_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
"""A JSON string (skipped whole) or a bracket: enough to measure nesting before parsing."""


class ToolArgumentError(ValueError):
    """The tool's arguments are unusable; nothing was done. The message names the argument."""

    def __init__(
        self, message: str, argument: str | None = None, action: str | None = None
    ) -> None:
        super().__init__(message)
        self.argument = argument
        """The argument at fault, or ``None`` when the arguments as a whole are."""
        self.action = action
        """The action that was asked for, when it could be read."""


def parse_arguments(raw: object) -> ToolAction:
    """Turn raw tool arguments into an action, or raise :class:`ToolArgumentError`."""
    arguments = _as_object(raw)
    action = arguments.get("action")
    valid = ", ".join(ACTIONS)
    if action is None:
        raise ToolArgumentError(f"missing argument 'action'; valid actions: {valid}", "action")
    if not isinstance(action, str):
        raise ToolArgumentError(
            f"argument 'action' must be a string, got {_kind(action)}; valid actions: {valid}",
            "action",
        )
    if action not in ACTIONS:
        raise ToolArgumentError(f"unknown action {action!r}; valid actions: {valid}", "action")
    try:
        return _Reader(action, arguments).read()
    except ToolArgumentError as error:
        error.action = action
        raise


def _as_object(raw: object) -> Mapping[str, object]:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ToolArgumentError(f"arguments are not UTF-8 text: {error}") from None
    if isinstance(raw, str):
        _check_text_depth(raw)
        try:
            raw = parse_json(raw)
        except (ValueError, CanonicalError) as error:
            raise ToolArgumentError(f"arguments are not valid JSON: {error}") from None
    if not isinstance(raw, Mapping):
        raise ToolArgumentError(f"arguments must be a JSON object, got {_kind(raw)}")
    _check_value_depth(raw)
    for key in raw:
        if not isinstance(key, str):
            raise ToolArgumentError(f"argument names must be strings, got {key!r}")
    return raw


def _too_deep() -> ToolArgumentError:
    return ToolArgumentError(
        f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels; "
        "the tool takes a flat object (ids go in one array)"
    )


def _check_text_depth(text: str) -> None:
    """Refuse JSON text nested past the limit before the parser can recurse into it."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        bracket = token[0]
        if bracket in "[{":
            depth += 1
            if depth > MAX_ARGUMENT_DEPTH:
                raise _too_deep()
        elif bracket in "]}":
            depth -= 1


def _check_value_depth(value: object) -> None:
    """Refuse an already parsed value nested past the limit, with an explicit stack."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            members: list[object] = list(item.values())
        elif isinstance(item, list | tuple):
            members = list(item)
        else:
            continue
        if depth > MAX_ARGUMENT_DEPTH:
            raise _too_deep()
        stack.extend((member, depth + 1) for member in members)


def _kind(value: object) -> str:
    """How a JSON value is named in an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


class _Reader:
    """Reads one action's arguments, checking each as it goes."""

    def __init__(self, action: str, arguments: Mapping[str, object]) -> None:
        self.action = action
        self.arguments = arguments

    def read(self) -> ToolAction:
        accepted = action_arguments(self.action)
        for name in sorted(set(self.arguments) - {"action", *accepted}):
            takes = ", ".join(accepted) if accepted else "no other arguments"
            raise ToolArgumentError(
                f"argument {name!r} is not accepted by action {self.action!r} (it takes {takes})",
                name,
            )
        for name in required_arguments(self.action):
            if self.arguments.get(name) is None:
                raise ToolArgumentError(
                    f"missing argument {name!r}: action {self.action!r} requires it", name
                )
        return self._build()

    def _build(self) -> ToolAction:
        if self.action == "status":
            return StatusAction(
                detail=self._choice("detail", STATUS_DETAILS),
                page=self._integer_or("page", 1, minimum=1),
                page_size=self._integer_or(
                    "page_size", DEFAULT_PAGE_SIZE, minimum=1, maximum=MAX_PAGE_SIZE
                ),
            )
        if self.action == "peek":
            return PeekAction(
                id=self._peek_id("id"),
                offset=self._integer_or("offset", 0, minimum=0),
                length=self._integer("bytes", minimum=1),
                ephemeral=self._boolean("ephemeral", default=True),
            )
        if self.action == "brief":
            return BriefAction(mark_id=self._mark_id("id"), text=self._brief("text"))
        if self.action == "expand":
            return ExpandAction(fold_id=self._fold_id("id"))
        if self.action == "refold":
            return RefoldAction(fold_id=self._fold_id("id"))
        if self.action == "pin":
            return PinAction(ids=self._pin_ids("ids"))
        if self.action == "unpin":
            return UnpinAction(ids=self._pin_ids("ids"))
        if self.action == "search":
            return self._search()
        if self.action == "reboundary":
            return ReboundaryAction(
                mark_id=self._mark_id("id"),
                start_id=self._entry_id("start"),
                end_id=self._entry_id("end"),
            )
        return UnmarkAction(mark_id=self._mark_id("id"))

    def _search(self) -> SearchAction:
        """A search's arguments, checked by the query's own rules; optional ones given as
        ``null`` count as absent, like every action's."""
        given = {
            name: self.arguments[name]
            for name in ("regex", "tool", "path", "limit", "offset")
            if self.arguments.get(name) is not None
        }
        for name in ("limit", "offset"):
            value = given.get(name)
            if isinstance(value, float) and value.is_integer():
                given[name] = int(value)
        try:
            return SearchAction(parse_query(self.arguments.get("query"), **given))
        except SearchError as error:
            raise ToolArgumentError(
                f"argument {error.argument!r}: {error}", error.argument
            ) from None

    # -- scalar arguments -------------------------------------------------------------------

    def _fail(self, name: str, problem: str) -> ToolArgumentError:
        return ToolArgumentError(f"argument {name!r} {problem}", name)

    def _choice(self, name: str, choices: tuple[str, ...]) -> str:
        value = self.arguments.get(name)
        if value is None:
            return choices[0]
        if not isinstance(value, str) or value not in choices:
            listed = " or ".join(repr(choice) for choice in choices)
            raise self._fail(name, f"must be {listed}, got {value!r}")
        return value

    def _integer_or(self, name: str, default: int, minimum: int, maximum: int | None = None) -> int:
        value = self._integer(name, minimum, maximum)
        return default if value is None else value

    def _integer(self, name: str, minimum: int, maximum: int | None = None) -> int | None:
        value = self.arguments.get(name)
        if value is None:
            return None
        # bool is an int in Python but never in JSON: true is not 1.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._fail(name, f"must be an integer, got {_kind(value)}")
        if isinstance(value, float):
            if not value.is_integer():
                raise self._fail(name, f"must be an integer, got {value!r}")
            value = int(value)
        if value < minimum:
            raise self._fail(name, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self._fail(name, f"must be at most {maximum}, got {value}")
        return value

    def _boolean(self, name: str, default: bool) -> bool:
        value = self.arguments.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._fail(name, f"must be true or false, got {_kind(value)}")
        return value

    def _brief(self, name: str) -> str:
        value = self.arguments.get(name)
        if not isinstance(value, str):
            raise self._fail(name, f"must be a string, got {_kind(value)}")
        try:
            return validate_supplied_brief(admit_text(value, f"argument {name!r}"))
        except AdmissionError as error:
            raise ToolArgumentError(str(error), name) from None
        except BriefError as error:
            raise self._fail(name, f"is not a usable brief: {error}") from None

    # -- ids --------------------------------------------------------------------------------

    def _identifier(self, name: str, value: object) -> str:
        """Checks every id shares: a short, printable, non-empty string that is not a path."""
        if not isinstance(value, str):
            raise self._fail(name, f"must be an id string, got {_kind(value)}")
        if not value.strip():
            raise self._fail(name, "is empty; it must name an id")
        if looks_like_path(value):
            raise self._fail(name, f"looks like a path ({value!r}); an id is never a path")
        if len(value) > MAX_ID_CHARS:
            raise self._fail(name, f"has {len(value)} characters; ids have at most {MAX_ID_CHARS}")
        if any(unicodedata.category(character).startswith("C") for character in value):
            raise self._fail(name, f"holds control or invisible characters: {value!r}")
        if value != value.strip():
            raise self._fail(name, f"has surrounding whitespace: {value!r}")
        return value

    def _fold_id(self, name: str) -> str:
        value = self._identifier(name, self.arguments.get(name))
        if not FOLD_ID.fullmatch(value):
            shape = f"fold- and {FOLD_ID_HEX_DIGITS} hex digits"
            raise self._fail(name, f"must be a fold id ({shape}), got {value!r}")
        return value

    def _mark_id(self, name: str) -> str:
        value = self._identifier(name, self.arguments.get(name))
        if not MARK_ID.fullmatch(value):
            raise self._fail(name, f"must be a pending mark id (mark-<n>), got {value!r}")
        return value

    def _peek_id(self, name: str) -> str:
        value = self._identifier(name, self.arguments.get(name))
        self._check_prefixed(name, value)
        return value

    def _entry_id(self, name: str) -> str:
        value = self._identifier(name, self.arguments.get(name))
        for prefix, what in (("fold-", "a fold"), ("evidence-", "an evidence artifact")):
            if value.startswith(prefix):
                raise self._fail(name, f"must be an entry id, but {value!r} names {what}")
        return value

    def _check_prefixed(self, name: str, value: str) -> None:
        """An id with a fold or evidence prefix must be well formed, or the engine misreads it."""
        if value.startswith("fold-") and not FOLD_ID.fullmatch(value):
            raise self._fail(name, f"is a malformed fold id: {value!r}")
        if value.startswith("evidence-") and not EVIDENCE_ID.fullmatch(value):
            raise self._fail(name, f"is a malformed evidence id (evidence-<64 hex>): {value!r}")

    def _pin_ids(self, name: str) -> tuple[str, ...]:
        value = self.arguments.get(name)
        if not isinstance(value, list | tuple):
            raise self._fail(name, f"must be an array of ids, got {_kind(value)}")
        if not value:
            raise self._fail(name, "is empty; name at least one entry id or fold id")
        if len(value) > MAX_PIN_IDS:
            raise self._fail(name, f"names {len(value)} ids; at most {MAX_PIN_IDS} per call")
        ids: list[str] = []
        for position, item in enumerate(value):
            label = f"{name}[{position}]"
            identifier = self._identifier(label, item)
            self._check_prefixed(label, identifier)
            if identifier.startswith("evidence-"):
                raise self._fail(label, "names an evidence artifact; pin the entry it came from")
            if identifier in ids:
                raise self._fail(label, f"repeats {identifier!r}")
            ids.append(identifier)
        return tuple(ids)


__all__ = [
    "EVIDENCE_ID",
    "FOLD_ID",
    "MARK_ID",
    "MAX_ARGUMENT_DEPTH",
    "ToolArgumentError",
    "parse_arguments",
]
