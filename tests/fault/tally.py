"""The count every fault category reports: what was tried and what failed.

Each module of ``tests/fault`` exposes ``run(count: int, seed: int) -> FaultTally``. Its
pytest test calls it in a bounded, seeded form and asserts there are no failures;
``benchmarks/fault_harness.py`` calls the same function with the full count and prints the
table that the README's reliability section quotes.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class FaultTally:
    """One category's figures."""

    category: str
    """The row's name, for example ``crash (SIGKILL)``."""
    tried: int = 0
    """Faults injected, inputs tried or cases run."""
    failures: list[str] = field(default_factory=list)
    """One line per case that broke a promise, naming the case and what went wrong."""

    def fail(self, case: str, what: str) -> None:
        """Record a broken promise."""
        self.failures.append(f"{case}: {what}")

    def merge(self, other: FaultTally) -> None:
        """Add another run of the same category."""
        self.tried += other.tried
        self.failures.extend(other.failures)
