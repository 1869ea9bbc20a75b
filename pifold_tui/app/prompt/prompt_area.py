"""``PromptArea``: the multi-line input under the conversation, and what sits around it.

From the top: the steering strip (messages sent during a run, until they land), the
completion popup, the input, and one hint line. The keys:

* Enter sends (``PromptSubmitted(text, "send")``; the shell starts a run, or queues it as
  steering when one is going); Ctrl+F or Alt+Enter sends it as a follow-up. With the completion
  popup open, Tab or Enter accepts the highlighted candidate instead, except that Enter on
  a command already typed in full (``/help``) sends it at once.
* Shift+Enter or Ctrl+J inserts a newline. Ctrl+J always works: it is a plain control
  character (``ctrl+j``, also inside tmux). Shift+Enter reaches the app only from a terminal
  that reports modifiers on Enter: Textual asks for the kitty keyboard protocol and then
  reports ``shift+enter`` (``CSI 13;2u``), or ``shift+\\r`` for xterm's ``modifyOtherKeys``
  form. Elsewhere (tmux 3.3 among them, which does not speak the kitty protocol) the
  terminal sends a bare carriage return, so Shift+Enter sends; the hint names Ctrl+J.
* Alt+Enter needs the same: a legacy terminal sends ESC and a carriage return, which Textual
  8 reports as a plain ``enter`` (checked in tmux 3.3a), so there it sends the message
  normally (during a run: as steering). Ctrl+F is the follow-up key every terminal delivers
  (a plain control character, bound by neither Textual 8 nor its text area), and the one
  the hints name.
* Up on the first line and Down on the last walk the project's history.
* Esc closes the completion popup; otherwise, during a run, it asks to abort
  (``AbortRequested``).
* ``!command`` posts ``ShellRequested`` instead of a prompt.
* With no model (the demo, a session opened with no key) a message is still posted, so the
  app can say why it is not sent, but it stays in the input and goes into the history.

The shell sets :attr:`PromptArea.running` (hints, placeholder, Esc and the strip depend on
it) and calls :meth:`PromptArea.open_project` once the session is open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import OptionList, Static, TextArea

from pifold_tui.app.commands import CommandRegistry
from pifold_tui.app.messages import (
    AbortRequested,
    AgentEventPosted,
    PromptMode,
    PromptSubmitted,
    ShellRequested,
)
from pifold_tui.app.prompt.completion import (
    PATH_CANDIDATE_LIMIT,
    CompletionQuery,
    PathIndex,
    command_candidates,
    path_candidates,
    query_at,
)
from pifold_tui.app.prompt.history import PromptHistory
from pifold_tui.app.prompt.popup import CompletionPopup
from pifold_tui.app.prompt.steering_strip import SteeringStrip

NEWLINE_KEYS = frozenset({"shift+enter", "shift+\r", "ctrl+j"})
"""Keys that insert a newline (see the module's note on Shift+Enter)."""

FOLLOW_UP_KEYS = frozenset({"ctrl+f", "alt+enter"})
"""Keys that send the message as a follow-up (Ctrl+F reaches the app from every terminal;
Alt+Enter only from one that reports modifiers on Enter)."""

IDLE_HINT = "enter send · ctrl+j newline · ↑↓ history · / commands · @ files · !shell"
RUNNING_HINT = "enter steer · ctrl+f follow-up · esc abort · ctrl+j newline"
IDLE_PLACEHOLDER = "Ask, or type / for commands, @ for files, !cmd for the shell"
RUNNING_PLACEHOLDER = "steer the running turn… (ctrl+f: a follow-up after it)"
DEMO_PLACEHOLDER = "A recorded session is playing: / for commands (/fold-editor, /fold-status)"
NO_MODEL_PLACEHOLDER = "No model is connected: / for commands (/fold-editor, /fold-status)"


class PromptInput(TextArea):
    """The text area; every key goes to the prompt's handler first."""

    DEFAULT_CSS = """
    PromptInput { height: auto; max-height: 10; min-height: 3; }
    """

    def __init__(self, on_key_pressed: Callable[[str], bool]) -> None:
        super().__init__(id="prompt-input", soft_wrap=True, show_line_numbers=False)
        self.on_key_pressed = on_key_pressed
        """Takes a key name; ``True`` when it handled the key (the text area then does not)."""

    async def on_key(self, event: events.Key) -> None:
        if self.on_key_pressed(event.key):
            event.stop()
            event.prevent_default()


class PromptArea(Vertical):
    """The prompt: input, history, completion, the steering strip and the hint line."""

    DEFAULT_CSS = """
    PromptArea { height: auto; }
    PromptArea #prompt-hint { height: auto; padding: 0 2; color: $text-muted; }
    """

    running: reactive[bool] = reactive(False)
    """Whether the agent is working (set by the shell)."""
    hint: reactive[str] = reactive(IDLE_HINT)
    """The line under the input."""

    def __init__(
        self,
        registry: CommandRegistry[Any],
        cwd: Path | None = None,
        history: PromptHistory | None = None,
    ) -> None:
        super().__init__(id="prompt")
        self.registry = registry
        """The slash commands ``/`` completes from."""
        self.cwd = (cwd or Path.cwd()).resolve()
        """Where ``@`` completes paths (the session's working directory once open)."""
        self.history = history if history is not None else PromptHistory(None)
        """What was sent in this project."""
        self.connect_hint: str | None = None
        """With no model (the demo, a session opened with no key): how to connect one
        (shown instead of the key hints)."""
        self.no_model_placeholder = DEMO_PLACEHOLDER
        """The input's placeholder while :attr:`connect_hint` is set."""
        self.input = PromptInput(self.take_key)
        self.popup = CompletionPopup()
        self.strip = SteeringStrip()
        self._path_index: PathIndex | None = None
        self._loaded_text: str | None = None

    def compose(self) -> ComposeResult:
        yield self.input
        yield Static(self.hint, id="prompt-hint", markup=False)

    def on_mount(self) -> None:
        self.watch_running(self.running)
        self.input.focus()
        self._report_history_problem()
        # The strip (empty) and the popup (closed) draw nothing in the first frame; mounted
        # right after it, above the input, they no longer delay it (issue 23 item 5: the
        # popup's option list was about a third of what the prompt added to that frame).
        self.call_after_refresh(self.mount, self.strip, self.popup, before=self.input)

    def open_project(
        self,
        cwd: Path,
        history: PromptHistory,
        connect_hint: str | None = None,
        placeholder: str = DEMO_PLACEHOLDER,
    ) -> None:
        """The session is open: complete paths under ``cwd``, walk ``history``, and with no
        model say ``connect_hint`` under the input and ``placeholder`` in it."""
        self.cwd = cwd.resolve()
        self.history = history
        self.connect_hint = connect_hint
        self.no_model_placeholder = placeholder
        self._path_index = None
        # Another session's agent has its own queues: what was waiting here never lands.
        self.strip.clear()
        self.watch_running(self.running)
        self._report_history_problem()

    def _report_history_problem(self) -> None:
        if self.history.problem is not None:
            self.notify(self.history.problem, severity="warning", markup=False)

    # -- state shown ---------------------------------------------------------------------------

    def watch_running(self, running: bool) -> None:
        if self.connect_hint is not None:
            # No model takes no prompts: only commands, and the hint says how to connect.
            self.input.placeholder = self.no_model_placeholder
            self.hint = self.connect_hint
        else:
            self.input.placeholder = RUNNING_PLACEHOLDER if running else IDLE_PLACEHOLDER
            self.hint = RUNNING_HINT if running else IDLE_HINT

    def watch_hint(self, hint: str) -> None:
        if self.is_mounted:
            self.query_one("#prompt-hint", Static).update(hint)

    @property
    def text(self) -> str:
        return self.input.text

    def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        from pifold_agent.loop.events import MessageEnd

        message.stop()
        event = message.event
        if isinstance(event, MessageEnd) and event.entry.kind == "user":
            self.strip.land(event.entry.text)

    # -- keys ----------------------------------------------------------------------------------

    def take_key(self, key: str) -> bool:
        """Act on ``key``; ``True`` when it was the prompt's (the text area ignores it)."""
        if self.popup.is_open:
            if key in ("up", "down"):
                self.popup.move(-1 if key == "up" else 1)
                return True
            if key == "enter" and self.completes_to_itself():
                # ``/help`` typed whole: Enter runs it rather than asking for a second Enter.
                self.popup.close()
                self.submit("send")
                return True
            if key in ("tab", "enter"):
                self.accept_completion()
                return True
            if key == "escape":
                self.popup.close()
                return True
        if key == "enter":
            self.submit("send")
        elif key in FOLLOW_UP_KEYS:
            self.submit("follow_up")
        elif key in NEWLINE_KEYS:
            self.input.insert("\n")
        elif key == "up" and self.input.cursor_at_first_line:
            self._recall(self.history.previous(self.text))
        elif key == "down" and self.input.cursor_at_last_line and self.history.browsing:
            self._recall(self.history.next())
        elif key == "escape" and self.running:
            self.post_message(AbortRequested())
        else:
            return False
        return True

    def _recall(self, text: str | None) -> None:
        if text is None:
            return
        self._set_text(text)

    def _set_text(self, text: str) -> None:
        # A text loaded from the history is not being typed: it opens no completion.
        self._loaded_text = text
        self.popup.close()
        self.input.load_text(text)
        self.input.move_cursor(self.input.document.end)

    # -- sending -------------------------------------------------------------------------------

    def submit(self, mode: PromptMode) -> None:
        """Send what the input holds (nothing when it is blank)."""
        text = self.text
        if not text.strip():
            return
        self.popup.close()
        if text.startswith("!"):
            command = text[1:].strip()
            if not command:
                self.notify("Type a shell command after the !", severity="warning")
                return
            self.post_message(ShellRequested(command))
        else:
            self.post_message(PromptSubmitted(text, mode))
            if self.connect_hint is not None and not text.startswith("/"):
                # No model to send it to: it stays here (and in the history) until there is.
                self._remember(text)
                return
            if self.running and not text.startswith("/"):
                self.strip.add(text, "follow_up" if mode == "follow_up" else "steering")
        self._remember(text)
        self._set_text("")

    def give_back(self, text: str) -> None:
        """``text`` was sent and refused (too large for any request): it comes back into the
        input, where it can be cut down or saved to a file, and off the steering strip."""
        self.strip.withdraw(text)
        self._set_text(text)

    def _remember(self, text: str) -> None:
        try:
            self.history.add(text)
        except OSError as error:
            self.notify(
                f"The prompt history could not be saved: {error.strerror or error}",
                severity="warning",
                markup=False,
            )

    # -- completion ----------------------------------------------------------------------------

    def on_text_area_changed(self, message: TextArea.Changed) -> None:
        message.stop()
        text = self.text
        if self._loaded_text is not None and text == self._loaded_text:
            self._loaded_text = None
            self.popup.close()
            return
        self._loaded_text = None
        self.history.reset()
        self.update_completion()

    def on_text_area_selection_changed(self, message: TextArea.SelectionChanged) -> None:
        message.stop()
        shown = self.popup.query_shown
        if shown is None:
            return
        row, column = self.input.cursor_location
        now = query_at(self.text, row, column)
        if now is None or (now.kind, now.row, now.start) != (shown.kind, shown.row, shown.start):
            self.popup.close()

    def current_query(self) -> CompletionQuery | None:
        row, column = self.input.cursor_location
        return query_at(self.text, row, column)

    def update_completion(self) -> None:
        """Open, narrow or close the popup for what the cursor is in."""
        query = self.current_query()
        if query is None:
            self.popup.close()
            self._path_index = None
        elif query.kind == "command":
            self.popup.show(query, command_candidates(self.registry, query.fragment))
        else:
            if self._path_index is None or self._path_index.root != self.cwd:
                self._path_index = PathIndex(self.cwd)
            self.find_paths(query, self._path_index)

    @work(exclusive=True, group="path-completion", exit_on_error=False)
    async def find_paths(self, query: CompletionQuery, index: PathIndex) -> None:
        """List the paths for ``query`` off the UI thread (the walk may take a while in a
        large tree); a later keystroke cancels this one."""
        candidates = await asyncio.to_thread(
            path_candidates, index, query.fragment, PATH_CANDIDATE_LIMIT, query.shell
        )
        if self.current_query() == query:
            self.popup.show(query, candidates)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        # A click on an option: accept it, and give the typing back to the input.
        message.stop()
        self.popup.highlighted = message.option_index
        self.accept_completion()
        self.input.focus()

    def completes_to_itself(self) -> bool:
        """Whether the highlighted command is exactly the command already typed."""
        query, chosen = self.popup.query_shown, self.popup.chosen
        if query is None or chosen is None or query.kind != "command":
            return False
        typed_word = self.input.document[query.row][query.start : query.end]
        return chosen.label == typed_word

    def accept_completion(self) -> None:
        """Put the highlighted candidate in place of what its query typed."""
        query, chosen = self.popup.query_shown, self.popup.chosen
        self.popup.close()
        if query is None or chosen is None:
            return
        self.input.replace(chosen.replacement, (query.row, query.start), (query.row, query.end))
        if not chosen.reopens:
            self._path_index = None


__all__ = [
    "DEMO_PLACEHOLDER",
    "FOLLOW_UP_KEYS",
    "IDLE_HINT",
    "NEWLINE_KEYS",
    "NO_MODEL_PLACEHOLDER",
    "RUNNING_HINT",
    "PromptArea",
    "PromptInput",
]
