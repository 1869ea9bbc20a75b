"""A command's process group: who is still in it, ending it, and the groups left running.

Every bash call runs in a process group of its own (``start_new_session``), whose id is the
shell's pid. ``python -m http.server &`` leaves a member behind when the shell exits; the
tool returns then (it does not wait for the background), says who is left, and hands the
group to :data:`LEFT_RUNNING`, which ends every group it holds when pifold exits
(:func:`end_background_processes`, registered with :mod:`atexit`): a normal end, an error,
Ctrl-C or SIGTERM (both end the run cleanly, then the interpreter exits). A SIGKILL of pifold
cannot run anything; its background processes then live on, as any shell's ``nohup`` would.
A process that left the group itself (``setsid``, a daemon that double-forks) is out of
reach by design: it asked to be.

Members are read from ``/proc`` (Linux) or ``ps`` elsewhere; zombies are not members. Each
group remembers its shell's start time, so a group id reused by an unrelated process after
all of ours ended is never signalled.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

KILL_GRACE_SECONDS = 1.0
"""How long a group gets to end after SIGTERM before SIGKILL (a call's timeout or abort)."""

EXIT_GRACE_SECONDS = 0.5
"""The same grace when pifold exits (kept short: the user is waiting for the prompt)."""

COMMAND_SHOWN = 200
"""Characters of a member's command line shown."""


@dataclass(frozen=True, slots=True)
class Member:
    """One live process of a group."""

    pid: int
    start_time: int | None
    """Clock ticks after boot (``/proc``); None where it cannot be read."""
    command: str
    """Its command line, cut to :data:`COMMAND_SHOWN` characters."""


def group_members(group: int) -> list[Member]:
    """The live (not zombie) processes whose process group is ``group``, by pid."""
    if Path("/proc/self/stat").exists():
        return _members_from_proc(group)
    return _members_from_ps(group)


def _members_from_proc(group: int) -> list[Member]:
    members: list[Member] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            # After the command name: state, ppid, pgrp, ... starttime is the 20th.
            if int(fields[2]) != group or fields[0] == b"Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").strip()
        except (OSError, IndexError, ValueError):
            continue  # it ended while being read
        text = command.decode("utf-8", "replace")[:COMMAND_SHOWN] or "?"
        members.append(Member(int(entry), int(fields[19]), text))
    return sorted(members, key=lambda member: member.pid)


def _members_from_ps(group: int) -> list[Member]:
    try:
        listing = subprocess.run(
            ["ps", "-A", "-o", "pid=,pgid=,stat=,command="],
            capture_output=True,
            check=True,
            timeout=10,
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return [Member(group, None, "?")] if _group_exists(group) else []
    members: list[Member] = []
    for line in listing.splitlines():
        parts = line.split(None, 3)
        if len(parts) >= 3 and parts[1] == str(group) and not parts[2].startswith("Z"):
            command = parts[3] if len(parts) > 3 else "?"
            members.append(Member(int(parts[0]), None, command[:COMMAND_SHOWN]))
    return sorted(members, key=lambda member: member.pid)


def _group_exists(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def signal_group(group: int, number: int) -> None:
    """Send ``number`` to the group; a group already gone is not an error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, number)


async def kill_group(process: asyncio.subprocess.Process) -> None:
    """End the shell's whole group: SIGTERM, a grace period, then SIGKILL to whatever of
    the group is left (children that ignored SIGTERM, or outlived the shell)."""
    group = process.pid
    signal_group(group, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    signal_group(group, signal.SIGKILL)
    await process.wait()


class LeftRunning:
    """The groups whose shell returned with members still running, until pifold exits."""

    def __init__(self) -> None:
        self._groups: dict[int, int | None] = {}

    def add(self, group: int, shell_start_time: int | None) -> None:
        """Remember a group left running (its id is the shell's pid)."""
        self._groups[group] = shell_start_time

    def groups(self) -> list[int]:
        """The groups that still have members of ours."""
        return [group for group in list(self._groups) if self._members(group)]

    def end_all(self, grace_seconds: float = EXIT_GRACE_SECONDS) -> list[int]:
        """SIGTERM every group still running, SIGKILL what is left after the grace; the
        groups signalled."""
        groups = self.groups()
        for group in groups:
            signal_group(group, signal.SIGTERM)
        deadline = time.monotonic() + grace_seconds
        while any(self._members(group) for group in groups) and time.monotonic() < deadline:
            time.sleep(0.02)
        for group in groups:
            if self._members(group):
                signal_group(group, signal.SIGKILL)
        self._groups.clear()
        return groups

    def _members(self, group: int) -> list[Member]:
        """The group's members, or none when the id now belongs to someone else: a live
        process leading it that is not the shell that started it."""
        members = group_members(group)
        started = self._groups.get(group)
        for member in members:
            if member.pid == group and started is not None and member.start_time != started:
                return []
        return members


LEFT_RUNNING = LeftRunning()
"""Every group a bash call of this process left running."""


def end_background_processes() -> list[int]:
    """End every process group bash calls left running; the groups signalled. Called at
    exit; a host may call it sooner (and tests do)."""
    return LEFT_RUNNING.end_all()


atexit.register(end_background_processes)


__all__ = [
    "EXIT_GRACE_SECONDS",
    "KILL_GRACE_SECONDS",
    "LEFT_RUNNING",
    "LeftRunning",
    "Member",
    "end_background_processes",
    "group_members",
    "kill_group",
    "signal_group",
]
