"""The app's slash commands, registered once; the palette's provider
(:mod:`pifold_tui.app.slash_palette`) reads the same table.

Each command says whether it may run while the agent works. The fold screens take the live
engine (DESIGN §11): during a run ``/fold-editor`` opens read-only (browse and peek; no
action that would change the window under a request in flight), ``/fold-status`` shows the
figures, and the commands that change the session wait for the run to end. A command sees
the app as a :class:`~pifold_tui.app.host.SlashHost`: what it may ask of it, and no more.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pifold_tui.app.commands import Command, CommandError, CommandRegistry
from pifold_tui.screens.catalogue import SCREEN_ACTIONS

if TYPE_CHECKING:
    from pifold_agent.providers.models import ModelDescriptor
    from pifold_core.engine import Engine
    from pifold_tui.app.host import SlashHost
    from pifold_tui.app.session_setup import AppSession
    from pifold_tui.screens.editor import FoldEditorScreen


async def run_line(app: SlashHost, line: str) -> None:
    """Run one ``/command`` line, or say why not (unknown, or not available during a run)."""
    try:
        command, arguments = app.registry.parse(line.strip())
    except CommandError as error:
        app.say(str(error), severity="error")
        return
    if app.running and not command.available_during_run:
        app.say(
            f"{command.slash} is not available while the agent works; press Esc to "
            "abort, or wait for the run to end.",
            severity="warning",
        )
        return
    outcome = command.run(app, arguments)
    if outcome is not None:
        await outcome


def _session(app: SlashHost, command: str) -> AppSession | None:
    if app.session is None:
        app.say(f"{command}: the session is not open yet.", "warning")
    return app.session


def _live(app: SlashHost, command: str) -> AppSession | None:
    """The session, unless it has no model: the demo (a recorded session) or a session
    opened with no key (there is nothing to switch, summarise with, or talk to)."""
    from pifold_tui.app.no_model import connect_hint_of

    session = _session(app, command)
    if session is not None and session.demo:
        app.say(f"{command} needs a model: the demo plays a recorded session.", "warning")
        return None
    hint = None if session is None else connect_hint_of(session)
    if hint is not None:
        app.say(f"{command} needs a model. {hint}", "warning")
        return None
    return session


def _folding(app: SlashHost, command: str) -> tuple[AppSession, Engine] | None:
    """The session and its folding engine, unless the session is not open yet or no longer
    folds (after ``/compact``): the fold screens have nothing to show then."""
    session = _session(app, command)
    if session is None:
        return None
    if session.engine is None:
        app.say(f"{command}: folding is off in this session (/compact).", "warning")
        return None
    return session, session.engine


def fold_status(app: SlashHost, arguments: str) -> None:
    folding = _folding(app, "/fold-status")
    if folding is None:
        return
    session, engine = folding
    from pifold_tui.screens.status import FoldStatusScreen

    note = None if session.bill is None else session.bill.note()
    app.open_screen(FoldStatusScreen(engine, note=note, label=str(session.cwd)))


def fold(app: SlashHost, arguments: str) -> None:
    folding = _folding(app, "/fold")
    if folding is None:
        return
    _, engine = folding
    from pifold_tui.screens.fold import FoldScreen

    app.open_screen(FoldScreen(engine))


def open_fold_editor(app: SlashHost, handle: str | None = None) -> None:
    """The fold editor on the live engine, on ``handle``'s fold when it names one (a fold
    row of the conversation asks for that)."""
    session = app.session
    if session is None or session.engine is None:
        app.say("/fold-editor needs the folding engine (this session has none).", "warning")
        return
    from pifold_tui.screens.editor import FoldEditorScreen

    # During a run the window must not change under a request in flight: browse and peek
    # only (the screen refuses the rest, saying so).
    screen = FoldEditorScreen(session.engine, read_only=app.running)
    app.open_screen(screen)
    if handle is not None:
        screen.call_after_refresh(_select_fold, app, screen, handle)


def _select_fold(app: SlashHost, screen: FoldEditorScreen, handle: str) -> None:
    window_map = screen.window_map
    for position, row in enumerate(window_map.rows):
        if row.handle == handle:
            window_map.move_to(position)
            screen.show_source()
            return
    app.say(f"{handle} is not a fold of this window.", "warning")


def fold_editor(app: SlashHost, arguments: str) -> None:
    open_fold_editor(app, arguments or None)


async def reopen(app: SlashHost, resume: str | None) -> None:
    """``/new`` (``resume`` is ``None``) or ``/resume ID``: show that session instead; a
    refusal (an unknown id) leaves the open session as it was."""
    current = app.session
    if current is None:
        return
    from pifold_agent.run_input import CommandError as OpenRefused
    from pifold_tui.app.host import Launch
    from pifold_tui.app.session_setup import reopen as open_other

    try:
        fresh = await asyncio.to_thread(open_other, current, resume)
    except (OpenRefused, OSError) as error:
        app.say(str(error), "error")
        return
    await app.show_session(Launch(fresh))
    named = fresh.session_file.id if fresh.session_file is not None else "?"
    app.say(("Resumed " if resume else "New session ") + named)


def fold_settings(app: SlashHost, arguments: str) -> None:
    folding = _folding(app, "/fold-settings")
    if folding is None:
        return
    session, engine = folding
    from pifold_tui.screens.settings import FoldSettingsScreen

    app.open_screen(FoldSettingsScreen(engine, session.settings))


async def compact(app: SlashHost, arguments: str) -> None:
    session = _live(app, "/compact")  # the summary is the model's to write
    if session is None:
        return
    from pifold_tui.app.compact import CompactRefused
    from pifold_tui.app.compact import compact as run_compaction

    app.say("/compact: summarising the history with the model…")
    try:
        written = await run_compaction(session, app.deliver)
    except CompactRefused as error:
        app.say(str(error), "warning")
        return
    if not written:
        app.say("/compact: nothing old enough to summarise yet; folding continues.")
        return
    await app.session_changed()
    app.say("Compacted: the history is summarised (Pi's compaction entry); folding is off now.")


def model_lines(
    descriptors: Sequence[ModelDescriptor],
    current: str,
    budget: int | None,
    budget_origin: str | None = None,
    prefix: Sequence[str] = (),
) -> list[str]:
    """``/model``'s page: each model's window and serving budget, each named for what it is,
    then the session's own serving budget, the one the bar and ``/fold-status`` count
    against (issue 19: the page said ``local 128,000 tokens`` beside a 100,000 budget)."""
    lines = [f"  {'model':<22} {'window':>9} {'serving budget':>15}  $ per million in / out"]
    for descriptor in descriptors:
        lines.append(
            f"{'→' if descriptor.id == current else ' '} {descriptor.id:<22} "
            f"{descriptor.context_window:>9,} {descriptor.serving_budget:>15,}  "
            f"${descriptor.input_per_million:g} / ${descriptor.output_per_million:g}"
        )
    session = (
        [
            f"This session's serving budget: {budget:,} tokens (providerInputBudget). The bar",
            "and /fold-status count against it; /fold-settings changes it.",
        ]
        if budget is not None
        else ["This session no longer folds (/compact): its model's serving budget applies."]
    )
    if budget_origin is not None:
        session += textwrap.wrap(f"Where it came from: {budget_origin}.", 86)
    for line in prefix:  # the fixed prefix and its floor (prefix_floor.prefix_lines)
        session += textwrap.wrap(line, 86)
    return [
        *lines,
        "",
        "window: the tokens the model accepts, prompt and answer together; serving budget:",
        "the window less the answer's reserve, where a new session on that model starts.",
        "",
        *session,
        "",
        "/model NAME switches from the next request.",
    ]


def model(app: SlashHost, arguments: str) -> None:
    session = _live(app, "/model")
    if session is None:
        return
    from pifold_tui.app.session_setup import models_for, switch_model

    if not arguments:
        from pifold_agent.loop.prefix_floor import prefix_lines
        from pifold_tui.app.info_screens import InfoScreen

        engine = session.engine
        budget = None if engine is None else engine.options.budget
        prefix = [] if engine is None else prefix_lines(engine)
        lines = model_lines(
            models_for(session.provider), session.model, budget, session.budget_origin, prefix
        )
        app.push_screen(InfoScreen(f"/model · {session.provider.name}", lines))
        return
    from pifold_agent.run_input import CommandError as RunCommandError

    try:
        switch_model(session, arguments)
    except (ValueError, RunCommandError) as error:
        app.say(str(error), "error")
        return
    app.footer.model = session.model
    app.footer.prices = session.prices
    app.footer.show()
    app.say(f"/model: {session.model} from the next request.")


async def new(app: SlashHost, arguments: str) -> None:
    session = _live(app, "/new")
    if session is not None:
        await reopen(app, None)


async def resume(app: SlashHost, arguments: str) -> None:
    session = _live(app, "/resume")
    if session is None:
        return
    if arguments:
        await reopen(app, arguments)
        return
    from pifold_agent.sessions.catalogue import list_sessions
    from pifold_tui.app.info_screens import ChoiceScreen

    sessions = list_sessions(session.cwd, session.options.sessions_dir)
    choices = [
        (
            summary.id,
            f"{summary.created[:16]}  {summary.messages:>5} messages  "
            f"{summary.first_message or '(no message)'}",
        )
        for summary in sessions
        if session.session_file is None or summary.id != session.session_file.id
    ]
    if not choices:
        app.say(f"/resume: no other session of {session.cwd}.", "warning")
        return

    async def chosen(identifier: str | None) -> None:
        if identifier is not None:
            await reopen(app, identifier)

    app.push_screen(ChoiceScreen(f"/resume · sessions of {session.cwd}", choices), chosen)


def session_facts(app: SlashHost, arguments: str) -> None:
    session = _session(app, "/session")
    if session is None:
        return
    from pifold_tui.app.info_screens import InfoScreen

    entries = len(session.recorder.recorded())
    if session.session_file is None:
        lines = ["the demo: messages in memory, engine state in a temporary folder"]
    else:
        lines = [
            f"path          {session.session_file.path}",
            f"id            {session.session_file.id}",
            f"state folder  {session.session_file.state_directory}",
        ]
    lines += [
        f"entries       {entries:,}",
        f"model         {session.provider.name} · {session.model}",
        f"context       {'folding engine' if session.engine is not None else 'native compaction'}",
        f"cwd           {session.cwd}",
    ]
    app.push_screen(InfoScreen("/session", lines))


def memory(app: SlashHost, arguments: str) -> None:
    session = _session(app, "/memory")
    if session is None:
        return
    from pifold_agent.memory import store_for
    from pifold_tui.screens.memory import MemoryScreen

    app.push_screen(MemoryScreen(store_for(session.cwd)))


def help_command(app: SlashHost, arguments: str) -> None:
    from pifold_tui.app.info_screens import InfoScreen

    lines = [
        f"{command.slash:<15} {command.description}"
        + ("" if command.available_during_run else "  (not during a run)")
        for command in app.registry
    ]
    lines += [
        "",
        "Enter sends · Shift+Enter or Ctrl+J a new line · Ctrl+F (or Alt+Enter) a follow-up",
        "Esc aborts the run · !cmd runs a shell command · ctrl+p the command palette",
    ]
    app.push_screen(InfoScreen("/help", lines))


async def quit_command(app: SlashHost, arguments: str) -> None:
    await app.action_quit()


FOLD_SCREENS: dict[str, Callable[[SlashHost, str], None]] = {
    "status": fold_status,
    "fold": fold,
    "editor": fold_editor,
    "settings": fold_settings,
}
"""How the app opens each fold screen of :data:`~pifold_tui.screens.catalogue.SCREEN_ACTIONS`
(the table that names, describes and orders them)."""

COMMANDS: tuple[Command[SlashHost], ...] = (
    *(
        Command(action.slash_name, action.slash_help, action.during_run, FOLD_SCREENS[action.name])
        for action in SCREEN_ACTIONS
    ),
    Command("compact", "Native compaction: summarise the history and stop folding", False, compact),
    Command("model", "Show the models of this provider; /model NAME switches", False, model),
    Command("new", "Start a new session in this directory", False, new),
    Command(
        "resume", "Reopen a session of this directory (/resume ID, or pick one)", False, resume
    ),
    Command("session", "The session's file, id, entries and state folder", True, session_facts),
    Command("memory", "The memory notes of this project and yours: list, open, edit", True, memory),
    Command("help", "Every command and key", True, help_command),
    Command("quit", "Leave (a running turn is aborted first)", True, quit_command),
)
"""Every slash command, in the order ``/help`` and completion list them."""


def build_registry() -> CommandRegistry[SlashHost]:
    """A registry holding :data:`COMMANDS`."""
    registry: CommandRegistry[SlashHost] = CommandRegistry()
    for command in COMMANDS:
        registry.register(command)
    return registry


__all__ = [
    "COMMANDS",
    "build_registry",
    "open_fold_editor",
    "reopen",
    "run_line",
]
