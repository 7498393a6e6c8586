"""ai-profile profile documents: ``[limits.user|endpoint|preset]`` in ``TokenLimits`` wire keys.

Keys read: ``contextWindow``/``maxOutput`` per layer, top-level ``max_tokens`` and ``max_attempts``,
and ``[provider] context_window`` - the provider's real window the replay simulates overflows against.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtime_spec import Loaded
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.specs._fields import integer, obj, rebase

_LAYERS = (("user", "user"), ("endpoint", "endpoint"), ("model", "preset"))


def detect(doc: Mapping[str, JSON]) -> bool:
    return "limits" in doc or "max_attempts" in doc


def load(doc: Mapping[str, JSON]) -> Loaded[AiProfileSettings]:
    limits = obj(doc.get("limits"), "limits")
    layers: dict[str, tuple[int | None, int | None]] = {}
    for layer in ("user", "endpoint", "preset"):
        block = obj(limits.get(layer), f"limits.{layer}")
        layers[layer] = (
            integer(block.get("contextWindow"), f"limits.{layer}.contextWindow"),
            integer(block.get("maxOutput"), f"limits.{layer}.maxOutput"),
        )
    provider = obj(doc.get("provider"), "provider")
    settings = AiProfileSettings(
        max_tokens=4096
        if doc.get("max_tokens") is None
        else integer(doc.get("max_tokens"), "max_tokens") or 0,
        user_context_window=layers["user"][0],
        user_max_output=layers["user"][1],
        endpoint_context_window=layers["endpoint"][0],
        endpoint_max_output=layers["endpoint"][1],
        model_context_window=layers["preset"][0],
        model_max_output=layers["preset"][1],
        max_attempts=3
        if doc.get("max_attempts") is None
        else integer(doc.get("max_attempts"), "max_attempts") or 0,
    )
    names = {f"{p}_context_window": f"limits.{layer}.contextWindow" for p, layer in _LAYERS}
    names |= {f"{p}_max_output": f"limits.{layer}.maxOutput" for p, layer in _LAYERS}
    try:
        settings.validate()
    except ProfileError as exc:
        raise rebase(exc, {**names, "max_tokens": "max_tokens", "max_attempts": "max_attempts"}, "") from exc
    window = integer(provider.get("context_window"), "provider.context_window", minimum=1)
    return Loaded(settings, window)


def dump(loaded: Loaded[AiProfileSettings]) -> dict[str, JSON]:
    s = loaded.settings
    limits: dict[str, JSON] = {}
    for layer, cw, mo in (
        ("user", s.user_context_window, s.user_max_output),
        ("endpoint", s.endpoint_context_window, s.endpoint_max_output),
        ("preset", s.model_context_window, s.model_max_output),
    ):
        block: dict[str, JSON] = {}
        if cw is not None:
            block["contextWindow"] = cw
        if mo is not None:
            block["maxOutput"] = mo
        if block:
            limits[layer] = block
    doc: dict[str, JSON] = {
        "trimscope": {"runtime": "ai_profile"},
        "max_tokens": s.max_tokens,
        "max_attempts": s.max_attempts,
        "limits": limits,
    }
    if loaded.provider_window is not None:
        doc["provider"] = {"context_window": loaded.provider_window}
    return doc
