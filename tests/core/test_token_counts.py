"""Token counts survive a reopen: kept with each entry's log record, never re-tokenised."""

from __future__ import annotations

import json
from pathlib import Path

from pifold_core.engine import Engine
from pifold_core.entries import TextBlock
from pifold_core.journal import Journal
from pifold_core.tokens import (
    TiktokenCounter,
    remember_counts,
    remember_tokens,
    token_record,
)
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
        body = {key: value for key, value in record.body.items() if key not in ("tokens", "counts")}
        old.append(record.kind, body)
    old.close()
    (tmp_path / "state" / "store").rename(tmp_path / "old" / "store")
    reopened = Engine.open(tmp_path / "old", None, TiktokenCounter())
    assert [(item.digest, item.tokens) for item in reopened.view.projection.items] == items
    reopened.close()


def test_a_reopen_after_a_clean_close_tokenises_nothing(tmp_path: Path) -> None:
    # Issue 23: the tokenizer is loaded at the first text counted, and a reopen from the
    # checkpoint the close wrote takes every count it needs from the checkpoint.
    session = _session()
    live = Engine.open(tmp_path / "state", small_options(budget=4_000), TiktokenCounter())
    drive(live, session.entries)
    assert live.view.forest.folds
    tokens = live.view.projection.tokens
    live.close()
    counter = RecordingCounter()
    reopened = Engine.open(tmp_path / "state", None, counter)
    assert reopened.view.reopen.replayed_records == 0
    assert reopened.view.projection.tokens == tokens
    assert counter.texts == [] and not counter.loaded
    reopened.close()


def test_counts_are_tiktokens_own() -> None:
    # The encoding is built apart from tiktoken's registry (its Python ranks let go):
    # the numbers must be the registry's encoding's, text for text.
    import tiktoken

    counter = TiktokenCounter()
    registry = tiktoken.get_encoding(counter.name)
    texts = (
        filler(2_000, 3),
        "def parse_7(token, cache): return 42\n",
        "日本語 ü <|endoftext|>",
        "a lone surrogate \ud800 stays countable",
    )
    for text in texts:
        assert counter.count_text(text) == len(registry.encode(text, disallowed_special=()))


def test_a_replay_takes_the_commits_counts_and_tokenises_nothing(tmp_path: Path) -> None:
    # After a kill the records past the checkpoint are replayed, commits among them: each
    # commit record keeps the counts of the placeholders it showed (issue 23 item 3).
    session = _session()
    live = Engine.open(tmp_path / "state", small_options(budget=4_000), TiktokenCounter())
    drive(live, session.entries)
    assert live.view.forest.folds
    items = [(item.digest, item.tokens) for item in live.view.projection.items]
    live.close()
    log = tmp_path / "state" / "fold-log.jsonl"
    commits = [r for r in Journal(log, read_only=True).read_all() if r.kind == "commit"]
    assert commits and all(record.body["counts"]["messages"] for record in commits)
    (tmp_path / "state" / "checkpoint.json").unlink()  # the whole log replayed
    counter = RecordingCounter()
    reopened = Engine.open(tmp_path / "state", None, counter)
    assert reopened.view.reopen.replayed_records > 0
    assert [(item.digest, item.tokens) for item in reopened.view.projection.items] == items
    assert counter.texts == [] and not counter.loaded
    assert_lossless(reopened)
    reopened.close()


def test_damaged_commit_counts_are_counted_anew() -> None:
    counter = TiktokenCounter()
    kept = {"encoding": counter.name, "messages": [["d1", 9], ["d2", 2], ["d3", "9"], "x"]}
    assert remember_counts(counter, kept) == 1  # below a message's framing, not a number
    assert remember_counts(counter, {"encoding": "another", "messages": [["d4", 9]]}) == 0
    assert remember_counts(counter, None) == 0
    message = {"role": "user", "content": "x"}
    assert counter.count_message(message, "d1") == 9
    assert counter.count_message(message, "d2") == counter.count_message(message, "d5")


def test_counting_a_text_keeps_nothing_of_it_alive() -> None:
    # Issue 23 item 5: tiktoken's binding caches a non-ASCII text's UTF-8 form on the str
    # it is handed; a fold's placeholder (non-ASCII: its "·") lives for the session, and so
    # would that copy, unless the counter hands over a copy of its own.
    import tracemalloc

    counter = TiktokenCounter()
    counter.count_text("warm up: load the encoding first")
    texts = [
        f"[folded tool results fold-{n:04d} · 3 entries] " + filler(1_500, n) for n in range(200)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        counted = [counter.count_text(text) for text in texts]
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert all(count > 0 for count in counted)
    assert kept < 100 * 1024, f"counting kept {kept:,} bytes alive"  # 200 × 1.5 KB without
