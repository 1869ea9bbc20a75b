"""The serving window a ``--base-url`` server states about itself.

The model table knows hosted models; a local server's window is whatever it was started
with (llama.cpp's ``-c``, Ollama's ``OLLAMA_CONTEXT_LENGTH``, LM Studio's load setting), and
a budget guessed from a table (100,000 tokens) on a 32,768-token server only meets the
server's refusal. Each server states its window somewhere of its own; these are asked in
turn, each with a short timeout, and the first answer wins:

* vLLM: ``GET {base}/models``, the model's ``max_model_len``;
* llama.cpp: ``GET {root}/props``, ``default_generation_settings.n_ctx`` (one slot's window);
* LM Studio: ``GET {root}/api/v0/models/{model}``, ``loaded_context_length`` (else
  ``max_context_length``);
* Ollama: ``GET {root}/api/ps``, the loaded model's ``context_length``.

``{base}`` is the URL as given (``…/v1``), ``{root}`` the same without a trailing ``/v1``.
Nothing here raises: a server that answers none of them gives ``None``, and the caller says
so rather than assuming a window silently.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

PROBE_TIMEOUT_S = 1.5
"""How long one question waits; a refused connection answers at once."""

LARGEST_BODY_BYTES = 1024 * 1024
"""A listing larger than this is not read (a server's model list is a few kilobytes)."""


@dataclass(frozen=True, slots=True)
class ServerWindow:
    """A window a server stated, and where it said so."""

    tokens: int
    """The serving window in tokens, prompt and output together."""
    source: str
    """Where it came from, for the user: ``llama.cpp /props n_ctx``."""


def read_server_window(
    base_url: str, model: str, timeout_s: float = PROBE_TIMEOUT_S
) -> ServerWindow | None:
    """The window ``base_url``'s server states for ``model``; ``None`` when none does."""
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")

    def get(url: str) -> Any:
        return _get_json(url, timeout_s)

    probes: tuple[tuple[str, Callable[[], int | None]], ...] = (
        ("vLLM /v1/models max_model_len", lambda: _vllm(get(f"{base}/models"), model)),
        ("llama.cpp /props n_ctx", lambda: _llama_cpp(get(f"{root}/props"))),
        (
            "LM Studio /api/v0/models context length",
            lambda: _lm_studio(get(f"{root}/api/v0/models/{quote(model, safe='')}")),
        ),
        ("Ollama /api/ps context_length", lambda: _ollama(get(f"{root}/api/ps"), model)),
    )
    for source, probe in probes:
        tokens = probe()
        if tokens is not None:
            return ServerWindow(tokens, source)
    return None


def _get_json(url: str, timeout_s: float) -> Any:
    """The JSON ``url`` answers with, or ``None`` on any failure (status, network, body)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            body = response.read(LARGEST_BODY_BYTES + 1)
    except (OSError, ValueError, urllib.error.URLError):
        return None
    if len(body) > LARGEST_BODY_BYTES:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _window(value: object) -> int | None:
    """``value`` when it is a plausible window (a whole number of tokens, 256 to 100M)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != int(value) or not 256 <= value <= 100_000_000:
        return None
    return int(value)


def _entries(listing: object, key: str) -> list[Mapping[str, Any]]:
    items = listing.get(key) if isinstance(listing, Mapping) else None
    return [item for item in items if isinstance(item, Mapping)] if isinstance(items, list) else []


def _vllm(listing: object, model: str) -> int | None:
    for item in _entries(listing, "data"):
        if item.get("id") == model or item.get("root") == model:
            return _window(item.get("max_model_len"))
    return None


def _llama_cpp(props: object) -> int | None:
    if not isinstance(props, Mapping):
        return None
    settings = props.get("default_generation_settings")
    if isinstance(settings, Mapping) and _window(settings.get("n_ctx")) is not None:
        return _window(settings.get("n_ctx"))
    return _window(props.get("n_ctx"))


def _lm_studio(model_info: object) -> int | None:
    if not isinstance(model_info, Mapping):
        return None
    loaded = _window(model_info.get("loaded_context_length"))
    return loaded if loaded is not None else _window(model_info.get("max_context_length"))


def _ollama(running: object, model: str) -> int | None:
    for item in _entries(running, "models"):
        if model in (item.get("name"), item.get("model")):
            return _window(item.get("context_length"))
    return None


__all__ = ["PROBE_TIMEOUT_S", "ServerWindow", "read_server_window"]
