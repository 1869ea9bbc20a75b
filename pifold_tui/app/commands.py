"""The slash-command registry: one table feeds ``/`` completion, the palette and ``/help``.

A :class:`Command` names what it does, says whether it may run while the agent is working,
and carries the function that runs it. The app registers its commands once; the prompt's
completion and the command palette both read the same registry, so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

AppT = TypeVar("AppT")


@dataclass(frozen=True, slots=True)
class Command(Generic[AppT]):
    """One slash command."""

    name: str
    """The command without its slash, for example ``fold-status``."""
    description: str
    """One line for completion, the palette and ``/help``."""
    available_during_run: bool
    """Whether it may run while the agent is working (otherwise it is refused, saying so)."""
    run: Callable[[AppT, str], Awaitable[None] | None]
    """Runs it with the app and whatever followed the name on the line."""

    @property
    def slash(self) -> str:
        return f"/{self.name}"


class CommandError(ValueError):
    """A command cannot be registered or run; the message says why."""


class CommandRegistry(Generic[AppT]):
    """The app's commands, in the order they were registered."""

    def __init__(self) -> None:
        self._commands: dict[str, Command[AppT]] = {}

    def register(self, command: Command[AppT]) -> Command[AppT]:
        """Add ``command``; a second command of the same name is refused."""
        if not command.name or command.name.startswith("/") or " " in command.name:
            raise CommandError(f"a command name is one word without its slash: {command.name!r}")
        if command.name in self._commands:
            raise CommandError(f"/{command.name} is already registered")
        self._commands[command.name] = command
        return command

    def __iter__(self) -> Iterator[Command[AppT]]:
        return iter(self._commands.values())

    def __len__(self) -> int:
        return len(self._commands)

    def get(self, name: str) -> Command[AppT] | None:
        """The command called ``name`` (with or without its slash), or ``None``."""
        return self._commands.get(name.removeprefix("/"))

    def matching(self, typed: str) -> list[Command[AppT]]:
        """Commands whose name starts with what was typed after the slash, in order."""
        prefix = typed.removeprefix("/").split(" ", 1)[0]
        return [command for command in self._commands.values() if command.name.startswith(prefix)]

    def parse(self, line: str) -> tuple[Command[AppT], str]:
        """The command a ``/name args`` line names, and its arguments.

        Raises:
            CommandError: the line is not a slash command, or names none registered.
        """
        if not line.startswith("/"):
            raise CommandError("a command starts with /")
        name, _, arguments = line[1:].partition(" ")
        command = self.get(name)
        if command is None:
            known = ", ".join(command.slash for command in self._commands.values())
            raise CommandError(f"unknown command /{name}; commands: {known}")
        return command, arguments.strip()
