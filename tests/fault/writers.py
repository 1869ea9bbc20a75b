"""The writers of ``agent: two writers``: one session written in every mode, in this process
or in another.

A writer continues a session with one prompt and a scripted, paced answer (so it holds the
session for a while): a headless run folding or ``--no-fold``, the app's set-up
(:func:`~pifold_tui.app.session_setup.open_live`, then a run), or the app opening the
session with no model (it claims the session, resumes it and closes). In another process
the writer is the real command (``pifold -p``) or a small driver for the app's set-up;
either way it reports as the command does: the answer on stdout and exit 0, or one
``error:`` line and exit 2.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.run_input import CommandError, HeadlessOptions
from tests.agent.headless_cases import Outcome, headless

MODES = ("fold", "no-fold", "app", "app-no-model")
"""How a writer opens the session."""

PROCESS_MODES = ("fold", "no-fold", "app")
"""The modes a second process writes in (the no-model app writes no prompt)."""

APP_DRIVER = """
import asyncio, json, sys
from pathlib import Path
from pifold_agent.run_input import CommandError, HeadlessOptions
from pifold_tui.app.session_setup import open_live
fields = json.loads(sys.argv[1])
options = HeadlessOptions(prompt=None, cwd=Path(fields["cwd"]), script=Path(fields["script"]),
                          continue_session=True, sessions_dir=Path(fields["sessions"]))
try:
    session = open_live(options, None)
except CommandError as error:
    sys.stderr.write(f"error: {error}\\n")
    sys.exit(2)
try:
    result = asyncio.run(session.agent.run(fields["prompt"]))
finally:
    session.close()
sys.stdout.write(result.final_text + "\\n")
"""
"""The app's set-up and one run, in a process of its own."""


@dataclass(frozen=True)
class Writer:
    """One writer of the session: its mode, prompt and paced answer."""

    mode: str
    name: str
    """``first`` or ``second``: in its prompt and answer, to find them in the session."""
    script: Path
    work: Path
    """The working directory (the session is its newest)."""
    sessions: Path

    @property
    def prompt(self) -> str:
        return f"prompt of the {self.name} writer"

    @property
    def answer(self) -> str:
        return f"answer of the {self.name} writer"

    def options(self) -> HeadlessOptions:
        return HeadlessOptions(
            prompt=self.prompt,
            script=self.script,
            continue_session=True,
            no_fold=self.mode == "no-fold",
            cwd=self.work,
            sessions_dir=self.sessions,
        )

    def run_here(self) -> Outcome:
        """Write in this process."""
        if self.mode in ("fold", "no-fold"):
            return headless(self.options())
        from pifold_tui.app.no_model import open_without_model
        from pifold_tui.app.session_setup import open_live

        options = self.options()
        try:
            if self.mode == "app-no-model":
                open_without_model(options).close()
                return Outcome(0, "", "")
            session = open_live(options, None)
        except CommandError as error:
            return Outcome(2, "", f"error: {error}\n")
        try:
            result = asyncio.run(session.agent.run(self.prompt))
        finally:
            session.close()
        return Outcome(0, result.final_text + "\n", "")

    def start_process(self) -> subprocess.Popen[bytes]:
        """Write in a process of its own (``pifold -p``, or the app's set-up)."""
        environment = {**os.environ, "PIFOLD_HOME": str(self.sessions.parent)}
        if self.mode == "app":
            fields = {
                "cwd": str(self.work),
                "script": str(self.script),
                "sessions": str(self.sessions),
                "prompt": self.prompt,
            }
            command = [sys.executable, "-c", APP_DRIVER, json.dumps(fields)]
        else:
            entry = "from pifold_cli.app import main; main()"
            command = [sys.executable, "-c", entry, "-p", self.prompt, "--script",
                       str(self.script), "--continue"]  # fmt: skip
            if self.mode == "no-fold":
                command.append("--no-fold")
        return subprocess.Popen(
            command,
            cwd=self.work,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )


def outcome_of(process: subprocess.Popen[bytes]) -> Outcome:
    """How a writer process ended."""
    out, err = process.communicate(timeout=120)
    return Outcome(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


def paced_script(path: Path, answer: str, seconds: float) -> Path:
    """A script answering ``answer`` streamed over about ``seconds``."""
    chunks = max(1, len(answer) // 2)
    header = {"script": "pifold", "version": 1, "tools": "recorded", "chunk_chars": 2,
              "chunk_delay_s": seconds / chunks}  # fmt: skip
    path.write_text(json.dumps(header) + "\n" + json.dumps({"assistant": answer}) + "\n")
    return path


__all__ = ["APP_DRIVER", "MODES", "PROCESS_MODES", "Writer", "outcome_of", "paced_script"]
