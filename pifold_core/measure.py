"""Occupancy: the provider's count, bound to what was sent, plus a calibrated estimate.

DESIGN §6. The provider's usage for a request counts everything it received, including the
host's system prompt and tool definitions, which the engine never sees. So occupancy is not
``ratio × estimate`` but the last measured count moved by the calibrated estimate of what
changed since::

    expected = measured + calibration × (estimate_now − estimate_when_measured)

The calibration (measured tokens per estimated token) is learned from the *growth* between
consecutive measurements of one unbroken run of appends, where the constant overhead cancels
out. Until a first measurement the estimate alone, calibrated, is the best figure.

The estimate covers the host's fixed prefix too when the host states its size
(:meth:`Meter.set_prefix`: its system prompt and tool definitions, counted with the engine's
own counter). Every estimate the meter takes or gives is of the projection alone; the meter
adds the prefix itself, so the first figure of a session already counts the ~2,800 tokens a
real host sends before its first message (issue 22), and no commit aims below them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.composition import Reading

PRIOR_WEIGHT = 2_000
"""Estimated tokens of pretend evidence for a ratio of 1.0, so one noisy sample cannot swing
the calibration."""

SAMPLE_DECAY = 0.75
"""Weight older evidence keeps each time a new sample arrives (the prior included): a change
of ratio (a new model, a new tokenizer) is mostly followed within a few requests."""

MIN_SAMPLE_TOKENS = 64
"""Growth below this is dominated by rounding in the provider's count: not a sample."""

CALIBRATION_RANGE = (0.5, 2.0)
"""Ratios outside this mean the two counts measured different things (another tokenizer
would not be this far off); the calibration stays inside it."""


@dataclass(frozen=True, slots=True)
class Measurement:
    """The provider's count for one request, bound to that request."""

    request: int
    """Number of the request measured."""
    tokens: int
    """Prompt tokens the provider counted (input + cache read + cache write)."""
    estimate: int
    """The engine's estimate of the same request: its projection and the host's prefix."""
    epoch: int
    """Rewrites (commits and verbs) before the request: a later rewrite makes it stale."""


@dataclass(frozen=True, slots=True)
class SentRequest:
    """What the meter remembers of a prepared request until it is measured."""

    number: int
    estimate: int
    epoch: int


