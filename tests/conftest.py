"""Fixtures every test shares: an isolated config folder, and where the real traces live."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.bundled_traces import traces_folder

REPO_ROOT = Path(__file__).resolve().parents[1]
TRACES = traces_folder()
"""The real sessions bundled with the package, one folder each (``pifold_agent/data/traces``)."""


@pytest.fixture(autouse=True)
def isolated_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test sees an empty config folder: a developer's own settings never leak in."""
    config = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # Memory notes and sessions live under the pifold home: never the developer's own.
    monkeypatch.setenv("PIFOLD_HOME", str(tmp_path_factory.mktemp("pifold-home")))
    return config
