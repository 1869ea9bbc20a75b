"""Opening a session to run in: the set-up ``pifold -p`` and the app share.

:func:`open_run` takes the session (new, ``--continue`` or ``--resume``) as its one writer,
opens its context (the folding engine under the settings file, or ``--no-fold``'s native
compaction), builds the agent and catches the engine up with the session. Whatever goes
wrong on the way is a :class:`~pifold_agent.run_input.CommandError` of one line naming the
session or file and what to do (:mod:`pifold_agent.setup_report`), never a traceback, and
everything opened so far is closed again, its locks with it: a run that was refused changed
nothing.

What the set-up found worth saying without refusing (lines of the session file skipped, a
hand edit the engine's log overrides, a settings file others may write) is kept in
:attr:`OpenRun.notices` for the host to show; the words of both are
:mod:`~pifold_agent.setup_report`'s.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pifold_agent.compaction import CompactionSettings
from pifold_agent.loop import Agent, AgentConfig, Tool
from pifold_agent.loop.approval import Approver
from pifold_agent.loop.followers import Followers
from pifold_agent.loop.message_size import MessageTooLarge, check_message_size, head_tokens
from pifold_agent.loop.repeats import RepeatedCalls
from pifold_agent.loop.window import EngineWindow
from pifold_agent.memory import repository_root, store_for
from pifold_agent.memory.resurfacing import Resurfacer, resurfacing_enabled
from pifold_agent.memory.session_prompt import log_section, session_section
from pifold_agent.memory.tool import MemoryTool
from pifold_agent.native_window import NativeWindow
from pifold_agent.providers.base import Provider
from pifold_agent.providers.local_window import budget_origin
from pifold_agent.providers.models import ModelDescriptor, cache_lifetime
from pifold_agent.run_input import CommandError, HeadlessOptions
from pifold_agent.scripted.provider import ScriptedProvider
from pifold_agent.sessions import SessionError, SessionFile, find, latest_for, state_directory
from pifold_agent.sessions.agreement import compare_with_log
from pifold_agent.setup_report import (
    configuration_notices,
    one_line,
    setup_failure,
    state_notices,
)
from pifold_agent.surfacing import surfacing_enabled
from pifold_agent.tools import builtin_tools
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions, budget_problem
from pifold_core.settings import SettingsFile


@dataclass
class OpenRun:
    """A session open for a run: its file (locked), its engine (``None`` with
    ``--no-fold``) and the agent over them."""

    session: SessionFile
    engine: Engine | None
    agent: Agent
    notices: list[str] = field(default_factory=list)
    """Warnings for the host to show, one line each."""
    budget_origin: str | None = None
    """Where a ``--base-url`` run's budget came from (also one of :attr:`notices`)."""

    def close(self) -> None:
        """Close the engine and the session file; their locks go with them."""
        try:
            if self.engine is not None:
                self.engine.close()
        finally:
            self.session.close()


