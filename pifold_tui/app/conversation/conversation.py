"""``Conversation``: the scrolling message list of the app, fed by the loop's events.

It shows the session as it happens (user messages, streamed assistant Markdown, collapsed
thinking, tool calls with their results, commits, retries and errors) and marks the spans the
model now sees folded with fold rows that open the fold editor.

**Following the tail.** New content scrolls into view while the user is at the bottom. Once
they scroll up it stays where they are and a "new messages ↓" hint appears; reaching the
bottom again, or End, resumes following.

**Windowing.** Only the newest :data:`MOUNTED_LIMIT` rows are mounted: a session of
thousands of messages costs the same to append to as one of two hundred. Older rows are
pruned while the user follows the tail and re-created from the :class:`TranscriptSource`
(the session, never this widget's DOM) when they scroll to the top, a batch at a time. A
restored session renders its history from the same source. Notices of loop events (commits,
retries) are not messages of the session: a pruned notice is not re-created.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from pifold_agent.loop.events import (
    AgentEvent,
    CommitDone,
    CompactionDone,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ServerWaiting,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from pifold_core.entries import Entry
from pifold_tui.app.conversation.assistant import (
    AssistantMessage,
    recorded_message,
    settled_row,
)
from pifold_tui.app.conversation.render import event_notice, waiting_notice
from pifold_tui.app.conversation.rows import (
    EarlierHint,
    FoldRowView,
    Notice,
    UserMessage,
    row_widget,
)
from pifold_tui.app.conversation.source import (
    FoldSource,
    TranscriptRow,
    TranscriptSource,
    shown_folds,
    transcript_rows,
)
from pifold_tui.app.conversation.tool_call import ToolCallView
from pifold_tui.app.messages import AgentEventPosted

MOUNTED_LIMIT = 50
"""Rows kept mounted while following the tail. Textual lays the screen out twice per append
and each layout walks every displayed widget, so each row costs every append: measured
with ``benchmarks/bench_conversation.py`` at about 18 / 22 / 30 ms CPU with 30 / 50 / 100
rows. A row is two lines or more, so the 40 to 50 kept (:data:`PRUNE_SHARE`) fill two
screens of 40 lines; older rows come back from the session when the user scrolls up."""

PRUNE_SHARE = 5
"""Pruning removes a fifth of the window at once, and only once it is over the limit: the
stream layout reuses the placement of every row above the first one that changed, and a
removed first row changes them all, so most appends only add."""

EARLIER_BATCH = 50
"""Rows re-created at a time when the user scrolls to the top."""

NEW_MESSAGES = "new messages ↓ (end)"
"""The hint shown while the user reads older rows and new ones arrive."""


class Conversation(VerticalScroll):
    """The messages of one session, live and from its history."""

    DEFAULT_CSS = """
    Conversation { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; layout: stream; }
    Conversation > #new-messages {
        dock: bottom; width: auto; margin: 0 2; padding: 0 1;
        background: $accent; color: $text; display: none;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end", "follow", "Latest", show=False),
        Binding("home", "earliest", "Earlier", show=False),
    ]

    def __init__(
        self,
        source: TranscriptSource,
        folds: FoldSource | None = None,
        *,
        limit: int = MOUNTED_LIMIT,
        batch: int = EARLIER_BATCH,
        id: str | None = "conversation",
    ) -> None:
        super().__init__(id=id)
        if limit < 1 or batch < 1:
            raise ValueError(f"limit and batch must be at least 1 (got {limit} and {batch})")
        self.source = source
        """Where the transcript is read from (the session recorder)."""
        self.folds = folds
        """Where the folds are read from (the engine); ``None`` without folding."""
        self.limit = limit
        self.earlier_batch = batch
        """Rows re-created at a time when the user scrolls to the top."""
        self.following = True
        """Whether new content scrolls into view (the user has not scrolled up)."""
        self.holding = False
        """Set while the conversation scrolls itself to keep the user's place."""
        self.streaming: AssistantMessage | None = None
        """The assistant message streaming now."""
        self.waiting: Notice | None = None
        """The line saying a request has had nothing back yet, while it lasts."""
        self.calls: dict[str, ToolCallView] = {}
        """Mounted tool calls by call id."""
        self.shown: dict[str, Widget] = {}
        """The mounted row showing each entry id (a tool result: its call's message)."""
        self.fold_views: list[tuple[FoldRowView, Widget]] = []
        """Mounted fold rows and the row each one is placed beside."""
        self.earlier = EarlierHint()
        self.hint = Static(NEW_MESSAGES, markup=False, id="new-messages")

    def compose(self) -> ComposeResult:
        yield self.earlier
        yield self.hint

    async def on_mount(self) -> None:
        self.earlier.say(0)
        await self.show_history()

    # -- reading the rows ---------------------------------------------------------------------

    def rows(self) -> list[Widget]:
        """The mounted message and notice rows, oldest first."""
        return [child for child in self.children if child.has_class("row")]

    def register(self, widget: Widget) -> None:
        """Index a mounted row by its entry, its calls and their results."""
        entry_id = getattr(widget, "entry_id", None)
        if entry_id is not None:
            self.shown[entry_id] = widget
        if isinstance(widget, AssistantMessage):
            for view in widget.tool_calls:
                if view.call_id is not None:
                    self.calls[view.call_id] = view
                if view.result is not None:
                    self.shown[view.result.id] = widget

    def forget(self, widget: Widget) -> None:
        for key in [key for key, shown in self.shown.items() if shown is widget]:
            del self.shown[key]
        if isinstance(widget, AssistantMessage):
            for view in widget.tool_calls:
                if view.call_id is not None and self.calls.get(view.call_id) is view:
                    del self.calls[view.call_id]

    # -- history ------------------------------------------------------------------------------

    async def show_history(self) -> None:
        """Mount the newest rows of the source (a restored session's history)."""
        rows = transcript_rows(self.source.recorded())
        tail = rows[-self.limit :]
        widgets = [row_widget(row) for row in tail if row.entry.id not in self.shown]
        await self.mount_all(widgets)
        for widget in widgets:
            self.register(widget)
        self.earlier.say(len(rows) - len(tail))
        await self.place_folds()
        self.scroll_end(animate=False)

    async def load_earlier(self) -> int:
        """Re-create the batch of rows before the oldest mounted one; returns how many."""
        rows = self.rows()
        first_entry = next((row for row in rows if getattr(row, "entry_id", None)), None)
        if first_entry is None or self.earlier.count == 0:
            return 0
        transcript = transcript_rows(self.source.recorded())
        position = next(
            (
                index
                for index, row in enumerate(transcript)
                if self.shown.get(row.entry.id) is first_entry
            ),
            None,
        )
        if position is None:
            return 0
        batch = transcript[max(0, position - self.earlier_batch) : position]
        widgets = [row_widget(row) for row in batch]
        await self.mount_all(widgets, before=rows[0])
        for widget in widgets:
            self.register(widget)
        self.earlier.say(position - len(batch))
        await self.place_folds()
        # Keep what the user was reading where it was: the new rows go above it.
        self.call_after_refresh(self.keep_in_view, rows[0])
        return len(widgets)

    def keep_in_view(self, widget: Widget) -> None:
        """Scroll ``widget`` to the top without taking it for the user's scroll."""
        self.holding = True
        try:
            self.scroll_to_widget(widget, top=True, animate=False, immediate=True)
        finally:
            self.holding = False

    async def prune(self) -> None:
        """Unmount the oldest rows beyond the limit (only while the tail is followed)."""
        rows = self.rows()
        if len(rows) <= self.limit:
            return
        excess = rows[: len(rows) - self.limit + self.limit // PRUNE_SHARE]
        gone = set(excess)
        for widget in excess:
            self.forget(widget)
        stale = [view for view, anchor in self.fold_views if anchor in gone]
        self.fold_views = [(view, anchor) for view, anchor in self.fold_views if anchor not in gone]
        await self.remove_children([*excess, *stale])
        removed_entries = sum(1 for widget in excess if getattr(widget, "entry_id", None))
        self.earlier.say(self.earlier.count + removed_entries)

    async def place_folds(self) -> None:
        """Fold rows beside the mounted messages the model now sees folded."""
        if self.fold_views:
            await self.remove_children([view for view, _ in self.fold_views])
            self.fold_views = []
        if self.folds is None:
            return
        last_after: dict[int, Widget] = {}
        for fold in shown_folds(self.folds.fold_rows()):
            anchor = self.shown.get(fold.start_id)
            if anchor is None:
                continue
            view = FoldRowView(fold)
            if getattr(anchor, "entry_id", None) == fold.start_id:
                await self.mount(view, before=anchor)
            else:  # the fold starts at a tool result, shown inside its call's message
                await self.mount(view, after=last_after.get(id(anchor), anchor))
                last_after[id(anchor)] = view
            self.fold_views.append((view, anchor))

    # -- following the tail -------------------------------------------------------------------

    async def append(self, widget: Widget) -> None:
        """Mount a new row at the end and follow it (or show the hint)."""
        await self.mount(widget)
        self.register(widget)
        await self.after_growth()

    async def after_growth(self) -> None:
        if self.following:
            await self.prune()
            self.follow_tail()
        else:
            self.hint.display = True

    def follow_tail(self) -> None:
        """Keep the newest row in view: anchored, the layout that places a new row scrolls
        to it, so one frame shows it (a scroll after the refresh draws twice). The anchor
        does not clamp, so rows that fit the screen scroll instead of being anchored."""
        if self.max_scroll_y > 0:
            self.anchor()
        else:
            self.anchor(False)
            self.scroll_end(animate=False)

    def watch_virtual_size(self, size: Size) -> None:
        # Content that shrank to fit the screen while anchored (a tool call collapsed)
        # would be drawn below the top: let go of the anchor and scroll back to the top.
        if self.is_anchored and self.max_scroll_y == 0 and self.scroll_y != 0:
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.vertical_scrollbar.position = new_value  # Textual moves it only while it shows
        if self.holding:
            return
        if new_value >= self.max_scroll_y:
            # Only the user moving down to the bottom resumes following: rows that fit the
            # screen leave the position at 0, which is the bottom too.
            if not self.following and new_value > old_value:
                self.following = True
                self.hint.display = False
                self.call_later(self.prune)
        elif new_value < old_value:
            self.following = False
            if new_value <= 0 and self.earlier.count:
                self.call_later(self.load_earlier)

    def action_follow(self) -> None:
        """End: back to the newest message, following again."""
        self.following = True
        self.hint.display = False
        self.call_later(self.prune)
        self.scroll_end(animate=False)

    async def action_earliest(self) -> None:
        """Home: load the earlier rows, or go to the top when all are mounted."""
        self.following = False
        if not await self.load_earlier():
            self.scroll_home(animate=False)

    async def on_earlier_hint_load_requested(self, message: EarlierHint.LoadRequested) -> None:
        message.stop()
        await self.action_earliest()

    # -- the loop's events --------------------------------------------------------------------

    async def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        await self.show_event(message.event)

    async def show_event(self, event: AgentEvent) -> None:
        """Show one event of the loop."""
        if not isinstance(event, ServerWaiting) and self.waiting is not None:
            # Something came back: the wait is over, and its line goes.
            waiting, self.waiting = self.waiting, None
            await waiting.remove()
        if isinstance(event, MessageStart):
            if event.role == "assistant":
                await self.start_assistant()
        elif isinstance(event, MessageUpdate):
            streaming = self.streaming or await self.start_assistant()
            await streaming.add_delta(event.kind, event.index, event.delta)
            await self.after_growth()
        elif isinstance(event, MessageEnd):
            await self.end_message(event.entry, event.stop_reason)
        elif isinstance(event, ToolExecutionStart):
            call = self.calls.get(event.call_id)
            if call is not None:
                call.start()
        elif isinstance(event, ToolExecutionUpdate):
            call = self.calls.get(event.call_id)
            if call is not None:
                call.add_progress(event.text)
        elif isinstance(event, ServerWaiting):
            await self.show_wait(event)
        elif (notice := event_notice(event)) is not None:
            if isinstance(event, CompactionDone):
                # Native compaction has taken over the context: there are no folds to mark.
                self.folds = None
            await self.append(Notice(*notice))
            if isinstance(event, CommitDone | CompactionDone):
                await self.place_folds()

    async def show_wait(self, event: ServerWaiting) -> None:
        """One line, updated in place, while a request has nothing back yet."""
        text = waiting_notice(event)
        if self.waiting is None:
            self.waiting = Notice(text, "retry")
            await self.append(self.waiting)
        else:
            self.waiting.update(text)

    async def start_assistant(self) -> AssistantMessage:
        self.streaming = AssistantMessage()
        await self.append(self.streaming)
        return self.streaming

    async def end_message(self, entry: Entry, stop_reason: str | None) -> None:
        if entry.kind == "assistant":
            streaming, self.streaming = self.streaming, None
            if streaming is None:
                if entry.id not in self.shown:
                    await self.append(recorded_message(entry, {}))
                return
            row = await settled_row(streaming, entry, stop_reason)
            if row is None:
                return
            self.register(row)
        elif entry.kind == "tool_result":
            call = self.calls.get(entry.call_id or "")
            if call is None:
                if entry.id not in self.shown:
                    await self.append(row_widget(TranscriptRow(entry)))
                return
            call.show_result(entry)
            if isinstance(call.parent, AssistantMessage):
                self.shown[entry.id] = call.parent
        elif entry.id not in self.shown and not (entry.kind == "note" and "memory" in entry.extra):
            await self.append(UserMessage(entry))  # a resurfaced note is told by its notice
        await self.after_growth()


__all__ = ["EARLIER_BATCH", "MOUNTED_LIMIT", "NEW_MESSAGES", "PRUNE_SHARE", "Conversation"]
