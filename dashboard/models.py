"""Stored state: uploaded transcripts, runtime profiles, API tokens and simulation runs.

A transcript is stored as the exact text that was uploaded plus the summary numbers computed when it
was parsed; the parsed model is rebuilt from the text on demand (parsing is cheap and deterministic),
so there is one source of truth and nothing to keep in sync.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Transcript(models.Model):
    name = models.CharField(max_length=200)
    format = models.CharField(max_length=40)
    source_text = models.TextField()
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.PositiveBigIntegerField()
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    message_count = models.PositiveIntegerField()
    turn_count = models.PositiveIntegerField()
    tool_pair_count = models.PositiveIntegerField()
    orphan_count = models.PositiveIntegerField()
    estimated_tokens = models.PositiveBigIntegerField(
        help_text="ZeroClaw estimator over the whole transcript"
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-uploaded_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class Profile(models.Model):
    """A runtime profile: which runtime (and version) plus every knob that runtime reads, as JSON."""

    class Runtime(models.TextChoices):
        ZEROCLAW = "zeroclaw", "ZeroClaw"
        AI_PROFILE = "ai_profile", "ai-profile"
        OPENCLAW = "openclaw", "OpenClaw"

    name = models.CharField(max_length=120, unique=True)
    runtime = models.CharField(max_length=20, choices=Runtime.choices)
    settings = models.JSONField(default=dict)
    description = models.CharField(max_length=400, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_runtime_display()})"


class ApiToken(models.Model):
    """A per-user token for scripts. Only a SHA-256 of the secret is stored; the secret is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=120)
    prefix = models.CharField(max_length=16, help_text="first characters of the secret, to recognise it")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class SimulationRun(models.Model):
    """A replay of one transcript through one profile document, kept as inputs plus summary numbers.

    The per-call result is not stored: replays are deterministic, so it is recomputed on read from the
    transcript's stored text and ``document`` (the canonical profile document that was simulated, kept
    here so the run stays reproducible after its profile is edited or deleted).
    """

    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="simulation_runs")
    profile = models.ForeignKey(
        Profile, null=True, blank=True, on_delete=models.SET_NULL, related_name="simulation_runs"
    )
    name = models.CharField(max_length=200, blank=True)
    profile_name = models.CharField(max_length=120)
    runtime = models.CharField(max_length=20, choices=Profile.Runtime.choices)
    document = models.JSONField(help_text="the canonical profile document that was simulated")
    calls = models.PositiveIntegerField()
    trims = models.PositiveIntegerField()
    total_tokens_sent = models.PositiveBigIntegerField()
    overflow_failures = models.PositiveIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name or self.profile_name} on transcript {self.transcript_id}"
