"""Choosing the adapter for a provider, a model and a base URL, and finding its API key.

The key is read from the environment only (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, or
the variable the user names for a compatible server) and handed to the SDK client; it is
never written anywhere. A compatible server on the user's machine often needs no key, so
with a base URL and no named variable a missing key is not an error.

Which adapter serves which provider, its key, its default model and how it is chosen are the
provider table's (:mod:`~pifold_agent.providers.registry`); nothing here names a provider.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import cast

from pifold_agent.providers.base import Provider
from pifold_agent.providers.base_url import BaseUrlError, checked_base_url
from pifold_agent.providers.models import ModelDescriptor, load_models
from pifold_agent.providers.registry import (
    PROVIDER_OF,
    PROVIDER_TABLE,
    PROVIDERS,
    ProviderName,
    automatic_provider,
    base_url_provider,
)

KEY_VARIABLES: dict[ProviderName, str] = {
    entry.name: entry.key_variable for entry in PROVIDER_TABLE
}
"""The variable each provider's key is read from."""

ADAPTERS: dict[ProviderName, tuple[str, str]] = {
    entry.name: entry.adapter for entry in PROVIDER_TABLE
}
"""Each adapter's module and class. They are imported only when chosen: the SDKs take
seconds to import, which a refusal (no key, a bad option) or another command never needs,
and they come with the ``agent`` extra, which a host embedding the bar does not install."""

SDK_PACKAGES = frozenset({"anthropic", "openai", "httpx", "httpx2"})
"""The packages of the ``agent`` extra."""

LOCAL_SERVER_KEY = "not-needed"
"""Sent to a compatible server that takes no key (the SDK insists on one)."""


class ProviderChoiceError(ValueError):
    """The provider or model asked for cannot be served; the message says why."""


class MissingApiKey(ProviderChoiceError):
    """No API key in the environment; :attr:`variable` names the one to set."""

    def __init__(self, provider: str, variable: str) -> None:
        super().__init__(
            f"no API key for {provider}: set {variable} in the environment "
            f"(for example: export {variable}=...)"
        )
        self.provider = provider
        self.variable = variable


def choose_provider(
    provider: str | None, model: str | None, base_url: str | None
) -> tuple[ProviderName, str, ModelDescriptor | None]:
    """The adapter name, the model id and its descriptor (``None`` when unknown)."""
    if base_url is not None:
        try:
            checked_base_url(base_url)
        except BaseUrlError as error:
            raise ProviderChoiceError(str(error)) from None
    table = load_models()
    if provider is not None and provider not in PROVIDERS:
        raise ProviderChoiceError(f"unknown provider {provider!r}; choose one of {list(PROVIDERS)}")
    descriptor = table.get(model) if model is not None else None
    if provider is None:
        if descriptor is not None and base_url is None:
            provider = descriptor.provider
        elif base_url is not None:
            provider = base_url_provider().name
        elif model is not None:
            raise ProviderChoiceError(
                f"model {model!r} is not in the model table: name --provider, or add it to "
                "the models file"
            )
        else:
            provider = automatic_provider(os.environ).name
    chosen = model or PROVIDER_OF[provider].default_model
    return provider, chosen, table.get(chosen)


def resolve_provider(
    provider: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    timeout_s: float | None = None,
    text_calls: bool = True,
) -> Provider:
    """The adapter to send requests with, its key read from the environment; ``timeout_s``
    (``None``: the SDK's default) is how long a request may wait for its next byte.

    Raises:
        MissingApiKey: the key's variable is unset or empty (naming the variable).
        ProviderChoiceError: an unknown provider, or a model no table names without one.
        ModelsFileError: the user's models file is invalid.
    """
    name, chosen, descriptor = choose_provider(provider, model, base_url)
    entry = PROVIDER_OF[name]
    variable = api_key_env or entry.key_variable
    key = os.environ.get(variable, "")
    if not key:
        if entry.serves_base_url and base_url is not None and api_key_env is None:
            key = LOCAL_SERVER_KEY
        else:
            raise MissingApiKey(name, variable)
    adapter = adapter_class(name)
    reservation = descriptor.output_reservation if descriptor else None
    extra: dict[str, float | int | bool] = {} if timeout_s is None else {"timeout_s": timeout_s}
    if name == "openai-chat":
        extra["text_calls"] = text_calls
    if entry.caps_output and reservation:
        extra["max_output_tokens"] = reservation
    return adapter(chosen, key, base_url, **extra)


def adapter_class(name: ProviderName) -> Callable[..., Provider]:
    """The adapter class of ``name``, imported now.

    Raises:
        ProviderChoiceError: its SDK is not installed (pifold without its ``agent`` extra);
            the message says how to install it.
    """
    module_name, class_name = PROVIDER_OF[name].adapter
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in SDK_PACKAGES:
            raise
        raise ProviderChoiceError(
            f"the {name} provider talks through the {error.name} SDK, which is not installed: "
            "install pifold with its agent extra (pip install 'pifold[agent]', or "
            "pipx install 'pifold[agent]')"
        ) from None
    return cast(Callable[..., Provider], getattr(module, class_name))


__all__ = [
    "ADAPTERS",
    "KEY_VARIABLES",
    "MissingApiKey",
    "ProviderChoiceError",
    "adapter_class",
    "choose_provider",
    "resolve_provider",
]
