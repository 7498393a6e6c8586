"""Profile writes. Every write validates through ``simulator.profiles`` first, so a bad document raises
:class:`~simulator.errors.ProfileError` and nothing is stored; ``settings`` always holds the canonical
document and ``runtime`` comes from the parsed profile.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from django.db import IntegrityError, transaction

from dashboard.errors import ApplicationError
from dashboard.models import Profile
from dashboard.selectors.profiles import profile_config_read
from simulator import (
    CONFIG_SYNTAXES,
    JSON,
    ConfigSyntax,
    ProfileError,
    profile_from_document,
    profile_to_document,
)

NAME_MAX = 120
DESCRIPTION_MAX = 400
SYNTAXES = CONFIG_SYNTAXES


class ProfileNameTaken(ProfileError, ApplicationError):
    """Another profile already has this name (409); a ``ProfileError`` too, so forms show it by its field."""

    status = 409

    def __init__(self, name: str) -> None:
        super().__init__("name", f"{name!r} is already taken", allowed="a name no other profile uses")


def _clean_name(name: str) -> str:
    cleaned = name.strip()
    allowed = f"1 to {NAME_MAX} printable characters"
    if not cleaned:
        raise ProfileError("name", "is required", allowed=allowed)
    if len(cleaned) > NAME_MAX:
        raise ProfileError("name", f"is {len(cleaned)} characters long", allowed=allowed)
    # The name is written into the TOML export's header comment; a line break there would end the comment.
    if any(unicodedata.category(c).startswith("C") for c in cleaned):
        raise ProfileError("name", "contains a line break or control character", allowed=allowed)
    return cleaned


def _clean_description(description: str) -> str:
    cleaned = description.strip()
    if len(cleaned) > DESCRIPTION_MAX:
        raise ProfileError(
            "description", f"is {len(cleaned)} characters long", allowed=f"up to {DESCRIPTION_MAX} characters"
        )
    return cleaned


def _save(profile: Profile) -> Profile:
    try:
        # A savepoint, so a name clash leaves any outer transaction usable.
        with transaction.atomic():
            profile.save()
    except IntegrityError as exc:
        raise ProfileNameTaken(profile.name) from exc
    return profile


def _apply(profile: Profile, *, name: str, document: JSON, description: str) -> Profile:
    profile.name = _clean_name(name)
    profile.description = _clean_description(description)
    parsed = profile_from_document(document, name=profile.name)
    profile.runtime = parsed.runtime
    profile.settings = profile_to_document(parsed)
    return _save(profile)


def profile_create(*, name: str, document: JSON, description: str = "") -> Profile:
    return _apply(Profile(), name=name, document=document, description=description)


def profile_update(*, profile: Profile, name: str, document: JSON, description: str) -> Profile:
    # Work on a fresh copy so a rejected update leaves the caller's instance as stored.
    fresh = Profile.objects.get(pk=profile.pk)
    updated = _apply(fresh, name=name, document=document, description=description)
    profile.refresh_from_db()
    return updated


def profile_duplicate(*, profile: Profile, name: str) -> Profile:
    return profile_create(name=name, document=profile.settings, description=profile.description)


def profile_delete(*, profile: Profile) -> None:
    profile.delete()


def profile_import_syntax(syntax: str) -> ConfigSyntax:
    """The syntax menu's value, checked."""
    for known in CONFIG_SYNTAXES:
        if syntax == known:
            return known
    raise ProfileError("syntax", f"unknown syntax {syntax!r}", allowed=", ".join(CONFIG_SYNTAXES))


def profile_import(
    *,
    name: str,
    text: str,
    syntax: str = "auto",
    description: str = "",
    filename: str | None = None,
    select: str | None = None,
) -> Profile:
    """Store one profile of a pasted or uploaded config: a runtime's whole config file (ZeroClaw
    ``config.toml``, OpenClaw JSON5, ai-profile limits or presets) or a Trimscope profile.

    Raises:
        ProfileError: naming the key in the file; ``select`` when the file yields several profiles
            and none was chosen.
    """
    config = profile_config_read(text=text, syntax=profile_import_syntax(syntax), filename=filename)
    if select:
        chosen = config.select(select)
    elif len(config.profiles) == 1:
        chosen = config.profiles[0]
    else:
        names = ", ".join(config.names())
        raise ProfileError(
            "select", f"this file yields {len(config.profiles)} profiles ({names}): choose one", allowed=names
        )
    # Without a name the profile is stored under its own (the agent, runtime profile or preset).
    return profile_create(
        name=name or chosen.name, document=profile_to_document(chosen), description=description
    )


def profile_import_all(
    *,
    text: str,
    syntax: str = "auto",
    filename: str | None = None,
    names: Sequence[str] = (),
    name_prefix: str = "",
    description: str = "",
) -> list[Profile]:
    """Store every profile a config file yields (or the ``names`` chosen), all or none.

    Each is stored as ``"<prefix> · <name>"`` (just ``<name>`` without a prefix).

    Raises:
        ProfileError: for a bad file, an unknown name or a name clash; nothing is stored then.
    """
    config = profile_config_read(text=text, syntax=profile_import_syntax(syntax), filename=filename)
    chosen = [config.select(n) for n in names] if names else list(config.profiles)
    prefix = name_prefix.strip()
    with transaction.atomic():
        return [
            profile_create(
                name=f"{prefix} · {p.name}" if prefix else p.name,
                document=profile_to_document(p),
                description=description,
            )
            for p in chosen
        ]


# Ready profiles for the demo transcript (60 turns, ~32,000 tokens): tight enough that every runtime
# visibly trims or prunes it, so a newcomer sees a trimmed session in one click.
DEMO_PROFILES: tuple[tuple[str, str, dict[str, JSON]], ...] = (
    (
        "Demo · ZeroClaw, 16k budget",
        "ZeroClaw (documented behaviour) on a 128,000-token gpt-4o route with max_context_tokens 16,000.",
        {
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 16_000, "max_history_messages": 50}},
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    ),
    (
        "Demo · ai-profile, 32k model",
        "ai-profile 0.1.7 on a 32,000-token model with max_tokens 4,096: history budget 19,712.",
        {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": 4096,
            "limits": {"preset": {"contextWindow": 32_000}},
        },
    ),
    (
        "Demo · OpenClaw, 40k window",
        "OpenClaw cache-ttl pruning (5m TTL) on a 40,000-token window: soft trim from 12,000, "
        "hard clear from 20,000.",
        {
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
            "model": {"contextWindow": 40_000},
        },
    ),
)


def demo_profiles_ensure() -> list[Profile]:
    """The demo's ready profiles, one per runtime; existing ones (by name) are left alone.

    Returns:
        The profiles created (empty when all exist): running it again changes nothing.
    """
    return [
        profile_create(name=name, document=document, description=description)
        for name, description, document in DEMO_PROFILES
        if not Profile.objects.filter(name=name).exists()
    ]