def open_run(
    options: HeadlessOptions,
    provider: Provider,
    descriptor: ModelDescriptor | None,
    approver: Approver | None = None,
    messages: Sequence[str] = (),
    settings_file: bool = True,
) -> OpenRun:
    """The session ``options`` name, open for a run with ``provider``, every one of
    ``messages`` checked to fit one request. Without ``settings_file`` the user's settings
    file is not read (the app opens on the defaults when it refused the file).

    Nothing is written before every check has passed: the options the run asks for (the
    settings file, ``--budget``) are logged only once the messages are known to fit them,
    and a new session refused leaves no state folder behind.

    Raises:
        CommandError: the session, its state or the settings cannot be opened, or a message
            is too large; one line says which and what to do. Nothing is left open.
    """
    check_budget(options.budget)
    model_budget = descriptor.serving_budget if descriptor is not None else None
    cwd = options.cwd.resolve()
    session = open_session(cwd, options)
    engine: Engine | None = None
    try:
        notices = [f"{session.path}: skipped {problem}" for problem in session.problems]
        wanted: EngineOptions | None = None
        if options.no_fold:
            window: Engine | NativeWindow = native_window(session, provider, options, model_budget)
        else:
            engine, wanted = engine_as_logged(
                session.state_directory, options, model_budget, settings_file
            )
            window = engine
        config = agent_config(cwd, session.id, descriptor, approver)
        store = store_for(cwd)
        section, unlogged = session_section(engine, cwd, store)
        follower = Followers(
            Resurfacer(store, repository_root(cwd), resurfacing_enabled(settings_file)),
            RepeatedCalls(),
        )
        config = replace(config, follower=follower, prompt_context=section)
        tools = agent_tools(provider, options.api_key_env, cwd)
        agent = Agent(window, provider, tools, session, config)
        check_sizes(agent, messages, wanted.budget if wanted is not None else None)
        origin = None
        if options.base_url is not None:
            budget = wanted.budget if wanted is not None else agent.window.request_budget()
            origin = budget_origin(options.base_url, descriptor, budget, options.budget is not None)
            notices.append(origin)
        if engine is not None and wanted is not None:
            engine.apply_options(wanted)
            engine.set_surfacing(surfacing_enabled(settings_file))
            if unlogged:
                log_section(engine, section)  # the prompt's bytes, fixed for the session
            if isinstance(agent.window, EngineWindow):  # the fixed prefix and its floor
                notices += agent.window.prefix_notices(agent.system, agent.specs)
            notices += configuration_notices() + state_notices(engine)
            disagreement = compare_with_log(session, engine)
            if disagreement is not None:
                notices.append(disagreement.describe(session))
        agent.resume()
    except BaseException as error:
        _close_quietly(engine, session)
        if isinstance(error, Exception) and not isinstance(error, CommandError):
            raise CommandError(setup_failure(error, session)) from None
        raise
    if isinstance(provider, ScriptedProvider):
        provider.attach(agent.queues)  # the script's own user messages
    return OpenRun(session, engine, agent, notices, origin)


def check_sizes(agent: Agent, messages: Sequence[str], budget: int | None) -> None:
    """Refuse the run when one of ``messages`` cannot fit one request at ``budget`` (the
    agent's own when ``None``).

    Raises:
        CommandError: the message's size, the room and what to do.
    """
    if not messages:
        return
    head = head_tokens(agent.window, agent.system, agent.specs)
    try:
        for text in messages:
            check_message_size(agent.window, head, text, budget)
    except MessageTooLarge as refusal:
        raise CommandError(str(refusal)) from None


def check_budget(budget: int | None) -> None:
    """Refuse a ``--budget`` outside the one budget rule
    (:func:`pifold_core.options.budget_problem`), before anything is opened.

    Raises:
        CommandError: it is outside the rule; the message is the rule's own.
    """
    problem = None if budget is None else budget_problem(budget, "--budget")
    if problem is not None:
        raise CommandError(problem)


def _close_quietly(engine: Engine | None, session: SessionFile) -> None:
    try:
        if engine is not None:
            engine.close()
    except Exception:  # the set-up already failed; that failure is the one to report
        pass
    finally:
        session.close()
        if not session.path.exists():
            # A new session refused before its first message: its state goes with it.
            shutil.rmtree(state_directory(session.path), ignore_errors=True)


def open_session(cwd: Path, options: HeadlessOptions) -> SessionFile:
    """The session to run in, claimed as its one writer: ``--resume ID``, ``--continue``
    (the newest of ``cwd``), or new.

    ``--continue`` with no session to continue is refused unless ``--yes`` says to start one.

    Raises:
        CommandError: no such session, it cannot be read, or another writer holds it.
    """
    try:
        if options.resume is not None:
            session = find(options.resume, cwd, options.sessions_dir)
        elif options.continue_session and (latest := latest_for(cwd, options.sessions_dir)):
            session = latest
        elif options.continue_session and not options.yes:
            raise CommandError(
                f"no session to continue in {cwd}; run without --continue to start one, "
                "or add --yes to start a new one"
            )
        else:
            session = SessionFile.create(cwd, options.sessions_dir)
        session.claim()
    except (SessionError, OSError) as error:
        raise CommandError(one_line(error)) from None
    return session


