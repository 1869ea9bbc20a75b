"""The tool's schemas and provider definition (DESIGN §7)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pifold_core import placeholders
from pifold_core.tool.arguments import ToolArgumentError, parse_arguments
from pifold_core.tool.schema import (
    ACTIONS,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    action_schemas,
    tool_definition,
)
from tests.core.tool.cases import SCHEMA_INVALID, VALID
from tests.core.tool.schema_subset import SchemaViolation, check_keywords, validate

HAPPY = [
    pytest.param(arguments, id=arguments["action"])
    for cases in VALID.values()
    for arguments in cases
]


def _schema_for(arguments: dict[str, Any]) -> dict[str, Any]:
    return action_schemas().get(str(arguments.get("action")), {"enum": []})


def test_ten_actions_in_design_order() -> None:
    assert ACTIONS == (
        "status",
        "peek",
        "brief",
        "expand",
        "refold",
        "pin",
        "unpin",
        "reboundary",
        "unmark",
        "search",
    )
    assert set(action_schemas()) == set(ACTIONS) == set(VALID)
    assert TOOL_NAME == placeholders.TOOL_NAME == "pi_fold_context"


@pytest.mark.parametrize("action", ACTIONS)
def test_every_schema_stays_inside_the_provider_subset(action: str) -> None:
    schema = action_schemas()[action]
    check_keywords(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["properties"]["action"] == {"type": "string", "enum": [action]}
    assert "action" in schema["required"]


@pytest.mark.parametrize("arguments", HAPPY)
def test_each_action_schema_accepts_its_happy_path(arguments: dict[str, Any]) -> None:
    validate(arguments, action_schemas()[arguments["action"]])
    validate(arguments, tool_definition()["input_schema"])
    for other in ACTIONS:
        if other != arguments["action"]:
            with pytest.raises(SchemaViolation):
                validate(arguments, action_schemas()[other])


@pytest.mark.parametrize("arguments", SCHEMA_INVALID)
def test_schema_and_parser_refuse_the_same_invalid_arguments(arguments: dict[str, Any]) -> None:
    with pytest.raises(SchemaViolation):
        validate(arguments, _schema_for(arguments))
    with pytest.raises(ToolArgumentError):
        parse_arguments(arguments)


def test_definition_is_provider_ready_and_serialisable() -> None:
    definition = tool_definition()
    assert set(definition) == {"name", "description", "input_schema"}
    assert definition["name"] == "pi_fold_context"
    text = json.dumps(definition, sort_keys=True)
    assert json.loads(text) == definition
    schema = definition["input_schema"]
    check_keywords(schema)
    assert "oneOf" not in text and "anyOf" not in text and "$ref" not in text
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == list(ACTIONS)
    union = {name for per in action_schemas().values() for name in per["properties"]}
    assert set(schema["properties"]) == union
    # Every property tells the model which actions use it.
    assert all(prop.get("description") for prop in schema["properties"].values())
    assert "(peek, search) " in schema["properties"]["offset"]["description"]
    assert "(pin, unpin) " in schema["properties"]["ids"]["description"]


def test_definition_is_deterministic_and_never_shared() -> None:
    first = tool_definition()
    first["input_schema"]["properties"]["ids"]["maxItems"] = 1
    action_schemas()["pin"]["properties"]["ids"]["maxItems"] = 1
    assert json.dumps(tool_definition(), sort_keys=True) == json.dumps(
        tool_definition(), sort_keys=True
    )
    assert tool_definition()["input_schema"]["properties"]["ids"]["maxItems"] == 100
    assert action_schemas()["pin"]["properties"]["ids"]["maxItems"] == 100


def test_description_teaches_the_model_the_costs() -> None:
    for action in ACTIONS:
        assert f"- {action}" in TOOL_DESCRIPTION or f"/ {action}" in TOOL_DESCRIPTION
    assert "Free and exact" in TOOL_DESCRIPTION  # peek
    assert "Costs one rewrite" in TOOL_DESCRIPTION  # expand
    assert "never paths" in TOOL_DESCRIPTION
    assert "2,000 characters" in TOOL_DESCRIPTION
    # Recovery is the norm: exact questions are answered from peeked bytes, not the brief.
    assert "answer from those bytes, not from the brief or from memory" in TOOL_DESCRIPTION