class Meter:
    """Binds provider counts to requests and turns estimates into expected occupancy."""

    def __init__(self, host_measures: bool = True) -> None:
        self.host_measures = host_measures
        """Whether the host reports usage; if not, figures are labelled estimated."""
        self.last: Measurement | None = None
        """The most recent measurement."""
        self.sent: dict[int, SentRequest] = {}
        """Recent requests not measured yet, by number."""
        self._measured_growth = float(PRIOR_WEIGHT)
        self._estimated_growth = float(PRIOR_WEIGHT)
        self.prefix_tokens = 0
        """The host's fixed prefix (system prompt and tools), estimated: part of every
        estimate (0: the host stated none, and its prefix is only seen once measured)."""

    def set_prefix(self, tokens: int) -> None:
        """The host's fixed prefix is ``tokens`` estimated tokens from now on."""
        self.prefix_tokens = tokens

    def whole_estimate(self, projection_estimate: int) -> int:
        """The estimate of a whole request whose projection is ``projection_estimate``."""
        return projection_estimate + self.prefix_tokens

    # -- recording -----------------------------------------------------------------------

    def sent_request(self, number: int, estimate: int, epoch: int) -> None:
        """Remember a prepared request (its projection's estimate) so a later usage report
        can be bound to it."""
        self.sent[number] = SentRequest(number, self.whole_estimate(estimate), epoch)
        for old in [n for n in self.sent if n < number - 8]:
            del self.sent[old]  # usage arrives for the latest requests; keep a few only

    def measure(self, number: int, prompt_tokens: int) -> Measurement:
        """Bind the provider's count to request ``number``; raises ``KeyError`` if unknown.

        A report that arrives after one for a later request does not replace it: the newest
        request's count is the one the next request builds on.
        """
        sent = self.sent[number]
        measurement = Measurement(number, prompt_tokens, sent.estimate, sent.epoch)
        previous = self.last
        if previous is not None and previous.request > measurement.request:
            return measurement
        if (
            previous is not None
            and previous.epoch == measurement.epoch
            and previous.request < measurement.request
        ):
            self.calibrate(
                measurement.tokens - previous.tokens, measurement.estimate - previous.estimate
            )
        self.last = measurement
        return measurement

    @staticmethod
    def usable_sample(measured_growth: int, estimated_growth: int) -> bool:
        """Whether a growth sample is large enough, and growing, to learn from."""
        return estimated_growth >= MIN_SAMPLE_TOKENS and measured_growth > 0

    def calibrate(self, measured_growth: int, estimated_growth: int) -> bool:
        """Learn from one growth sample; returns whether it was used."""
        if not self.usable_sample(measured_growth, estimated_growth):
            return False
        self._measured_growth = SAMPLE_DECAY * self._measured_growth + measured_growth
        self._estimated_growth = SAMPLE_DECAY * self._estimated_growth + estimated_growth
        return True

    def growth_evidence(self) -> tuple[float, float]:
        """The weighted measured and estimated growth the calibration is learned from (what a
        checkpoint keeps, :mod:`pifold_core.checkpoint`)."""
        return self._measured_growth, self._estimated_growth

    def restore_state(
        self,
        last: Measurement | None,
        sent: dict[int, SentRequest],
        measured: float,
        estimated: float,
    ) -> None:
        """Take back the measurement, the requests awaiting one and the growth evidence a
        checkpoint kept (:mod:`pifold_core.checkpoint_state`)."""
        self.restore_growth_evidence(measured, estimated)
        self.last, self.sent = last, sent

    def restore_growth_evidence(self, measured: float, estimated: float) -> None:
        """Take back what :meth:`growth_evidence` gave (a checkpoint's reopen)."""
        if not (measured > 0 and estimated > 0):
            raise ValueError(f"growth evidence must be positive, got {measured}, {estimated}")
        self._measured_growth, self._estimated_growth = float(measured), float(estimated)

    # -- reading -------------------------------------------------------------------------

    @property
    def calibration(self) -> float:
        """Measured tokens per estimated token."""
        ratio = self._measured_growth / self._estimated_growth
        low, high = CALIBRATION_RANGE
        return min(high, max(low, ratio))

    def expected(self, estimate: int) -> int:
        """Occupancy expected for a projection whose estimate is ``estimate`` (the prefix
        added)."""
        whole = self.whole_estimate(estimate)
        if self.last is None:
            return round(self.calibration * whole)
        return max(0, self.last.tokens + round(self.calibration * (whole - self.last.estimate)))

    def estimate_for(self, tokens: int) -> int:
        """The projection estimate at which :meth:`expected` reaches ``tokens`` (inverse,
        floored at 0: below the prefix no projection gets there)."""
        if self.last is None:
            whole = int(tokens / self.calibration)
        else:
            whole = self.last.estimate + int((tokens - self.last.tokens) / self.calibration)
        return max(0, whole - self.prefix_tokens)

    def reading(self, epoch: int) -> Reading:
        """How the shown figure was obtained, given the rewrites so far."""
        if self.last is None:
            return Reading.NOT_MEASURED if self.host_measures else Reading.ESTIMATED
        if self.last.epoch < epoch:
            return Reading.ESTIMATED_AFTER_COMMIT
        return Reading.MEASURED

    def shown(self, estimate: int, epoch: int) -> int | None:
        """The figure a person sees: the expected occupancy (measured and moved by appends,
        or after a commit the estimate of the rewritten window, as :meth:`reading` says), or
        none before a host that measures has measured. One figure for the bar, the status
        screen and the commit trigger alike."""
        if self.reading(epoch) is Reading.NOT_MEASURED:
            return None
        return self.expected(estimate)
