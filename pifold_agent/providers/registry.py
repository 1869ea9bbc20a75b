"""Every provider, described once: its adapter, its key, its models, its choices.

The model table (:mod:`~pifold_agent.providers.models`), the choice of adapter
(:mod:`~pifold_agent.providers.resolve`), the app's check for a key before its first frame
(``pifold_tui.app.launch``), bash's environment without secrets and every message saying
which key to set read this table; nothing else names a provider. It imports nothing but the
standard library, so any of them may read it without loading an SDK: an adapter's module
(and its SDK) is imported only once a provider is chosen (:func:`adapter_class` in
:mod:`~pifold_agent.providers.resolve`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ProviderName = str
"""A provider's name: one of :data:`PROVIDERS`."""

Prices = tuple[float, float, float, float]
"""$ per million tokens: uncached input, output, cache read, cache write."""


@dataclass(frozen=True, slots=True)
class ModelRow:
    """One model a provider serves, as the built-in model table states it."""

    id: str
    """The model id requests are sent with."""
    context_window: int
    """Tokens the model accepts, prompt and output together."""
    output_reservation: int
    """Tokens kept for the answer: the most a request asks for."""
    prices: Prices = (0.0, 0.0, 0.0, 0.0)
    """What its tokens cost (none known: zero)."""


@dataclass(frozen=True, slots=True)
class ProviderEntry:
    """One provider."""

    name: ProviderName
    """What ``--provider`` and the models file call it."""
    adapter: tuple[str, str]
    """The adapter's module and class, imported only when the provider is chosen."""
    key_variable: str
    """The environment variable its API key is read from (unless ``--api-key-env`` names
    another)."""
    default_model: str
    """The model it uses when none is named."""
    models: tuple[ModelRow, ...] = ()
    """The models it serves in the built-in table (prices from the dated price file)."""
    described: str = ""
    """What ``--provider``'s help adds after its name (``(a compatible server)``)."""
    cache_lifetime_s: int = 0
    """How long an idle prompt-cache entry of its models lives; 0 when none is known."""
    automatic: bool = False
    """Whether it is chosen when nothing names a provider, a model or a base URL and its key
    is set (in table order); the last automatic one is chosen when no key is set at all."""
    key_hint: str = ""
    """What the help says after an automatic provider's key variable."""
    serves_base_url: bool = False
    """Whether a bare ``--base-url`` (no provider, no known model) chooses it; a server
    there may take no key (without ``--api-key-env``, a missing key is no error)."""
    caps_output: bool = False
    """Whether each request states the model's output reservation as its output limit."""


PROVIDER_TABLE: tuple[ProviderEntry, ...] = (
    ProviderEntry(
        "anthropic",
        ("pifold_agent.providers.anthropic_messages", "AnthropicMessages"),
        "ANTHROPIC_API_KEY",
        "claude-sonnet-4-5",
        # 200,000-token windows; output limits of 32,000 to 64,000, reserved at Pi's 32,000.
        models=(
            ModelRow("claude-opus-4-5", 200_000, 32_000, (5.0, 25.0, 0.5, 6.25)),
            ModelRow("claude-sonnet-4-5", 200_000, 32_000, (3.0, 15.0, 0.3, 3.75)),
            ModelRow("claude-haiku-4-5", 200_000, 32_000, (1.0, 5.0, 0.1, 1.25)),
            ModelRow("claude-opus-4-1", 200_000, 32_000, (15.0, 75.0, 1.5, 18.75)),
        ),
        # Anthropic's default cache entry lives five minutes, refreshed on every hit.
        cache_lifetime_s=300,
        automatic=True,
        key_hint="Anthropic, the default when it is set",
        caps_output=True,
    ),
    ProviderEntry(
        "openai",
        ("pifold_agent.providers.openai_responses", "OpenAIResponses"),
        "OPENAI_API_KEY",
        "gpt-5.4",
        models=(
            # GPT-5.4 and 5.5 are billed at a higher tier above 272,000 prompt tokens: the
            # window is held at the standard tier, as pi-fold's default window of 272,000 is.
            ModelRow("gpt-5.5", 272_000, 32_000, (5.0, 30.0, 0.5, 5.0)),
            ModelRow("gpt-5.4", 272_000, 32_000, (2.5, 15.0, 0.25, 2.5)),
            ModelRow("gpt-5.4-mini", 272_000, 32_000, (0.75, 4.5, 0.075, 0.75)),
            ModelRow("gpt-5.1", 400_000, 32_000, (1.25, 10.0, 0.125, 1.25)),
            ModelRow("gpt-5", 400_000, 32_000, (1.25, 10.0, 0.125, 1.25)),
            ModelRow("gpt-4.1", 1_047_576, 32_768, (2.0, 8.0, 0.5, 2.0)),
            # The o-series is not in the price file: OpenAI's list prices since mid-2025.
            ModelRow("o3", 200_000, 32_000, (2.0, 8.0, 0.5, 2.0)),
            ModelRow("o4-mini", 200_000, 32_000, (1.1, 4.4, 0.275, 1.1)),
        ),
        # OpenAI's in-memory cache entries live five to ten minutes idle (the upper end).
        cache_lifetime_s=600,
        automatic=True,
        key_hint="with --provider openai",
    ),
    ProviderEntry(
        "openai-chat",
        ("pifold_agent.providers.openai_chat", "OpenAIChat"),
        "OPENAI_API_KEY",
        "local",
        # Any model behind --base-url that the table does not know: Pi's defaults.
        models=(ModelRow("local", 128_000, 16_384),),
        described="(a compatible server)",
        serves_base_url=True,
    ),
)
"""Every provider, the automatic ones in the order they are tried."""

