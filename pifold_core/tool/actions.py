"""The typed actions of ``pi_fold_context``: one frozen dataclass per action (DESIGN §7).

:func:`pifold_core.tool.arguments.parse_arguments` builds them from a model's raw arguments
after checking every field, so whoever receives one may use it without further checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pifold_core.search import SearchQuery
from pifold_core.tool.schema import DEFAULT_PAGE_SIZE


@dataclass(frozen=True, slots=True)
class StatusAction:
    """``status``: report the engine's state, or one page of the fold tree."""

    name: ClassVar[str] = "status"
    detail: str = "summary"
    """``summary`` or ``tree``."""
    page: int = 1
    """Tree page to show, from 1."""
    page_size: int = DEFAULT_PAGE_SIZE
    """Folds per tree page."""


@dataclass(frozen=True, slots=True)
class PeekAction:
    """``peek``: exact bytes of a fold, an entry or an evidence artifact."""

    name: ClassVar[str] = "peek"
    id: str
    """A fold id, an entry id or an evidence id."""
    offset: int = 0
    """First byte of the slice."""
    length: int | None = None
    """Most bytes to return (the ``bytes`` argument); ``None`` for the rest."""
    ephemeral: bool = True
    """Whether the copy is withdrawn at the next commit."""


@dataclass(frozen=True, slots=True)
class BriefAction:
    """``brief``: write the brief of a pending mark."""

    name: ClassVar[str] = "brief"
    mark_id: str
    """The pending mark."""
    text: str
    """The brief, trimmed, at most 2,000 characters."""


@dataclass(frozen=True, slots=True)
class ExpandAction:
    """``expand``: restore a fold in place, one level."""

    name: ClassVar[str] = "expand"
    fold_id: str
    """The fold to open."""


@dataclass(frozen=True, slots=True)
class RefoldAction:
    """``refold``: collapse an expanded fold again at the next commit."""

    name: ClassVar[str] = "refold"
    fold_id: str
    """The expanded fold."""


@dataclass(frozen=True, slots=True)
class PinAction:
    """``pin``: hold entries raw through every commit."""

    name: ClassVar[str] = "pin"
    ids: tuple[str, ...]
    """Entry ids or fold ids, no duplicates."""


@dataclass(frozen=True, slots=True)
class UnpinAction:
    """``unpin``: release pinned entries."""

    name: ClassVar[str] = "unpin"
    ids: tuple[str, ...]
    """Entry ids or fold ids, no duplicates."""


@dataclass(frozen=True, slots=True)
class ReboundaryAction:
    """``reboundary``: re-cut a pending mark's span."""

    name: ClassVar[str] = "reboundary"
    mark_id: str
    """The pending mark."""
    start_id: str
    """Id of the first entry of the new span."""
    end_id: str
    """Id of the last entry of the new span (inclusive)."""


@dataclass(frozen=True, slots=True)
class UnmarkAction:
    """``unmark``: withdraw a pending mark."""

    name: ClassVar[str] = "unmark"
    mark_id: str
    """The pending mark."""


@dataclass(frozen=True, slots=True)
class SearchAction:
    """``search``: full-text search over what folds and clips hid (issue 21)."""

    name: ClassVar[str] = "search"
    query: SearchQuery
    """The checked query: words or a bounded regex, filters and the page."""


ToolAction = (
    StatusAction
    | PeekAction
    | BriefAction
    | ExpandAction
    | RefoldAction
    | PinAction
    | UnpinAction
    | ReboundaryAction
    | UnmarkAction
    | SearchAction
)
"""Any parsed action."""


__all__ = [
    "BriefAction",
    "ExpandAction",
    "PeekAction",
    "PinAction",
    "ReboundaryAction",
    "RefoldAction",
    "SearchAction",
    "StatusAction",
    "ToolAction",
    "UnmarkAction",
    "UnpinAction",
]
