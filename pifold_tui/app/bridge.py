"""The bridge from the agent loop to the app: runs, steering, abort and ``!command``.

The agent runs in a Textual worker (an asyncio task on the app's own loop). Every event the
loop emits is handed to ``deliver`` (the app posts it as an ``AgentEventPosted`` message),
so the UI learns everything from the loop's events and never reads the loop's state.

* A message sent while no run is going starts one; sent during a run it is queued as
  steering (it lands after the current tool batch). A follow-up waits for the run to end, or
  starts a run when none is going.
* Abort cancels the run's task; the loop answers interrupted calls "aborted", keeps the
  partial reply in the session only, and the session stays consistent.
* Closing (the app is leaving) aborts the run and waits for its end before the app tears
  its screens down, then delivers nothing more: an event handed to a widget being torn down
  mounts into rows that are never mounted (a ``MountError`` printed after the app has gone),
  and a reply still streaming keeps writing into its Markdown until its end is delivered.
* ``!command`` runs with the bash tool's own machinery (its process group, output limits and
  exit-status wording) and its output is added as a user message, as Pi does: "ran
  `command`", the output fenced, and the exit status.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from pifold_agent.loop import Agent, AgentEvent, ToolContext, ToolCrash
from pifold_agent.loop.admissible import admissible
from pifold_agent.tools.bash import BashTool
from pifold_tui.app.messages import PromptMode

RUN_GROUP = "agent-run"
"""The worker group the agent's runs go in."""


def shell_note(command: str, output: str, exit_code: int | None) -> str:
    """The user message a ``!command`` adds: what ran, its output fenced, and how it ended."""
    fence = "```"
    while fence in output:
        fence += "`"  # a fence longer than any run of backticks in the output
    status = "exit status unknown" if exit_code is None else f"exit status {exit_code}"
    body = output.rstrip("\n")
    return f"ran `{command}`\n{fence}\n{body}\n{fence}\n{status}"


class AgentBridge:
    """Owns the run task of one agent and turns the UI's requests into the loop's calls."""

    def __init__(self, app: App[Any], agent: Agent, deliver: Callable[[AgentEvent], None]) -> None:
        self.app = app
        self.agent = agent
        """The agent runs go to (replaced by :meth:`replace_agent` on ``/new`` or ``/resume``)."""
        self.deliver = deliver
        """Called with every event of the loop, in order."""
        self.worker: Worker[None] | None = None
        """The running run's worker, ``None`` between runs."""
        self.closed = False
        """Set by :meth:`close`: no event is delivered and no run starts from then on."""
        self._unsubscribe = agent.subscribe(deliver)

    @property
    def running(self) -> bool:
        """Whether a run is going (from its start until its last event was delivered)."""
        return self.worker is not None and not self.worker.is_finished

    def replace_agent(self, agent: Agent) -> None:
        """Talk to ``agent`` from now on (no run may be going)."""
        if self.running:
            raise RuntimeError("a run is going; abort it first")
        self._unsubscribe()
        self.agent = agent
        if not self.closed:
            self._unsubscribe = agent.subscribe(self.deliver)

    def submit(self, text: str, mode: PromptMode) -> str:
        """Deliver what the user typed; returns how it was taken (``run``, ``steer``,
        ``follow_up``), for the UI to say."""
        if mode == "follow_up" and self.running:
            self.agent.follow_up(text)
            return "follow_up"
        if self.running:
            self.agent.steer(text)
            return "steer"
        self.start(text)
        return "run"

    def start(self, prompt: str | None) -> Worker[None]:
        """Start a run of ``prompt`` (``None``: whatever is queued)."""
        if self.closed:
            raise RuntimeError("the bridge is closed: the app is leaving")
        if self.running:
            raise RuntimeError("a run is already going")
        self.worker = self.app.run_worker(
            self._run(prompt), name="agent run", group=RUN_GROUP, exit_on_error=False
        )
        return self.worker

    async def _run(self, prompt: str | None) -> None:
        # A crash was already emitted as an error and the run's end: the UI shows those.
        with contextlib.suppress(ToolCrash):
            await self.agent.run(prompt)

    def abort(self) -> bool:
        """Cancel the running run; ``False`` when none was going."""
        if not self.running or self.worker is None:
            return False
        self.worker.cancel()
        return True

    async def wait(self) -> None:
        """Until the current run (if any) has finished."""
        worker = self.worker
        if worker is None or worker.is_finished:
            return
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()  # an aborted or failed run has ended all the same

    async def close(self) -> None:
        """Stop for good: refuse new runs, abort the running one and wait for its end (its
        last events, the partial reply among them, are delivered as usual, so the widgets
        settle it), then deliver nothing more."""
        self.closed = True
        self.abort()
        await self.wait()
        self._unsubscribe()
        self._unsubscribe = _nothing

    async def run_shell(self, command: str, cwd: Path) -> str:
        """Run ``command`` in ``cwd`` and add its note to the session; returns the note.

        During a run the note is queued as steering (it lands after the batch); otherwise it
        is recorded at once, and the model reads it with the next prompt.
        """
        # The agent's own bash (it knows the --api-key-env variable to keep out), and its
        # output made admissible as a batch's is (a file name that is not UTF-8).
        tool = next((tool for tool in self.agent.tools if isinstance(tool, BashTool)), BashTool())
        context = ToolContext("shell", cwd, _ignore)
        outcome = admissible(await tool.run({"command": command}, context), "bash")
        exit_code = outcome.details.get("exitCode")
        text = outcome.text
        suffix = f"\n\nCommand exited with code {exit_code}"
        if isinstance(exit_code, int) and text.endswith(suffix):
            text = text[: -len(suffix)]  # the status is said once, below the fence
        note = shell_note(command, text, exit_code if isinstance(exit_code, int) else None)
        if self.running:
            self.agent.steer(note)
        else:
            self.agent.note(note)
        return note


def _nothing() -> None:
    """What unsubscribing does once the bridge is closed (it already has)."""


def _ignore(text: str) -> None:
    """A ``!command``'s partial output is not shown; its note is, once it ends."""


__all__ = ["RUN_GROUP", "AgentBridge", "shell_note"]
