"""Stored state: uploaded transcripts, runtime profiles, API tokens, simulation runs, and the fleet's
runtimes with their trim events (corpus evaluation is in ``dashboard.corpus_models``).

"Runtime" names two things here, kept apart: a *reproduced runtime* is what a profile replays
(``Profile.RuntimeKind``: ZeroClaw, ai-profile, OpenClaw, a spec in the simulator's registry; the
``runtime`` column of profiles and runs), and a *fleet runtime* is a running agent process registered to
stream its events (the ``Runtime`` model). A third, the *runtime client*, is the sending side of the
fleet socket (``dashboard.runtime_client``); it stores nothing.

A transcript is stored as the exact text that was uploaded (``TranscriptSource``, a table of its own)
plus the summary numbers computed when it was parsed. The text is the one source of truth; the parsed
model is kept beside it as derived data (``TranscriptParse``, read back instead of parsing a long session
again) and ignored whenever the parser that made it is not the one running (``dashboard.parsed_forms``);
so are every message's o200k count and fingerprint once the task worker has counted a long session
(``TranscriptTokenCounts``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Transcript(models.Model):
    name = models.CharField(max_length=200)
    format = models.CharField(max_length=40)
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
    is_copy = models.BooleanField(
        default=False, help_text="stored on request although the same content was already stored"
    )

    class Meta:
        ordering = ["-uploaded_at", "-id"]
        constraints = [
            # One transcript per content; further ones only as explicit copies.
            models.UniqueConstraint(
                fields=["sha256"], condition=models.Q(is_copy=False), name="transcript_one_per_content"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class TranscriptSource(models.Model):
    """A transcript's text exactly as uploaded: the one source of truth, never edited.

    In a table of its own rather than a column of the transcript's row: a long session's text is tens of
    megabytes, and SQLite reads a row's columns in order, through every overflow page of a long column
    before the one asked for -- reading a 100,000-message transcript's row took 18 ms with the text in it,
    on every page that names the transcript, whether or not the text was asked for.
    """

    transcript = models.OneToOneField(
        Transcript, primary_key=True, on_delete=models.CASCADE, related_name="source"
    )
    text = models.TextField()

    def __str__(self) -> str:
        return f"text of transcript {self.transcript_id}"


class TranscriptParse(models.Model):
    """A transcript's parsed form as stored with it (``dashboard.parsed_forms``): derived, never edited."""

    transcript = models.OneToOneField(
        Transcript, primary_key=True, on_delete=models.CASCADE, related_name="parsed_form"
    )
    parser_version = models.CharField(max_length=64)
    signature = models.CharField(max_length=64)
    blob = models.BinaryField()

    def __str__(self) -> str:
        return f"parsed form of transcript {self.transcript_id} (parser {self.parser_version[:8]})"


class TranscriptParsePart(models.Model):
    """A part of a transcript's parsed form that its page reads alone (``dashboard.parsed_parts``): the
    page head, or one chunk's messages or page index. Derived, never edited; written with the form."""

    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="parsed_parts")
    number = models.PositiveIntegerField()
    parser_version = models.CharField(max_length=64)
    signature = models.CharField(max_length=64)
    blob = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["transcript", "number"], name="one_parsed_part_per_number")
        ]

    def __str__(self) -> str:
        return f"part {self.number} of transcript {self.transcript_id}'s parsed form"


class TranscriptTokenCounts(models.Model):
    """Every message's o200k count and fingerprint, stored by the task worker after a long session's upload
    (``dashboard.stored_counts``): derived, never edited, ignored when the code that made them has changed.

    The cost model reads both for every message; making them for a 100,000-message session takes
    seconds, so the first cost panel of a transcript would otherwise pay for it, and again after every
    restart.
    """

    transcript = models.OneToOneField(
        Transcript, primary_key=True, on_delete=models.CASCADE, related_name="token_counts"
    )
    counter_version = models.CharField(max_length=64)
    counts = models.BinaryField()
    fingerprints = models.BinaryField()

    def __str__(self) -> str:
        return f"o200k counts of transcript {self.transcript_id} (counter {self.counter_version[:8]})"


class Profile(models.Model):
    """A runtime profile: which reproduced runtime (and version) plus every knob it reads, as JSON."""

    class RuntimeKind(models.TextChoices):
        """A reproduced runtime: a runtime spec's key in the simulator's registry (column ``runtime``)."""

        ZEROCLAW = "zeroclaw", "ZeroClaw"
        AI_PROFILE = "ai_profile", "ai-profile"
        OPENCLAW = "openclaw", "OpenClaw"
        AS_RECORDED = "as_recorded", "as-recorded"

    name = models.CharField(max_length=120, unique=True)
    runtime = models.CharField(max_length=20, choices=RuntimeKind.choices)
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
    runtime = models.CharField(max_length=20, choices=Profile.RuntimeKind.choices)
    document = models.JSONField(help_text="the canonical profile document that was simulated")
    calls = models.PositiveIntegerField()
    trims = models.PositiveIntegerField()
    total_tokens_sent = models.PositiveBigIntegerField()
    overflow_failures = models.PositiveIntegerField()
    pricing = models.CharField(
        max_length=120, blank=True, help_text="price table key asked for ('' = the transcript's model)"
    )
    assumed_gap_seconds = models.FloatField(
        null=True, blank=True, help_text="seconds between calls for a transcript without timestamps"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name or self.profile_name} on transcript {self.transcript_id}"


