"""Token counts survive a reopen: kept with each entry's log record, never re-tokenised."""

from __future__ import annotations

import json
from pathlib import Path

from pifold_core.engine import Engine
from pifold_core.entries import TextBlock
from pifold_core.journal import Journal
from pifold_core.tokens import TiktokenCounter, remember_tokens, token_record
from tests.core.builders import SessionBuilder, drive, filler, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless


class RecordingCounter(TiktokenCounter):
    """The real counter, noting every text it had to tokenise."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def count_text(self, text: str) -> int:
        self.texts.append(text)
        return super().count_text(text)


def _session() -> SessionBuilder:
    session = SessionBuilder()
    for number in range(6):
        session.chapter(f"Chapter {number}: read src/m{number}.py", [[1_500, 900]], seed=number)
    session.user("what next?")
    session.assistant("Waiting.")
    return session


def test_counts_are_logged_and_reused_on_reopen(tmp_path: Path) -> None:
    session = _session()
    live = Engine.open(tmp_path / "state", small_options(budget=4_000), RecordingCounter())
    drive(live, session.entries)
    assert live.view.forest.folds  # commits ran, so placeholders and views are counted too
    live_items = [(item.digest, item.tokens) for item in live.view.projection.items]
    live.close()
    lines = [json.loads(line) for line in (tmp_path / "state" / "fold-log.jsonl").open()]
    kept = [line["b"]["tokens"] for line in lines if line["k"] == "entry"]
    fresh = TiktokenCounter()
    assert kept == [
        {"encoding": fresh.name, "count": fresh.count_message(entry.wire, entry.wire_digest)}
        for entry in live.view.transcript.entries
    ]
    counter = RecordingCounter()
    reopened = Engine.open(tmp_path / "state", None, counter)
    assert [(item.digest, item.tokens) for item in reopened.view.projection.items] == live_items
    assert reopened.view.projection.tokens == live.view.projection.tokens
    assert reopened.expected_tokens() == live.expected_tokens()
    # No entry's text was tokenised again: only the placeholders and views a commit made.
    texts = set(counter.texts)
    written = [
        block.text
        for entry in session.entries
        for block in entry.content
        if isinstance(block, TextBlock) and len(block.text) > 40
    ]
    assert written and not texts.intersection(written)
    assert_lossless(reopened)
    assert_clean_audit(reopened)
    reopened.close()


def test_a_count_from_another_encoding_or_damaged_is_not_used() -> None:
    counter = TiktokenCounter()
    text = filler(300, 1)
    message = {"role": "user", "content": text}
    right = counter.count_message(message, "digest-a")
    other = TiktokenCounter()
    assert not remember_tokens(other, "digest-a", {"encoding": "another", "count": 7})
    assert not remember_tokens(other, "digest-a", {"encoding": other.name, "count": True})
    assert not remember_tokens(other, "digest-a", {"encoding": other.name, "count": 1})
    assert not remember_tokens(other, "digest-a", "12")
    counted = other.count_message(message, "digest-a")
    assert counted == right  # counted anew, not taken from the refused records
    assert remember_tokens(other, "digest-b", token_record(counter, right))
    assert other.count_message({"role": "user", "content": "x"}, "digest-b") == right


def test_an_old_log_without_counts_still_reopens_with_the_same_counts(tmp_path: Path) -> None:
    session = _session()
    live = Engine.open(tmp_path / "state", small_options(budget=4_000), TiktokenCounter())
    drive(live, session.entries)
    items = [(item.digest, item.tokens) for item in live.view.projection.items]
    live.close()
    log = tmp_path / "state" / "fold-log.jsonl"
    records = list(Journal(log, read_only=True).read_all())
    old = Journal(tmp_path / "old" / "fold-log.jsonl")
    for record in records:  # the same session as a log from before counts were kept
        body = {key: value for key, value in record.body.items() if key != "tokens"}
        old.append(record.kind, body)
    old.close()
    (tmp_path / "state" / "store").rename(tmp_path / "old" / "store")
    reopened = Engine.open(tmp_path / "old", None, TiktokenCounter())
    assert [(item.digest, item.tokens) for item in reopened.view.projection.items] == items
    reopened.close()
