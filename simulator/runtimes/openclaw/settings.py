"""Context-pruning settings: the ``contextPruning`` config block and its effective form.

Upstream (openclaw@2026.7.1): ``src/agents/agent-hooks/context-pruning/settings.ts``
(``DEFAULT_CONTEXT_PRUNING_SETTINGS``, ``computeEffectiveSettings``), the zod schema in
``src/config/zod-schema*.ts`` (strict ``contextPruning`` object), ``src/agents/context-window-guard.ts``
and ``src/agents/defaults.ts`` (``DEFAULT_CONTEXT_TOKENS = 200000``).

Two shapes are modelled:

* :class:`OpenClawSettings` is what a user writes (``agents.defaults.contextPruning`` plus the model
  window and ``agents.defaults.contextTokens``); :meth:`OpenClawSettings.validate` mirrors the zod
  constraints and raises :class:`~simulator.errors.ProfileError`.
* :class:`EffectivePruningSettings` is what the pruner consumes. :func:`compute_effective_settings`
  builds it with OpenClaw's defaults and clamping; the pruner never re-clamps, so effective settings
  given directly (as upstream tests do, e.g. ``softTrimRatio: 10``) are used as they are.

Deliberate divergences: the context-window resolution covers the model's own ``contextTokens`` /
``contextWindow`` and the ``agents.defaults.contextTokens`` cap, not per-provider model overrides
(``models.providers.<p>.models[]``), which the caller resolves into ``model_context_tokens``.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Final

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.duration import DurationError, parse_duration_ms
from simulator.runtimes.openclaw.jsstr import js_number_out, js_trim

DEFAULT_CONTEXT_TOKENS: Final = 200_000
DEFAULT_TTL_MS: Final = 5 * 60 * 1000
DEFAULT_PLACEHOLDER: Final = "[Old tool result content cleared]"
PRUNING_MODES: Final = ("off", "cache-ttl")


@dataclass(frozen=True, slots=True)
class SoftTrimSettings:
    """``softTrim``: results longer than ``max_chars`` keep ``head_chars`` + ``tail_chars``."""

    max_chars: float = 4_000
    head_chars: float = 1_500
    tail_chars: float = 1_500


@dataclass(frozen=True, slots=True)
class HardClearSettings:
    """``hardClear``: whether old results may be replaced by ``placeholder``."""

    enabled: bool = True
    placeholder: str = DEFAULT_PLACEHOLDER


@dataclass(frozen=True, slots=True)
class EffectivePruningSettings:
    """``EffectiveContextPruningSettings``: defaults applied, numbers as the pruner sees them.

    ``tools`` is the raw ``{allow?, deny?}`` JSON, kept verbatim because OpenClaw copies it without
    normalising (the predicate normalises when matching).
    """

    mode: str = "cache-ttl"
    ttl_ms: float = DEFAULT_TTL_MS
    keep_last_assistants: float = 3
    soft_trim_ratio: float = 0.3
    hard_clear_ratio: float = 0.5
    min_prunable_tool_chars: float = 50_000
    tools: JSON = field(default_factory=dict)
    soft_trim: SoftTrimSettings = SoftTrimSettings()
    hard_clear: HardClearSettings = HardClearSettings()

    def to_json(self) -> dict[str, JSON]:
        """The effective settings object exactly as OpenClaw would serialise it."""
        return {
            "mode": self.mode,
            "ttlMs": js_number_out(self.ttl_ms),
            "keepLastAssistants": js_number_out(self.keep_last_assistants),
            "softTrimRatio": js_number_out(self.soft_trim_ratio),
            "hardClearRatio": js_number_out(self.hard_clear_ratio),
            "minPrunableToolChars": js_number_out(self.min_prunable_tool_chars),
            "tools": self.tools,
            "softTrim": {
                "maxChars": js_number_out(self.soft_trim.max_chars),
                "headChars": js_number_out(self.soft_trim.head_chars),
                "tailChars": js_number_out(self.soft_trim.tail_chars),
            },
            "hardClear": {"enabled": self.hard_clear.enabled, "placeholder": self.hard_clear.placeholder},
        }

    @staticmethod
    def from_json(raw: JSON) -> EffectivePruningSettings:
        """Read an already-effective settings object (no defaults logic, no clamping).

        Missing or mistyped fields fall back to the defaults.

        Args:
            raw: The settings object as the vectors and OpenClaw's runtime hold it.

        Returns:
            The settings.
        """
        obj = raw if isinstance(raw, dict) else {}
        base = EffectivePruningSettings()
        soft = obj.get("softTrim")
        soft_obj = soft if isinstance(soft, dict) else {}
        hard = obj.get("hardClear")
        hard_obj = hard if isinstance(hard, dict) else {}
        enabled = hard_obj.get("enabled")
        placeholder = hard_obj.get("placeholder")
        mode = obj.get("mode")
        return EffectivePruningSettings(
            mode=mode if isinstance(mode, str) else base.mode,
            ttl_ms=_num(obj.get("ttlMs"), base.ttl_ms),
            keep_last_assistants=_num(obj.get("keepLastAssistants"), base.keep_last_assistants),
            soft_trim_ratio=_num(obj.get("softTrimRatio"), base.soft_trim_ratio),
            hard_clear_ratio=_num(obj.get("hardClearRatio"), base.hard_clear_ratio),
            min_prunable_tool_chars=_num(obj.get("minPrunableToolChars"), base.min_prunable_tool_chars),
            tools=obj.get("tools", {}),
            soft_trim=SoftTrimSettings(
                _num(soft_obj.get("maxChars"), base.soft_trim.max_chars),
                _num(soft_obj.get("headChars"), base.soft_trim.head_chars),
                _num(soft_obj.get("tailChars"), base.soft_trim.tail_chars),
            ),
            hard_clear=HardClearSettings(
                enabled if isinstance(enabled, bool) else base.hard_clear.enabled,
                placeholder if isinstance(placeholder, str) else base.hard_clear.placeholder,
            ),
        )


def _num(value: JSON, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return value


def _finite_number(value: JSON) -> float | None:
    """``typeof x === "number" && Number.isFinite(x)``; strings such as "0.9" do not count."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _non_negative_floor(value: float) -> int:
    return max(0, math.floor(value))


