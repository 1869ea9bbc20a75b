"""``bash``: run a command in the working directory, stdout and stderr merged.

**One process group.** The command runs under bash (``/bin/sh`` without it) in a process
group of its own (``start_new_session``), stdin from ``/dev/null``, so a timeout or an abort
ends everything it started: SIGTERM to the group, SIGKILL after a short grace
(:mod:`~pifold_agent.tools.bash.groups`).

**It returns when the shell does.** The tool waits for the shell, not for the end of its
output pipe, so ``python -m http.server &`` returns at once. What is still running in the
group then is named in the result (pids and command lines), its later output goes on to a
log the result names, and the group is ended when pifold exits, not before: the model can
start a server and talk to it in the next call (:mod:`~pifold_agent.tools.bash.output`).

**A timeout, by default.** Without ``timeout`` a command is ended after
:data:`DEFAULT_TIMEOUT_SECONDS` (120 s), or after ``PIFOLD_BASH_TIMEOUT`` seconds when that
variable is set (``0`` for no default at all). Pi has none, but a headless run has nobody to
press Ctrl-C on a command that waits for input or serves forever; 120 s covers a test suite
or a build of ordinary size, and a command that needs longer gets a result saying the limit
and how to raise it. The tool's description is Pi's, unchanged: it is part of every
request's prefix, and a default the user can configure could not be stated in it truly.

**No secrets in its environment** (:mod:`~pifold_agent.tools.bash.environment`): the
providers' key variables, the ``--api-key-env`` one (given to :class:`BashTool` when it is
built) and every variable whose name looks secret are dropped, unless
``PIFOLD_BASH_PASS_ENV`` lists them; their values are also removed from the output.

Output streams to the UI as it comes (the tail, cut to the shared limits); the result is the
tail with a notice when lines were dropped (:mod:`~pifold_agent.tools.bash.output`). A
non-zero exit is an error result that carries the output and ``Command exited with code N``;
a timeout is an error result too.
"""

from __future__ import annotations

import asyncio
import math
import os
import shutil
from collections.abc import Collection, Mapping
from pathlib import Path

from pifold_agent.tools.arguments import ToolInputError, failure, optional_number, required_string
from pifold_agent.tools.bash.environment import Redactor, command_environment
from pifold_agent.tools.bash.groups import LEFT_RUNNING, Member, group_members, kill_group
from pifold_agent.tools.bash.output import OutputCollector, OutputPipe, render_output
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.truncation import output_limit, truncate_tail
from pifold_core.canonical import JsonValue

DEFAULT_TIMEOUT_SECONDS = 120.0
"""A command's time limit when the call gives none and ``PIFOLD_BASH_TIMEOUT`` is unset."""

TIMEOUT_VARIABLE = "PIFOLD_BASH_TIMEOUT"
"""Seconds before a command without ``timeout`` is ended; ``0`` for no default limit."""

SHOWN_MEMBERS = 10
"""Processes named in the result when more were left running."""


def shell() -> str:
    """bash when installed, else the POSIX shell."""
    return shutil.which("bash") or "/bin/sh"


def default_timeout(environment: Mapping[str, str]) -> float | None:
    """The time limit of a call without ``timeout``; None for none.

    Raises:
        ToolInputError: ``PIFOLD_BASH_TIMEOUT`` is not a number of seconds.
    """
    raw = environment.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise ToolInputError(
            f"{TIMEOUT_VARIABLE} must be a number of seconds (0 for no limit), got {raw!r}"
        )
    return seconds or None


