"""Headless says it is waiting for the server at 10 s, 30 s and each minute after."""

from __future__ import annotations

import io

from pifold_agent.loop.events import MessageUpdate, ServerWaiting
from pifold_agent.run_input import HeadlessOptions
from pifold_cli.run_command import _printer


def test_headless_says_it_is_waiting_at_ten_thirty_and_each_minute() -> None:
    out, err = io.StringIO(), io.StringIO()
    show = _printer(HeadlessOptions(prompt="x"), out, err)
    for seconds in range(5, 200, 5):
        show(ServerWaiting(seconds))
    show(MessageUpdate("text", 0, "ok"))
    said = [line.split(": ", 1)[1].split(" s ")[0] for line in err.getvalue().splitlines()]
    assert said == ["10", "30", "60", "120", "180"]
    assert out.getvalue() == ""
    assert err.getvalue().splitlines()[0] == (
        "waiting for the server: 10 s without a first token (a local server reads the whole "
        "prompt first; --timeout bounds the wait)"
    )
