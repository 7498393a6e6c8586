"""What the whole-config readers share: the result type, key checks with a did-you-mean, kept keys.

A runtime's config file holds far more than Trimscope models. Every key is accounted for: a modelled
key becomes a knob, a key the runtime knows but Trimscope does not model is *kept* (listed by its
dotted path, its value carried in the profile so an export gives it back), and a key the runtime
itself does not know is an error naming it, with the closest known key when one is close
(``difflib``, the stdlib's fuzzy matcher).

Secret values (API keys, tokens, passwords) are listed as kept but their values are not carried:
an operator pasting a whole config into a dashboard does not expect their credentials stored there.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.profiles import KeptKey, Profile

SECRET_PLACEHOLDER = "(secret, not stored by Trimscope)"
# Key names whose values are credentials in ZeroClaw (`#[secret]` fields), OpenClaw (`sensitive`) and
# ai-profile presets.
_SECRET_KEY = re.compile(
    r"(^|_)(api_?key|apikey|token|secret|password|app_password|access_token|bot_token|refresh_token|"
    r"client_secret|encrypt_key|webhook_key|shared_secret|auth_token)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """Everything one config file yields.

    Attributes:
        runtime: The runtime whose config this is.
        shape: What the file was read as, e.g. ``"ZeroClaw config.toml (schema 1, migrated to 3)"``.
        profiles: One profile per agent, runtime profile or preset, named after it.
        warnings: What the runtime would do that an operator should know (file-wide).
        kept: Every key path the file has that Trimscope does not model.
    """

    runtime: str
    shape: str
    profiles: tuple[Profile, ...]
    warnings: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.profiles)

    def select(self, name: str) -> Profile:
        """The profile called ``name`` (an agent, runtime profile or preset key).

        Raises:
            ProfileError: naming the choices, with the closest one when it is close.
        """
        for profile in self.profiles:
            if profile.name == name:
                return profile
        raise ProfileError(
            f"#{name}",
            f"no agent, runtime profile or preset here is called {name!r}" + did_you_mean(name, self.names()),
            allowed=", ".join(self.names()) or "(the file yields no profile)",
        )


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` when a known key is close to ``key``, else ``""``."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_key_error(path: str, key: str, known: Iterable[str], runtime: str) -> ProfileError:
    known = sorted(known)
    allowed = ", ".join(known) if len(known) <= 24 else f"a key of {runtime}'s config schema"
    return ProfileError(
        f"{path}.{key}" if path else key,
        f"{runtime} has no such key{did_you_mean(key, known)}",
        allowed=allowed,
    )


def check_keys(table: Mapping[str, JSON], path: str, known: Iterable[str], runtime: str) -> None:
    """Refuse the first key of ``table`` that ``known`` does not list."""
    known_set = set(known)
    for key in table:
        if key not in known_set:
            raise unknown_key_error(path, key, known_set, runtime)


def close_to(key: str, candidates: Iterable[str]) -> str | None:
    """A modelled key that ``key`` is probably a typo of (stricter cutoff: used to refuse open tables)."""
    if key in candidates:
        return None
    close = difflib.get_close_matches(key, list(candidates), n=1, cutoff=0.8)
    return close[0] if close else None


def table(value: JSON, path: str) -> dict[str, JSON]:
    """``value`` as a table; absent is empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProfileError(path, f"must be a table/object, got {json.dumps(value)[:60]}", allowed="a table")
    return value


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@dataclass(slots=True)
class KeptCollector:
    """Collects kept keys (path → value), masking secrets; ``order`` keeps the file's order."""

    kept: dict[str, JSON] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)

    def keep(self, path: str, value: JSON) -> None:
        self.kept[path] = _mask(path, value, self.secrets)

    def keep_rest(
        self,
        table_: Mapping[str, JSON],
        path: str,
        modelled: Iterable[str],
        where: Callable[[str], str] = str,
    ) -> None:
        """Keep every key of ``table_`` but ``modelled``; ``where`` maps a path to the file's own."""
        skip = set(modelled)
        for key, value in table_.items():
            if key not in skip:
                self.keep(where(join(path, key)), value)

    def keys(self) -> tuple[KeptKey, ...]:
        return tuple(KeptKey(p, v) for p, v in self.kept.items())

    def warnings(self) -> tuple[str, ...]:
        if not self.secrets:
            return ()
        shown = ", ".join(self.secrets[:4]) + (" …" if len(self.secrets) > 4 else "")
        return (f"{len(self.secrets)} secret value(s) not stored ({shown}): export gives a placeholder",)


def _mask(path: str, value: JSON, secrets: list[str]) -> JSON:
    leaf = path.rsplit(".", 1)[-1]
    if _SECRET_KEY.search(leaf) and isinstance(value, str) and value:
        secrets.append(path)
        return SECRET_PLACEHOLDER
    if isinstance(value, dict):
        return {k: _mask(join(path, k), v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(path, v, secrets) for v in value]
    return value


def as_json(value: object, path: str = "") -> JSON:
    """A parser's output as :data:`JSON`, refusing what JSON cannot hold (NaN, Infinity, dates).

    Raises:
        ProfileError: at the key path of the first value that has no JSON form.
    """
    if isinstance(value, dict):
        return {str(k): as_json(v, join(path, str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v, path) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ProfileError(path or "(document)", f"is {value}", allowed="a finite number")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ProfileError(path or "(document)", f"is a {type(value).__name__} ({value})", allowed="a JSON value")
