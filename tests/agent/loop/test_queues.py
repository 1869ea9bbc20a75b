"""Steering and follow-up queues: delivery modes and refusals."""

from __future__ import annotations

import pytest

from pifold_agent.loop import MessageQueue, Queues


def test_one_at_a_time_hands_out_the_oldest_first() -> None:
    queue = MessageQueue()
    queue.put("first")
    queue.put("second")
    assert queue.take() == ["first"]
    assert queue.take() == ["second"]
    assert queue.take() == []


def test_all_mode_hands_out_everything_queued() -> None:
    queue = MessageQueue("all")
    queue.put("first")
    queue.put("second")
    assert queue.take() == ["first", "second"] and len(queue) == 0


def test_drain_gives_back_what_was_never_delivered() -> None:
    queues = Queues()
    queues.steer("use tabs")
    queues.add_follow_up("then run the tests")
    assert queues.steering.drain() == ["use tabs"] and queues.steering.take() == []
    assert queues.follow_up.drain() == ["then run the tests"]


def test_empty_messages_and_unknown_modes_are_refused() -> None:
    queue = MessageQueue()
    with pytest.raises(ValueError, match="non-empty"):
        queue.put("   ")
    assert len(queue) == 0
    with pytest.raises(ValueError, match="queue mode must be one of"):
        MessageQueue("sometimes")  # type: ignore[arg-type]
