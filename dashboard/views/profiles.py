"""Profile screens: list with the resolved budget, create from a preset, edit (knobs + raw TOML, validated
inline), duplicate, delete, import a pasted block or a file, export as TOML or JSON."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard import forms, selectors, services
from dashboard.views.common import HtmxHttpRequest
from simulator import ProfileError

MAX_IMPORT_BYTES = 256 * 1024  # a whole runtime config is a few KiB; anything this big is not one
KNOB_PREFIX = "knob:"


def knob_values(query: QueryDict) -> dict[str, str]:
    """The knob edits a query or form carries, by document path. A knob named twice is read from its
    last value: the simulation screen's knob bar sends each checkbox as a hidden ``off`` and then, when
    the box is checked, ``on``."""
    return {k.removeprefix(KNOB_PREFIX): query.get(k, "") for k in query if k.startswith(KNOB_PREFIX)}


def _redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else HttpResponseRedirect(url)


def _error(exc: ProfileError) -> dict[str, object]:
    return {"message": exc.message, "field": exc.field, "problem": exc.problem, "allowed": exc.allowed}


# -- list, create from a preset, import -------------------------------------------------------------


def _list_context(**extra: object) -> dict[str, object]:
    return {
        "nav": "profiles",
        "rows": selectors.profile_rows(),
        "presets": selectors.profile_presets(),
        "create_values": {},
        "import_values": {"syntax": "auto"},
        **extra,
    }


@require_GET
def profile_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "dashboard/profile-list.html", _list_context())


@require_POST
def profile_create(request: HtmxHttpRequest) -> HttpResponse:
    values = {k: request.POST.get(k, "") for k in ("preset", "name", "description")}
    preset = selectors.profile_preset_get(key=values["preset"])
    try:
        if preset is None:
            raise ProfileError(
                "preset", "choose a preset", allowed=", ".join(p.name for p in selectors.profile_presets())
            )
        profile = services.profile_create(
            name=values["name"] or preset.name,
            document=dict(preset.document),
            description=values["description"] or preset.description,
        )
    except ProfileError as exc:
        context = _list_context(create_error=_error(exc), create_values=values)
        if request.htmx:
            return render(request, "dashboard/profile-list.html#create-form", context)
        return render(request, "dashboard/profile-list.html", context, status=422)
    return _redirect(request, reverse("profile-edit", args=[profile.pk]))


class _ImportRejected(ProfileError):
    """The upload itself is unusable (too big, not text, empty) before any parsing."""


def _import_text(request: HtmxHttpRequest) -> str:
    upload = request.FILES.get("file")
    if upload is not None and upload.size:
        if upload.size > MAX_IMPORT_BYTES:
            raise _ImportRejected(
                "file", f"is {upload.size:,} bytes", allowed=f"up to {MAX_IMPORT_BYTES:,} bytes"
            )
        try:
            raw: bytes = upload.read()
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _ImportRejected(
                "file", f"is not UTF-8 text (byte {exc.start})", allowed="a TOML or JSON file"
            ) from exc
    text = request.POST.get("text", "")
    if not text.strip():
        raise _ImportRejected("text", "is empty", allowed="a pasted TOML or JSON block, or a file")
    if len(text.encode("utf-8")) > MAX_IMPORT_BYTES:
        raise _ImportRejected("text", "is too long", allowed=f"up to {MAX_IMPORT_BYTES:,} bytes")
    return text


def _import_filename(request: HtmxHttpRequest) -> str | None:
    upload = request.FILES.get("file")
    name = upload.name if upload is not None and upload.size else request.POST.get("filename", "")
    return name or None


@require_POST
def profile_import(request: HtmxHttpRequest) -> HttpResponse:
    """Import a config: one profile is stored at once; a file with several lists them to choose from."""
    values = {k: request.POST.get(k, "") for k in ("name", "text", "syntax", "description")}
    syntax = values["syntax"] or "auto"
    preview: dict[str, object] | None = None
    try:
        text = _import_text(request)
        values["text"], values["filename"] = text, _import_filename(request) or ""
        filename = values["filename"] or None
        config = selectors.profile_config_read(
            text=text, syntax=services.profile_import_syntax(syntax), filename=filename
        )
        if len(config.profiles) > 1:
            chosen = request.POST.getlist("select")
            if not request.POST.get("confirm"):
                preview = {
                    "shape": config.shape,
                    "warnings": config.warnings,
                    "rows": selectors.profile_config_preview(config=config),
                }
                context = _list_context(import_values=values, import_preview=preview)
                if request.htmx:
                    return render(request, "dashboard/profile-list.html#import-form", context)
                return render(request, "dashboard/profile-list.html", context)
            if not chosen:
                raise ProfileError("select", "choose at least one profile", allowed=", ".join(config.names()))
            stored = services.profile_import_all(
                text=text,
                syntax=syntax,
                filename=filename,
                names=chosen,
                name_prefix=values["name"],
                description=values["description"],
            )
            messages.success(
                request, f"Imported {len(stored)} profiles: {', '.join(p.name for p in stored)}."
            )
            return _redirect(request, reverse("profile-list"))
        profile = services.profile_import(
            name=values["name"] or config.profiles[0].name,
            text=text,
            syntax=syntax,
            filename=filename,
            description=values["description"],
        )
    except ProfileError as exc:
        context = _list_context(import_error=_error(exc), import_values=values, import_preview=preview)
        if request.htmx:
            return render(request, "dashboard/profile-list.html#import-form", context)
        return render(request, "dashboard/profile-list.html", context, status=422)
    return _redirect(request, reverse("profile-edit", args=[profile.pk]))


# -- edit: knobs + raw TOML, one form ---------------------------------------------------------------


def _submitted(request: HtmxHttpRequest) -> forms.ProfileFormInput:
    post = request.POST
    return forms.ProfileFormInput(
        name=post.get("name", ""),
        description=post.get("description", ""),
        text=post.get("document", ""),
        knob_values=knob_values(post),
        knobs_runtime=post.get("knobs_runtime", ""),
        source="toml" if post.get("source") == "toml" else "knobs",
    )


@require_http_methods(["GET", "POST"])
def profile_edit(request: HtmxHttpRequest, profile_id: int) -> HttpResponse:
    profile = selectors.profile_get_or_404(profile_id=profile_id)
    if request.method == "GET":
        form = forms.profile_form(profile=profile)
        return render(
            request, "dashboard/profile-edit.html", {"nav": "profiles", "profile": profile, "form": form}
        )
    submitted = _submitted(request)
    try:
        services.profile_update(
            profile=profile,
            name=submitted.name,
            document=submitted.document(),
            description=submitted.description,
        )
    except ProfileError as exc:
        form = forms.profile_form(profile=profile, submitted=submitted, error=exc)
        context = {"nav": "profiles", "profile": profile, "form": form}
        return render(request, "dashboard/profile-edit.html", context, status=422)
    messages.success(request, f"Saved {profile.name}.")
    return _redirect(request, reverse("profile-edit", args=[profile.pk]))


@require_POST
def profile_validate(request: HtmxHttpRequest) -> HttpResponse:
    form = forms.profile_form_check(submitted=_submitted(request))
    return render(request, "dashboard/profile-edit.html#validation", {"form": form})


# -- duplicate, delete, export ----------------------------------------------------------------------


@require_POST
def profile_duplicate(request: HtmxHttpRequest, profile_id: int) -> HttpResponse:
    profile = selectors.profile_get_or_404(profile_id=profile_id)
    name = request.POST.get("name", "").strip() or selectors.profile_copy_name(profile=profile)
    try:
        copy = services.profile_duplicate(profile=profile, name=name)
    except ProfileError as exc:
        messages.error(request, f"Not duplicated: {exc.message}")
        return _redirect(request, reverse("profile-edit", args=[profile.pk]))
    return _redirect(request, reverse("profile-edit", args=[copy.pk]))


@require_POST
def profile_delete(request: HtmxHttpRequest, profile_id: int) -> HttpResponse:
    services.profile_delete(profile=selectors.profile_get_or_404(profile_id=profile_id))
    return _redirect(request, reverse("profile-list"))


@require_GET
def profile_export(request: HtmxHttpRequest, profile_id: int, fmt: str) -> HttpResponse:
    if fmt not in ("toml", "json"):
        raise Http404("export as toml or json")
    export = selectors.profile_export(
        profile=selectors.profile_get_or_404(profile_id=profile_id), fmt="toml" if fmt == "toml" else "json"
    )
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