def _clamp_unit(value: float) -> float:
    return min(1, max(0, value))


def compute_effective_settings(raw: JSON) -> EffectivePruningSettings | None:
    """``computeEffectiveSettings``: apply defaults and clamping to a raw ``contextPruning`` block.

    Args:
        raw: The configured block (any JSON).

    Returns:
        None when pruning is off (not an object, or ``mode`` is not exactly ``"cache-ttl"``),
        else the effective settings. An unparseable ``ttl`` silently keeps the 5 minute default.
    """
    if not isinstance(raw, dict) or raw.get("mode") != "cache-ttl":
        return None
    base = EffectivePruningSettings()
    ttl_ms: float = base.ttl_ms
    ttl = raw.get("ttl")
    if isinstance(ttl, str):
        # An unparseable ttl silently keeps the default, as upstream does.
        with contextlib.suppress(DurationError):
            ttl_ms = parse_duration_ms(ttl, "m")
    keep = _finite_number(raw.get("keepLastAssistants"))
    soft_ratio = _finite_number(raw.get("softTrimRatio"))
    hard_ratio = _finite_number(raw.get("hardClearRatio"))
    min_chars = _finite_number(raw.get("minPrunableToolChars"))
    tools = raw.get("tools")
    soft_trim = base.soft_trim
    soft = raw.get("softTrim")
    if isinstance(soft, dict):
        max_chars = _finite_number(soft.get("maxChars"))
        head = _finite_number(soft.get("headChars"))
        tail = _finite_number(soft.get("tailChars"))
        soft_trim = SoftTrimSettings(
            soft_trim.max_chars if max_chars is None else _non_negative_floor(max_chars),
            soft_trim.head_chars if head is None else _non_negative_floor(head),
            soft_trim.tail_chars if tail is None else _non_negative_floor(tail),
        )
    hard_clear = base.hard_clear
    hard = raw.get("hardClear")
    if isinstance(hard, dict):
        enabled = hard.get("enabled")
        placeholder = hard.get("placeholder")
        hard_clear = HardClearSettings(
            enabled if isinstance(enabled, bool) else hard_clear.enabled,
            js_trim(placeholder)
            if isinstance(placeholder, str) and js_trim(placeholder)
            else hard_clear.placeholder,
        )
    return EffectivePruningSettings(
        mode="cache-ttl",
        ttl_ms=ttl_ms,
        keep_last_assistants=base.keep_last_assistants if keep is None else _non_negative_floor(keep),
        soft_trim_ratio=base.soft_trim_ratio if soft_ratio is None else _clamp_unit(soft_ratio),
        hard_clear_ratio=base.hard_clear_ratio if hard_ratio is None else _clamp_unit(hard_ratio),
        min_prunable_tool_chars=base.min_prunable_tool_chars
        if min_chars is None
        else _non_negative_floor(min_chars),
        # JS truthiness: any non-empty value replaces the default wholesale.
        tools=tools if _js_truthy(tools) else base.tools,
        soft_trim=soft_trim,
        hard_clear=hard_clear,
    )


