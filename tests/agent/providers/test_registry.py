"""The provider table: every provider described once, read without loading an SDK (issue
20: a provider was described in six places, the app's copy among them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pifold_agent.providers.models import BUILT_IN, DEFAULT_MODELS
from pifold_agent.providers.registry import (
    AUTOMATIC_KEYS,
    KEY_VARIABLES,
    PROVIDER_OF,
    PROVIDER_TABLE,
    PROVIDERS,
    automatic_provider,
    base_url_provider,
    key_choice,
    key_help_lines,
    keys_of,
    provider_help,
)
from pifold_agent.providers.resolve import adapter_class, choose_provider
from pifold_agent.tools.bash.environment import PROVIDER_KEY_VARIABLES


def test_the_table_reads_as_before() -> None:
    assert PROVIDERS == ("anthropic", "openai", "openai-chat")
    assert DEFAULT_MODELS == {
        "anthropic": "claude-sonnet-4-5",
        "openai": "gpt-5.4",
        "openai-chat": "local",
    }
    assert KEY_VARIABLES == PROVIDER_KEY_VARIABLES == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    assert AUTOMATIC_KEYS == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    assert base_url_provider().name == "openai-chat"
    assert [entry.name for entry in PROVIDER_TABLE if entry.caps_output] == ["anthropic"]


def test_each_provider_has_its_adapter_and_a_default_model_in_the_table() -> None:
    for entry in PROVIDER_TABLE:
        adapter = adapter_class(entry.name)
        assert adapter.__name__ == entry.adapter[1]
        built = adapter(entry.default_model, "key", None)
        assert (built.name, built.model) == (entry.name, entry.default_model)
        assert BUILT_IN[entry.default_model].provider == entry.name


def test_reading_the_table_imports_no_sdk() -> None:
    probe = (
        "import sys, pifold_agent.providers.registry, pifold_agent.providers.resolve; "
        "print(sorted(name for name in ('anthropic', 'openai') if name in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert loaded.strip() == "[]"


@pytest.mark.parametrize(
    ("environment", "chosen"),
    [
        ({"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, "anthropic"),
        ({"OPENAI_API_KEY": "o"}, "openai"),
        ({}, "openai"),  # the last automatic one: its missing key is what is reported
        ({"ANTHROPIC_API_KEY": ""}, "openai"),
    ],
)
def test_nothing_named_chooses_the_first_automatic_provider_with_a_key(
    environment: dict[str, str], chosen: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert automatic_provider(environment).name == chosen
    for variable in KEY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    name, model, _ = choose_provider(None, None, None)
    assert (name, model) == (chosen, PROVIDER_OF[chosen].default_model)


def test_the_keys_a_provider_needs() -> None:
    assert keys_of("openai-chat") == ("OPENAI_API_KEY",)
    assert keys_of(None) == AUTOMATIC_KEYS
    assert keys_of("scripted") == ()


def test_the_words_that_name_the_keys() -> None:
    assert key_choice() == "ANTHROPIC_API_KEY (or OPENAI_API_KEY)"
    assert key_choice(", or --base-url") == "ANTHROPIC_API_KEY (or OPENAI_API_KEY, or --base-url)"
    assert key_help_lines() == (
        "  export ANTHROPIC_API_KEY=...   (Anthropic, the default when it is set)\n"
        "  export OPENAI_API_KEY=...      (with --provider openai)\n"
    )
    assert provider_help("scripted") == (
        "anthropic, openai, openai-chat (a compatible server) or scripted."
    )
