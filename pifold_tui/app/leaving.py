"""Leaving the app (Ctrl+Q, ``/quit``) with nothing half-done and nothing printed after.

The order is the point. Textual tears the screens down once ``exit`` is called, and a widget
handed an event then (the aborted run's last messages: the partial reply, the run's end)
mounts into rows that are never mounted; the ``MountError`` was printed after the app had
gone (in 3 of 7 tries of quitting the demo as the issue reports it, 5 of 6 here). A reply
still streaming also keeps writing into its Markdown from a task of its own until its end is
delivered. So:

1. the session is let finish opening (one that opens after Ctrl+Q is closed unseen);
2. the run is aborted and awaited while the screens are up: its last events are delivered
   as usual and settle the partial reply, and then the bridge delivers nothing more;
3. a ``!command`` still running is stopped;
4. the conversation and the prompt handle every message posted to them until then;
5. the session is closed (the demo's temporary folder goes with it), and the app exits.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.worker import WorkerCancelled, WorkerFailed

if TYPE_CHECKING:
    from pifold_tui.app.host import LeavingHost

SHELL_GROUP = "shell"
"""The worker group ``!command`` runs go in."""


async def leave_cleanly(app: LeavingHost) -> None:
    """Take the steps of the module's docstring, then exit ``app`` (1 when the session
    failed to open, else 0)."""
    await app.loaded.wait()
    if app.bridge is not None:
        await app.bridge.close()
    await finish_shell_commands(app)
    for widget in app.listeners():
        await handled_so_far(widget)
    app.close_session()
    app.exit(0 if app.failure is None else 1)


async def finish_shell_commands(app: LeavingHost) -> None:
    """Stop any ``!command`` still running (its process group goes with it)."""
    shells = [worker for worker in app.workers if worker.group == SHELL_GROUP]
    for worker in shells:
        worker.cancel()
    for worker in shells:
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()


async def handled_so_far(widget: Widget) -> None:
    """Return once ``widget`` has handled every message posted to it before this call (at
    once when it no longer takes messages)."""
    handled = asyncio.Event()
    if widget.call_later(handled.set):
        await handled.wait()


__all__ = ["SHELL_GROUP", "finish_shell_commands", "handled_so_far", "leave_cleanly"]
