"""ZeroClaw profile documents: ``[runtime_profiles.<name>]`` plus ``[provider]`` and ``[trimscope]``.

Keys read: ``max_context_tokens``, ``context_compact_ratio``, ``max_history_messages``,
``max_tool_iterations``, ``max_tool_result_chars``, ``[runtime_profiles.<name>.history_pruning]``
``enabled``/``max_tokens`` (a top-level ``[history_pruning]`` is read too), ``[provider]``
``model``/``context_window``, and ``trimscope.version``/``trimscope.model``.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtime_spec import Loaded
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.specs._fields import boolean, integer, number, obj, rebase, string


def detect(doc: Mapping[str, JSON]) -> bool:
    return "runtime_profiles" in doc or "history_pruning" in doc


def load(doc: Mapping[str, JSON]) -> Loaded[ZeroClawSettings]:
    meta = obj(doc.get("trimscope"), "trimscope")
    profiles = obj(doc.get("runtime_profiles"), "runtime_profiles")
    if len(profiles) > 1:
        raise ProfileError(
            "runtime_profiles",
            f"has {len(profiles)} profiles; a Trimscope profile holds one",
            allowed="exactly one [runtime_profiles.<name>] table",
        )
    name, body = next(iter(profiles.items()), ("default", None))
    rp = obj(body, f"runtime_profiles.{name}")
    base = f"runtime_profiles.{name}"
    pruning_path = f"{base}.history_pruning" if "history_pruning" in rp else "history_pruning"
    pruning = obj(rp.get("history_pruning", doc.get("history_pruning")), pruning_path)
    provider = obj(doc.get("provider"), "provider")
    version = meta.get("version", "documented")
    settings = ZeroClawSettings(
        max_context_tokens=integer(rp.get("max_context_tokens"), f"{base}.max_context_tokens"),
        context_compact_ratio=number(rp.get("context_compact_ratio"), f"{base}.context_compact_ratio"),
        history_pruning_enabled=boolean(pruning.get("enabled"), f"{pruning_path}.enabled", False),
        history_pruning_max_tokens=integer(pruning.get("max_tokens"), f"{pruning_path}.max_tokens") or 0,
        max_history_messages=integer(rp.get("max_history_messages"), f"{base}.max_history_messages"),
        max_tool_iterations=integer(rp.get("max_tool_iterations"), f"{base}.max_tool_iterations") or 10,
        max_tool_result_chars=integer(rp.get("max_tool_result_chars"), f"{base}.max_tool_result_chars") or 0,
        context_window=integer(provider.get("context_window"), "provider.context_window"),
        provider_model=string(provider.get("model"), "provider.model"),
        model=string(meta.get("model", provider.get("model")), "trimscope.model"),
        version=version,  # type: ignore[arg-type]  # validate() names a bad version
    )
    try:
        settings.validate()
    except ProfileError as exc:
        raise rebase(
            exc,
            {
                "version": "trimscope.version",
                "model": "trimscope.model",
                "context_window": "provider.context_window",
                "provider_model": "provider.model",
                "history_pruning_enabled": f"{pruning_path}.enabled",
                "history_pruning_max_tokens": f"{pruning_path}.max_tokens",
            },
            base,
        ) from exc
    return Loaded(settings)


def dump(loaded: Loaded[ZeroClawSettings]) -> dict[str, JSON]:
    s = loaded.settings
    rp: dict[str, JSON] = {
        "max_tool_iterations": s.max_tool_iterations,
        "max_tool_result_chars": s.max_tool_result_chars,
    }
    if s.max_context_tokens is not None:
        rp["max_context_tokens"] = s.max_context_tokens
    if s.context_compact_ratio is not None:
        rp["context_compact_ratio"] = s.context_compact_ratio
    if s.max_history_messages is not None:
        rp["max_history_messages"] = s.max_history_messages
    rp["history_pruning"] = {"enabled": s.history_pruning_enabled, "max_tokens": s.history_pruning_max_tokens}
    meta: dict[str, JSON] = {"runtime": "zeroclaw", "version": s.version}
    doc: dict[str, JSON] = {"trimscope": meta, "runtime_profiles": {"default": rp}}
    provider: dict[str, JSON] = {}
    if s.provider_model is not None:
        provider["model"] = s.provider_model
    if s.context_window is not None:
        provider["context_window"] = s.context_window
    if provider:
        doc["provider"] = provider
    if s.model is not None and s.model != s.provider_model:
        meta["model"] = s.model
    return doc
