"""OpenClaw profile documents: ``[agents.defaults]`` ``contextTokens`` and ``contextPruning``.

A bare top-level ``contextPruning`` block is read too; ``[model] contextWindow`` is the model's window.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.jsonvalue import JSON
from simulator.runtime_spec import Loaded
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.specs._fields import obj


def detect(doc: Mapping[str, JSON]) -> bool:
    agents = obj(doc.get("agents"), "agents")
    return "contextPruning" in doc or "contextPruning" in obj(agents.get("defaults"), "agents.defaults")


def load(doc: Mapping[str, JSON]) -> Loaded[OpenClawSettings]:
    agents = obj(doc.get("agents"), "agents")
    defaults = obj(agents.get("defaults"), "agents.defaults")
    block = defaults.get("contextPruning", doc.get("contextPruning"))
    model = obj(doc.get("model"), "model")
    settings = OpenClawSettings.from_json(
        block, model_context_window=model.get("contextWindow"), context_tokens=defaults.get("contextTokens")
    )
    settings.validate()
    return Loaded(settings)


def dump(loaded: Loaded[OpenClawSettings]) -> dict[str, JSON]:
    s = loaded.settings
    defaults: dict[str, JSON] = {"contextPruning": s.context_pruning_json()}
    if s.context_tokens is not None:
        defaults["contextTokens"] = s.context_tokens
    doc: dict[str, JSON] = {"trimscope": {"runtime": "openclaw"}, "agents": {"defaults": defaults}}
    if s.model_context_window is not None:
        doc["model"] = {"contextWindow": s.model_context_window}
    return doc
