"""The bundled host: command line, trace importers, replay and benchmark drivers."""

from __future__ import annotations