def _js_truthy(value: JSON) -> bool:
    if isinstance(value, dict | list):
        return True
    return bool(value)


def resolve_context_window_tokens(
    model_context_tokens: float | None = None,
    model_context_window: float | None = None,
    agents_context_tokens: float | None = None,
) -> int:
    """The window (tokens) OpenClaw passes to the pruner as ``contextWindowTokensOverride``.

    Args:
        model_context_tokens: The model entry's ``contextTokens``, if any.
        model_context_window: The model's ``contextWindow``, if any.
        agents_context_tokens: ``agents.defaults.contextTokens``; caps the window when smaller.

    Returns:
        The first positive of (``contextTokens``, ``contextWindow``, 200000), floored, then capped.
    """
    window = DEFAULT_CONTEXT_TOKENS
    for candidate in (model_context_tokens, model_context_window):
        if candidate is not None and math.isfinite(candidate) and math.floor(candidate) > 0:
            window = math.floor(candidate)
            break
    if agents_context_tokens is not None and math.isfinite(agents_context_tokens):
        cap = math.floor(agents_context_tokens)
        if 0 < cap < window:
            window = cap
    return window


@dataclass(frozen=True, slots=True)
class SoftTrimConfig:
    """``contextPruning.softTrim`` as configured (all optional)."""

    maxChars: int | None = None
    headChars: int | None = None
    tailChars: int | None = None


@dataclass(frozen=True, slots=True)
class HardClearConfig:
    """``contextPruning.hardClear`` as configured (all optional)."""

    enabled: bool | None = None
    placeholder: str | None = None


