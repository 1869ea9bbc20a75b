"""``pifold -p "prompt"``: one prompt run headless, the final answer printed.

The run goes through the same loop, engine and session code as every other host: the
session file (``~/.pifold/sessions/<project>/``) records each message before the engine's
state folder beside it, ``--continue`` and ``--resume ID`` reopen a session and first catch
the engine up with anything the session holds that the engine lacks (a kill between the two
writes), and a second Ctrl-C is never needed: the first aborts the run cleanly (exit 1).

Every failure is one line on stderr and a non-zero exit, never a traceback: 2 for what the
user must fix before anything runs (no key, a bad option, an unknown session), 1 for a run
that ended in an error or an abort.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from pifold_agent.compaction import CompactionSettings
from pifold_agent.loop import (
    Agent,
    AgentConfig,
    AgentEvent,
    RunResult,
    Tool,
    ToolCrash,
    event_json,
)
from pifold_agent.loop.approval import Approver
from pifold_agent.loop.events import CommitDone, CompactionDone, RetryWait
from pifold_agent.loop.native_window import NativeWindow
from pifold_agent.providers.base import Provider
from pifold_agent.providers.models import ModelDescriptor, cache_lifetime
from pifold_agent.providers.scripted import ScriptedProvider
from pifold_agent.sessions import SessionError, SessionFile, find, latest_for
from pifold_agent.tools import builtin_tools
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions, budget_problem
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.store import StoreError

NO_KEY_HELP = (
    "pifold -p needs a model to talk to. Set an API key in the environment, for example\n"
    "  export ANTHROPIC_API_KEY=...   (Anthropic, the default when it is set)\n"
    "  export OPENAI_API_KEY=...      (with --provider openai)\n"
    "or point --base-url at a compatible server (Ollama, vLLM, llama.cpp, LM Studio), e.g.\n"
    "  pifold -p 'hello' --base-url http://127.0.0.1:11434/v1 --model qwen2.5-coder\n"
    "Keys are read from the environment only and never written to any file."
)


class CommandError(Exception):
    """A failure to report on stderr: the message, and the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class HeadlessOptions:
    """The command line of one headless run."""

    prompt: str | None
    """``-p``: the prompt."""
    as_json: bool = False
    """``--json``: every event as a JSON line on stdout."""
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    """The environment variable holding the key (a compatible server's)."""
    script: Path | None = None
    """``--script``: a script or trace for the scripted provider."""
    no_fold: bool = False
    """``--no-fold``: Pi's native compaction (summaries in the session file) instead of
    folding; no engine state is kept."""
    budget: int | None = None
    continue_session: bool = False
    resume: str | None = None
    yes: bool = False
    """``--yes``: start a new session when ``--continue`` finds none, without asking."""
    cwd: Path = Path(".")
    sessions_dir: Path | None = None
    """Where sessions live (``~/.pifold/sessions`` when ``None``)."""


