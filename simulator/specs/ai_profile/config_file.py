"""ai-profile's own JSON shapes as profiles: the ``TokenLimits`` wire form and ``spec/presets.json``.

Source: bkywksj/ai-profile (0.1.7), ``crates/ai-profile/src/limits.rs`` and ``spec/presets.json``
(``cargo xtask gen-spec`` output, crate 0.1.6):

* ``TokenLimits`` serializes camelCase: ``contextWindow``, ``maxOutput``, ``source``,
  ``contextWindowSource``, ``maxOutputSource``; sources are ``"user"``, ``"endpoint"``, ``"preset"``
  (serde refuses any other value). Each value goes to the layer its own ``*Source`` names (else
  ``source``), so a limits object copied from a running app lands in the layer it came from. It is
  read alone or wrapped as ``{"id": …, "limits": {…}}`` (the profile is then named by ``id``).
* ``presets.json`` (``{"presets": [...]}``, a list of presets, or one preset): one profile per chat
  preset (``kind == "chat"``) named by its ``key``; the preset's default ``model`` is looked up in its
  ``models`` list and that entry's ``contextWindow``/``maxOutput`` form the preset layer. A model
  with a null ``contextWindow`` leaves the window unknown: ai-profile then trims nothing up front
  and relies on the overflow retry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace

from simulator.config_keys import ConfigFile, KeptCollector, check_keys, join, table
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.profiles import Profile, profile_from_document

RUNTIME = "ai-profile"
LIMIT_KEYS = frozenset({"contextWindow", "maxOutput", "source", "contextWindowSource", "maxOutputSource"})
SOURCES = ("user", "endpoint", "preset")
PRESET_KEYS = frozenset(
    [
        "applyUrl",
        "baseUrl",
        "defaultExtra",
        "extraFields",
        "groupKey",
        "groupLabel",
        "hint",
        "hintKey",
        "isLocal",
        "key",
        "kind",
        "label",
        "labelKey",
        "matchHosts",
        "model",
        "models",
        "protocol",
        "thinkingOff",
        "vendorId",
        "verifiedAt",
    ]
)
PRESET_MODEL_KEYS = frozenset({"value", "label", "contextWindow", "maxOutput"})


def is_limits(value: JSON) -> bool:
    return isinstance(value, dict) and bool(value.keys() & {"contextWindow", "maxOutput"})


def is_preset(value: JSON) -> bool:
    return isinstance(value, dict) and "key" in value and "models" in value


def _source(value: JSON, path: str) -> str | None:
    if value is None:
        return None
    if value not in SOURCES:
        raise ProfileError(
            path, f"unknown limit source {json.dumps(value)} (serde refuses it)", allowed=", ".join(SOURCES)
        )
    assert isinstance(value, str)
    return value


def _limits_profile(limits: Mapping[str, JSON], path: str, name: str, kept: KeptCollector) -> Profile:
    check_keys(limits, path, LIMIT_KEYS, RUNTIME)
    warnings: list[str] = []
    overall = _source(limits.get("source"), join(path, "source"))
    layers: dict[str, dict[str, JSON]] = {}
    for key, source_key in (("contextWindow", "contextWindowSource"), ("maxOutput", "maxOutputSource")):
        value = limits.get(key)
        if value is None:
            continue
        layer = _source(limits.get(source_key), join(path, source_key)) or overall
        if layer is None:
            layer = "user"
            warnings.append(f"{join(path, key)} has no source: read as the user layer (it has no other)")
        layers.setdefault(layer, {})[key] = value
    document: dict[str, JSON] = {"trimscope": {"runtime": "ai_profile"}, "limits": dict(layers)}
    paths = {f"limits.{la}.{k}": join(path, k) for la in SOURCES for k in ("contextWindow", "maxOutput")}
    return _built(document, name, kept, warnings, paths)


def _built(
    document: dict[str, JSON],
    name: str,
    kept: KeptCollector,
    warnings: list[str],
    paths: Mapping[str, str],
) -> Profile:
    try:
        profile = profile_from_document(document, name=name)
    except ProfileError as exc:
        raise ProfileError(paths.get(exc.field, exc.field), exc.problem, allowed=exc.allowed) from exc
    return replace(profile, source=name, kept=kept.keys(), warnings=(*warnings, *kept.warnings()))


def _preset_profile(preset: Mapping[str, JSON], path: str) -> Profile | str:
    """A chat preset's profile, or (not a chat preset) why there is none."""
    key = preset.get("key")
    if not isinstance(key, str) or not key:
        raise ProfileError(join(path, "key"), "is required", allowed="the preset's key")
    if preset.get("kind", "chat") != "chat":
        return f"preset {key!r} is a {preset.get('kind')} preset: no chat history, no profile"
    check_keys(preset, path, PRESET_KEYS, RUNTIME)
    kept = KeptCollector()
    kept.keep_rest(preset, path, ("key",))
    models = preset.get("models")
    default = preset.get("model")
    warnings: list[str] = []
    entry: dict[str, JSON] = {}
    entry_path = ""
    for index, item in enumerate(models if isinstance(models, list) else []):
        model = table(item, f"{path}.models[{index}]")
        check_keys(model, f"{path}.models[{index}]", PRESET_MODEL_KEYS, RUNTIME)
        if model.get("value") == default:
            entry, entry_path = model, f"{path}.models[{index}]"
            break
    if not entry_path:
        warnings.append(
            f"preset {key!r}: default model {default!r} is not in its models list: window unknown"
        )
    layer = {k: entry[k] for k in ("contextWindow", "maxOutput") if entry.get(k) is not None}
    if entry_path and "contextWindow" not in layer:
        warnings.append(
            f"preset {key!r}: default model {default!r} has no contextWindow: ai-profile trims nothing "
            "up front and relies on the overflow retry"
        )
    document: dict[str, JSON] = {"trimscope": {"runtime": "ai_profile"}, "limits": {"preset": dict(layer)}}
    paths = {f"limits.preset.{k}": join(entry_path, k) for k in ("contextWindow", "maxOutput")}
    return _built(document, key, kept, warnings, paths)


