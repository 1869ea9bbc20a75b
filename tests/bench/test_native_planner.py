"""The native arm runs the agent's compaction planner: the same cuts, the same summarised
history, compaction after compaction."""

from __future__ import annotations

from pifold_agent.compaction import plan_compaction, serialise
from pifold_agent.pricing.compaction import (
    INSTRUCTION_TOKENS,
    TURN_PREFIX_INSTRUCTION_TOKENS,
    NativeCompactionArm,
)
from pifold_core.entries import Entry
from tests.bench.conftest import COUNTER
from tests.bench.helpers import Session


def session_of_three_turns() -> list[Entry]:
    session = Session()
    session.long_turn(batches=6, characters=3_000)
    session.long_turn(batches=6, characters=3_000, seed=2)
    return session.long_turn(batches=6, characters=3_000, seed=3)


def test_every_compaction_is_the_agents_plan_over_the_arms_window() -> None:
    entries = session_of_three_turns()
    arm = NativeCompactionArm(COUNTER, 6_000, summary_tokens=300, keep_recent_tokens=2_000)
    tokens: list[int] = []
    boundary = 0
    had_summary = False
    compactions = 0
    for entry in entries:
        if entry.kind == "assistant":
            # What the agent's planner would do with the arm's window right now.
            expected = plan_compaction(
                entries[: len(tokens)], tokens, boundary, 2_000, "" if had_summary else None
            )
            summary_before = arm.current_summary_tokens
            request = arm.prepare_request()
            if request.side_calls:
                assert expected is not None
                compactions += 1
                assert arm.kept_from == expected.first_kept
                prompts = [call.prompt_tokens for call in request.side_calls]
                wanted = []
                if expected.history:
                    history = INSTRUCTION_TOKENS + COUNTER.count_text(serialise(expected.history))
                    if expected.previous_summary is not None:
                        history += summary_before
                    wanted.append(history)
                if expected.is_split_turn:
                    wanted.append(
                        TURN_PREFIX_INSTRUCTION_TOKENS
                        + COUNTER.count_text(serialise(expected.turn_prefix))
                    )
                assert prompts == wanted
                boundary = expected.first_kept
                had_summary = True
        arm.append(entry)
        tokens.append(COUNTER.count_message(entry.wire, entry.wire_digest))
    assert compactions >= 3 and arm.split_turns >= 1