class Runtime(models.Model):
    """A fleet runtime: a running agent process that streams its trim events here, with its own token
    (hashed; shown once).

    Not a reproduced runtime (``Profile.RuntimeKind``, a spec in the simulator's registry that a replay
    runs), and not the runtime client (``dashboard.runtime_client``, the sending side of the socket).
    """

    name = models.CharField(max_length=120, unique=True)
    kind = models.CharField(
        max_length=40, default="zeroclaw", help_text="which runtime this is (zeroclaw, …)"
    )
    token_prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    connected = models.PositiveIntegerField(default=0, help_text="open WebSocket connections right now")
    # Registered through the API with this token: revoking the token revokes the runtime too, so a leaked
    # token cannot leave working runtime tokens behind. Tokens are revoked, never deleted.
    created_by_token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.PROTECT, related_name="runtimes"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TrimEvent(models.Model):
    """One ``history_trimmed`` event from a runtime, stored exactly once.

    Idempotency: a runtime that resends after a reconnect hits the unique constraint on
    ``(runtime, session_id, seq)`` (Trimscope envelope) or ``(runtime, event_id)``; the stored row is
    acknowledged again instead of a second row being written.
    """

    class Shape(models.TextChoices):
        WS = "ws", "WebSocket"
        SSE = "sse", "SSE / observability"
        RPC = "rpc", "RPC SessionUpdateEvent"
        ACP = "acp", "ACP notification"
        ENVELOPE = "envelope", "Trimscope envelope"

    runtime = models.ForeignKey(Runtime, on_delete=models.CASCADE, related_name="events")
    shape = models.CharField(max_length=10, choices=Shape.choices)
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    seq = models.BigIntegerField(null=True, blank=True)
    # NULL, not "", for "no id": the unique constraint must ignore events without one.
    event_id = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    # Lengths match dashboard/fleet_schemas.py, so anything the schema accepts fits (PostgreSQL enforces).
    reason = models.CharField(max_length=500)
    # Counts are 64-bit like ZeroClaw's usize and the schema's 2**53 bound (32-bit columns overflowed).
    dropped_messages = models.PositiveBigIntegerField()
    kept_turns = models.PositiveBigIntegerField()
    dropped_turns = models.PositiveBigIntegerField(null=True, blank=True)
    tokens_before = models.PositiveBigIntegerField(null=True, blank=True)
    tokens_after = models.PositiveBigIntegerField(null=True, blank=True)
    budget = models.PositiveBigIntegerField(null=True, blank=True)
    trim_target = models.CharField(max_length=60, blank=True)
    overflow_recovery = models.CharField(
        max_length=20, blank=True, help_text="recovered / failed, when known"
    )
    channel = models.CharField(max_length=500, blank=True)
    agent_alias = models.CharField(max_length=500, blank=True)
    turn_id = models.CharField(max_length=500, blank=True)
    call_number = models.PositiveBigIntegerField(null=True, blank=True, help_text="model call in the session")
    occurred_at = models.DateTimeField(help_text="the event's own time, or when it was received")
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)
    payload = models.JSONField(help_text="the frame as received")

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["runtime", "session_id", "seq"],
                condition=models.Q(seq__isnull=False),
                name="trim_event_seq_once",
            ),
            models.UniqueConstraint(
                fields=["runtime", "event_id"],
                condition=models.Q(event_id__isnull=False),
                name="trim_event_id_once",
            ),
        ]
        indexes = [
            models.Index(fields=["runtime", "received_at"]),
            models.Index(fields=["session_id", "received_at"]),
            # Failed recoveries are rare: a partial index finds them without scanning the window.
            models.Index(
                fields=["received_at"],
                condition=models.Q(overflow_recovery="failed"),
                name="trim_event_failed_at",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.runtime} {self.session_id} {self.reason}"


class PriceOverride(models.Model):
    """An edit of one price table entry: for one user, or for the whole dashboard (``owner`` null).

    The checked-in table (``simulator/cost/prices.toml``) stays the default; a dashboard-level edit
    applies to everyone, a user's own edit on top of it to that user only.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(max_length=120, help_text="the price table entry, provider/model")
    input_per_mtok = models.FloatField()
    output_per_mtok = models.FloatField()
    cache_write_multiplier = models.FloatField()
    cache_read_multiplier = models.FloatField()
    cache_ttl_seconds = models.PositiveIntegerField()
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "key"], name="price_override_one_per_user", condition=Q(owner__isnull=False)
            ),
            models.UniqueConstraint(
                fields=["key"], name="price_override_one_per_dashboard", condition=Q(owner__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({'dashboard' if self.owner_id is None else self.owner_id})"


class RuntimeRollup(models.Model):
    """Trims of one runtime in one bucket of time: the sparklines and ``/metrics`` read these.

    ``minute`` is whole minutes since the Unix epoch (UTC) of ``TrimEvent.received_at`` (the bucket's
    first): integer arithmetic buckets it for any range on every database. Kept longer than the events
    (``TRIMSCOPE_ROLLUP_RETENTION_DAYS``); maintained at ingestion and rebuilt by ``fleet_rollups``.
    """

    runtime = models.ForeignKey(Runtime, on_delete=models.CASCADE, related_name="+")
    minute = models.BigIntegerField()
    trims = models.PositiveBigIntegerField(default=0)
    dropped_messages = models.PositiveBigIntegerField(default=0)
    failed = models.PositiveBigIntegerField(default=0, help_text="failed overflow recoveries")

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"runtime {self.runtime_id} from minute {self.minute}: {self.trims}"


class RuntimeMinute(RuntimeRollup):
    """Per minute: the sparklines of the short ranges (15 min, 1 h)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["minute", "runtime"], name="runtime_minute_once"),
        ]


