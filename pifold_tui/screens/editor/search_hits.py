"""The editor's search hits (issue 21): a search over folded history, listed under the field.

``/`` opens the field (it filters the map as you type); Enter runs the engine's search off
the UI thread (:meth:`FoldEditorScreen.search_history`, a Textual worker) and lists the hits
here, best first, each with its innermost fold, entry and snippet. Enter on a hit posts
:class:`SearchHits.Chosen`: the screen moves the map's cursor to that fold and peeks it as
usual. Escape hides the list. Searching moves no byte and appends nothing.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList

from pifold_core.search import SearchHit, SearchResults

SNIPPET_CHARS = 120
"""Characters of a hit's snippet shown on its line."""


class SearchHits(OptionList):
    """The hits of the latest search; hidden until a search has run."""

    DEFAULT_CSS = """
    SearchHits { height: auto; max-height: 12; display: none; }
    SearchHits.-shown { display: block; }
    """

    class Chosen(Message):
        """The user picked a hit (Enter or a click)."""

        def __init__(self, hit: SearchHit) -> None:
            super().__init__()
            self.hit = hit
            """The hit picked."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: tuple[SearchHit, ...] = ()
        """The hits listed, in order."""

    def show_results(self, results: SearchResults) -> None:
        """List ``results``' hits and show the list (an empty search hides it)."""
        self.hits = results.hits
        self.clear_options()
        self.add_options([_line(hit) for hit in results.hits])
        self.set_class(bool(results.hits), "-shown")
        if results.hits:
            self.highlighted = 0

    def hide(self) -> None:
        """Hide the list (its hits are kept until the next search)."""
        self.remove_class("-shown")

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.hits):
            self.post_message(self.Chosen(self.hits[event.option_index]))


def _line(hit: SearchHit) -> Text:
    where = hit.fold if hit.fold is not None else "clipped"
    snippet = hit.snippet if len(hit.snippet) <= SNIPPET_CHARS else hit.snippet[:SNIPPET_CHARS]
    line = Text()
    line.append(f"{where}  ", style="bold")
    line.append(f"{hit.entry}  ", style="dim")
    line.append(snippet.replace("\n", " "))
    return line


__all__ = ["SNIPPET_CHARS", "SearchHits"]