def run_headless(options: HeadlessOptions, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """Run one headless prompt; returns the exit code (messages already printed)."""
    try:
        return _run(options, stdin, out, err)
    except CommandError as error:
        err.write(f"error: {error}\n")
        return error.code
    except ToolCrash as crash:
        err.write(f"error: the run stopped: {crash}\n")
        return 1
    except (SessionError, StoreError, OSError) as error:
        # The session file or the fold store could not be written or read mid-run.
        err.write(f"error: {error}\n")
        return 1


def _run(options: HeadlessOptions, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    messages = _messages(options, stdin)
    provider, descriptor = provider_and_model(options)
    model_budget = descriptor.serving_budget if descriptor is not None else None
    cwd = options.cwd.resolve()
    session = open_session(cwd, options)
    for problem in session.problems:
        err.write(f"warning: {session.path}: skipped {problem}\n")
    engine: Engine | None = None
    try:
        if options.no_fold:
            window: Engine | NativeWindow = native_window(session, provider, options, model_budget)
        else:
            engine = window = open_engine(session.state_directory, options, model_budget)
        tools = agent_tools(provider)
        config = agent_config(cwd, session.id, descriptor)
        agent = Agent(window, provider, tools, session, config)
        agent.resume()
        if isinstance(provider, ScriptedProvider):
            provider.attach(agent.queues)
        agent.subscribe(_printer(options, out, err))
        for text in messages[1:]:
            agent.steer(text)
        result = _run_until_done(agent, messages[0])
    finally:
        if engine is not None:
            engine.close()
        session.close()
    return _report(result, options, out, err)


def native_window(
    session: SessionFile, provider: Provider, options: HeadlessOptions, model_budget: int | None
) -> NativeWindow:
    """Pi's compaction over the session: it keeps the context under the serving budget (the
    model's window less the reserve), the same budget folding works to."""
    budget = options.budget if options.budget is not None else model_budget
    if budget is not None and budget_problem(budget, "--budget"):
        raise CommandError(str(budget_problem(budget, "--budget")))
    settings = CompactionSettings()
    serving = budget if budget is not None else EngineOptions().budget
    return NativeWindow(session, provider, serving + settings.reserve_tokens, settings)


def open_session(cwd: Path, options: HeadlessOptions) -> SessionFile:
    """The session to run in: ``--resume ID``, ``--continue`` (the newest of ``cwd``), or new.

    ``--continue`` with no session to continue is refused unless ``--yes`` says to start one.
    """
    try:
        if options.resume is not None:
            return find(options.resume, cwd, options.sessions_dir)
        if options.continue_session:
            latest = latest_for(cwd, options.sessions_dir)
            if latest is not None:
                return latest
            if not options.yes:
                raise CommandError(
                    f"no session to continue in {cwd}; run without --continue to start one, "
                    "or add --yes to start a new one"
                )
        return SessionFile.create(cwd, options.sessions_dir)
    except SessionError as error:
        raise CommandError(str(error)) from None


def _messages(options: HeadlessOptions, stdin: TextIO) -> list[str]:
    """The user messages to send: piped stdin first, then the prompt."""
    messages = []
    if not stdin.isatty():
        piped = stdin.read()
        if piped.strip():
            messages.append(piped)
    if options.prompt is not None:
        if not options.prompt.strip():
            raise CommandError("the prompt given to -p is empty")
        messages.append(options.prompt)
    if not messages:
        raise CommandError("nothing to send: give a prompt with -p or pipe text on stdin")
    return messages


def make_provider(options: HeadlessOptions) -> tuple[Provider, int | None]:
    """The provider, and the serving budget its model descriptor states (when known)."""
    provider, descriptor = provider_and_model(options)
    return provider, descriptor.serving_budget if descriptor is not None else None


def provider_and_model(options: HeadlessOptions) -> tuple[Provider, ModelDescriptor | None]:
    """The provider, and its model's descriptor (``None``: unknown, or the scripted
    provider, which has no prompt cache and no window of its own)."""
    if options.provider == "scripted" or options.script is not None:
        return _scripted(options), None
    from pifold_agent.providers.models import ModelsFileError
    from pifold_agent.providers.resolve import (
        MissingApiKey,
        ProviderChoiceError,
        choose_provider,
        resolve_provider,
    )

    try:
        _, _, descriptor = choose_provider(options.provider, options.model, options.base_url)
        provider = resolve_provider(
            options.provider, options.model, options.base_url, options.api_key_env
        )
    except MissingApiKey as error:
        if options.base_url is None and options.api_key_env is None:
            raise CommandError(NO_KEY_HELP) from None
        raise CommandError(str(error)) from None
    except (ProviderChoiceError, ModelsFileError) as error:
        raise CommandError(str(error)) from None
    return provider, descriptor


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


def _scripted(options: HeadlessOptions) -> Provider:
    from pifold_agent.importers import TraceFormatError
    from pifold_agent.providers.scripted import ScriptError, load_script
    from pifold_core.tokens import TiktokenCounter

    if options.script is None:
        raise CommandError("--provider scripted needs --script FILE (a script or a trace)")
    try:
        script = load_script(options.script)
    except (ScriptError, TraceFormatError) as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot read {options.script}: {error.strerror or error}") from None
    return ScriptedProvider(script, TiktokenCounter())


def open_engine(
    state_dir: Path,
    options: HeadlessOptions,
    descriptor_budget: int | None,
    settings_file: bool = True,
) -> Engine:
    """The session's engine. A new session starts from the model's budget under the settings
    file; a reopened one keeps its logged options under the settings file. ``--budget`` wins.
    Without ``settings_file`` the file is not read (the app, when the file is refused)."""
    if options.budget is not None and budget_problem(options.budget, "--budget"):
        raise CommandError(str(budget_problem(options.budget, "--budget")))
    base = EngineOptions() if descriptor_budget is None else EngineOptions(budget=descriptor_budget)
    try:
        fresh = _with_budget(
            SettingsFile(base=base).load() if settings_file else base, options.budget
        )
        engine = Engine.open(state_dir, fresh)
    except SettingsError as error:
        raise CommandError(str(error)) from None
    except (OSError, ValueError, StoreError) as error:
        # A second writer (SessionLocked), a damaged log or store: say which, run nothing.
        raise CommandError(f"cannot open the session's engine state {state_dir}: {error}") from None
    try:
        if settings_file:
            engine.apply_options(
                _with_budget(SettingsFile(base=engine.options).load(), options.budget)
            )
    except SettingsError as error:
        engine.close()
        raise CommandError(str(error)) from None
    return engine


def _with_budget(options: EngineOptions, budget: int | None) -> EngineOptions:
    return options if budget is None else replace(options, budget=budget)


def agent_tools(provider: Provider) -> list[Tool]:
    """The built-in tools, or a recorded script's answers to its own calls."""
    if isinstance(provider, ScriptedProvider) and provider.script.tools == "recorded":
        return list(provider.recorded_tools())
    return builtin_tools()


def _printer(options: HeadlessOptions, out: TextIO, err: TextIO) -> Callable[[AgentEvent], None]:
    """Every event as JSON on stdout with ``--json``; otherwise stdout keeps only the final
    answer and stderr says why the run is waiting (a retry) or what the context did."""

    def show(event: AgentEvent) -> None:
        if options.as_json:
            out.write(json.dumps(event_json(event), ensure_ascii=False) + "\n")
            out.flush()
        elif isinstance(event, RetryWait):
            err.write(
                f"retrying in {event.delay_s:.1f} s (attempt {event.attempt}): {event.error}\n"
            )
        elif isinstance(event, CommitDone):
            err.write(
                f"folded: commit {event.number} ({event.cause}), {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens\n"
            )
        elif isinstance(event, CompactionDone):
            err.write(
                f"compacted ({event.reason}): {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens\n"
            )

    return show


def _run_until_done(agent: Agent, prompt: str) -> RunResult | None:
    """Run the prompt; Ctrl-C or SIGTERM aborts it cleanly. ``None`` means aborted."""

    async def main() -> RunResult | None:
        task = asyncio.ensure_future(agent.run(prompt))
        loop = asyncio.get_running_loop()
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signal_number, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            return None
        finally:
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signal_number)

    return asyncio.run(main())


def _report(result: RunResult | None, options: HeadlessOptions, out: TextIO, err: TextIO) -> int:
    if result is None:
        err.write("aborted: the run was interrupted; the session keeps what happened\n")
        return 1
    if result.outcome != "stop":
        err.write(f"error: {result.error or 'the run failed'}\n")
        return 1
    if not options.as_json:
        out.write(result.final_text.rstrip("\n") + "\n")
    return 0


def main_stdio(options: HeadlessOptions) -> int:
    """:func:`run_headless` on the process's own streams."""
    return run_headless(options, sys.stdin, sys.stdout, sys.stderr)


__all__ = [
    "NO_KEY_HELP",
    "CommandError",
    "HeadlessOptions",
    "agent_config",
    "agent_tools",
    "main_stdio",
    "make_provider",
    "native_window",
    "open_engine",
    "open_session",
    "provider_and_model",
    "run_headless",
]
