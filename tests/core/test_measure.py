"""Measurement (DESIGN §6): the provider's count bound to the request that was sent, moved by a
calibrated estimate of what changed since; the calibration learns from growth, never from
absolute counts (they include the host's system prompt, which the engine never sees)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from pifold_core.composition import Reading
from pifold_core.engine import Engine, EngineError, Request
from pifold_core.entries import Usage
from pifold_core.measure import (
    CALIBRATION_RANGE,
    MIN_SAMPLE_TOKENS,
    PRIOR_WEIGHT,
    SAMPLE_DECAY,
    Meter,
)
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    pending_engine,
    unchanged,
)

# -- the Meter alone, with numbers worked by hand ----------------------------------------------


def test_prior_weight_is_what_these_numbers_assume() -> None:
    assert PRIOR_WEIGHT == 2_000 and MIN_SAMPLE_TOKENS == 64 and CALIBRATION_RANGE == (0.5, 2.0)
    assert SAMPLE_DECAY == 0.75


def test_before_any_measurement() -> None:
    meter = Meter()
    assert meter.calibration == 1.0
    assert meter.expected(1_234) == 1_234
    assert meter.reading(0) is Reading.NOT_MEASURED
    assert meter.shown(1_234, 0) is None
    assert meter.estimate_for(800) == 800
    replay = Meter(host_measures=False)
    assert replay.reading(3) is Reading.ESTIMATED
    assert replay.shown(1_234, 3) == 1_234


def test_a_measurement_is_bound_to_its_request_and_moved_by_the_estimate() -> None:
    meter = Meter()
    meter.sent_request(1, estimate=1_000, epoch=0)
    measurement = meter.measure(1, 3_000)  # 2,000 of it is a system prompt we never see
    assert (measurement.request, measurement.tokens, measurement.estimate) == (1, 3_000, 1_000)
    assert meter.calibration == 1.0  # one measurement is no growth sample
    assert meter.expected(1_000) == 3_000
    assert meter.expected(1_400) == 3_400  # 400 estimated tokens appended since
    assert meter.expected(600) == 2_600  # a commit freed 400
    assert meter.estimate_for(3_400) == 1_400
    assert meter.reading(0) is Reading.MEASURED
    assert meter.shown(1_400, 0) == 3_400
    # After a rewrite no count describes the window: the estimate of it is shown, flagged,
    # never the count taken before the commit (issue 19).
    assert meter.reading(1) is Reading.ESTIMATED_AFTER_COMMIT
    assert meter.shown(600, 1) == 2_600 == meter.expected(600)
    with pytest.raises(KeyError):
        meter.measure(2, 100)  # never sent


def test_calibration_learns_from_growth_not_from_absolute_counts() -> None:
    meter = Meter()
    meter.sent_request(1, 1_000, 0)
    meter.measure(1, 3_000)
    meter.sent_request(2, 2_000, 0)
    meter.measure(2, 4_500)
    # Growth: 1,500 measured over 1,000 estimated, weighed with the prior (2,000 at 1.0)
    # decayed once: (1,500 + 1,500) / (1,000 + 1,500) = 1.2. The absolute ratio
    # 4,500 / 2,000 = 2.25 (system prompt included) would have been nonsense.
    assert meter.calibration == pytest.approx(1.2)
    assert meter.expected(2_600) == 4_500 + round(600 * 1.2) == 5_220
    assert abs(meter.expected(meter.estimate_for(6_000)) - 6_000) <= 2
    # A second sample: the earlier evidence decays again, (2,250 + 900) / (1,875 + 1,000).
    meter.sent_request(3, 3_000, 0)
    meter.measure(3, 5_400)
    assert meter.calibration == pytest.approx(3_150 / 2_875)


@pytest.mark.parametrize(
    ("second", "why"),
    [
        ((1_000 + MIN_SAMPLE_TOKENS - 1, 3_100, 0), "growth under the sample floor"),
        ((1_500, 2_900, 0), "measured count shrank"),
        ((1_500, 3_900, 1), "a commit between the two requests"),
    ],
)
def test_what_is_not_a_growth_sample(second: tuple[int, int, int], why: str) -> None:
    estimate, tokens, epoch = second
    meter = Meter()
    meter.sent_request(1, 1_000, 0)
    meter.measure(1, 3_000)
    meter.sent_request(2, estimate, epoch)
    meter.measure(2, tokens)
    assert meter.calibration == 1.0, why
    assert meter.last is not None and meter.last.request == 2
    assert meter.expected(estimate) == tokens


def test_the_calibration_stays_in_its_range() -> None:
    meter = Meter()
    assert meter.calibrate(100_000, 1_000)
    assert meter.calibration == 2.0  # (101,500 / 2,500) clamped
    low = Meter()
    assert low.calibrate(1, 100_000)
    assert low.calibration == 0.5  # (1,501 / 101,500) clamped
    assert not Meter().calibrate(500, MIN_SAMPLE_TOKENS - 1)
    assert not Meter().calibrate(0, 5_000)


def test_a_late_report_of_an_older_request_does_not_replace_a_newer_one() -> None:
    meter = Meter()
    meter.sent_request(1, 1_000, 0)
    meter.sent_request(2, 1_500, 1)  # a commit came between the two
    meter.measure(2, 3_600)
    meter.measure(1, 3_000)  # arrives late
    assert meter.last is not None and meter.last.request == 2
    assert meter.reading(1) is Reading.MEASURED
    assert meter.expected(1_500) == 3_600
    assert meter.calibration == 1.0


def test_only_recent_requests_can_be_measured() -> None:
    meter = Meter()
    for number in range(1, 21):
        meter.sent_request(number, number * 100, 0)
    assert sorted(meter.sent) == list(range(12, 21))
    with pytest.raises(KeyError):
        meter.measure(11, 5_000)


# -- the engine ------------------------------------------------------------------------------


def _usage(prompt: int) -> Usage:
    """A provider report split over fresh input, cache read and cache write."""
    read = prompt // 2
    write = prompt // 5
    return Usage(
        input_tokens=prompt - read - write,
        output_tokens=50,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def test_occupancy_before_and_after_the_first_measurement(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    composition = engine.composition()
    assert composition.reading is Reading.NOT_MEASURED and composition.fill_tokens is None
    status = engine.status().occupancy
    assert status.reading is Reading.NOT_MEASURED and status.shown_tokens is None
    assert status.tokens == status.estimated_tokens == engine.view.projection.tokens

    request = engine.prepare_request()
    engine.report_usage(request.record.number, _usage(request.tokens + 2_500))
    assert engine.composition().reading is Reading.MEASURED
    assert engine.composition().fill_tokens == request.tokens + 2_500
    # Appends since the measured request move the figure by their estimate.
    more = SessionBuilder(prefix="m")
    more.user("one more thing: " + "x" * 400)
    engine.append(more.entries[0])
    grown = engine.view.projection.tokens - request.tokens
    assert grown > 0
    assert engine.expected_tokens() == request.tokens + 2_500 + grown
    assert engine.composition().fill_tokens == engine.expected_tokens()
    assert engine.status().occupancy.shown_tokens == engine.expected_tokens()
    assert_reopens_identically(engine)


def test_after_a_commit_the_reading_is_the_estimate_until_a_new_report(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    request = engine.prepare_request()
    measured = request.tokens + 2_500
    engine.report_usage(request.record.number, _usage(measured))
    commit = engine.commit_now()
    assert commit.tokens_after < commit.tokens_before
    composition = engine.composition()
    assert composition.reading is Reading.ESTIMATED_AFTER_COMMIT
    # The bar shows what the trigger compares: the count moved by what the commit freed.
    assert engine.expected_tokens() == measured - (commit.tokens_before - commit.tokens_after)
    assert composition.fill_tokens == engine.expected_tokens()
    assert engine.status().occupancy.shown_tokens == engine.expected_tokens()
    assert_reopens_identically(engine)
    after = engine.prepare_request()
    assert engine.composition().reading is Reading.ESTIMATED_AFTER_COMMIT  # sent, not reported
    engine.report_usage(after.record.number, _usage(after.tokens + 2_500))
    assert engine.composition().reading is Reading.MEASURED
    assert engine.composition().fill_tokens == after.tokens + 2_500
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_the_engine_calibrates_from_growth_between_reports(tmp_path: Path) -> None:
    overhead, ratio = 5_000, 1.25
    engine = Engine.open(tmp_path / "state", small_options(budget=1_000_000), CharCounter())
    session = SessionBuilder()
    chapters(session, 3)
    reported: list[tuple[int, int]] = []

    def report(engine: Engine, request: Request) -> None:
        prompt = overhead + round(ratio * request.tokens)
        engine.report_usage(request.record.number, _usage(prompt))
        reported.append((request.tokens, prompt))

    drive(engine, session.entries, report)
    samples = [
        (p2 - p1, e2 - e1)
        for (e1, p1), (e2, p2) in itertools.pairwise(reported)
        if e2 - e1 >= MIN_SAMPLE_TOKENS and p2 > p1
    ]
    measured = estimated = float(PRIOR_WEIGHT)
    for measured_growth, estimated_growth in samples:
        measured = SAMPLE_DECAY * measured + measured_growth
        estimated = SAMPLE_DECAY * estimated + estimated_growth
    expected = measured / estimated
    assert engine.view.calibration == pytest.approx(expected)
    assert 1.0 < engine.view.calibration < ratio  # learning the growth ratio, not 1 + overhead
    absolute = reported[-1][1] / reported[-1][0]
    assert absolute > 2.0  # the absolute ratio would be pinned at the range's top
    assert_reopens_identically(engine)


def test_a_threshold_commit_follows_the_providers_count(tmp_path: Path) -> None:
    overhead = 3_000  # the host's system prompt and tools, invisible to the engine
    options = small_options(budget=40_000, min_fold_chars=2_000, consolidate_after=10)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    session = SessionBuilder()
    chapters(session, 35)

    def report(engine: Engine, request: Request) -> None:
        engine.report_usage(request.record.number, _usage(overhead + request.tokens))

    requests = drive(engine, session.entries, report)
    commits = [r for r in requests if r.commit is not None]
    assert commits
    first = commits[0].commit
    assert first is not None
    # It fired on the measured figure, before the estimate alone reached the trigger.
    assert first.tokens_before < options.max_tokens <= first.tokens_before + overhead
    # And aimed at the measured target: the request after it is at or under minTarget.
    assert not first.short_of_target
    assert commits[0].expected_tokens <= options.min_tokens
    assert commits[0].tokens + overhead <= options.min_tokens
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_calibrate_from_outside_is_logged_only_when_used(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    with unchanged(engine):
        assert not engine.calibrate(10, 10)
    assert engine.calibrate(1_200, 1_000)
    assert engine.view.calibration == pytest.approx(2_700 / 2_500)
    assert engine.expected_tokens() == round(engine.view.projection.tokens * 2_700 / 2_500)
    assert_reopens_identically(engine)


BAD_USAGE: dict[str, tuple[Any, Any, str]] = {
    "unknown request": (999, _usage(5_000), "request 999 is not one of the recent requests"),
    "request zero": (0, _usage(5_000), "request 0 is not one"),
    "no prompt tokens": ("LAST", Usage(output_tokens=10), "at least one prompt token"),
    "not a Usage": ("LAST", {"input_tokens": 5}, "usage must be a Usage"),
}


@pytest.mark.parametrize("case", sorted(BAD_USAGE))
def test_bad_usage_reports_raise_and_change_nothing(tmp_path: Path, case: str) -> None:
    engine, _ = pending_engine(tmp_path)
    last = engine.prepare_request().record.number
    request, usage, message = BAD_USAGE[case]
    with unchanged(engine), pytest.raises(EngineError, match=message):
        engine.report_usage(last if request == "LAST" else request, usage)


def test_an_old_request_can_no_longer_be_reported(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    first = engine.prepare_request().record.number
    for _ in range(10):
        engine.prepare_request()
    with unchanged(engine), pytest.raises(EngineError, match=f"request {first} is not one"):
        engine.report_usage(first, _usage(5_000))


def test_without_host_measurement_the_figure_is_labelled_estimated(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 2)
    engine = Engine.open(
        tmp_path / "state", small_options(budget=200_000), CharCounter(), host_measures=False
    )
    drive(engine, session.entries)
    composition = engine.composition()
    assert composition.reading is Reading.ESTIMATED
    assert composition.fill_tokens == engine.view.projection.tokens
    assert_reopens_identically(engine)


def test_a_change_of_ratio_is_followed_within_a_few_samples() -> None:
    meter = Meter()
    for _ in range(30):
        meter.calibrate(1_000, 1_000)
    assert meter.calibration == pytest.approx(1.0)
    # The provider's tokenizer changes (a new model): growth now counts 1.5 per estimate.
    for _ in range(6):
        meter.calibrate(1_500, 1_000)
    # Pooling every sample would still read about 1.08 here.
    assert meter.calibration > 1.4


@pytest.mark.parametrize(
    ("measured", "estimated"),
    [(1_200.5, 1_000), (1_200, 1_000.0), ("1200", 1_000), (True, 1_000), (1_200, None)],
)
def test_calibrate_refuses_what_is_not_a_whole_token_count(
    tmp_path: Path, measured: Any, estimated: Any
) -> None:
    engine, _ = pending_engine(tmp_path)
    with unchanged(engine), pytest.raises(EngineError, match="whole number of tokens"):
        engine.calibrate(measured, estimated)


@pytest.mark.parametrize("figure", [4_000.5, "12", True, -1, 1e300])
def test_a_usage_figure_is_a_whole_token_count_or_unknown(figure: Any) -> None:
    with pytest.raises(ValueError, match="whole number of tokens"):
        Usage(input_tokens=4_000, cache_read_tokens=figure)


def test_a_usage_whose_prompt_is_unknown_measures_nothing(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    number = engine.prepare_request().record.number
    for usage in (
        Usage(input_tokens=None, output_tokens=10),
        Usage(input_tokens=4_000, cache_write_tokens=None),
        Usage(None, None, None, None),
    ):
        with unchanged(engine):
            engine.report_usage(number, usage)
    # Missing is not zero: the figure shown is still "not measured", not a count of 0.
    assert engine.composition().reading is Reading.NOT_MEASURED
    # A known prompt with an unknown output is a reading.
    engine.report_usage(number, Usage(input_tokens=4_000, output_tokens=None))
    assert engine._state.meter.last is not None and engine._state.meter.last.tokens == 4_000


def test_a_commit_that_changes_nothing_keeps_the_reading(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=1_000_000), CharCounter())
    session = SessionBuilder()
    session.user("hello")
    session.assistant("Hi.")
    drive(engine, session.entries)
    request = engine.prepare_request()
    engine.report_usage(request.record.number, _usage(2_000))
    assert engine.composition().reading is Reading.MEASURED
    outcome = engine.commit_now()
    assert not outcome.changed
    # Nothing was rewritten, so the provider's count still describes the window.
    assert engine.composition().reading is Reading.MEASURED
    assert engine.prepare_request().record.classification == "append"
    assert_reopens_identically(engine)
