"""Taking a commit back exactly when it cannot be stored or logged (all or nothing).

A commit changes the forest, the projection, the marks, the staged refolds and the ephemeral
peeks in memory before its record can be computed; :func:`snapshot` copies what it may
change, and :func:`undo` puts it back if the store or the log refuses, so a failed commit
leaves the engine as it was and a retry succeeds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pifold_core.session_state import SessionState


def snapshot(state: SessionState) -> dict[str, Any]:
    """Copies of everything a commit may change."""
    return {
        "forest_lists": state.forest.snapshot(),
        "projection": state.projection.snapshot(),
        "marks": dict(state.marks),
        "refolds": set(state.staged_refolds),
        "ephemeral": dict(state.ephemeral),
    }


def undo(state: SessionState, taken: dict[str, Any]) -> None:
    """Put back what :func:`snapshot` copied."""
    state.forest.restore_snapshot(taken["forest_lists"])
    # Placeholders cached for folds the failed commit made would be served again if the
    # same span is folded later with another brief: the projection forgets them.
    state.projection.restore_snapshot(taken["projection"])
    state.marks.clear()
    state.marks.update(taken["marks"])
    state.staged_refolds.clear()
    state.staged_refolds.update(taken["refolds"])
    state.ephemeral.clear()
    state.ephemeral.update(taken["ephemeral"])


__all__ = ["snapshot", "undo"]
