"""Profile reads: rows, the domain profile, the resolved budget in one line, config previews, exports.

The edit form (knob fields, the document a form describes) is in ``dashboard.forms.profiles``.

Stored ``settings`` are always the canonical document, so everything here rebuilds the domain profile
from it with the same loader the writes validated through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

from django.db.models import QuerySet
from django.utils.text import slugify

from dashboard.errors import get_or_404
from dashboard.models import Profile
from simulator import (
    PRESETS,
    BudgetExplanation,
    ConfigFile,
    ConfigSyntax,
    Preset,
    preset_get,
    profile_from_document,
    profile_to_json,
    profile_to_toml,
    read_config_text,
)
from simulator import Profile as DomainProfile

ExportFormat: TypeAlias = Literal["toml", "json"]

EXPORT_CONTENT_TYPES: Mapping[str, str] = {
    # application/toml is the IANA-registered TOML media type.
    "toml": "application/toml; charset=utf-8",
    "json": "application/json; charset=utf-8",
}


def profile_list() -> QuerySet[Profile]:
    return Profile.objects.all()


def profile_get(*, profile_id: int) -> Profile | None:
    return Profile.objects.filter(pk=profile_id).first()


def profile_get_or_404(*, profile_id: int) -> Profile:
    """The profile, or a 404 ``no profile with id <id>`` (for the API and the pages alike)."""
    return get_or_404(profile_get(profile_id=profile_id), "profile", profile_id)


def profile_domain(*, profile: Profile) -> DomainProfile:
    return profile_from_document(profile.settings, name=profile.name)


def profile_presets() -> tuple[Preset, ...]:
    return PRESETS


def profile_preset_get(*, key: str) -> Preset | None:
    return preset_get(key)


def profile_copy_name(*, profile: Profile) -> str:
    """A free name for a copy: ``"<name> (copy)"``, then ``"(copy 2)"``, ``"(copy 3)"``..."""
    base = f"{profile.name} (copy"
    taken = set(Profile.objects.filter(name__startswith=base).values_list("name", flat=True))
    candidate, n = f"{base})", 1
    while candidate in taken:
        n += 1
        candidate = f"{base} {n})"
    return candidate[:120]


# -- the budget in one line ---------------------------------------------------------------------------


def profile_budget(*, profile: DomainProfile) -> BudgetExplanation:
    """The profile's budget (or, for OpenClaw, window) and why: the runtime spec's one explanation."""
    return profile.spec.budget(profile.settings)


@dataclass(frozen=True, slots=True)
class ProfileRow:
    profile: Profile
    label: str
    budget: BudgetExplanation


def profile_rows() -> list[ProfileRow]:
    rows = []
    for profile in profile_list():
        domain = profile_domain(profile=profile)
        rows.append(ProfileRow(profile, domain.label, profile_budget(profile=domain)))
    return rows


# -- whole config files: what an import would store ----------------------------------------------------


def profile_config_read(
    *, text: str, syntax: ConfigSyntax = "auto", filename: str | None = None
) -> ConfigFile:
    """Every profile a pasted or uploaded config yields, with the reader's warnings and kept keys."""
    return read_config_text(text, filename=filename, syntax=syntax)


@dataclass(frozen=True, slots=True)
class ConfigPreviewRow:
    """One profile a config file yields, as the import page lists it before storing."""

    name: str
    label: str
    budget: BudgetExplanation
    warnings: tuple[str, ...]
    kept: tuple[str, ...]


def profile_config_preview(*, config: ConfigFile) -> list[ConfigPreviewRow]:
    return [
        ConfigPreviewRow(p.name, p.label, profile_budget(profile=p), p.notes, tuple(k.path for k in p.kept))
        for p in config.profiles
    ]


# -- export -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileExport:
    text: str
    content_type: str
    filename: str


def profile_export(*, profile: Profile, fmt: ExportFormat) -> ProfileExport:
    domain = profile_domain(profile=profile)
    text = profile_to_toml(domain) if fmt == "toml" else profile_to_json(domain)
    stem = slugify(profile.name) or f"profile-{profile.pk}"
    return ProfileExport(text, EXPORT_CONTENT_TYPES[fmt], f"{stem}.{fmt}")
