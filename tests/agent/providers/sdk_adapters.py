"""Each real adapter pointed at the local server, and a sound final answer in its format."""

from __future__ import annotations

from pifold_agent.providers.anthropic_messages import AnthropicMessages
from pifold_agent.providers.base import Provider
from pifold_agent.providers.openai_chat import OpenAIChat
from pifold_agent.providers.openai_responses import OpenAIResponses
from tests.agent.providers.local_server import Reply
from tests.agent.providers.scripted_sse import Turn, anthropic_turn, chat_turn, responses_turn

PROVIDERS = ("anthropic", "openai", "openai-chat")
"""The three SDK adapters: Anthropic Messages, OpenAI Responses, Chat Completions."""


def adapter(provider: str, base_url: str) -> Provider:
    """The real adapter for ``provider``, talking to the local server at ``base_url``."""
    if provider == "anthropic":
        return AnthropicMessages("claude-sonnet-4-5", "test-key", base_url)
    if provider == "openai":
        return OpenAIResponses("gpt-5.4", "test-key", f"{base_url}/v1")
    return OpenAIChat("qwen3-coder:30b", "not-needed", f"{base_url}/v1")


def sound_reply(provider: str, text: str) -> Reply:
    """A plain, well-formed final answer in ``provider``'s format."""
    if provider == "anthropic":
        return Reply(body=anthropic_turn(Turn(text), 900, "m"))
    if provider == "openai":
        return Reply(body=responses_turn(Turn(text), 900, "m", 1))
    return Reply(body=chat_turn(Turn(text), 900, "m"))


__all__ = ["PROVIDERS", "adapter", "sound_reply"]
