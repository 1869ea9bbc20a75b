"""Prices and prompt-cache rules, read from the dated data file in ``pifold_agent/pricing/data``.

The numbers live in data, not code, because providers change them: the file names the date
it was compiled and where the figures come from, and the benchmark prints that date with
every bill (the demo's ``/fold-status`` names it too). A model is found by its name or by a
dated variant of it (``claude-opus-4-5-20251101`` is ``claude-opus-4-5``); a model the file
does not list is priced as the file's default model, and the report says so.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from pifold_core.entries import Entry

PRICE_FILE = "prices-2026-11-30.json"
"""The data file in use; its name carries the date it was compiled."""

CacheKind = Literal["automatic", "breakpoint"]

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are quoted in dollars per million tokens."""


class PriceDataError(ValueError):
    """The price file is malformed; the message names the entry and the field."""


@dataclass(frozen=True, slots=True)
class CacheRules:
    """How one provider family's prefix cache behaves."""

    family: str
    """The family's name in the data file, for example ``openai-automatic``."""
    kind: CacheKind
    """``automatic``: every prompt is cached and any prefix can hit; ``breakpoint``: entries
    exist only where a request put a cache breakpoint."""
    minimum_tokens: int
    """Prompts (or breakpoint prefixes) shorter than this are never cached."""
    step_tokens: int
    """Cache hits are counted in whole steps of this many tokens."""
    lifetime_seconds: int
    """An entry unused for longer than this is gone; every hit refreshes it."""
    lookback_blocks: int
    """For breakpoints: how many block boundaries before a breakpoint are checked for a hit."""


@dataclass(frozen=True, slots=True)
class Rates:
    """Dollars per million tokens for each kind of token."""

    input: float
    """Fresh (uncached) input."""
    cache_write: float
    """Input written to the cache (equal to ``input`` where writes cost nothing extra)."""
    cache_read: float
    """Input replayed from the cache."""
    output: float
    """Generated tokens."""


@dataclass(frozen=True, slots=True)
class LongContextTier:
    """Higher rates for a whole request once its prompt passes a size."""

    above_tokens: int
    """A request whose prompt holds more tokens than this is billed at :attr:`rates`."""
    rates: Rates
    """The rates for every token of such a request, output included."""


@dataclass(frozen=True, slots=True)
class ModelPrices:
    """Everything needed to bill one model."""

    model: str
    """The model's name in the data file."""
    rules: CacheRules
    """Its family's cache rules, with the model's own minimum applied."""
    rates: Rates
    """Standard rates."""
    long_context: LongContextTier | None
    """The long-context tier, when the sources state one."""

    def rates_for(self, prompt_tokens: int) -> Rates:
        """The rates for a request whose whole prompt holds ``prompt_tokens``."""
        tier = self.long_context
        if tier is not None and prompt_tokens > tier.above_tokens:
            return tier.rates
        return self.rates

    def above_tier(self, prompt_tokens: int) -> bool:
        """Whether a prompt of this size is billed at the long-context rates."""
        return self.long_context is not None and prompt_tokens > self.long_context.above_tokens


@dataclass(frozen=True, slots=True)
class PriceBook:
    """The contents of one dated price file."""

    as_of: str
    """The date the file was compiled (ISO 8601)."""
    source: str
    """Where its figures come from."""
    models: dict[str, ModelPrices]
    """Prices by model name."""
    default_model: str
    """The model whose prices apply to a model the file does not list."""

    def lookup(self, model: str | None) -> tuple[ModelPrices, bool]:
        """The prices for ``model`` and whether they are its own (False: the default's)."""
        if model is not None:
            name = model.strip().lower()
            # The longest listed name that the model's name is, or starts with plus a dash:
            # gpt-5.4-mini must not be priced as gpt-5.4, nor gpt-5.6 as gpt-5.
            matches = [key for key in self.models if name == key or name.startswith(key + "-")]
            if matches:
                return self.models[max(matches, key=len)], True
        return self.models[self.default_model], False


def main_model(entries: Sequence[Entry]) -> str | None:
    """The model of most assistant entries, or None when none is recorded."""
    models = Counter(entry.model for entry in entries if entry.kind == "assistant" and entry.model)
    return models.most_common(1)[0][0] if models else None


def load_price_book(text: str | None = None) -> PriceBook:
    """Parse the shipped price file, or ``text`` when given (tests use that)."""
    if text is None:
        text = (resources.files("pifold_agent.pricing") / "data" / PRICE_FILE).read_text(
            encoding="utf-8"
        )
    data = json.loads(text)
    if not isinstance(data, dict):
        raise PriceDataError("the price file must hold one JSON object")
    families = {
        name: _rules(name, body) for name, body in _object(data, "families", "file").items()
    }
    models: dict[str, ModelPrices] = {}
    for name, body in _object(data, "models", "file").items():
        if not isinstance(body, dict):
            raise PriceDataError(f"model {name!r} must be an object")
        family = body.get("family")
        if family not in families:
            raise PriceDataError(f"model {name!r}: unknown family {family!r}")
        rules = families[family]
        minimum = body.get("minimum_tokens", rules.minimum_tokens)
        rules = CacheRules(
            rules.family,
            rules.kind,
            _positive_int(minimum, f"model {name!r} minimum_tokens"),
            rules.step_tokens,
            rules.lifetime_seconds,
            rules.lookback_blocks,
        )
        tier_body = body.get("long_context")
        tier = None
        if tier_body is not None:
            if not isinstance(tier_body, dict):
                raise PriceDataError(f"model {name!r}: long_context must be an object")
            tier = LongContextTier(
                _positive_int(tier_body.get("above_tokens"), f"model {name!r} above_tokens"),
                _rates(tier_body, f"model {name!r} long_context"),
            )
        models[name] = ModelPrices(name, rules, _rates(body, f"model {name!r}"), tier)
    default = data.get("default_model")
    if default not in models:
        raise PriceDataError(f"default_model {default!r} is not a listed model")
    return PriceBook(str(data.get("as_of", "")), str(data.get("source", "")), models, default)


def _rules(name: str, body: Any) -> CacheRules:
    if not isinstance(body, dict):
        raise PriceDataError(f"family {name!r} must be an object")
    kind = body.get("kind")
    if kind not in ("automatic", "breakpoint"):
        raise PriceDataError(f"family {name!r}: kind must be automatic or breakpoint")
    return CacheRules(
        family=name,
        kind=kind,
        minimum_tokens=_positive_int(body.get("minimum_tokens"), f"family {name!r} minimum"),
        step_tokens=_positive_int(body.get("step_tokens"), f"family {name!r} step_tokens"),
        lifetime_seconds=_positive_int(body.get("lifetime_seconds"), f"family {name!r} lifetime"),
        lookback_blocks=int(body.get("lookback_blocks", 0)),
    )


def _rates(body: dict[str, Any], where: str) -> Rates:
    values = []
    for field_name in ("input", "cache_write", "cache_read", "output"):
        value = body.get(field_name)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PriceDataError(f"{where}: {field_name} must be a non-negative number")
        values.append(float(value))
    return Rates(*values)


def _object(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise PriceDataError(f"{where}: {key!r} must be an object")
    return value


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PriceDataError(f"{where} must be a positive integer")
    return value
