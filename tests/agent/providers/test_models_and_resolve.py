"""The model table, the user's models file, and choosing an adapter with its key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pifold_agent.providers.anthropic_messages import AnthropicMessages
from pifold_agent.providers.models import (
    BUILT_IN,
    TABLE_DATE,
    ModelsFileError,
    load_models,
    models_file,
)
from pifold_agent.providers.openai_chat import OpenAIChat
from pifold_agent.providers.openai_responses import OpenAIResponses
from pifold_agent.providers.resolve import (
    ADAPTERS,
    MissingApiKey,
    ProviderChoiceError,
    resolve_provider,
)

PRICES = (
    Path(__file__).parents[3] / "pifold_agent" / "pricing" / "data" / f"prices-{TABLE_DATE}.json"
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOCAL_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def write_models(document: object) -> Path:
    path = models_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_prices_are_the_dated_price_files() -> None:
    prices = json.loads(PRICES.read_text())["models"]
    for model, figures in prices.items():
        descriptor = BUILT_IN[model]
        assert (
            descriptor.input_per_million,
            descriptor.output_per_million,
            descriptor.cache_read_per_million,
            descriptor.cache_write_per_million,
        ) == (figures["input"], figures["output"], figures["cache_read"], figures["cache_write"])
        family = json.loads(PRICES.read_text())["families"][figures["family"]]
        assert descriptor.cache_lifetime_s == family["lifetime_seconds"]


def test_serving_budget_is_window_less_reservation() -> None:
    sonnet = BUILT_IN["claude-sonnet-4-5"]
    assert (sonnet.context_window, sonnet.output_reservation) == (200_000, 32_000)
    assert sonnet.serving_budget == 168_000
    assert BUILT_IN["local"].serving_budget == 128_000 - 16_384
    assert all(descriptor.serving_budget > 0 for descriptor in BUILT_IN.values())


def test_user_file_adds_and_overrides() -> None:
    write_models(
        {
            "models": {
                "qwen3-coder:30b": {
                    "provider": "openai-chat",
                    "context_window": 65_536,
                    "output_reservation": 8_192,
                },
                "claude-sonnet-4-5": {"context_window": 1_000_000},
            }
        }
    )
    table = load_models()
    assert table["qwen3-coder:30b"].serving_budget == 57_344
    assert table["qwen3-coder:30b"].input_per_million == 0.0
    overridden = table["claude-sonnet-4-5"]
    assert overridden.context_window == 1_000_000
    # Only what the file states changes.
    assert overridden.input_per_million == BUILT_IN["claude-sonnet-4-5"].input_per_million
    assert load_models(Path("/nonexistent/models.json")) == BUILT_IN


@pytest.mark.parametrize(
    ("document", "words"),
    [
        (
            {"models": {"m": {"provider": "openai-chat", "context_window": 10}}},
            "'output_reservation'",
        ),
        (
            {
                "models": {
                    "m": {"provider": "gemini", "context_window": 10, "output_reservation": 1}
                }
            },
            "provider 'gemini'",
        ),
        ({"models": {"gpt-5": {"context_window": -1}}}, "'context_window' must be a non-negative"),
        ({"models": {"gpt-5": {"output_reservation": 400_000}}}, "must be smaller"),
        ({"models": {"gpt-5": {"window": 3}}}, "unknown field 'window'"),
        ({"models": {"gpt-5": {"input_per_million": "cheap"}}}, "'input_per_million' must be"),
        ({"models": []}, '"models" must be an object'),
        ({"model": {}}, 'one key, "models"'),
    ],
)
def test_invalid_user_file_is_refused_whole(document: object, words: str) -> None:
    path = write_models(document)
    with pytest.raises(ModelsFileError) as raised:
        load_models()
    assert words in str(raised.value) and str(path) in str(raised.value)


def test_unparseable_user_file() -> None:
    path = models_file()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelsFileError, match="not valid JSON"):
        load_models()


def test_resolve_reads_the_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    chosen = resolve_provider(None, "claude-haiku-4-5", None, None)
    assert isinstance(chosen, AnthropicMessages)
    assert (chosen.name, chosen.model, chosen.max_output_tokens) == (
        "anthropic",
        "claude-haiku-4-5",
        32_000,
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert isinstance(resolve_provider(None, "gpt-5.4", None, None), OpenAIResponses)
    assert isinstance(resolve_provider("openai-chat", "gpt-4.1", None, None), OpenAIChat)
    # With no model named, an Anthropic key picks Anthropic's default model.
    assert resolve_provider(None, None, None, None).model == "claude-sonnet-4-5"


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(MissingApiKey) as raised:
        resolve_provider(None, "gpt-5.4", None, None)
    assert raised.value.variable == "OPENAI_API_KEY"
    assert "set OPENAI_API_KEY" in str(raised.value)
    with pytest.raises(MissingApiKey, match="set LOCAL_KEY"):
        resolve_provider("openai-chat", "llama3", "http://127.0.0.1:1/v1", "LOCAL_KEY")


def test_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = resolve_provider(None, "llama3.2", "http://127.0.0.1:11434/v1", None)
    assert isinstance(chosen, OpenAIChat) and chosen.model == "llama3.2"
    assert not chosen.openai_proper
    monkeypatch.setenv("LOCAL_KEY", "k")
    assert isinstance(
        resolve_provider("openai-chat", None, "http://127.0.0.1:8000/v1", "LOCAL_KEY"), OpenAIChat
    )


def test_bad_choices_are_named() -> None:
    with pytest.raises(ProviderChoiceError, match="unknown provider 'gemini'"):
        resolve_provider("gemini", None, None, None)
    with pytest.raises(ProviderChoiceError, match="'mystery-model' is not in the model table"):
        resolve_provider(None, "mystery-model", None, None)


@pytest.mark.parametrize(
    ("provider", "sdk"),
    [("anthropic", "anthropic"), ("openai", "openai"), ("openai-chat", "openai")],
)
def test_without_the_agent_extra_the_provider_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, provider: str, sdk: str
) -> None:
    # As if pifold were installed without [agent]: the SDK cannot be imported, and neither
    # can the adapter built on it.
    monkeypatch.setitem(sys.modules, sdk, None)
    module_name = ADAPTERS[provider][0]  # type: ignore[index]
    monkeypatch.delitem(sys.modules, module_name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ProviderChoiceError, match=r"pip install 'pifold\[agent\]'") as refused:
        resolve_provider(provider, None, None, None)
    assert f"the {sdk} SDK, which is not installed" in str(refused.value)


def test_a_refusal_imports_no_sdk(tmp_path: Path) -> None:
    # `pifold -p` without a key answered after importing both SDKs (4 s here, 0.6 for
    # --version): the adapters are imported only once one is chosen.
    program = (
        "import io, sys\n"
        "from pathlib import Path\n"
        "from pifold_agent.run_input import HeadlessOptions\n"
        "from pifold_cli.run_command import run_headless\n"
        "options, error = HeadlessOptions(prompt='hi', cwd=Path(sys.argv[1])), io.StringIO()\n"
        "code = run_headless(options, None, io.StringIO(), error)\n"
        "assert code == 2 and 'ANTHROPIC_API_KEY' in error.getvalue(), error.getvalue()\n"
        "print(sorted(name for name in ('anthropic', 'openai') if name in sys.modules))\n"
    )
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}
    }
    environment["PIFOLD_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, "-c", program, str(tmp_path)],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