def start_time_of(pid: int) -> int | None:
    """The process's start time in clock ticks after boot (Linux), to recognise its group
    later; None where ``/proc`` cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout": {"type": "number", "description": "Seconds before it is killed (optional)."},
    },
    "required": ["command"],
}
"""The JSON schema of the arguments."""


class BashTool:
    """Pi's ``bash``."""

    name = "bash"
    traits = ToolTraits(
        Touches.RUNS_COMMANDS,
        asks_approval=True,
        headline=("command",),
        position=1,
        in_default_set=True,
    )
    description = (
        "Run a bash command in the working directory and return its output (stdout and "
        "stderr together), the last 2000 lines or 50KB. A non-zero exit code is reported as "
        "an error. Give a timeout in seconds for commands that may hang."
    )

    def __init__(self, key_variables: Collection[str] = ()) -> None:
        self.key_variables = tuple(key_variables)
        """Variables dropped from every command's environment besides the providers' own
        (the one ``--api-key-env`` names)."""

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """Any file at all: a command is a barrier among the batch's calls."""
        return Footprint(everything=True)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            command = required_string(arguments, "command")
            given = optional_number(arguments, "timeout")
            timeout = given if given is not None else default_timeout(os.environ)
        except ToolInputError as error:
            return failure(f"bash: {error}")
        if "\x00" in command:
            return failure("bash: the command holds a NUL character, which no shell can run")
        environment = command_environment(os.environ, self.key_variables)
        reading, writing = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                shell(),
                "-c",
                command,
                cwd=context.cwd,
                env=environment.variables,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=writing,
                stderr=writing,
                start_new_session=True,
            )
        except OSError as error:
            os.close(reading)
            return failure(f"Cannot start the shell in {context.cwd}: {error.strerror or error}")
        except BaseException:
            os.close(reading)
            raise
        finally:
            os.close(writing)
        shell_started = start_time_of(process.pid)
        collector = OutputCollector(limit_bytes=output_limit(context.result_limit_bytes))
        redactor = Redactor(environment.dropped)

        def take(chunk: bytes) -> None:
            collector.add(redactor.feed(chunk))
            context.update(truncate_tail(collector.text(), max_bytes=collector.limit_bytes).content)

        pipe = OutputPipe(reading, take)
        try:
            exit_code = await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            await kill_group(process)
            hint = "" if given else " (the default limit: give a larger timeout if it needs longer)"
            notice = f"Command timed out after {timeout:g} seconds{hint}"
            return self._ended(pipe, collector, redactor, None, notice)
        except asyncio.CancelledError:
            try:
                await asyncio.shield(kill_group(process))
            finally:
                pipe.close()
                collector.close()
            raise
        left = group_members(process.pid)
        if left:
            LEFT_RUNNING.add(process.pid, shell_started)
        return self._ended(pipe, collector, redactor, exit_code, None, left, process.pid)

    def _ended(
        self,
        pipe: OutputPipe,
        collector: OutputCollector,
        redactor: Redactor,
        exit_code: int | None,
        timed_out: str | None,
        left: list[Member] | None = None,
        group: int | None = None,
    ) -> ToolOutcome:
        """The result once the shell ended (``exit_code``) or timed out (``timed_out``, the
        notice); what the pipe brings later goes to the log when processes were left
        running."""
        pipe.drain_pending()  # everything written before the shell ended is in the pipe now
        collector.add(redactor.flush())
        log = collector.open_log() if left else None
        text, details = render_output(collector)
        if pipe.open:

            def later(chunk: bytes) -> None:
                collector.keep_writing(redactor.feed(chunk))

            pipe.redirect(later, lambda: _finish_log(collector, redactor))
        else:
            collector.close()
        if timed_out is not None or exit_code is None:
            prefix = f"{text}\n\n" if collector.total_bytes else ""
            return failure(f"{prefix}{timed_out}", details)
        details["exitCode"] = exit_code
        if left:
            details["leftRunning"] = [
                {"pid": member.pid, "command": member.command} for member in left
            ]
            text += "\n\n" + _left_running_notice(left, group, log)
        if exit_code != 0:
            return failure(f"{text}\n\nCommand exited with code {exit_code}", details)
        return ToolOutcome(text, details=details)


def _finish_log(collector: OutputCollector, redactor: Redactor) -> None:
    collector.keep_writing(redactor.flush())
    collector.close()


def _left_running_notice(left: list[Member], group: int | None, log: str | None) -> str:
    """Which processes the call left running, where their output goes, and their end."""
    named = "; ".join(f"{member.pid} {member.command}" for member in left[:SHOWN_MEMBERS])
    more = f" and {len(left) - SHOWN_MEMBERS} more" if len(left) > SHOWN_MEMBERS else ""
    return (
        f"[Still running in the background (process group {group}): {named}{more}. "
        f"Their output goes to {log}. They are ended when pifold exits; "
        f"end them sooner with: kill -- -{group}]"
    )


TOOL = BuiltIn(BashTool, lambda setup: BashTool(setup.key_variables))
"""How :mod:`pifold_agent.tools.registry` finds and builds ``bash``."""


__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "TIMEOUT_VARIABLE",
    "TOOL",
    "BashTool",
    "default_timeout",
    "shell",
    "start_time_of",
]