@dataclass(frozen=True, slots=True)
class ToolsConfig:
    """``contextPruning.tools`` as configured: glob lists (``*`` wildcard, deny wins)."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] | None = None


OPENCLAW_VERSION_KEYS: Final = ("2026.7.1", "2026.9.6")
AUTH_MODES: Final = ("api_key", "oauth")


@dataclass(frozen=True, slots=True)
class RouteConfig:
    """The profile's model route and run inputs: what a transcript that does not record them uses.

    ``provider``/``model_id``/``api``/``base_url`` and the model's ``contextTokens``/``maxTokens`` describe
    the route (``models.providers.<p>.models[]`` upstream); ``params`` are the model's ``params`` (2026.9.6's
    provider-side compaction switches and thresholds); ``auth`` is how the route authenticates;
    ``context_token_budget`` is a run's ``contextTokenBudget``. ``compaction_summary_tokens`` and
    ``model_compaction`` are Trimscope's: the size of the stand-in summary after a provider-side compaction,
    and whether later calls send it (False: only mark the point).
    """

    provider: str | None = None
    model_id: str | None = None
    api: str | None = None
    base_url: str | None = None
    context_tokens: int | None = None
    max_tokens: int | None = None
    params: tuple[tuple[str, JSON], ...] = ()
    auth: str | None = None
    context_token_budget: int | None = None
    compaction_summary_tokens: int | None = None
    model_compaction: bool | None = None

    def validate(self) -> None:
        """Ranges and choices.

        Raises:
            ProfileError: naming the field.
        """
        _check_int("model.contextTokens", self.context_tokens, 1)
        _check_int("model.maxTokens", self.max_tokens, 1)
        _check_int("trimscope.contextTokenBudget", self.context_token_budget, 1)
        _check_int("trimscope.compactionSummaryTokens", self.compaction_summary_tokens, 0)
        if self.auth is not None and self.auth not in AUTH_MODES:
            raise ProfileError("trimscope.auth", f"unknown auth {self.auth!r}", allowed="api_key, oauth")

    def is_default(self) -> bool:
        return self == RouteConfig()


@dataclass(frozen=True, slots=True)
class OpenClawSettings:
    """A user's OpenClaw pruning profile: ``agents.defaults.contextPruning`` plus the window inputs.

    Field names follow OpenClaw's config keys so a profile reads like the JSON it came from.
    """

    mode: str | None = None
    ttl: str | None = None
    keepLastAssistants: int | None = None
    softTrimRatio: float | None = None
    hardClearRatio: float | None = None
    minPrunableToolChars: int | None = None
    softTrim: SoftTrimConfig = SoftTrimConfig()
    hardClear: HardClearConfig = HardClearConfig()
    tools: ToolsConfig = ToolsConfig()
    model_context_window: int | None = None
    context_tokens: int | None = None
    version: str = "2026.7.1"
    """The OpenClaw version the profile targets (``trimscope.version``)."""
    route: RouteConfig = field(default_factory=lambda: RouteConfig())
    """The model route used when the transcript does not record its provider/model."""

    def validate(self) -> None:
        """Check the zod constraints of OpenClaw's config schema.

        Raises:
            ProfileError: naming the first bad field and its allowed values.
        """
        if self.mode is not None and self.mode not in PRUNING_MODES:
            raise ProfileError(
                "contextPruning.mode", f"unknown mode {self.mode!r}", allowed='"off" | "cache-ttl"'
            )
        if self.ttl is not None:
            try:
                parse_duration_ms(self.ttl, "m")
            except DurationError as exc:
                # Upstream accepts any string and silently falls back to 5m; a profile should not.
                raise ProfileError(
                    "contextPruning.ttl", str(exc), allowed="duration like 5m, 1h, 1h30m"
                ) from exc
        _check_int("contextPruning.keepLastAssistants", self.keepLastAssistants, 0)
        _check_ratio("contextPruning.softTrimRatio", self.softTrimRatio)
        _check_ratio("contextPruning.hardClearRatio", self.hardClearRatio)
        _check_int("contextPruning.minPrunableToolChars", self.minPrunableToolChars, 0)
        _check_int("contextPruning.softTrim.maxChars", self.softTrim.maxChars, 0)
        _check_int("contextPruning.softTrim.headChars", self.softTrim.headChars, 0)
        _check_int("contextPruning.softTrim.tailChars", self.softTrim.tailChars, 0)
        _check_int("model.contextWindow", self.model_context_window, 1)
        _check_int("agents.defaults.contextTokens", self.context_tokens, 1)
        if self.version not in OPENCLAW_VERSION_KEYS:
            raise ProfileError(
                "trimscope.version",
                f"unknown OpenClaw version {self.version!r}",
                allowed=", ".join(OPENCLAW_VERSION_KEYS),
            )
        if self.version != "2026.7.1":
            for key, value in self.retired_values():
                if value is not None:
                    raise ProfileError(
                        f"contextPruning.{key}",
                        f"retired in OpenClaw {self.version} (its built-in default applies)",
                        allowed="mode, ttl, tools, hardClear",
                    )
        self.route.validate()

    def retired_values(self) -> tuple[tuple[str, object], ...]:
        """The ``contextPruning`` keys OpenClaw 2026.9.6 retired, with this profile's values."""
        soft = self.softTrim
        soft_set = None if soft == SoftTrimConfig() else soft
        return (
            ("keepLastAssistants", self.keepLastAssistants),
            ("softTrimRatio", self.softTrimRatio),
            ("hardClearRatio", self.hardClearRatio),
            ("minPrunableToolChars", self.minPrunableToolChars),
            ("softTrim", soft_set),
        )

    def context_pruning_json(self) -> dict[str, JSON]:
        """The ``contextPruning`` block as OpenClaw config JSON (unset keys omitted)."""
        out: dict[str, JSON] = {}
        for key, value in (
            ("mode", self.mode),
            ("ttl", self.ttl),
            ("keepLastAssistants", self.keepLastAssistants),
            ("softTrimRatio", self.softTrimRatio),
            ("hardClearRatio", self.hardClearRatio),
            ("minPrunableToolChars", self.minPrunableToolChars),
        ):
            if value is not None:
                out[key] = value
        tools: dict[str, JSON] = {}
        if self.tools.allow is not None:
            tools["allow"] = list(self.tools.allow)
        if self.tools.deny is not None:
            tools["deny"] = list(self.tools.deny)
        if tools:
            out["tools"] = tools
        soft = {
            k: v
            for k, v in (
                ("maxChars", self.softTrim.maxChars),
                ("headChars", self.softTrim.headChars),
                ("tailChars", self.softTrim.tailChars),
            )
            if v is not None
        }
        if soft:
            out["softTrim"] = dict(soft)
        hard: dict[str, JSON] = {}
        if self.hardClear.enabled is not None:
            hard["enabled"] = self.hardClear.enabled
        if self.hardClear.placeholder is not None:
            hard["placeholder"] = self.hardClear.placeholder
        if hard:
            out["hardClear"] = hard
        return out

    def effective(self) -> EffectivePruningSettings | None:
        """The effective settings OpenClaw derives (None when pruning is off)."""
        return compute_effective_settings(self.context_pruning_json())

    def context_window_tokens(self) -> int:
        """The window override the runtime passes to the pruner (200000 default, capped)."""
        return resolve_context_window_tokens(None, self.model_context_window, self.context_tokens)

    @staticmethod
    def from_json(
        context_pruning: JSON, *, model_context_window: JSON = None, context_tokens: JSON = None
    ) -> OpenClawSettings:
        """Read a ``contextPruning`` block with the strict schema's key and type rules.

        Args:
            context_pruning: The block (``None`` means not configured).
            model_context_window: The model's ``contextWindow``.
            context_tokens: ``agents.defaults.contextTokens``.

        Returns:
            The profile (call :meth:`validate` for range checks).

        Raises:
            ProfileError: for unknown keys or wrong JSON types.
        """
        obj = _strict_object("contextPruning", context_pruning, _TOP_KEYS)
        soft = _strict_object(
            "contextPruning.softTrim", obj.get("softTrim"), ("maxChars", "headChars", "tailChars")
        )
        hard = _strict_object("contextPruning.hardClear", obj.get("hardClear"), ("enabled", "placeholder"))
        tools = _strict_object("contextPruning.tools", obj.get("tools"), ("allow", "deny"))
        return OpenClawSettings(
            mode=_opt_str("contextPruning.mode", obj.get("mode")),
            ttl=_opt_str("contextPruning.ttl", obj.get("ttl")),
            keepLastAssistants=_opt_int("contextPruning.keepLastAssistants", obj.get("keepLastAssistants")),
            softTrimRatio=_opt_float("contextPruning.softTrimRatio", obj.get("softTrimRatio")),
            hardClearRatio=_opt_float("contextPruning.hardClearRatio", obj.get("hardClearRatio")),
            minPrunableToolChars=_opt_int(
                "contextPruning.minPrunableToolChars", obj.get("minPrunableToolChars")
            ),
            softTrim=SoftTrimConfig(
                _opt_int("contextPruning.softTrim.maxChars", soft.get("maxChars")),
                _opt_int("contextPruning.softTrim.headChars", soft.get("headChars")),
                _opt_int("contextPruning.softTrim.tailChars", soft.get("tailChars")),
            ),
            hardClear=HardClearConfig(
                _opt_bool("contextPruning.hardClear.enabled", hard.get("enabled")),
                _opt_str("contextPruning.hardClear.placeholder", hard.get("placeholder")),
            ),
            tools=ToolsConfig(
                _opt_str_list("contextPruning.tools.allow", tools.get("allow")),
                _opt_str_list("contextPruning.tools.deny", tools.get("deny")),
            ),
            model_context_window=_opt_int("model.contextWindow", model_context_window),
            context_tokens=_opt_int("agents.defaults.contextTokens", context_tokens),
        )