class RuntimeHour(RuntimeRollup):
    """Per hour: the sparklines of the long ranges (24 h, 7 d) and the totals of ``/metrics``."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["minute", "runtime"], name="runtime_hour_once"),
        ]


class SessionRollup(models.Model):
    """Trims of one session for one reason on one runtime in one bucket of time.

    ``key`` is a digest of ``(session_id, reason)`` so the unique key stays short whatever the lengths
    of the two (a B-tree entry holds at most about 2.7 kB on PostgreSQL).
    """

    runtime = models.ForeignKey(Runtime, on_delete=models.CASCADE, related_name="+")
    minute = models.BigIntegerField(help_text="the bucket's first minute since the epoch")
    key = models.CharField(max_length=40)
    session_id = models.CharField(max_length=200, blank=True)
    reason = models.CharField(max_length=500)
    trims = models.PositiveBigIntegerField(default=0)
    failed = models.PositiveBigIntegerField(default=0)
    last_at = models.DateTimeField()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"session {self.session_id} from minute {self.minute}: {self.trims}"


class SessionMinute(SessionRollup):
    """Per minute: busy-session alerts and the top sessions of the short ranges (15 min, 1 h)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["minute", "runtime", "key"], name="session_minute_once"),
        ]
        indexes = [models.Index(fields=["session_id", "minute"])]


class SessionHour(SessionRollup):
    """Per hour (``minute`` is the hour's first): the top sessions of the long ranges (24 h, 7 d), where
    a session trimmed every minute has sixty times fewer rows to add up than per minute."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["minute", "runtime", "key"], name="session_hour_once"),
        ]
        indexes = [models.Index(fields=["session_id", "minute"], name="session_hour_session_idx")]


class AlertThresholds(models.Model):
    """The alert rules as the operator edited them on the fleet page (one row; settings until then)."""

    session_trims_count = models.PositiveIntegerField()
    session_trims_minutes = models.PositiveIntegerField()
    runtime_silent_minutes = models.PositiveIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"busy > {self.session_trims_count}/{self.session_trims_minutes} min"


class AlertSilence(models.Model):
    """An alert the operator acknowledged (hidden until it fires again) or muted (hidden until unmuted).

    A mute names a rule and, optionally, one runtime or one session; blank means any.
    """

    class Kind(models.TextChoices):
        ACK = "ack", "acknowledged"
        MUTE = "mute", "muted"

    kind = models.CharField(max_length=4, choices=Kind.choices)
    rule = models.CharField(max_length=20)
    runtime = models.CharField(max_length=120, blank=True)
    session_id = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.rule} {self.runtime or self.session_id or 'everywhere'}"


# Corpus evaluation lives in its own module; imported here so Django registers the models with the app.
from dashboard.corpus_models import (  # noqa: E402
    Corpus,
    CorpusFailure,
    Evaluation,
    EvaluationChunk,
    EvaluationProfile,
    EvaluationResult,
    TuneRun,
)

__all__ = [
    "ApiToken",
    "Corpus",
    "CorpusFailure",
    "Evaluation",
    "EvaluationChunk",
    "EvaluationProfile",
    "EvaluationResult",
    "PriceOverride",
    "Profile",
    "AlertSilence",
    "AlertThresholds",
    "Runtime",
    "RuntimeHour",
    "RuntimeMinute",
    "SessionHour",
    "SessionMinute",
    "SimulationRun",
    "Transcript",
    "TrimEvent",
    "TuneRun",
]
