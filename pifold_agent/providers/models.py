"""Model descriptors: context window, output reservation, prices and cache lifetime.

The built-in table covers the common current models. Prices are those of the project's dated
price file (``pifold_agent/pricing/data/prices-2026-11-30.json``, from the provider pages as stored
in 2026); windows and output limits are the providers' stated figures. The output reservation
is what a request asks for at most (Pi caps it at 32,000), so the serving budget, the tokens a
request may carry, is the window minus that reservation (DESIGN §6).

A user file, ``$XDG_CONFIG_HOME/pi-fold/models.json`` (``~/.config`` when unset), adds models
or overrides built-in ones: ``{"models": {"<id>": {"provider": ..., "context_window": ...}}}``
with any field of :class:`ModelDescriptor` but ``id``; an override states only what differs.
A malformed file is refused whole with an error naming the field, and nothing is loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from pifold_agent.providers.registry import PROVIDER_TABLE, PROVIDERS, ProviderName
from pifold_core.config_file import ConfigFileError, read_config_file

TABLE_DATE = "2026-11-30"
"""The date of the price file the table's prices come from."""


class ModelsFileError(ValueError):
    """The user's models file is unreadable or invalid; the message names what is wrong."""


@dataclass(frozen=True, slots=True)
class ModelDescriptor:
    """What the agent knows of one model."""

    id: str
    """The model id requests are sent with."""
    provider: ProviderName
    """The adapter that serves it."""
    context_window: int
    """Tokens the model accepts, prompt and output together."""
    output_reservation: int
    """Tokens kept for the answer: the most a request asks for."""
    input_per_million: float = 0.0
    """$ per million uncached input tokens."""
    output_per_million: float = 0.0
    """$ per million output tokens."""
    cache_read_per_million: float = 0.0
    """$ per million tokens read from the prompt cache."""
    cache_write_per_million: float = 0.0
    """$ per million tokens written to the prompt cache."""
    cache_lifetime_s: int = 0
    """How long an idle cache entry lives; 0 when the model has no prompt cache."""
    window_source: str = "the model table"
    """Where :attr:`context_window` came from, for the user: the table, the models file, or
    what a ``--base-url`` server stated (``llama.cpp /props n_ctx``). Not a file field."""

    @property
    def serving_budget(self) -> int:
        """Tokens a request may carry (``providerInputBudget`` when none is configured)."""
        return self.context_window - self.output_reservation


BUILT_IN: dict[str, ModelDescriptor] = {
    row.id: ModelDescriptor(
        row.id,
        entry.name,
        row.context_window,
        row.output_reservation,
        *row.prices,
        entry.cache_lifetime_s,
    )
    for entry in PROVIDER_TABLE
    for row in entry.models
}
"""The built-in table, dated :data:`TABLE_DATE`: each provider's models, as the provider
table lists them (:mod:`~pifold_agent.providers.registry`)."""

DEFAULT_MODELS: dict[ProviderName, str] = {
    entry.name: entry.default_model for entry in PROVIDER_TABLE
}
"""The model each provider uses when none is named (the provider table's)."""


def models_file() -> Path:
    """Where the user's models file lives (honours ``XDG_CONFIG_HOME``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pi-fold" / "models.json"


def load_models(path: Path | None = None) -> dict[str, ModelDescriptor]:
    """The built-in table with the user's file applied (a missing file adds nothing).

    Raises:
        ModelsFileError: the file is unreadable, not JSON, or a model in it is invalid.
    """
    path = models_file() if path is None else path
    table = dict(BUILT_IN)
    try:  # a FIFO or device is refused unopened, and the size is bounded
        found = read_config_file(path)
    except ConfigFileError as error:
        raise ModelsFileError(f"{path}: {error}") from None
    if found is None:
        return table
    try:
        document = json.loads(found.data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ModelsFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ModelsFileError(f"{path}: not valid JSON: {error}") from None
    except RecursionError:
        raise ModelsFileError(f"{path}: not valid JSON: nested too deeply to read") from None
    if not isinstance(document, dict) or set(document) != {"models"}:
        raise ModelsFileError(f'{path}: must be an object with one key, "models"')
    entries = document["models"]
    if not isinstance(entries, dict):
        raise ModelsFileError(f'{path}: "models" must be an object of model id to fields')
    loaded = {
        model: _descriptor(path, model, body, table.get(model)) for model, body in entries.items()
    }
    table.update(loaded)
    return table


def lookup(
    model: str, table: Mapping[str, ModelDescriptor] | None = None
) -> ModelDescriptor | None:
    """The descriptor of ``model``, or ``None`` when neither the table nor the file has it."""
    return (load_models() if table is None else table).get(model)


def cache_lifetime(descriptor: ModelDescriptor | None) -> int | None:
    """The prompt-cache lifetime a host passes with each request, in seconds.

    ``None`` for a model the table does not know, or one whose descriptor states 0 (no
    prompt cache, or none known, as for a local server): the engine then never takes a
    pause for an expired cache, since it never guesses an expiry.
    """
    if descriptor is None or descriptor.cache_lifetime_s <= 0:
        return None
    return descriptor.cache_lifetime_s


_FIELDS = {
    item.name: item for item in fields(ModelDescriptor) if item.name not in ("id", "window_source")
}
_INTEGERS = {"context_window", "output_reservation", "cache_lifetime_s"}


def _descriptor(path: Path, model: str, body: Any, base: ModelDescriptor | None) -> ModelDescriptor:
    where = f"{path}: model {model!r}"
    if not model or not isinstance(body, dict):
        raise ModelsFileError(f"{where}: must map a non-empty id to an object of fields")
    unknown = sorted(set(body) - set(_FIELDS))
    if unknown:
        raise ModelsFileError(f"{where}: unknown field {unknown[0]!r}; known: {sorted(_FIELDS)}")
    if base is None:
        missing = [
            name
            for name in ("provider", "context_window", "output_reservation")
            if name not in body
        ]
        if missing:
            raise ModelsFileError(f"{where}: a new model needs {missing[0]!r}")
    for name, value in body.items():
        if name == "provider":
            if value not in PROVIDERS:
                raise ModelsFileError(
                    f"{where}: provider {value!r} is not one of {list(PROVIDERS)}"
                )
        elif name in _INTEGERS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ModelsFileError(f"{where}: {name!r} must be a non-negative integer")
        elif not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise ModelsFileError(f"{where}: {name!r} must be a non-negative number")
    values: dict[str, Any] = {
        name: float(value) if name.endswith("_per_million") else value
        for name, value in body.items()
    }
    if "context_window" in values:
        values["window_source"] = f"the models file ({path})"
    descriptor = (
        replace(base, **values) if base is not None else ModelDescriptor(id=model, **values)
    )
    if descriptor.context_window <= 0:
        raise ModelsFileError(f"{where}: 'context_window' must be positive")
    if descriptor.serving_budget <= 0:
        raise ModelsFileError(
            f"{where}: 'output_reservation' ({descriptor.output_reservation}) must be smaller "
            f"than 'context_window' ({descriptor.context_window})"
        )
    return descriptor


__all__ = [
    "BUILT_IN",
    "DEFAULT_MODELS",
    "PROVIDERS",
    "TABLE_DATE",
    "ModelDescriptor",
    "ModelsFileError",
    "cache_lifetime",
    "load_models",
    "lookup",
    "models_file",
]
