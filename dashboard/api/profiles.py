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
from dashboard.api.docs import body_example
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


@router.get("", response=list[ProfileOut], summary="List profiles")
def list_profiles(request: HttpRequest) -> QuerySet[Profile]:
    """Every stored profile with its runtime version, label, canonical document and the spec's budget
    explanation.
    """
    return selectors.profile_list()


@router.post(
    "",
    response={201: ProfileOut, 409: ErrorOut, 422: ErrorOut},
    summary="Create a profile",
    openapi_extra=body_example(ProfileIn),
)
def create_profile(request: HttpRequest, payload: ProfileIn) -> Status[Profile]:
    """Stores a profile given as a document in the runtime's own config keys. An invalid document answers 422
    with the field at fault and what is allowed (`extra.field`, `extra.allowed`) and stores nothing; a
    name already taken answers 409.
    """
    return Status(
        201,
        services.profile_create(
            name=payload.name, document=payload.document, description=payload.description
        ),
    )


@router.post(
    "/import",
    response={201: ProfileOut, 409: ErrorOut, 422: ErrorOut},
    summary="Import one profile from a config",
    openapi_extra=body_example(ProfileImportIn),
)
def import_profile(request: HttpRequest, payload: ProfileImportIn) -> Status[Profile]:
    """Stores one profile read from a pasted runtime config (ZeroClaw `config.toml`, OpenClaw `openclaw.json`
    in JSON5, ai-profile JSON) or a Trimscope profile block; `select` picks an agent, runtime profile or
    preset when the config yields several. Keys Trimscope does not model are kept and come back on
    export.
    """
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


@router.post(
    "/import-all",
    response={201: ProfileImportAllOut, 409: ErrorOut, 422: ErrorOut},
    summary="Import every profile of a config",
    openapi_extra=body_example(ProfileImportAllIn),
)
def import_all_profiles(request: HttpRequest, payload: ProfileImportAllIn) -> Status[dict[str, object]]:
    """Stores each profile a runtime config yields (or those named in `names`), as `<name_prefix> · <name>`.
    All or nothing: one invalid profile or taken name stores none.
    """
    stored = services.profile_import_all(
        text=payload.text,
        syntax=payload.syntax,
        filename=payload.filename,
        names=payload.names,
        name_prefix=payload.name_prefix,
        description=payload.description,
    )
    return Status(201, {"profiles": stored})


@router.post(
    "/import-preview",
    response={200: ConfigPreviewOut, 422: ErrorOut},
    summary="Preview a config import",
    openapi_extra=body_example(ProfileImportAllIn),
)
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


@router.get("/{profile_id}", response={200: ProfileOut, 404: ErrorOut}, summary="Read a profile")
def get_profile(request: HttpRequest, profile_id: int) -> Profile:
    """One profile with its canonical document and budget explanation."""
    return selectors.profile_get_or_404(profile_id=profile_id)


@router.put(
    "/{profile_id}",
    response={200: ProfileOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut},
    summary="Replace a profile",
    openapi_extra=body_example(ProfileIn),
)
def update_profile(request: HttpRequest, profile_id: int, payload: ProfileIn) -> Profile:
    """Replaces the profile's name, document and description; validated like a create (422 naming the field,
    409 for a taken name), nothing stored on error.
    """
    return services.profile_update(
        profile=selectors.profile_get_or_404(profile_id=profile_id),
        name=payload.name,
        document=payload.document,
        description=payload.description,
    )


@router.delete("/{profile_id}", response={204: None, 404: ErrorOut}, summary="Delete a profile")
def delete_profile(request: HttpRequest, profile_id: int) -> Status[None]:
    """Deletes the profile; simulation runs made with it keep their stored document."""
    services.profile_delete(profile=selectors.profile_get_or_404(profile_id=profile_id))
    return Status(204, None)


@router.get("/{profile_id}/export", response={200: None, 404: ErrorOut}, summary="Export a profile")
def export_profile(
    request: HttpRequest, profile_id: int, fmt: Literal["toml", "json"] = "toml"
) -> HttpResponse:
    """The profile as a file in the runtime's own keys: TOML (`fmt=toml`, the default) or JSON (`fmt=json`),
    with kept keys restored, as an attachment.
    """
    export = selectors.profile_export(profile=selectors.profile_get_or_404(profile_id=profile_id), fmt=fmt)
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
