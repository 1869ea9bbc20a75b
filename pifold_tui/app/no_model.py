"""A session opened with no model: ``pifold --resume ID`` or ``--continue`` with no API key.

With no key there is nothing to talk to, but a session is still worth looking at: the app
opens it as it would with a key (its transcript from the session file, the bar and the fold
screens over its engine) and sends no prompt: a message typed stays in the input, and the
app says how to connect a model. A ``!command`` needs no model and runs as usual, its output
added to the session. The
agent is given a :class:`NoModelProvider`, which answers any request with a fatal error
naming what to set, so nothing can ever be sent by mistake.

What the engine does here is what any open does: a session whose engine missed entries (a
kill between the two writes) is caught up, and the fold screens' verbs are logged and
attributed as usual.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pifold_agent.loop import Agent, AgentConfig
from pifold_agent.providers.base import (
    ErrorClass,
    ProviderError,
    ProviderRequest,
    StreamDone,
    StreamEvent,
)
from pifold_agent.providers.registry import key_choice
from pifold_agent.run_input import CommandError, HeadlessOptions
from pifold_agent.run_setup import agent_tools, open_engine
from pifold_agent.sessions import SessionError, SessionFile, find, latest_for
from pifold_agent.setup_report import setup_failure
from pifold_core.refused_settings import load_or_defaults
from pifold_core.settings import SettingsFile
from pifold_tui.app.session_setup import AppSession

NO_MODEL_NAME = "no model"
"""What the footer shows as the model."""

NO_MODEL_HINT = (
    "No model is connected: this session is open to look at (transcript, bar, fold screens). "
    f"To continue it, quit and set {key_choice(', or --base-url for a local server')}, then "
    "run the same pifold command again."
)
"""What the first notification says, and any refused prompt or command."""

NO_MODEL_LINE = f"no model: quit, set {key_choice()} and run this again"
"""The prompt's hint line meanwhile: one row of an 80-column terminal."""

DEMO_LINE = f"demo: quit, set {key_choice()} and run pifold"
"""The prompt's hint line in the demo (the notification says the rest, --base-url too)."""

UNSENT = (
    "No model is connected, so this was not sent: it stays in the input (and ↑ brings it "
    "back later). To send it, quit (ctrl+q), set "
    f"{key_choice(', or --base-url for a local server')}, then {{then}}."
)
"""What a message typed with no model is told (the prompt keeps it in its input and its
history; a ``!command`` or a ``/command`` runs as usual)."""

UNSENT_IN_DEMO = UNSENT.format(then="run pifold")
UNSENT_IN_SESSION = UNSENT.format(then="run the same pifold command to continue this session")


class NoModelProvider:
    """A provider with no model behind it: every request ends at once in a fatal error that
    says how to connect one."""

    @property
    def name(self) -> str:
        return "none"

    @property
    def model(self) -> str:
        return NO_MODEL_NAME

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        yield StreamDone((), "error", error=ProviderError(ErrorClass.FATAL, NO_MODEL_HINT))


def connect_hint_of(session: AppSession) -> str | None:
    """How to connect a model, when ``session`` has none (the demo, or a session opened
    with no key); ``None`` when it talks to a model."""
    if session.demo:
        from pifold_tui.app.demo import CONNECT_HINT

        return CONNECT_HINT
    if isinstance(session.provider, NoModelProvider):
        return NO_MODEL_HINT
    return None


def unsent_hint_of(session: AppSession) -> str | None:
    """What a message typed in ``session`` is told when there is no model to send it to
    (the demo, or a session opened with no key); ``None`` when it talks to a model."""
    if session.demo:
        return UNSENT_IN_DEMO
    if isinstance(session.provider, NoModelProvider):
        return UNSENT_IN_SESSION
    return None


def prompt_line_of(session: AppSession) -> str | None:
    """The prompt's one-row version of :func:`connect_hint_of`."""
    if session.demo:
        return DEMO_LINE
    if isinstance(session.provider, NoModelProvider):
        return NO_MODEL_LINE
    return None


def wanted_session(options: HeadlessOptions) -> SessionFile:
    """The session ``--resume ID`` or ``--continue`` names (never a new one: with no model
    there would be nothing to look at).

    Raises:
        pifold_agent.run_input.CommandError: no such session; the message says so.
    """
    cwd = options.cwd.resolve()
    try:
        if options.resume is not None:
            return find(options.resume, cwd, options.sessions_dir)
        latest = latest_for(cwd, options.sessions_dir)
    except SessionError as error:
        raise CommandError(str(error)) from None
    if latest is None:
        raise CommandError(
            f"no session to continue in {cwd}; pifold with no option opens the demo, "
            "which needs no key"
        )
    return latest


def open_without_model(options: HeadlessOptions) -> AppSession:
    """The session ``options`` name, over its engine, with no model to talk to.

    Raises:
        pifold_agent.run_input.CommandError: no such session, or state that cannot be
            opened; the message says which.
    """
    cwd = options.cwd.resolve()
    session = wanted_session(options)
    provider = NoModelProvider()
    engine = None
    # A refused settings file must not keep the session closed: /fold-settings repairs it.
    refused = load_or_defaults(SettingsFile())[1]
    try:
        session.claim()  # resuming may answer orphaned calls: one writer, as in a run
        engine = open_engine(session.state_directory, options, None, refused is None)
        config = AgentConfig(cwd, session_id=session.id)
        tools = agent_tools(provider, options.api_key_env, cwd)
        agent = Agent(engine, provider, tools, session, config)
        agent.resume()
    except BaseException as error:
        if engine is not None:
            engine.close()
        session.close()
        if isinstance(error, Exception) and not isinstance(error, CommandError):
            raise CommandError(setup_failure(error, session)) from None
        raise
    return AppSession(
        agent=agent,
        engine=engine,
        recorder=session,
        provider=provider,
        prices=None,
        cwd=cwd,
        settings=SettingsFile(),
        options=options,
        session_file=session,
        settings_refused=refused,
    )


__all__ = [
    "DEMO_LINE",
    "NO_MODEL_HINT",
    "NO_MODEL_LINE",
    "NO_MODEL_NAME",
    "UNSENT",
    "UNSENT_IN_DEMO",
    "UNSENT_IN_SESSION",
    "NoModelProvider",
    "connect_hint_of",
    "open_without_model",
    "prompt_line_of",
    "unsent_hint_of",
    "wanted_session",
]