_TOP_KEYS: Final = (
    "mode",
    "ttl",
    "keepLastAssistants",
    "softTrimRatio",
    "hardClearRatio",
    "minPrunableToolChars",
    "tools",
    "softTrim",
    "hardClear",
)


def _strict_object(name: str, value: JSON, keys: tuple[str, ...]) -> dict[str, JSON]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProfileError(name, "must be an object")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise ProfileError(f"{name}.{unknown[0]}", "unknown key", allowed=", ".join(keys))
    return value


def _opt_str(name: str, value: JSON) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ProfileError(name, "must be a string")


def _opt_bool(name: str, value: JSON) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ProfileError(name, "must be a boolean")


def _opt_int(name: str, value: JSON) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(name, "must be an integer")
    return value


def _opt_float(name: str, value: JSON) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProfileError(name, "must be a number")
    return value


def _opt_str_list(name: str, value: JSON) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProfileError(name, "must be a list of strings")
    return tuple(v for v in value if isinstance(v, str))


def _check_int(name: str, value: int | None, minimum: int) -> None:
    if value is not None and value < minimum:
        raise ProfileError(name, f"must be >= {minimum}, got {value}", allowed=f"integer >= {minimum}")


def _check_ratio(name: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and 0 <= value <= 1):
        raise ProfileError(name, f"must be between 0 and 1, got {value}", allowed="number in [0, 1]")
