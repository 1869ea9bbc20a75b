"""``/memory``: list the memory notes, open one, edit it, save it atomically.

The screen needs nothing but a :class:`~pifold_agent.memory.store.MemoryStore`: the project's
notes are listed first, then the user's, each with its title and the paths it is about.
Enter opens the highlighted note in the editor; Ctrl+S saves it through the store (atomic,
0600, the same size bound and path rules as the memory tool), and a refused save says why and
changes nothing. A note with unsaved edits is never left silently: opening another asks for
Ctrl+S (save) or Ctrl+D (discard) first. Nothing the screen shows reaches the model; an edit
reaches it later only as an append (a note comes back when its paths are touched).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, TextArea
from textual.widgets.option_list import Option

from pifold_agent.memory.notes import Note
from pifold_agent.memory.store import MemoryStore, MemoryStoreError

NO_NOTES = (
    "No notes yet. The agent writes them with its memory tool; a person may add Markdown "
    "files to the folders above."
)
"""What the list says when there is nothing in it."""


class MemoryScreen(Screen[None]):
    """The notes, one open in an editor."""

    DEFAULT_CSS = """
    MemoryScreen #memory-title {
        width: 100%; height: auto; padding: 0 1; text-style: bold; background: $panel;
    }
    MemoryScreen #memory-list { width: 45%; height: 1fr; }
    MemoryScreen #memory-side { width: 1fr; height: 1fr; }
    MemoryScreen #memory-path { height: 1; padding: 0 1; text-style: bold; }
    MemoryScreen #memory-text { height: 1fr; }
    MemoryScreen #memory-status { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+d", "discard", "Discard edits"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self, store: MemoryStore) -> None:
        super().__init__()
        self.store = store
        """Where the notes are read and saved."""
        self.notes: list[Note] = []
        """The notes listed, in list order."""
        self.open_note: Note | None = None
        """The note in the editor, as last read or saved."""

    def compose(self) -> ComposeResult:
        yield Label(
            f"Memory · project notes {self.store.project} · user notes {self.store.user}",
            id="memory-title",
            markup=False,
        )
        with Horizontal():
            yield OptionList(id="memory-list")
            with Vertical(id="memory-side"):
                yield Label("", id="memory-path", markup=False)
                yield TextArea("", id="memory-text", soft_wrap=True, show_line_numbers=True)
                yield Label("", id="memory-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    @property
    def dirty(self) -> bool:
        """Whether the editor holds edits not saved."""
        if self.open_note is None:
            return False
        return self.query_one("#memory-text", TextArea).text != self.open_note.text

    def say(self, text: str) -> None:
        """Show one line under the editor."""
        self.query_one("#memory-status", Label).update(text)

    def action_reload(self) -> None:
        """Read the folders again (unsaved edits stay where they are)."""
        listing = self.query_one("#memory-list", OptionList)
        listing.clear_options()
        self.notes = self.store.notes()
        if not self.notes:
            listing.add_option(Option(NO_NOTES, id="none", disabled=True))
            return
        for index, note in enumerate(self.notes):
            about = f"  [{', '.join(note.about)}]" if note.about else ""
            listing.add_option(Option(f"{note.path}\n  {note.title}{about}", id=str(index)))
        listing.highlighted = 0
        if self.open_note is None:
            self.show(self.notes[0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_id is None or not event.option_id.isdigit():
            return
        chosen = self.notes[int(event.option_id)]
        if self.dirty and self.open_note is not None and chosen.path != self.open_note.path:
            self.say(f"{self.open_note.path} has unsaved edits: Ctrl+S saves, Ctrl+D discards")
            return
        self.show(chosen)
        self.query_one("#memory-text", TextArea).focus()

    def show(self, note: Note) -> None:
        """Put ``note`` in the editor."""
        self.open_note = note
        self.query_one("#memory-path", Label).update(note.path)
        self.query_one("#memory-text", TextArea).load_text(note.text)
        self.say(f"{len(note.text.encode('utf-8')):,} bytes · Ctrl+S saves")

    def action_save(self) -> None:
        """Write the editor's text over the open note, atomically."""
        if self.open_note is None:
            self.say("no note is open")
            return
        text = self.query_one("#memory-text", TextArea).text
        try:
            saved = self.store.write(self.open_note.path, text)
        except (MemoryStoreError, OSError) as error:
            self.say(f"not saved: {error}")
            return
        self.open_note = saved
        self.say(f"saved {saved.path} ({len(text.encode('utf-8')):,} bytes)")
        self.action_reload()

    def action_discard(self) -> None:
        """Put the open note's saved text back in the editor."""
        if self.open_note is not None:
            self.show(self.open_note)

    def action_close(self) -> None:
        if self.dirty and self.open_note is not None:
            self.say(f"{self.open_note.path} has unsaved edits: Ctrl+S saves, Ctrl+D discards")
            return
        self.dismiss(None)


__all__ = ["NO_NOTES", "MemoryScreen"]
