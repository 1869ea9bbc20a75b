"""Running one ``pi_fold_context`` call against an engine (DESIGN §7, §12).

:func:`run_tool` parses the arguments completely, then calls exactly one engine verb and
renders its outcome. A refused call comes back as an error result the model can read and
correct: the parser refuses before the engine is touched, and the engine's own refusals
(:class:`~pifold_core.engine.EngineError`, :class:`~pifold_core.peek.PeekError`,
:class:`~pifold_core.search.SearchError`) are raised
before it changes anything. A damaged store is another matter: a corrupt or missing object
means bytes cannot be trusted, so that error propagates to the host instead of being turned
into a polite result the model might shrug off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from pifold_core.engine import Engine, EngineError
from pifold_core.peek import PeekError
from pifold_core.search import SearchError
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
from pifold_core.tool.arguments import ToolArgumentError, parse_arguments
from pifold_core.tool.render import (
    page_count,
    render_brief,
    render_error,
    render_expand,
    render_peek,
    render_pin,
    render_reboundary,
    render_refold,
    render_status,
    render_tree,
    render_unmark,
    render_unpin,
)
from pifold_core.tool.render_search import render_search


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What one tool call returns to the host."""

    text: str
    """The tool result's text, deterministic for the same engine state and arguments."""
    is_error: bool
    """The call was refused; :attr:`text` starts with ``error:`` and nothing changed."""
    action: str | None
    """The action asked for, or ``None`` when the arguments did not name a known one."""
    moved_bytes: bool
    """The call rewrote bytes already sent (only a successful ``expand`` does)."""


def run_tool(engine: Engine, arguments: object, call_id: str | None = None) -> ToolResult:
    """Run one call of the tool; ``call_id`` is the provider's id of this tool call.

    ``call_id`` lets an ephemeral peek be withdrawn at the next commit: the engine needs it
    to find the peek's result among the entries. Without one, the peeked copy stays.

    Raises:
        pifold_core.store.StoreError: a stored object is missing or corrupt. Never turned
            into a result, because the model could not act on it and the host must know.
    """
    action: ToolAction | None = None
    try:
        action = parse_arguments(arguments)
        text, moved = _dispatch(engine, action, call_id)
    except ToolArgumentError as error:
        return ToolResult(render_error(str(error)), True, error.action, False)
    except (EngineError, PeekError, SearchError) as error:
        name = action.name if action is not None else None
        return ToolResult(render_error(str(error)), True, name, False)
    return ToolResult(text, False, action.name, moved)


def _dispatch(engine: Engine, action: ToolAction, call_id: str | None) -> tuple[str, bool]:
    """Call the verb ``action`` names; returns the result text and whether bytes moved."""
    if isinstance(action, StatusAction):
        return _status(engine, action), False
    if isinstance(action, PeekAction):
        result = engine.peek(action.id, action.offset, action.length)
        if action.ephemeral and call_id is not None:
            engine.note_ephemeral_peek(call_id, action.id)
            return render_peek(result, action.length, withdrawn_later=True), False
        return render_peek(result, action.length, withdrawn_later=False), False
    if isinstance(action, BriefAction):
        return render_brief(engine.set_brief(action.mark_id, action.text)), False
    if isinstance(action, ExpandAction):
        outcome = engine.expand(action.fold_id)
        return render_expand(action.fold_id, outcome, engine.view.projection.tokens), True
    if isinstance(action, RefoldAction):
        engine.refold(action.fold_id)
        return render_refold(action.fold_id), False
    if isinstance(action, PinAction):
        return render_pin(engine.pin(action.ids)), False
    if isinstance(action, UnpinAction):
        return render_unpin(engine.unpin(action.ids)), False
    if isinstance(action, ReboundaryAction):
        mark = engine.reboundary(action.mark_id, action.start_id, action.end_id)
        return render_reboundary(mark, action.start_id, action.end_id), False
    if isinstance(action, UnmarkAction):
        return render_unmark(engine.unmark(action.mark_id)), False
    if isinstance(action, SearchAction):
        return render_search(action.query, engine.search(action.query)), False
    assert_never(action)


def _status(engine: Engine, action: StatusAction) -> str:
    if action.detail == "summary":
        return render_status(engine.status())
    rows = engine.fold_rows()
    pages = page_count(len(rows), action.page_size)
    if action.page > pages:
        raise ToolArgumentError(
            f"argument 'page' is {action.page}, past the last page ({pages}) of "
            f"{len(rows)} folds at page_size {action.page_size}",
            "page",
            action.name,
        )
    return render_tree(rows, action.page, action.page_size)


__all__ = ["ToolResult", "run_tool"]
