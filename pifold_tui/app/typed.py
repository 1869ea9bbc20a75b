"""What the app does with what the user typed: a message, or a ``!command``.

A message starts a run, or is queued during one (steering, or a follow-up); one too large for
any request is refused and given back to the input; with no model
(the demo, a session opened with no key) it is not sent, the prompt keeps it in its input and
history, and the user is told what would send it. A ``!command`` needs no model: it runs in
every session, and its output joins the session (at once between runs, after the current tool
batch during one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pifold_tui.app.leaving import SHELL_GROUP
from pifold_tui.app.messages import PromptMode

if TYPE_CHECKING:
    from pifold_tui.app.host import TypedHost

NOT_OPEN = "The session is not open yet."


def send_message(app: TypedHost, text: str, mode: PromptMode) -> None:
    """Deliver a typed message (not a ``/command``), or say why it is not sent."""
    if not text.strip():
        return
    if app.bridge is None or app.session is None:
        app.say(NOT_OPEN, severity="warning")
        return
    from pifold_tui.app.no_model import unsent_hint_of

    hint = unsent_hint_of(app.session)
    if hint is not None:  # no model: the prompt keeps the text
        app.say(hint, severity="warning", timeout=12)
        return
    from pifold_agent.loop.message_size import MessageTooLarge

    try:
        # Checked before the run starts (steering and follow-ups check themselves too): a
        # message no request can carry would leave the session unusable.
        app.bridge.agent.check_message(text)
        taken = app.bridge.submit(text, mode)
    except MessageTooLarge as refusal:
        app.say(str(refusal), severity="error", timeout=20)
        give_back = getattr(app.prompt_widget, "give_back", None)
        if give_back is not None:
            give_back(text)  # the text stays the user's, in the input
        return
    if taken == "steer":
        app.say("Queued: it lands after the current tool batch.")
    elif taken == "follow_up":
        app.say("Queued as a follow-up: it lands when the run would stop.")


def run_shell_command(app: TypedHost, command: str) -> None:
    """Run ``!command`` in a worker; its output joins the session."""
    if app.bridge is None or app.session is None or app.leaving is not None:
        app.say(NOT_OPEN, severity="warning")
        return
    if app.running:
        paused = app.gate is not None and app.gate.paused
        waits = " (the demo is paused: f2 resumes)" if paused else ""
        app.say(
            f"Running `{command}`: its output joins the session after the current tool "
            f"batch{waits}."
        )
    shell = app.bridge.run_shell(command, app.session.cwd)
    app.run_worker(shell, group=SHELL_GROUP)


__all__ = ["NOT_OPEN", "run_shell_command", "send_message"]
