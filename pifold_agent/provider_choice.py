"""Which provider a run talks to, from its command line: an SDK adapter or the scripted one.

Shared by every host that opens a session: the headless run (:mod:`pifold_cli.run_command`)
and the terminal app (:mod:`pifold_tui.app.session_setup`, :mod:`pifold_tui.app.launch`).
Every refusal (no key, an unknown provider or model, a refused models file, a bad script) is
a :class:`~pifold_agent.run_input.CommandError` naming what was wrong, before anything runs.
The SDK adapters are imported only once one is chosen, so a run without a key answers at
once.
"""

from __future__ import annotations

import os

from pifold_agent.providers.base import Provider
from pifold_agent.providers.models import ModelDescriptor
from pifold_agent.providers.registry import key_help_lines
from pifold_agent.run_input import CommandError, HeadlessOptions
from pifold_agent.scripted.provider import ScriptedProvider

NO_KEY_HELP = (
    "pifold -p needs a model to talk to. Set an API key in the environment, for example\n"
    f"{key_help_lines()}"
    "or point --base-url at a compatible server (Ollama, vLLM, llama.cpp, LM Studio), e.g.\n"
    "  pifold -p 'hello' --base-url http://127.0.0.1:11434/v1 --model qwen2.5-coder\n"
    "Keys are read from the environment only and never written to any file."
)


def make_provider(options: HeadlessOptions) -> tuple[Provider, int | None]:
    """The provider, and the serving budget its model descriptor states (when known)."""
    provider, descriptor = provider_and_model(options)
    return provider, descriptor.serving_budget if descriptor is not None else None


def provider_and_model(options: HeadlessOptions) -> tuple[Provider, ModelDescriptor | None]:
    """The provider, and its model's descriptor (``None``: unknown, or the scripted
    provider, which has no prompt cache and no window of its own)."""
    if options.provider == "scripted" or options.script is not None:
        return _scripted(options), None
    from pifold_agent.providers.local_window import (
        PLACEHOLDER_ID,
        needs_server_window,
        server_descriptor,
    )
    from pifold_agent.providers.models import ModelsFileError
    from pifold_agent.providers.request_timeout import RequestTimeoutError, request_timeout_s
    from pifold_agent.providers.resolve import (
        MissingApiKey,
        ProviderChoiceError,
        choose_provider,
        resolve_provider,
    )

    try:
        _, _, descriptor = choose_provider(options.provider, options.model, options.base_url)
        timeout = request_timeout_s(options.timeout_s, os.environ, options.base_url)
        provider = resolve_provider(
            options.provider,
            options.model,
            options.base_url,
            options.api_key_env,
            timeout,
            options.text_calls,
        )
    except MissingApiKey as error:
        if options.base_url is None and options.api_key_env is None:
            raise CommandError(NO_KEY_HELP) from None
        raise CommandError(str(error)) from None
    except (ProviderChoiceError, ModelsFileError, RequestTimeoutError) as error:
        raise CommandError(str(error)) from None
    if options.base_url is not None and needs_server_window(descriptor):
        chosen = options.model or PLACEHOLDER_ID
        descriptor = server_descriptor(options.base_url, chosen)
    return provider, descriptor


def _scripted(options: HeadlessOptions) -> Provider:
    from pifold_agent.importers import TraceFormatError
    from pifold_agent.scripted.provider import ScriptError, load_script
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


__all__ = ["NO_KEY_HELP", "make_provider", "provider_and_model"]
