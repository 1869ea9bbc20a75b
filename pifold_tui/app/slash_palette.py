"""The command palette's slash commands: Ctrl+P searches the app's registry by name.

The palette lists the same commands as ``/help`` and completion (the app's
:class:`~pifold_tui.app.commands.CommandRegistry`, filled from
:data:`pifold_tui.app.slash.COMMANDS`); picking one runs it as if its ``/name`` had been
typed (:meth:`~pifold_tui.app.host.SlashHost.run_slash`), so a command the agent's run forbids
is refused with the same words either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pifold_tui.app.commands import Command

if TYPE_CHECKING:
    from pifold_tui.app.host import SlashHost


class SlashCommandProvider(Provider):
    """The command palette's slash commands: the app's registry, searched by name."""

    def _commands(self) -> list[Command[SlashHost]]:
        app = cast("SlashHost", self.app)
        return list(getattr(app, "registry", ()))

    async def discover(self) -> Hits:
        app = cast("SlashHost", self.app)
        for command in self._commands():
            yield DiscoveryHit(command.slash, _runner(app, command), help=command.description)

    async def search(self, query: str) -> Hits:
        app = cast("SlashHost", self.app)
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.slash)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(command.slash),
                    _runner(app, command),
                    help=command.description,
                )


def _runner(app: SlashHost, command: Command[SlashHost]) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        await app.run_slash(command.slash)

    return run


__all__ = ["SlashCommandProvider"]
