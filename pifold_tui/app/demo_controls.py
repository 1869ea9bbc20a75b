"""The demo's keys, and what each says in every state of the demo.

F2 pauses and resumes the stream. Esc pauses it too: in a live session Esc aborts the turn,
but a recorded session cannot go on after an abort (the replies that follow answer what the
aborted one did), so in the demo Esc holds the stream where it is and F2 plays on. Once the
session has played to its end (or stopped on an error) nothing plays any more: F2 and Esc
say so, and how to play it again, and the footer names Ctrl+Q instead of F2.

Each key's note is said through the app's ``say`` and the footer's hints follow the state
through ``show_hints``, both given by the app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class PauseGate:
    """Holds the demo's stream while paused (between two chunks, never inside one)."""

    def __init__(self) -> None:
        self._open = asyncio.Event()
        self._open.set()

    @property
    def paused(self) -> bool:
        return not self._open.is_set()

    def toggle(self) -> bool:
        """Pause or resume; returns whether it is paused now."""
        if self.paused:
            self._open.set()
        else:
            self._open.clear()
        return self.paused

    async def wait_open(self) -> None:
        """Return at once when playing; otherwise when resumed."""
        await self._open.wait()


DEMO_HINTS = "f2 pause · ctrl+p commands · /fold-editor"
"""The keys the footer names while the demo plays."""

PAUSED_HINTS = "f2 resume · ctrl+p commands · /fold-editor"
"""The keys the footer names while it is paused."""

ENDED_HINTS = "ctrl+q quit · ctrl+p commands · /fold-editor"
"""The keys the footer names once it has ended."""

PAUSED = "Paused: f2 resumes (ctrl+q quits)."
PLAYING = "Playing."
STILL_PAUSED = "Paused already: f2 resumes."
ENDED = (
    "The demo has played to its end; the session stays open to look at (/fold-editor, "
    "/fold-status). Run pifold again to replay it; ctrl+q quits."
)
STOPPED = (
    "The demo stopped: {reason}. The session stays open to look at (/fold-editor, "
    "/fold-status). Run pifold again to replay it; ctrl+q quits."
)


class DemoControls:
    """Pause and resume the demo's stream, and say what happened."""

    def __init__(
        self,
        gate: PauseGate,
        say: Callable[[str], None],
        show_hints: Callable[[str], None],
        played_through: Callable[[], bool],
    ) -> None:
        self.gate = gate
        """Holds the stream between two chunks while paused."""
        self.say = say
        """Tells the user a key's outcome."""
        self.show_hints = show_hints
        """Puts the footer's key hints as they are now."""
        self.played_through = played_through
        """Whether every recorded reply has been played (a recording that ends on a tool
        call leaves the loop asking for one more reply, which is its end all the same)."""
        self.ended: str | None = None
        """What the demo's end said, once the run is over (``None`` while it plays)."""

    def toggle(self) -> str:
        """F2: pause or resume (or say that it has ended); what was said."""
        if self.ended is not None:
            return self._said(self.ended)
        return self._said(PAUSED if self.gate.toggle() else PLAYING)

    def pause(self) -> str:
        """Esc: pause (a paused or ended demo stays as it is); what was said."""
        if self.ended is not None:
            return self._said(self.ended)
        if self.gate.paused:
            return self._said(STILL_PAUSED)
        self.gate.toggle()
        return self._said(PAUSED)

    def end(self, outcome: str, error: str | None) -> str:
        """The run is over (``outcome`` and ``error`` as the loop says them); what was said.
        The gate is opened, so nothing is left waiting on it."""
        if self.gate.paused:
            self.gate.toggle()
        if outcome == "stop" or self.played_through():
            self.ended = ENDED
        else:
            self.ended = STOPPED.format(reason=error or outcome)
        return self._said(self.ended)

    def _said(self, text: str) -> str:
        self.say(text)
        self.show_hints(self.hints)
        return text

    @property
    def hints(self) -> str:
        """The footer's key hints now."""
        if self.ended is not None:
            return ENDED_HINTS
        return PAUSED_HINTS if self.gate.paused else DEMO_HINTS


__all__ = [
    "DEMO_HINTS",
    "ENDED",
    "ENDED_HINTS",
    "PAUSED",
    "PAUSED_HINTS",
    "PLAYING",
    "STILL_PAUSED",
    "STOPPED",
    "DemoControls",
    "PauseGate",
]
