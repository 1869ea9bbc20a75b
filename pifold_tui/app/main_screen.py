"""The app's main screen: Textual's own, with the bookkeeping of pending layouts corrected.

Why it exists. The conversation lays its rows out with ``layout: stream``, which re-measures
only the rows the screen recorded as changed since the last layout (and those after them)
and reuses the placement of every row above. Textual 8.2.8's ``Screen._on_layout`` records,
for each ancestor of a widget that asked for a layout, the child on the way up, but it tests
``widget not in self._layout_widgets``, the *dictionary's keys* (the ancestors seen so far),
where the ancestor's own set is meant. A row becomes a key as soon as anything inside it
asks for a layout, so it is then never recorded in the conversation's set: a change two
levels down (a streamed reply's Markdown block) reaches the conversation only when some
later resize happens to post one for the row itself. Until then, whenever another row is in
the set, the stream layout keeps the reply at its old height. In the app's tools scene that
happened in 5 of 6 runs (12 stale placements of an assistant row, one to three rows off);
once in about 20 runs it was still on screen when the scene came to rest (a reply row one
row too tall or empty), which is what made the mid-session snapshot fail now and then. With
the membership tested against the ancestor's set, none in 8 runs.

The correction only ever records more widgets as changed, so it can make a layout re-measure
a row it could have reused, never reuse one it should have measured. Remove it when Textual
tests the ancestor's set itself (``tests/ui/app/test_main_screen.py`` shows the difference).
"""

from __future__ import annotations

from textual import messages
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen[None]):
    """The screen the app composes its conversation, prompt, bar and footer on."""

    async def _on_layout(self, message: messages.Layout) -> None:
        # Textual's own handler, with one line changed: the child is looked for in the
        # ancestor's set, not among the ancestors already seen (see the module docstring).
        message.stop()
        message.prevent_default()
        layout_required = False
        widget: Widget = message.widget
        for ancestor in message.widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            changed = self._layout_widgets.setdefault(ancestor, set())
            if widget not in changed:
                changed.add(widget)
                layout_required = True
            if not ancestor.styles.auto_dimensions:
                break
            widget = ancestor
        if layout_required and not self._layout_required:
            self._layout_required = True
            self.check_idle()


__all__ = ["MainScreen"]
