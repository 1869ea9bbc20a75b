"""How the window map's columns share its width, and the header that names them.

The map's rows say what a row is (its id), what it costs in the window (tokens), what will
happen to it (its state, with the pending mark) and, room permitting, its kind and the start
of its text. On a narrow terminal the columns give way in about the reverse of that order:
the text first, then the state's long forms (``folded (in folded parent)`` is cut with
``…``), then the kind narrows and goes, then the state narrows to its short forms; the id and
the tokens always stay (issue 19: at 80 columns the map lost its tokens and state, and its header
wrapped at 120). The header is made from the same widths, so it never wraps and always sits
over its column.
"""

from __future__ import annotations

from dataclasses import dataclass

MARKER_WIDTH = 2
"""The ``▸ ``/``▾ `` before a fold (blank before an entry)."""
IDENTIFIER_WIDTH = 18
"""An entry id or a fold handle (``fold-`` and 12 hex digits) and a space."""
TOKENS_WIDTH = 9
"""The tokens a row costs, right-aligned."""
TOKENS_GAP = 2
"""Between the tokens and the state."""
STATE_WIDTH = 26
"""The state with its mark, at most (``folded (in folded parent)``)."""
STATE_FIRST = 16
"""The state's cells before the kind gets any: ``marked mark-41`` and most states whole."""
STATE_GAP = 1
"""After the state."""
KIND_WIDTH = 20
"""The kind (``assistant → exec_command``, ``consolidated fold``), at most."""
KIND_MIN = 10
"""Narrower than this the kind says too little (``assistan``): it goes instead."""

FIXED_WIDTH = MARKER_WIDTH + IDENTIFIER_WIDTH + TOKENS_WIDTH + TOKENS_GAP + STATE_GAP
"""The cells every layout spends before the state, the kind and the text."""


@dataclass(frozen=True, slots=True)
class MapColumns:
    """The widths one map width gives its columns (0: the column is left out)."""

    kind: int
    """Cells of the kind column."""
    state: int
    """Cells of the state column."""
    text: int
    """Cells left for the text."""

    def header(self) -> str:
        """The column names, each over its column, in exactly the map's width or less."""
        kind = f"{'kind':<{self.kind}.{self.kind}}" if self.kind else ""
        text = " text" if self.text >= len(" text") else ""
        return (
            f"{'':<{MARKER_WIDTH}}{'id':<{IDENTIFIER_WIDTH}}{kind}{'tokens':>{TOKENS_WIDTH}}"
            f"{'':<{TOKENS_GAP}}{'state':<{self.state}.{self.state}}{text}"
        ).rstrip()


def columns_for(width: int) -> MapColumns:
    """The columns of a map ``width`` cells wide: the state's first :data:`STATE_FIRST`
    cells, then the kind (when at least :data:`KIND_MIN` cells are left), then the rest of
    the state, and the text whatever remains."""
    room = max(0, width - FIXED_WIDTH)
    state = min(STATE_FIRST, room)
    room -= state
    kind = min(KIND_WIDTH, room) if room >= KIND_MIN else 0
    room -= kind
    more = min(STATE_WIDTH - state, room)
    return MapColumns(kind=kind, state=state + more, text=room - more)


__all__ = [
    "FIXED_WIDTH",
    "IDENTIFIER_WIDTH",
    "KIND_WIDTH",
    "STATE_WIDTH",
    "TOKENS_WIDTH",
    "MapColumns",
    "columns_for",
]
