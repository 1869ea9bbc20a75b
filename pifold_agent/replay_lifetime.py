"""The cache lifetime a replay passes with each request (issue 12, cold-cache commits).

A live host passes its model descriptor's lifetime; a replay has only the trace, so it takes
the lifetime of the model the trace recorded: the descriptor when the model table knows the
model, otherwise the model's family in the dated price file the bench bills with, found the
way the bench finds it (:meth:`pifold_agent.pricing.prices.PriceBook.lookup`), so a replay
and the bench judge the same pause alike.
"""

from __future__ import annotations

from typing import Literal

from pifold_agent.importers import ImportedTrace
from pifold_agent.pricing.prices import load_price_book, main_model
from pifold_agent.providers.models import ModelsFileError, cache_lifetime, lookup
from pifold_agent.replay_progress import ReplayStateError

CacheLifetime = int | Literal["model"] | None
"""A replay's cache lifetime: ``"model"`` for the trace's own model's, a number of seconds,
or ``None`` for none (requests carry no lifetime, so no cold-cache commit fires)."""


def trace_cache_lifetime(trace: ImportedTrace) -> tuple[int, str]:
    """The cache lifetime of the model that made most of the trace's requests, and where it
    came from: its model descriptor when the table knows it, otherwise its family in the
    bench's price file (looked up as the bench looks it up, so a model the file does not
    list gets the default model's family, as it is priced)."""
    model = main_model(trace.entries)
    if model is not None:
        try:
            descriptor = lookup(model)
        except ModelsFileError as error:
            raise ReplayStateError(f"the models file cannot be read: {error}") from None
        seconds = cache_lifetime(descriptor)
        if seconds is not None:
            return seconds, "descriptor"
    prices, own = load_price_book().lookup(model)
    return prices.rules.lifetime_seconds, "price file" if own else "price file default"


def resolve_lifetime(trace: ImportedTrace, asked: CacheLifetime) -> tuple[int | None, str]:
    """The lifetime a replay passes and its source, for what the caller ``asked``."""
    if asked == "model":
        return trace_cache_lifetime(trace)
    if asked is None:
        return None, "none"
    if isinstance(asked, bool) or not isinstance(asked, int) or asked < 1:
        raise ValueError(f"--cache-lifetime must be a whole number of seconds >= 1, got {asked!r}")
    return asked, "option"


__all__ = ["CacheLifetime", "resolve_lifetime", "trace_cache_lifetime"]
