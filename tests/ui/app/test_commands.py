"""The command registry: one table for completion, the palette and /help."""

from __future__ import annotations

import pytest

from pifold_tui.app.commands import Command, CommandError, CommandRegistry


def _registry() -> CommandRegistry[object]:
    registry: CommandRegistry[object] = CommandRegistry()
    for name, during in (("fold-status", True), ("fold", False), ("fold-editor", True)):
        registry.register(Command(name, f"the {name} command", during, lambda app, args: None))
    return registry


def test_matching_follows_the_typed_prefix_in_registration_order() -> None:
    registry = _registry()
    assert [command.name for command in registry.matching("/fold")] == [
        "fold-status",
        "fold",
        "fold-editor",
    ]
    assert [command.name for command in registry.matching("/fold-e")] == ["fold-editor"]
    assert registry.matching("/x") == []


def test_parse_splits_the_name_from_its_arguments() -> None:
    registry = _registry()
    command, arguments = registry.parse("/fold-editor  fold-0123456789ab ")
    assert command.name == "fold-editor"
    assert arguments == "fold-0123456789ab"


@pytest.mark.parametrize(
    ("line", "reason"),
    [("fold", "starts with /"), ("/nope", "unknown command /nope; commands: /fold-status")],
)
def test_parse_refuses_what_is_no_command(line: str, reason: str) -> None:
    with pytest.raises(CommandError, match=reason):
        _registry().parse(line)


def test_a_name_is_registered_once_and_without_its_slash() -> None:
    registry = _registry()
    with pytest.raises(CommandError, match="already registered"):
        registry.register(Command("fold", "again", True, lambda app, args: None))
    with pytest.raises(CommandError, match="without its slash"):
        registry.register(Command("/quit", "quit", True, lambda app, args: None))
    assert len(registry) == 3
