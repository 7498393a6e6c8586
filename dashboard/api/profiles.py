"""The profiles API: CRUD, import of a pasted TOML/JSON block, export as TOML or JSON.

A bad document is a ``ProfileError`` (422, ``extra.field``/``extra.allowed``) and stores nothing; a
name clash is 409. Both are mapped once, in ``dashboard/api/errors.py``.
"""

from __future__ import annotations

from typing import Literal

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from ninja import Router, Status

from dashboard import selectors, services
from dashboard.api.errors import get_or_404
from dashboard.models import Profile
from dashboard.schemas import (
    ConfigPreviewOut,
    ErrorOut,
    ProfileImportAllIn,
    ProfileImportAllOut,
    ProfileImportIn,
    ProfileIn,
    ProfileOut,
)

router = Router(tags=["profiles"])


def _profile_or_404(profile_id: int) -> Profile:
    return get_or_404(selectors.profile_get(profile_id=profile_id), "profile", profile_id)


@router.get("", response=list[ProfileOut])
def list_profiles(request: HttpRequest) -> QuerySet[Profile]:
    return selectors.profile_list()


@router.post("", response={201: ProfileOut, 409: ErrorOut, 422: ErrorOut})
def create_profile(request: HttpRequest, payload: ProfileIn) -> Status[Profile]:
    return Status(
        201,
        services.profile_create(
            name=payload.name, document=payload.document, description=payload.description
        ),
    )


@router.post("/import", response={201: ProfileOut, 409: ErrorOut, 422: ErrorOut})
def import_profile(request: HttpRequest, payload: ProfileImportIn) -> Status[Profile]:
    return Status(
        201,
        services.profile_import(
            name=payload.name,
            text=payload.text,
            syntax=payload.syntax,
            description=payload.description,
            filename=payload.filename,
            select=payload.select,
        ),
    )


@router.post("/import-all", response={201: ProfileImportAllOut, 409: ErrorOut, 422: ErrorOut})
def import_all_profiles(request: HttpRequest, payload: ProfileImportAllIn) -> Status[dict[str, object]]:
    stored = services.profile_import_all(
        text=payload.text,
        syntax=payload.syntax,
        filename=payload.filename,
        names=payload.names,
        name_prefix=payload.name_prefix,
        description=payload.description,
    )
    return Status(201, {"profiles": stored})


@router.post("/import-preview", response={200: ConfigPreviewOut, 422: ErrorOut})
def preview_profile_import(request: HttpRequest, payload: ProfileImportAllIn) -> dict[str, object]:
    """What an import of this config would store: its profiles, warnings and kept keys."""
    config = selectors.profile_config_read(
        text=payload.text, syntax=payload.syntax, filename=payload.filename
    )
    return {
        "runtime": config.runtime,
        "shape": config.shape,
        "warnings": list(config.warnings),
        "kept": list(config.kept),
        "profiles": [
            {"name": r.name, "label": r.label, "warnings": list(r.warnings), "kept": list(r.kept)}
            for r in selectors.profile_config_preview(config=config)
        ],
    }


@router.get("/{profile_id}", response={200: ProfileOut, 404: ErrorOut})
def get_profile(request: HttpRequest, profile_id: int) -> Profile:
    return _profile_or_404(profile_id)


@router.put("/{profile_id}", response={200: ProfileOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut})
def update_profile(request: HttpRequest, profile_id: int, payload: ProfileIn) -> Profile:
    return services.profile_update(
        profile=_profile_or_404(profile_id),
        name=payload.name,
        document=payload.document,
        description=payload.description,
    )


@router.delete("/{profile_id}", response={204: None, 404: ErrorOut})
def delete_profile(request: HttpRequest, profile_id: int) -> Status[None]:
    services.profile_delete(profile=_profile_or_404(profile_id))
    return Status(204, None)


@router.get("/{profile_id}/export", response={200: None, 404: ErrorOut})
def export_profile(
    request: HttpRequest, profile_id: int, fmt: Literal["toml", "json"] = "toml"
) -> HttpResponse:
    export = selectors.profile_export(profile=_profile_or_404(profile_id), fmt=fmt)
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
