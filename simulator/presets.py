"""Ready-made profile documents: each reproduced runtime version's defaults, in its own config keys.

Each runtime spec lists its presets (``simulator/specs/<runtime>/presets.py``); this module collects
them in registry order and makes each ``document`` the canonical document
:func:`simulator.profiles.profile_to_document` writes, so a profile created from it stores exactly
this and round-trips through TOML and JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from simulator import registry
from simulator.jsonvalue import JSON
from simulator.profiles import Runtime, profile_from_document, profile_to_document
from simulator.runtime_spec import PresetSource
from simulator.specs.ai_profile.presets import AI_PROFILE_MAX_TOKENS, AI_PROFILE_PRESET_WINDOW
from simulator.specs.openclaw.presets import anthropic_smart_defaults_pruning
from simulator.specs.zeroclaw.presets import DOCUMENTED_MODEL, DOCUMENTED_WINDOW


@dataclass(frozen=True, slots=True)
class Preset:
    """A named starting point: ``document`` is a canonical profile document for ``runtime``."""

    key: str
    name: str
    runtime: Runtime
    description: str
    document: Mapping[str, JSON]


def _canonical(source: PresetSource, runtime: str) -> Preset:
    # Going through the loader validates the preset and yields exactly what a stored profile holds.
    document = profile_to_document(profile_from_document(dict(source.document), name=source.key))
    return Preset(source.key, source.name, runtime, source.description, document)


PRESETS: tuple[Preset, ...] = tuple(
    _canonical(source, spec.runtime) for spec in registry.SPECS for source in spec.presets
)
PRESETS_BY_KEY: Mapping[str, Preset] = {p.key: p for p in PRESETS}


def preset_get(key: str) -> Preset | None:
    """The preset with ``key``, or ``None``."""
    return PRESETS_BY_KEY.get(key)


__all__ = [
    "AI_PROFILE_MAX_TOKENS",
    "AI_PROFILE_PRESET_WINDOW",
    "DOCUMENTED_MODEL",
    "DOCUMENTED_WINDOW",
    "PRESETS",
    "PRESETS_BY_KEY",
    "Preset",
    "anthropic_smart_defaults_pruning",
    "preset_get",
]
