"""Shared fixtures: where the real traces live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_TRACES = REPO_ROOT.parent / "shared" / "traces"


def shared_trace_files() -> list[Path]:
    """Every data file under ../shared/traces (the PROVENANCE notes excluded)."""
    if not SHARED_TRACES.is_dir():
        return []
    return sorted(
        path for path in SHARED_TRACES.rglob("*") if path.is_file() and path.name != "PROVENANCE.md"
    )


@pytest.fixture(autouse=True)
def isolated_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test sees an empty config folder: a developer's own settings never leak in."""
    config = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return config


@pytest.fixture
def shared_traces() -> list[Path]:
    files = shared_trace_files()
    if not files:
        pytest.skip("../shared/traces is not present beside the repository")
    return files