def native_window(
    session: SessionFile, provider: Provider, options: HeadlessOptions, model_budget: int | None
) -> NativeWindow:
    """Pi's compaction over the session: it keeps the context under the serving budget (the
    model's window less the reserve), the same budget folding works to."""
    check_budget(options.budget)
    budget = options.budget if options.budget is not None else model_budget
    settings = CompactionSettings()
    serving = budget if budget is not None else EngineOptions().budget
    return NativeWindow(session, provider, serving + settings.reserve_tokens, settings)


def open_engine(
    state_dir: Path,
    options: HeadlessOptions,
    descriptor_budget: int | None,
    settings_file: bool = True,
) -> Engine:
    """The session's engine, with the options the run asks for in force (logged). Without
    ``settings_file`` the settings file is not read (the app, when it refused the file).

    Raises:
        CommandError: a bad budget, a refused settings file, or state that cannot be opened
            (another writer, a damaged log or store); one line says which.
    """
    engine, wanted = engine_as_logged(state_dir, options, descriptor_budget, settings_file)
    try:
        engine.apply_options(wanted)
    except Exception as error:
        engine.close()
        raise CommandError(setup_failure(error, None, state_dir)) from None
    return engine


def engine_as_logged(
    state_dir: Path,
    options: HeadlessOptions,
    descriptor_budget: int | None,
    settings_file: bool = True,
) -> tuple[Engine, EngineOptions]:
    """The session's engine with the options it logged, and the options the run asks for:
    a new session starts from the model's budget under the settings file, a reopened one
    keeps its logged options under the settings file, and ``--budget`` wins. Nothing but a
    new session's first record is written.

    Raises:
        CommandError: as :func:`open_engine`.
    """
    check_budget(options.budget)
    base = EngineOptions() if descriptor_budget is None else EngineOptions(budget=descriptor_budget)
    try:
        fresh = _with_budget(_settings(base, settings_file), options.budget)
        engine = Engine.open(state_dir, fresh)
    except Exception as error:
        raise CommandError(setup_failure(error, None, state_dir)) from None
    try:
        wanted = _with_budget(_settings(engine.options, settings_file), options.budget)
    except Exception as error:
        engine.close()
        raise CommandError(setup_failure(error, None, state_dir)) from None
    return engine, wanted


def _settings(base: EngineOptions, settings_file: bool) -> EngineOptions:
    """``base`` under the user's settings file, or ``base`` alone when it is not to be read."""
    return SettingsFile(base=base).load() if settings_file else base


def _with_budget(options: EngineOptions, budget: int | None) -> EngineOptions:
    return options if budget is None else replace(options, budget=budget)


def agent_config(
    cwd: Path,
    session_id: str,
    descriptor: ModelDescriptor | None,
    approver: Approver | None = None,
) -> AgentConfig:
    """The loop's configuration for a session on the model ``descriptor`` describes.

    The descriptor's cache lifetime goes with every request, so the engine commits when a
    pause has let the cache expire anyway. A model without one (unknown, a local server,
    a descriptor stating 0, the scripted provider) passes ``None``: no pause is ever taken
    for a cold cache, and only the band's threshold commits.
    """
    return AgentConfig(
        cwd, session_id=session_id, cache_lifetime_s=cache_lifetime(descriptor), approver=approver
    )


def agent_tools(
    provider: Provider, api_key_env: str | None = None, cwd: Path | None = None
) -> list[Tool]:
    """The built-in tools, or a recorded script's answers to its own calls. The variable
    ``--api-key-env`` names is kept out of bash's environment, as the providers' own are.
    With ``cwd``, the ``memory`` tool over the notes of its project and of the user
    (:mod:`pifold_agent.memory`)."""
    if isinstance(provider, ScriptedProvider) and provider.script.tools == "recorded":
        return list(provider.recorded_tools())
    tools = builtin_tools(key_variables=(api_key_env,) if api_key_env else ())
    return tools if cwd is None else [*tools, MemoryTool(store_for(cwd))]


__all__ = [
    "OpenRun",
    "agent_config",
    "agent_tools",
    "check_budget",
    "check_sizes",
    "engine_as_logged",
    "native_window",
    "open_engine",
    "open_run",
    "open_session",
]
