"""bash runs without the provider keys and other secrets; an allowlist passes one on."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.tools import BashTool, builtin_tools
from pifold_agent.tools.bash.environment import Redactor, command_environment, is_secret_name
from tests.agent.tools.helpers import run

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-0123456789abcdef",
    "OPENAI_API_KEY": "sk-openai-0123456789abcdef",
    "LOCAL_LLM": "local-server-key-0123456789",  # innocent name, named by --api-key-env
    "GITHUB_TOKEN": "ghp_0123456789abcdef",
    "GH_TOKEN": "gho_0123456789abcdef",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789",
    "AWS_SESSION_TOKEN": "aws-session-0123456789",
    "db_password": "hunter2hunter2",
    "SERVICE_CREDENTIALS": "credentials-0123456789",
    "MY_CLIENT_SECRET_VALUE": "client-secret-0123456789",
}
KEPT = {"TOKENIZERS_PARALLELISM": "false", "HOME_PAGE": "kept-value-123456"}


@pytest.fixture
def secrets_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**SECRETS, **KEPT}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PIFOLD_BASH_PASS_ENV", raising=False)


@pytest.mark.usefixtures("secrets_set")
async def test_env_shows_no_key_and_no_secret(tmp_path: Path) -> None:
    bash = next(tool for tool in builtin_tools(key_variables=("LOCAL_LLM",)) if tool.name == "bash")
    outcome = await run(bash, tmp_path, command="env")
    assert not outcome.is_error
    for name, value in SECRETS.items():
        assert name not in outcome.text and value not in outcome.text
    for name, value in KEPT.items():
        assert f"{name}={value}" in outcome.text


@pytest.mark.usefixtures("secrets_set")
async def test_the_allowlist_passes_a_variable_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIFOLD_BASH_PASS_ENV", " GITHUB_TOKEN , OPENAI_API_KEY")
    outcome = await run(BashTool(), tmp_path, command="echo $GITHUB_TOKEN; echo $OPENAI_API_KEY")
    assert outcome.text == f"{SECRETS['GITHUB_TOKEN']}\n{SECRETS['OPENAI_API_KEY']}"
    hidden = await run(BashTool(), tmp_path, command="echo [$ANTHROPIC_API_KEY]")
    assert hidden.text == "[]"


@pytest.mark.usefixtures("secrets_set")
async def test_a_key_read_from_elsewhere_is_removed_from_the_output(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"ANTHROPIC_API_KEY={SECRETS['ANTHROPIC_API_KEY']}\n")
    outcome = await run(BashTool(), tmp_path, command="cat .env")
    assert outcome.text == "ANTHROPIC_API_KEY=[ANTHROPIC_API_KEY removed]"


def test_secret_names() -> None:
    for name in (*SECRETS, "NPM_TOKEN", "api_key", "X_APIKEY", "SSH_PASSPHRASE", "TOKEN"):
        if name != "LOCAL_LLM":
            assert is_secret_name(name), name
    for name in ("PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEYBOARD", "PYTHONPATH", "LANG"):
        assert not is_secret_name(name), name
    environment = command_environment({"LOCAL_LLM": "x", "PATH": "/bin"}, ("LOCAL_LLM",))
    assert environment.variables == {"PATH": "/bin"} and environment.dropped == {"LOCAL_LLM": "x"}


def test_the_redactor_finds_a_secret_split_across_chunks() -> None:
    redactor = Redactor({"KEY": "abcdefghij"})
    data = b"before abcdefghij middle abcdefghij after"
    for cut in range(len(data) + 1):
        out = redactor.feed(data[:cut]) + redactor.feed(data[cut:]) + redactor.flush()
        assert out == b"before [KEY removed] middle [KEY removed] after", cut
