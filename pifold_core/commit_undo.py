"""Taking a commit back exactly when it cannot be stored or logged (all or nothing).

A commit changes the forest, the projection, the marks, the staged refolds and the ephemeral
peeks in memory before its record can be computed; :func:`snapshot` copies what it may
change, and :func:`undo` puts it back if the store or the log refuses, so a failed commit
leaves the engine as it was and a retry succeeds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pifold_core.engine import Engine


def snapshot(engine: Engine) -> dict[str, Any]:
    """Copies of everything a commit may change."""
    return {
        "forest_lists": engine.forest.snapshot(),
        "projection": engine.projection.snapshot(),
        "marks": dict(engine.marks),
        "refolds": set(engine.staged_refolds),
        "ephemeral": dict(engine.ephemeral),
    }


def undo(engine: Engine, taken: dict[str, Any]) -> None:
    """Put back what :func:`snapshot` copied."""
    engine.forest.restore_snapshot(taken["forest_lists"])
    # Placeholders cached for folds the failed commit made would be served again if the
    # same span is folded later with another brief: the projection forgets them.
    engine.projection.restore_snapshot(taken["projection"])
    engine.marks.clear()
    engine.marks.update(taken["marks"])
    engine.staged_refolds.clear()
    engine.staged_refolds.update(taken["refolds"])
    engine.ephemeral.clear()
    engine.ephemeral.update(taken["ephemeral"])


__all__ = ["snapshot", "undo"]