def read_ai_profile_config(doc: JSON, *, default_name: str = "limits") -> ConfigFile:
    """A ``TokenLimits`` (alone or as ``{id, limits}``) or presets JSON as profiles.

    Args:
        doc: The parsed JSON.
        default_name: The name of a bare ``TokenLimits`` profile (it has no id of its own).

    Raises:
        ProfileError: for an unknown key or source value (with a did-you-mean), naming its path.
    """
    if isinstance(doc, dict) and "presets" in doc or isinstance(doc, list) or is_preset(doc):
        return _presets(doc)
    body = table(doc, "(document)")
    kept = KeptCollector()
    if is_limits(body):
        profile = _limits_profile(body, "", default_name, kept)
        return ConfigFile("ai_profile", "ai-profile TokenLimits", (profile,), (), ())
    name = body.get("id")
    if not isinstance(name, str) or not name:
        raise ProfileError("id", "is required next to limits", allowed="the limits' id (the profile's name)")
    kept.keep_rest(body, "", ("id", "limits"))
    profile = _limits_profile(table(body.get("limits"), "limits"), "limits", name, kept)
    kept_paths = tuple(k.path for k in profile.kept)
    return ConfigFile("ai_profile", "ai-profile TokenLimits ({id, limits})", (profile,), (), kept_paths)


def _presets(doc: JSON) -> ConfigFile:
    file_kept: tuple[str, ...] = ()
    if isinstance(doc, dict) and "presets" in doc:
        # The file's other parts (crateVersion, the per-vendor catalogue...) describe, not configure.
        file_kept = tuple(k for k in doc if k != "presets")
        items, base = doc.get("presets"), "presets"
    elif isinstance(doc, list):
        items, base = doc, ""
    else:
        items, base = [doc], ""
    if not isinstance(items, list):
        raise ProfileError("presets", "must be a list of presets", allowed="a list")
    profiles: list[Profile] = []
    notes: list[str] = []
    for index, item in enumerate(items):
        path = f"{base}[{index}]" if len(items) > 1 or base else ""
        built = _preset_profile(table(item, path or "(document)"), path)
        if isinstance(built, str):
            notes.append(built)
        else:
            profiles.append(built)
    if not profiles:
        raise ProfileError("presets", "has no chat preset", allowed='presets with kind "chat"')
    kept = tuple(dict.fromkeys([*file_kept, *(k.path for p in profiles for k in p.kept)]))
    return ConfigFile("ai_profile", "ai-profile presets.json", tuple(profiles), tuple(notes), kept)
