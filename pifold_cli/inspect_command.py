"""``pifold inspect STATE_DIR``: the fold screens over any session folder (issue 11).

The folder must already hold a session (its ``fold-log.jsonl``): inspecting never creates
one. ``--read-only`` opens it without writing anything and every screen refuses the actions
that would change it; a folder a running session is writing (its lock is held) opens
read-only with a note saying so, because there is one writer per session. Every failure is a
message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pifold_core.engine import LOG_NAME, Engine, EngineError, SessionLocked
from pifold_core.journal import JournalCorrupt
from pifold_core.settings import SettingsFile
from pifold_core.store import StoreError


class InspectError(Exception):
    """The folder cannot be inspected; the message says why."""


@dataclass
class Inspection:
    """An engine opened for the screens, and why it is read-only when it is."""

    engine: Engine
    """The session."""
    note: str | None
    """Shown on the status screen: why the session is read-only, if it is."""

    @property
    def read_only(self) -> bool:
        return self.engine.view.read_only


def open_for_inspection(state_dir: Path, read_only: bool = False) -> Inspection:
    """Open ``state_dir`` for the screens, read-only if asked or if a writer holds it.

    Raises:
        InspectError: it is not a folder, holds no session, or its state cannot be read.
    """
    folder = Path(state_dir)
    if not folder.is_dir():
        raise InspectError(f"{folder} is not a folder (give an engine state folder)")
    if not (folder / LOG_NAME).is_file():
        raise InspectError(
            f"{folder} holds no pifold session: there is no {LOG_NAME} in it "
            "(pifold replay TRACE --state DIR makes one)"
        )
    try:
        try:
            return Inspection(Engine.open(folder, read_only=read_only), None)
        except SessionLocked as error:
            engine = Engine.open(folder, read_only=True)
            return Inspection(engine, f"Opened read-only because {error}.")
    except (EngineError, JournalCorrupt, StoreError, ValueError) as error:
        raise InspectError(f"cannot open the session in {folder}: {error}") from None
    except OSError as error:
        raise InspectError(f"cannot read {folder}: {error.strerror or error}") from None


def run_inspection(console: Console, state_dir: Path, read_only: bool = False) -> None:
    """Open the screens over ``state_dir`` until the user quits; exit 2 on a failure."""
    # Imported here: the replay and the other commands need no Textual.
    from pifold_tui.inspect import InspectApp

    try:
        inspection = open_for_inspection(state_dir, read_only)
    except InspectError as error:
        console.print(f"[red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(2) from None
    try:
        InspectApp(
            inspection.engine,
            SettingsFile(),
            read_only=inspection.read_only,
            note=inspection.note,
        ).run()
    finally:
        inspection.engine.close()


def inspect(
    state_dir: Annotated[
        Path, typer.Argument(help="An engine state folder (it holds fold-log.jsonl).")
    ],
    read_only: Annotated[
        bool,
        typer.Option("--read-only", help="Refuse every action that would change the session."),
    ] = False,
) -> None:
    """Open the fold screens (/fold-status, /fold, ...) over a session's state folder."""
    run_inspection(Console(stderr=True), state_dir, read_only)


__all__ = ["InspectError", "Inspection", "inspect", "open_for_inspection", "run_inspection"]
