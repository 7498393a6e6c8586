"""OpenClaw profile documents: ``[agents.defaults]`` ``contextTokens``/``contextPruning``, the model route.

A bare top-level ``contextPruning`` block is read too. ``[model]`` is the route a transcript that does not
record its own is replayed with: ``contextWindow``, ``provider``, ``id``, ``api``, ``baseUrl``,
``contextTokens``, ``maxTokens``, ``params`` (the model's ``params``: 2026.9.6's provider-side compaction
switches). ``[trimscope]`` holds what is not an OpenClaw config key: ``version`` (``2026.7.1`` or
``2026.9.6``), ``auth`` (``api_key``/``oauth``), ``contextTokenBudget`` (a run's budget),
``compactionSummaryTokens`` and ``modelCompaction`` (the stand-in summary after a provider-side compaction).

Without ``trimscope.version`` the config's schema picks the version when it can
(:func:`~simulator.runtimes.openclaw.versions.detect_config_version`: ``agents.entries`` is 2026.9.6,
``agents.list`` or a retired key is 2026.7.1); otherwise 2026.7.1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtime_spec import Loaded
from simulator.runtimes.openclaw.settings import OPENCLAW_VERSION_KEYS, OpenClawSettings, RouteConfig
from simulator.runtimes.openclaw.versions import detect_config_version
from simulator.specs._fields import integer, obj


def detect(doc: Mapping[str, JSON]) -> bool:
    agents = obj(doc.get("agents"), "agents")
    return "contextPruning" in doc or "contextPruning" in obj(agents.get("defaults"), "agents.defaults")


def _opt_text(value: JSON, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ProfileError(path, "must be a string")


def _opt_bool(value: JSON, path: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ProfileError(path, "must be true or false")


def _version(doc: Mapping[str, JSON], meta: dict[str, JSON]) -> str:
    explicit = meta.get("version")
    if explicit is None:
        return detect_config_version(dict(doc)) or OPENCLAW_VERSION_KEYS[0]
    if not isinstance(explicit, str) or explicit not in OPENCLAW_VERSION_KEYS:
        raise ProfileError(
            "trimscope.version",
            f"unknown OpenClaw version {explicit!r}",
            allowed=", ".join(OPENCLAW_VERSION_KEYS),
        )
    return explicit


def _route(model: dict[str, JSON], meta: dict[str, JSON]) -> RouteConfig:
    params = obj(model.get("params"), "model.params")
    return RouteConfig(
        provider=_opt_text(model.get("provider"), "model.provider"),
        model_id=_opt_text(model.get("id"), "model.id"),
        api=_opt_text(model.get("api"), "model.api"),
        base_url=_opt_text(model.get("baseUrl"), "model.baseUrl"),
        context_tokens=integer(model.get("contextTokens"), "model.contextTokens", minimum=1),
        max_tokens=integer(model.get("maxTokens"), "model.maxTokens", minimum=1),
        params=tuple(sorted(params.items())),
        auth=_opt_text(meta.get("auth"), "trimscope.auth"),
        context_token_budget=integer(
            meta.get("contextTokenBudget"), "trimscope.contextTokenBudget", minimum=1
        ),
        compaction_summary_tokens=integer(
            meta.get("compactionSummaryTokens"), "trimscope.compactionSummaryTokens", minimum=0
        ),
        model_compaction=_opt_bool(meta.get("modelCompaction"), "trimscope.modelCompaction"),
    )


def load(doc: Mapping[str, JSON]) -> Loaded[OpenClawSettings]:
    agents = obj(doc.get("agents"), "agents")
    defaults = obj(agents.get("defaults"), "agents.defaults")
    meta = obj(doc.get("trimscope"), "trimscope")
    block = defaults.get("contextPruning", doc.get("contextPruning"))
    model = obj(doc.get("model"), "model")
    settings = OpenClawSettings.from_json(
        block, model_context_window=model.get("contextWindow"), context_tokens=defaults.get("contextTokens")
    )
    settings = replace(settings, version=_version(doc, meta), route=_route(model, meta))
    settings.validate()
    return Loaded(settings)


def _put(out: dict[str, JSON], key: str, value: JSON) -> None:
    if value is not None:
        out[key] = value


def dump(loaded: Loaded[OpenClawSettings]) -> dict[str, JSON]:
    s = loaded.settings
    r = s.route
    defaults: dict[str, JSON] = {"contextPruning": s.context_pruning_json()}
    if s.context_tokens is not None:
        defaults["contextTokens"] = s.context_tokens
    meta: dict[str, JSON] = {"runtime": "openclaw", "version": s.version}
    _put(meta, "auth", r.auth)
    _put(meta, "contextTokenBudget", r.context_token_budget)
    _put(meta, "compactionSummaryTokens", r.compaction_summary_tokens)
    _put(meta, "modelCompaction", r.model_compaction)
    doc: dict[str, JSON] = {"trimscope": meta, "agents": {"defaults": defaults}}
    model: dict[str, JSON] = {}
    _put(model, "contextWindow", s.model_context_window)
    _put(model, "provider", r.provider)
    _put(model, "id", r.model_id)
    _put(model, "api", r.api)
    _put(model, "baseUrl", r.base_url)
    _put(model, "contextTokens", r.context_tokens)
    _put(model, "maxTokens", r.max_tokens)
    if r.params:
        model["params"] = dict(r.params)
    if model:
        doc["model"] = model
    return doc
