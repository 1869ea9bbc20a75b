"""The dated price file and how models are found in it."""

from __future__ import annotations

import json

import pytest

from pifold_agent.pricing.prices import PRICE_FILE, PriceDataError, load_price_book


def test_the_shipped_file_is_dated_and_names_its_source() -> None:
    book = load_price_book()
    assert book.as_of in PRICE_FILE
    assert "2026" in book.source
    assert book.default_model in book.models


@pytest.mark.parametrize(
    ("name", "expected", "own"),
    [
        ("claude-opus-4-5-20251101", "claude-opus-4-5", True),
        ("gpt-5.4", "gpt-5.4", True),
        ("gpt-5.4-mini", "gpt-5.4-mini", True),
        ("GPT-5.4-mini-2026-01-01", "gpt-5.4-mini", True),
        ("gpt-5.6-luna", "gpt-5.5", False),
        ("deepseek-chat", "gpt-5.5", False),
        (None, "gpt-5.5", False),
    ],
)
def test_models_are_found_by_name_or_dated_variant(
    name: str | None, expected: str, own: bool
) -> None:
    prices, found = load_price_book().lookup(name)
    assert (prices.model, found) == (expected, own)


def test_families_carry_the_rules_of_the_sources() -> None:
    book = load_price_book()
    openai = book.models["gpt-5.4"].rules
    anthropic = book.models["claude-sonnet-4-5"].rules
    assert (openai.kind, openai.minimum_tokens, openai.step_tokens) == ("automatic", 1024, 128)
    assert (anthropic.kind, anthropic.lifetime_seconds) == ("breakpoint", 300)
    assert anthropic.lookback_blocks == 20
    tier = book.models["gpt-5.5"].long_context
    assert tier is not None and tier.above_tokens == 272_000


def minimal(**model: object) -> str:
    body = {"family": "f", "input": 1, "cache_write": 1, "cache_read": 0.1, "output": 2}
    body.update(model)
    return json.dumps(
        {
            "as_of": "2026-01-01",
            "families": {
                "f": {
                    "kind": "automatic",
                    "minimum_tokens": 1,
                    "step_tokens": 1,
                    "lifetime_seconds": 60,
                }
            },
            "models": {"m": body},
            "default_model": "m",
        }
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"family": "nope"}, "unknown family"),
        ({"input": -1}, "input must be a non-negative number"),
        ({"output": "a lot"}, "output must be a non-negative number"),
        ({"minimum_tokens": 0}, "minimum_tokens must be a positive integer"),
        ({"long_context": {"above_tokens": 10}}, "long_context: input"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_field(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(PriceDataError, match=message):
        load_price_book(minimal(**change))


def test_a_default_model_that_is_not_listed_is_refused() -> None:
    text = minimal().replace('"default_model": "m"', '"default_model": "x"')
    with pytest.raises(PriceDataError, match="default_model"):
        load_price_book(text)
