"""``/fold``: commit every pending mark now, after a preview (DESIGN §11).

The screen shows the engine's dry run first; nothing moves until the user confirms (Enter
or ``y``), and Escape leaves without a change. After the commit it shows what landed and the
bar repaints. A refused commit (nothing staged, folding stopped) and a read-only session say
why and change nothing. The commit goes through :meth:`Engine.commit_now`, the same API the
tool and the host use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Static

from pifold_core.commit import CommitOutcome
from pifold_core.engine import Engine, EngineError
from pifold_core.preview import first_difference
from pifold_tui.screens.fold.report import FoldPreview, Landed, landed_report, preview_report
from pifold_tui.screens.status.frame import BarFooter

FoldStep = Literal["preview", "landed"]
"""Where the screen is: showing the preview, or what landed."""


class FoldScreen(Screen[CommitOutcome | None]):
    """The ``/fold`` preview, its confirmation and what landed.

    Dismissed with the commit's outcome, or ``None`` when nothing was committed.
    """

    DEFAULT_CSS = """
    FoldScreen #fold-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
        background: $panel;
    }
    FoldScreen #fold-body {
        padding: 0 1;
    }
    FoldScreen #fold-message {
        margin-top: 1;
        color: $text-error;
        text-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "Commit"),
        Binding("y", "confirm", "Commit", show=False),
        Binding("escape", "close", "Cancel"),
        Binding("escape", "back", "Back"),
    ]

    @dataclass
    class Committed(Message):
        """``/fold`` committed: the bar and every figure changed."""

        outcome: CommitOutcome
        """What the commit did."""

    def __init__(self, engine: Engine, read_only: bool = False) -> None:
        """Create the screen.

        Args:
            engine: The session to commit in.
            read_only: Refuse the commit (the session is open read-only).
        """
        super().__init__()
        self.engine = engine
        """The session."""
        self.read_only = read_only
        """The commit is refused: the session is open read-only."""
        self.step: FoldStep = "preview"
        """What the screen shows now."""
        self.preview: FoldPreview | None = None
        """The preview on screen."""
        self.landed: Landed | None = None
        """What the commit did, once it ran."""

    def compose(self) -> ComposeResult:
        yield Static("/fold · commit every pending mark now", id="fold-title")
        with VerticalScroll(id="fold-body"):
            yield Static(id="fold-report")
            yield Static(id="fold-message")
        yield BarFooter(self.engine)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.read_preview()

    def _theme_changed(self, theme: Theme) -> None:
        self.show_report()

    def read_preview(self) -> None:
        """Make the dry run again (it changes nothing) and show it."""
        self.preview = FoldPreview(
            command=self.engine.preview_commit("command"),
            band=self.engine.preview_commit("threshold"),
            budget=self.engine.options.budget,
            messages=len(self.engine.view.projection.items),
        )
        self.show_report()

    def show_report(self) -> None:
        """Render the current step in the running theme's colours."""
        styles = self.query_one(BarFooter).report_styles()
        report = self.query_one("#fold-report", Static)
        if self.landed is not None:
            report.update(landed_report(self.landed, styles))
        elif self.preview is not None:
            report.update(preview_report(self.preview, styles))

    def say(self, message: str) -> None:
        """Show why an action was refused, under the report."""
        self.query_one("#fold-message", Static).update(message)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Once the commit landed there is nothing left to confirm: the key leaves the footer.
        if action in ("confirm", "close"):
            return self.step == "preview"
        if action == "back":
            return self.step == "landed"
        return True

    def action_confirm(self) -> None:
        """Commit, unless the session is read-only or the preview is a refusal."""
        if self.step == "landed":
            return
        if self.read_only:
            self.say("Refused: this session is open read-only, so /fold changes nothing.")
            return
        if self.preview is None or self.preview.command.refused:
            reason = self.preview.command.refusal if self.preview is not None else None
            self.say(f"Refused: {reason or 'there is nothing to commit'}.")
            return
        before = tuple(self.engine.view.projection.digests())
        expected_before = self.engine.expected_tokens()
        try:
            outcome = self.engine.commit_now()
        except (EngineError, OSError) as error:
            self.say(f"The commit failed and nothing changed: {error}")
            return
        items = self.engine.view.projection.items
        after = tuple(item.digest for item in items)
        first = first_difference(before, after)
        self.landed = Landed(
            outcome=outcome,
            before=before,
            after=after,
            uncached_tokens=0 if first is None else sum(item.tokens for item in items[first:]),
            budget=self.engine.options.budget,
            expected_before=expected_before,
            expected_after=self.engine.expected_tokens(),
        )
        self.step = "landed"
        self.refresh_bindings()
        self.say("")
        self.query_one(BarFooter).show()
        self.show_report()
        self.post_message(self.Committed(outcome))

    def action_close(self) -> None:
        """Cancel: leave with ``None``, nothing changed."""
        self.dismiss(None)

    def action_back(self) -> None:
        """Leave after the commit, with its outcome."""
        self.dismiss(self.landed.outcome if self.landed is not None else None)
