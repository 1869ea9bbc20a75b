"""A failed connection names the URL and the cause; a stopped local server is not retried.

Each adapter's real SDK is pointed at a port on 127.0.0.1 that nothing listens on (the
kernel refuses at once), and at the local server answering a bare 404.
"""

from __future__ import annotations

import socket

import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.base import ErrorClass, ProviderRequest
from pifold_agent.providers.base_url import BaseUrlError, checked_base_url
from pifold_agent.providers.connection import connection_failure
from pifold_agent.providers.resolve import ProviderChoiceError, choose_provider
from pifold_core.canonical import JsonValue
from tests.agent.providers.local_server import Reply, collect, done_of, serve
from tests.agent.providers.sdk_adapters import PROVIDERS, adapter


def closed_port() -> int:
    """A port on 127.0.0.1 with no listener (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def hello() -> ProviderRequest:
    message: dict[str, JsonValue] = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    return ProviderRequest(system="s", messages=[message], tools=())


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_refused_local_connection_is_named_and_not_retried(provider: str) -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    done = done_of(await collect(adapter(provider, base), hello()))
    assert done.stop_reason == "error" and done.error is not None
    assert done.error.kind is ErrorClass.FATAL  # the loop ends the run instead of waiting
    assert done.error.message.startswith(f"cannot connect to {base}/")
    assert done.error.message.endswith(
        ": connection refused (is the server running and listening there?)"
    )


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_bare_404_names_the_url_and_the_likely_mistake(provider: str) -> None:
    with serve([Reply(body=b"", status=404, content_type="text/plain")]) as server:
        done = done_of(await collect(adapter(provider, server.base_url), hello()))
        path = server.requests[0].path
    assert done.error is not None and done.error.kind is ErrorClass.FATAL
    assert done.error.message == (
        f"HTTP 404 from {server.base_url}{path} with no message "
        "(is --base-url right? OpenAI-compatible servers usually serve under /v1)"
    )


def sdk_failure(url: str, cause: BaseException) -> openai.APIConnectionError:
    """The SDK's error as it raises it: its words, the request, the cause chained below."""
    error = openai.APIConnectionError(request=httpx2.Request("POST", url))
    error.__cause__ = httpx2.ConnectError(str(cause))
    error.__cause__.__cause__ = cause
    return error


def test_an_unknown_host_ends_the_run_and_a_resolver_hiccup_is_retried() -> None:
    url = "http://no-such-host.invalid:8080/v1/chat/completions"
    unknown = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    failure = connection_failure(sdk_failure(url, unknown), "Connection error.")
    assert failure.kind is ErrorClass.FATAL
    assert failure.message == (
        f"cannot connect to {url}: host 'no-such-host.invalid' does not resolve "
        "(Name or service not known)"
    )
    hiccup = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    assert connection_failure(sdk_failure(url, hiccup), "x").kind is ErrorClass.TRANSIENT


def test_a_refusal_from_another_host_is_retried_and_other_causes_are_named() -> None:
    remote = "https://api.example.com/v1/messages"
    refused = ConnectionRefusedError(111, "Connect call failed")
    failure = connection_failure(sdk_failure(remote, refused), "Connection error.")
    assert failure.kind is ErrorClass.TRANSIENT
    assert failure.message == f"cannot connect to {remote}: connection refused"
    reset = ConnectionResetError(104, "Connection reset by peer")
    other = connection_failure(sdk_failure(remote, reset), "Connection error.")
    assert other.kind is ErrorClass.TRANSIENT
    assert other.message == (
        f"connection failed to {remote}: Connection error. ([Errno 104] Connection reset by peer)"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not-a-url", "has no scheme"),
        ("127.0.0.1:8080/v1", "has no scheme"),
        ("ftp://127.0.0.1/v1", "has the scheme 'ftp'"),
        ("http:///v1", "names no host"),
        ("http://127.0.0.1:99999/v1", "is not a valid URL"),
        ("http://127.0.0.1:abc/v1", "is not a valid URL"),
        ("http://127.0.0.1:0/v1", "has port 0"),
    ],
)
def test_a_base_url_that_names_no_server_is_refused_before_any_request(
    text: str, words: str
) -> None:
    with pytest.raises(BaseUrlError, match=words):
        checked_base_url(text)
    with pytest.raises(ProviderChoiceError, match="--base-url"):
        choose_provider(None, "some-local-model", text)


def test_good_base_urls_pass() -> None:
    for text in (
        "http://127.0.0.1:8080/v1",
        "https://openrouter.ai/api/v1",
        "http://localhost:11434/v1",
    ):
        assert checked_base_url(text) == text


@given(st.text(max_size=60))
def test_any_text_is_a_url_or_a_named_refusal(text: str) -> None:
    try:
        assert checked_base_url(text) == text.strip()
    except BaseUrlError as error:
        assert repr(text) in str(error)