PROVIDER_OF: dict[ProviderName, ProviderEntry] = {entry.name: entry for entry in PROVIDER_TABLE}
"""Each provider by name."""

PROVIDERS: tuple[ProviderName, ...] = tuple(entry.name for entry in PROVIDER_TABLE)
"""Every provider's name."""

AUTOMATIC_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(entry.key_variable for entry in PROVIDER_TABLE if entry.automatic)
)
"""The key variables that choose a provider on their own, in the order they are tried."""

KEY_VARIABLES: tuple[str, ...] = tuple(
    dict.fromkeys(entry.key_variable for entry in PROVIDER_TABLE)
)
"""Every provider's key variable, once each."""


def base_url_provider() -> ProviderEntry:
    """The provider a bare ``--base-url`` chooses."""
    return next(entry for entry in PROVIDER_TABLE if entry.serves_base_url)


def automatic_provider(environ: Mapping[str, str]) -> ProviderEntry:
    """The provider chosen when nothing is named: the first automatic one whose key is set
    in ``environ``, else the last automatic one (whose missing key is then reported)."""
    automatic = [entry for entry in PROVIDER_TABLE if entry.automatic]
    chosen = (entry for entry in automatic if environ.get(entry.key_variable))
    return next(chosen, automatic[-1])


def keys_of(provider: str | None) -> tuple[str, ...]:
    """The variables that hold a key for ``provider``; for ``None`` (none named), every
    automatic provider's. An unknown name has none."""
    if provider is None:
        return AUTOMATIC_KEYS
    entry = PROVIDER_OF.get(provider)
    return (entry.key_variable,) if entry is not None else ()


def key_choice(then: str = "") -> str:
    """The automatic keys as prose: ``A (or B)``, or ``A (or B<then>)``."""
    first, *others = AUTOMATIC_KEYS
    alternatives = ", or ".join(others) + then
    return f"{first} (or {alternatives})" if alternatives else first


def key_help_lines() -> str:
    """One ``export`` line per automatic provider, as the help shows them."""
    exports = (
        f"  export {f'{entry.key_variable}=...':<24}({entry.key_hint})\n"
        for entry in PROVIDER_TABLE
        if entry.automatic
    )
    return "".join(exports)


def provider_help(*others: str) -> str:
    """``--provider``'s help: every provider (with what it is), then ``others``."""
    names = [f"{entry.name} {entry.described}".rstrip() for entry in PROVIDER_TABLE]
    return f"{', '.join(names)} or {' or '.join(others)}."


__all__ = [
    "AUTOMATIC_KEYS",
    "KEY_VARIABLES",
    "PROVIDERS",
    "PROVIDER_OF",
    "PROVIDER_TABLE",
    "ModelRow",
    "Prices",
    "ProviderEntry",
    "ProviderName",
    "automatic_provider",
    "base_url_provider",
    "key_choice",
    "key_help_lines",
    "keys_of",
    "provider_help",
]
