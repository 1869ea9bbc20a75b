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


def test_the_first_three_read_as_before() -> None:
    assert PROVIDERS[:3] == ("anthropic", "openai", "openai-chat")
    assert {name: DEFAULT_MODELS[name] for name in PROVIDERS[:3]} == {
        "anthropic": "claude-sonnet-4-5",
        "openai": "gpt-5.4",
        "openai-chat": "local",
    }
    assert KEY_VARIABLES[:2] == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    assert AUTOMATIC_KEYS == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    assert base_url_provider().name == "openai-chat"
    assert [PROVIDER_OF[name].caps_output for name in PROVIDERS[:3]] == [True, False, False]
    assert [PROVIDER_OF[name].cache_lifetime_s for name in PROVIDERS[:3]] == [300, 600, 0]


def test_every_rule_of_the_table_holds() -> None:
    assert len(set(PROVIDERS)) == len(PROVIDERS)
    assert [entry.serves_base_url for entry in PROVIDER_TABLE].count(True) == 1
    assert PROVIDER_KEY_VARIABLES == KEY_VARIABLES  # bash hides every provider's key
    models = [row.id for entry in PROVIDER_TABLE for row in entry.models]
    assert len(set(models)) == len(models) == len(BUILT_IN)
    for entry in PROVIDER_TABLE:
        assert entry.automatic == bool(entry.key_hint), entry.name


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
    help_line = provider_help("scripted")
    assert help_line.startswith("anthropic, openai, openai-chat (a compatible server)")
    assert help_line.endswith(" or scripted.")
