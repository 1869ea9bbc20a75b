"""The model descriptor of a ``--base-url`` server's model, and what to tell the user of it.

A model the table or the models file describes keeps its descriptor. Any other model behind
``--base-url`` used to take the table's ``local`` placeholder (128,000 tokens) or the
engine's default budget (100,000) without a word, on servers started with 4,096 or 32,768.
Now its window is asked of the server (:mod:`~pifold_agent.providers.server_window`) and
the run says where its budget came from; when no server answer names one, it says that too
and how to give one.
"""

from __future__ import annotations

from pifold_agent.providers.models import ModelDescriptor
from pifold_agent.providers.server_window import read_server_window

PLACEHOLDER_ID = "local"
"""The table's stand-in for any model behind ``--base-url``."""

LARGEST_RESERVATION = 16_384
"""The most kept for the answer on a local server (the placeholder's reservation)."""


def answer_reservation(window: int) -> int:
    """Tokens kept for the answer out of ``window``: a quarter, at most 16,384."""
    return min(LARGEST_RESERVATION, window // 4)


def needs_server_window(descriptor: ModelDescriptor | None) -> bool:
    """Whether the descriptor chosen for a ``--base-url`` model knows nothing real about it
    (none, or the table's placeholder)."""
    return descriptor is None or (
        descriptor.id == PLACEHOLDER_ID and descriptor.window_source == "the model table"
    )


def server_descriptor(base_url: str, model: str) -> ModelDescriptor | None:
    """A descriptor for ``model`` with the window ``base_url``'s server states; ``None``
    when the server states none."""
    window = read_server_window(base_url, model)
    if window is None:
        return None
    return ModelDescriptor(
        id=model,
        provider="openai-chat",
        context_window=window.tokens,
        output_reservation=answer_reservation(window.tokens),
        window_source=f"the server ({window.source})",
    )


def budget_origin(
    base_url: str, descriptor: ModelDescriptor | None, budget: int, given: bool
) -> str:
    """One line saying where a ``--base-url`` run's budget came from.

    ``budget`` is the budget the run has; ``given`` whether ``--budget`` set it.
    """
    if given:
        return f"budget {budget:,} tokens, from --budget"
    if descriptor is None:
        return (
            f"the server at {base_url} states no window (asked as vLLM, llama.cpp, LM Studio "
            f"and Ollama state theirs): the budget is {budget:,} tokens, the default; give "
            "--budget, or providerInputBudget in the settings file, if the server's window "
            "is smaller"
        )
    if budget != descriptor.serving_budget:
        return (
            f"budget {budget:,} tokens, from the settings file or this session's log "
            f"({descriptor.window_source} states a window of {descriptor.context_window:,})"
        )
    return (
        f"budget {budget:,} tokens: {descriptor.context_window:,} from "
        f"{descriptor.window_source}, less {descriptor.output_reservation:,} for the answer"
    )


__all__ = [
    "LARGEST_RESERVATION",
    "PLACEHOLDER_ID",
    "answer_reservation",
    "budget_origin",
    "needs_server_window",
    "server_descriptor",
]
