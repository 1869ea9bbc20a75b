"""``pifold`` with no command: the app, on a live session or on the no-key demo.

With a model configured (an API key in the environment, ``--base-url``, or the scripted
provider) it opens a new session in the current directory; ``--continue``, ``--resume ID``,
``--provider``, ``--model``, ``--base-url`` and ``--yes`` apply as for ``pifold -p`` (and
``--yes`` also skips the approval question). With no key, ``--resume`` and ``--continue``
open that session to look at (:mod:`pifold_tui.app.no_model`), a named provider or model is
refused saying which key to set, and anything else opens the demo. Deciding which needs only
the environment: no SDK is imported before the first frame (only a refusal, which opens no
app, loads the model table to say what is wrong).

Every refusal is said on stderr (the missing key with how to set one) and exits 2; the
app's own exit code otherwise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from textual.widget import Widget

from pifold_agent.providers.registry import AUTOMATIC_KEYS, key_help_lines, keys_of
from pifold_tui.app.app import Launch, Loader, PifoldApp

if TYPE_CHECKING:
    from pifold_agent.loop.approval import Approver
    from pifold_agent.run_input import HeadlessOptions
    from pifold_tui.app.session_setup import AppSession


def model_configured(options: HeadlessOptions, environ: Mapping[str, str]) -> bool:
    """Whether the options and the environment name a model to talk to."""
    if options.provider == "scripted" or options.script is not None:
        return True
    if options.base_url is not None:
        return True
    if options.api_key_env is not None:
        return bool(environ.get(options.api_key_env))
    variables = keys_of(options.provider)
    return any(environ.get(variable) for variable in variables)


def conversation_for(app: PifoldApp) -> Widget:
    """The app's conversation over the open session's transcript."""
    from pifold_tui.app.conversation import Conversation

    assert app.session is not None  # made once the session is open
    return Conversation(app.session.recorder, app.session.engine)


def prompt_for(app: PifoldApp) -> Widget:
    """The app's prompt, completing from the app's registry."""
    from pifold_tui.app.prompt import PromptArea

    return PromptArea(app.registry, app.cwd)


def open_prompt_project(app: PifoldApp, session: AppSession) -> None:
    """Point the prompt at the open session: its directory's paths and history, and with no
    model (the demo, or a session opened with no key) the line saying how to connect one."""
    from pifold_tui.app.no_model import prompt_line_of
    from pifold_tui.app.prompt import (
        DEMO_PLACEHOLDER,
        NO_MODEL_PLACEHOLDER,
        PromptArea,
        PromptHistory,
        history_file_for,
    )

    if session.demo:
        history = PromptHistory(None)  # the demo writes nothing under ~/.pifold
    else:
        history = PromptHistory(history_file_for(session.cwd, session.options.sessions_dir))
    placeholder = DEMO_PLACEHOLDER if session.demo else NO_MODEL_PLACEHOLDER
    for prompt in app.query(PromptArea):
        prompt.open_project(session.cwd, history, prompt_line_of(session), placeholder)


def live_loader(options: Callable[[], HeadlessOptions]) -> Loader:
    """Opens the session the options name (the app's approver unless ``--yes``)."""

    def load(approver: Approver) -> Launch:
        from pifold_tui.app.session_setup import open_live

        chosen = options()
        return Launch(open_live(chosen, None if chosen.yes else approver))

    return load


def demo_loader(cwd: Path) -> Loader:
    """Opens the demo in ``cwd`` (nothing there is touched)."""

    def load(approver: Approver) -> Launch:
        from pifold_tui.app.demo import open_demo

        session, gate, opening = open_demo(cwd.resolve())
        return Launch(session, gate, opening)

    return load


def no_model_loader(options: HeadlessOptions) -> Loader:
    """Opens the session ``--resume`` or ``--continue`` names with no model: to look at."""

    def load(approver: Approver) -> Launch:
        from pifold_tui.app.no_model import open_without_model

        return Launch(open_without_model(options))

    return load


def names_a_model(options: HeadlessOptions) -> bool:
    """Whether the options ask for a particular model or provider (which needs its key)."""
    return (
        options.provider is not None or options.model is not None or options.api_key_env is not None
    )


def no_key_refusal(options: HeadlessOptions) -> str:
    """Why the app cannot open what ``options`` ask for with no key: the option table's own
    refusal when it has one (an unknown model), otherwise how to set a key."""
    from pifold_agent.provider_choice import NO_KEY_HELP, make_provider
    from pifold_agent.run_input import CommandError

    try:
        make_provider(options)
    except CommandError as error:
        if str(error) != NO_KEY_HELP:  # that one is worded for pifold -p
            return str(error)
    variables = keys_of(options.provider) or AUTOMATIC_KEYS
    return APP_NO_KEY_HELP.format(variables=" or ".join(variables))


APP_NO_KEY_HELP = (
    "this needs a model to talk to, and {variables} is not set. Set a key in the "
    "environment, for example\n"
    f"{key_help_lines()}"
    "or point --base-url at a compatible server (Ollama, vLLM, llama.cpp, LM Studio).\n"
    "pifold with no option opens the demo, which needs no key; pifold --resume ID or "
    "--continue opens a session to look at."
)
"""What the app says when options name a model and no key is set."""


def choose_loader(options: HeadlessOptions, environ: Mapping[str, str]) -> Loader | str:
    """What the app opens for ``options``: a live session when a model is configured; with
    no key, the session ``--resume``/``--continue`` names (to look at) or the demo; or
    why not (the options name a model whose key is missing)."""
    if model_configured(options, environ):
        return live_loader(lambda: options)
    if names_a_model(options):
        return no_key_refusal(options)
    if options.continue_session or options.resume is not None:
        return no_model_loader(options)
    return demo_loader(options.cwd)


def run_app(options: HeadlessOptions, stderr: TextIO | None = None) -> int:
    """Open the app with the command line's options; returns the exit code (a refusal is
    already said on stderr)."""
    err = sys.stderr if stderr is None else stderr
    loader = choose_loader(options, os.environ)
    if isinstance(loader, str):
        err.write(f"error: {loader}\n")
        return 2
    return _run(loader, options.cwd, err)


def run_plain(stderr: TextIO | None = None) -> int:
    """``pifold`` with no arguments at all: what :func:`run_app` does with the defaults, with
    nothing imported before the first frame but the app and its first widgets (the options
    and the agent load in the worker that opens the session)."""
    err = sys.stderr if stderr is None else stderr
    cwd = Path.cwd()

    def defaults() -> HeadlessOptions:
        from pifold_agent.run_input import HeadlessOptions

        return HeadlessOptions(prompt=None, cwd=cwd)

    live = any(os.environ.get(variable) for variable in AUTOMATIC_KEYS)
    return _run(live_loader(defaults) if live else demo_loader(cwd), cwd, err)


def _run(loader: Loader, cwd: Path, err: TextIO) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        err.write(
            "error: pifold needs a terminal to open the app; run one prompt headless with "
            'pifold -p "prompt", or the demo with pifold demo\n'
        )
        return 2
    app = PifoldApp(loader, conversation_for, prompt_for, cwd=cwd, on_session=open_prompt_project)
    code = app.run()
    if app.failure is not None:
        err.write(f"error: {app.failure}\n")
        return 2
    return code if isinstance(code, int) else 0


__all__ = [
    "APP_NO_KEY_HELP",
    "choose_loader",
    "model_configured",
    "names_a_model",
    "no_key_refusal",
    "run_app",
    "run_plain",
]
