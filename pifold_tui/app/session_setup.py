"""What the app runs on: an agent over a session, its engine, its provider and its prices.

A live session is assembled with the same functions as ``pifold -p``
(:mod:`pifold_agent.run_setup`, :mod:`pifold_agent.provider_choice`), so the two never
drift: the provider and its model's budget, the session (new, ``--continue`` or
``--resume``), the engine under the settings file, and the tools. The heavy modules (the
SDKs, tiktoken) are imported here, which the app loads only after its first frame.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pifold_agent.loop import Agent, SessionRecorder
from pifold_agent.loop.approval import Approver
from pifold_agent.provider_choice import make_provider, provider_and_model
from pifold_agent.providers.base import Provider
from pifold_agent.providers.models import ModelDescriptor, ModelsFileError, load_models
from pifold_agent.run_input import CommandError, HeadlessOptions
from pifold_agent.run_setup import open_run
from pifold_agent.sessions import SessionFile
from pifold_core.engine import Engine
from pifold_core.refused_settings import load_or_defaults
from pifold_core.settings import SettingsError, SettingsFile
from pifold_tui.app.footer import Prices

if TYPE_CHECKING:
    from pifold_tui.app.demo_bill import DemoBill


def prices_of(descriptor: ModelDescriptor | None) -> Prices | None:
    """The descriptor's prices; ``None`` for a model without any (a local server)."""
    if descriptor is None:
        return None
    figures = (
        descriptor.input_per_million,
        descriptor.output_per_million,
        descriptor.cache_read_per_million,
        descriptor.cache_write_per_million,
    )
    return None if not any(figures) else Prices(*figures)


@dataclass
class AppSession:
    """One session the app shows and talks to."""

    agent: Agent
    """The loop (its window is the engine, or native compaction after ``/compact``)."""
    engine: Engine | None
    """The folding engine; ``None`` once ``/compact`` has handed the context to native
    compaction."""
    recorder: SessionRecorder
    """Where every message is written first: the session file, or memory in the demo."""
    provider: Provider
    prices: Prices | None
    """The model's prices, for the footer's cost."""
    cwd: Path
    settings: SettingsFile
    """The user's settings file (``/fold-settings`` edits it)."""
    options: HeadlessOptions
    """How it was opened (``/new`` and ``/resume`` reopen with the same provider options)."""
    session_file: SessionFile | None = None
    """The session file, for ``/session``, ``/resume`` and ``/compact``; ``None`` in the
    demo, which keeps its messages in memory."""
    demo: bool = False
    """Whether this is the no-key demo (a recorded session played back)."""
    cleanup: Callable[[], None] | None = None
    """Run once when the session closes (the demo removes its temporary state)."""
    notices: list[str] = field(default_factory=list)
    """Warnings the opening found (skipped lines, a hand edit the log overrides, a
    configuration file others may write): the app shows each once."""
    played_through: Callable[[], bool] | None = None
    """The demo: whether the recorded session has played every reply."""
    bill: DemoBill | None = None
    """The demo's simulated bill and native compaction's beside it; ``None`` elsewhere (a
    live session's cost is what its provider reports)."""
    budget_origin: str | None = None
    """Where a ``--base-url`` session's budget came from (the server's window, the settings
    file, ``--budget`` or the default), for ``/model``."""
    settings_refused: SettingsError | None = None
    """Why the settings file was refused when the session opened: it runs with the
    defaults, and the app says so (``/fold-settings`` can replace the file)."""

    @property
    def model(self) -> str:
        return self.agent.provider.model

    def close(self) -> None:
        """Close the engine and the session file (their locks go with them)."""
        if self.engine is not None:
            self.engine.close()
        if self.session_file is not None:
            self.session_file.close()
        if self.cleanup is not None:
            self.cleanup()
            self.cleanup = None


def open_live(options: HeadlessOptions, approver: Approver | None) -> AppSession:
    """A live session: the provider the options name, in ``options.cwd``, opened by the same
    set-up as ``pifold -p`` (:func:`pifold_agent.run_setup.open_run`): the session file
    claimed as its one writer, the engine, the agent caught up.

    Raises:
        pifold_agent.run_input.CommandError: no key, a bad option, an unknown session, one
            another process is writing, or state that cannot be opened; one line says which.
    """
    provider, descriptor = provider_and_model(options)
    # A refused file must not stop the app: /fold-settings, where it is repaired, is inside.
    refused = load_or_defaults(SettingsFile())[1]
    # The app folds (its bar, its fold screens); /compact is its way to native compaction.
    opened = open_run(
        replace(options, no_fold=False),
        provider,
        descriptor,
        approver,
        settings_file=refused is None,
    )
    try:
        prices = prices_of(load_models().get(provider.model))
    except ModelsFileError:  # refused after the provider read it (changed since): no prices
        prices = None
    return AppSession(
        agent=opened.agent,
        engine=opened.engine,
        recorder=opened.session,
        provider=provider,
        prices=prices,
        cwd=options.cwd.resolve(),
        settings=SettingsFile(),
        options=options,
        session_file=opened.session,
        notices=list(opened.notices),
        budget_origin=opened.budget_origin,
        settings_refused=refused,
    )


def reopen(current: AppSession, resume: str | None) -> AppSession:
    """A new session (``resume`` is ``None``) or the one ``resume`` names, with the same
    provider options and approver. The other is opened first, so a refusal (an unknown id)
    leaves the current session open and unchanged; then the current one is closed.

    Raises:
        pifold_agent.run_input.CommandError: the session cannot be opened (why is said).
    """
    open_now = current.session_file
    if resume is not None and open_now is not None and open_now.id.startswith(resume.strip()):
        raise CommandError(f"session {open_now.id} is the one open now")
    options = replace(current.options, continue_session=False, resume=resume, yes=True)
    fresh = open_live(options, current.agent.config.approver)
    current.close()
    return fresh


def models_for(provider: Provider) -> list[ModelDescriptor]:
    """The table's models for the provider running now (``/model`` lists them)."""
    table = load_models()
    return [descriptor for descriptor in table.values() if descriptor.provider == provider.name]


def switch_model(current: AppSession, model: str) -> AppSession:
    """The same session talking to ``model`` of the same provider from the next request.

    Raises:
        ValueError: the table has no such model for this provider.
        pifold_agent.run_input.CommandError: its key is missing.
    """
    known = {descriptor.id: descriptor for descriptor in models_for(current.provider)}
    if model not in known:
        names = ", ".join(known) or "none"
        raise ValueError(f"no model {model!r} for {current.provider.name}; models: {names}")
    provider, _ = make_provider(replace(current.options, model=model))
    # The provider is public state of the agent: the next request goes to the new model;
    # the system prompt and the tools stay byte for byte the same.
    current.agent.provider = provider
    current.provider = provider
    current.options = replace(current.options, model=model)
    current.prices = prices_of(known[model])
    return current


def close_quietly(session: AppSession | None) -> None:
    """Close ``session`` at exit; a failure to close is not worth a traceback then."""
    if session is not None:
        with contextlib.suppress(OSError):
            session.close()


__all__ = [
    "AppSession",
    "close_quietly",
    "models_for",
    "open_live",
    "prices_of",
    "reopen",
    "switch_model",
]
