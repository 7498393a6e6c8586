"""Stored state for corpus evaluation: corpora, evaluations with their chunks and results, tune runs.

An evaluation snapshots its profiles' documents (a profile edited later does not change what was
evaluated) and is split into chunks, each run by one task. A result row is keyed by (evaluation,
transcript, profile) with a unique constraint, so a chunk that is run twice -- a worker killed after
writing, a lease that expired under a slow worker -- never counts a pair twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from dashboard.models import Profile, Transcript


class Corpus(models.Model):
    """A named set of transcripts."""

    name = models.CharField(max_length=200, unique=True)
    description = models.CharField(max_length=400, blank=True)
    transcripts = models.ManyToManyField(Transcript, related_name="corpora", blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "corpora"

    def __str__(self) -> str:
        return self.name


class CorpusFailure(models.Model):
    """A file that could not be added to a corpus, with why."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="failures")
    file = models.CharField(max_length=500)
    error = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["file", "id"]

    def __str__(self) -> str:
        return f"{self.file}: {self.error[:60]}"


class Evaluation(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        CANCELLED = "cancelled"

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="evaluations")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    total_pairs = models.PositiveIntegerField(default=0, help_text="transcripts × profiles")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"evaluation {self.pk} of {self.corpus}"


class EvaluationProfile(models.Model):
    """One profile of an evaluation, as it was when the evaluation started."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="profiles")
    position = models.PositiveIntegerField()
    profile = models.ForeignKey(Profile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    runtime = models.CharField(max_length=20)
    document = models.JSONField()

    class Meta:
        ordering = ["evaluation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "position"], name="evaluation_profile_position_once"
            )
        ]

    def __str__(self) -> str:
        return self.name


class EvaluationChunk(models.Model):
    """Some transcripts of an evaluation, run under every profile by one task.

    ``lease_until`` is pushed forward while a worker runs the chunk; a chunk still ``running`` after its
    lease ran out belonged to a worker that died, and is enqueued again.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    transcript_ids = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    work_seconds = models.FloatField(default=0.0, help_text="time spent evaluating, last attempt")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["evaluation", "number"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "number"], name="evaluation_chunk_once")]

    def __str__(self) -> str:
        return f"chunk {self.number} of evaluation {self.evaluation_id}"


class EvaluationResult(models.Model):
    """One (transcript, profile) pair's metrics (``simulator.evaluate.SessionMetrics``)."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="results")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="+")
    profile = models.ForeignKey(EvaluationProfile, on_delete=models.CASCADE, related_name="results")
    error = models.TextField(blank=True, help_text="why the pair could not be evaluated (metrics are 0)")
    calls = models.PositiveIntegerField(default=0)
    calls_trimmed = models.PositiveIntegerField(default=0)
    overflow_failures = models.PositiveIntegerField(default=0)
    messages_dropped = models.PositiveIntegerField(default=0)
    turns_dropped = models.PositiveIntegerField(default=0)
    turns = models.PositiveIntegerField(default=0)
    min_kept_turn_fraction = models.FloatField(default=1.0)
    mean_kept_turn_fraction = models.FloatField(default=1.0)
    kept_histogram = models.JSONField(default=list)
    tokens_sent = models.PositiveBigIntegerField(default=0)
    tokens_full = models.PositiveBigIntegerField(default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    cache_read_tokens = models.PositiveBigIntegerField(default=0)
    cache_write_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    first_trim_call = models.PositiveIntegerField(null=True, blank=True)
    rereads = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="re-reads after forgetting: a tool call repeated after its earlier result left the context "
        "(null: stored before re-reads were counted)",
    )

    class Meta:
        ordering = ["evaluation", "profile", "transcript"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "transcript", "profile"], name="evaluation_result_pair_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.transcript_id} × {self.profile_id}"


class TuneRun(models.Model):
    """A profile search over a corpus, run by one task; ``result`` is what ``tune --json`` prints plus
    the reasons and every candidate."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="tune_runs")
    runtime = models.CharField(max_length=20)
    objective = models.CharField(max_length=10, default="cost")
    max_overflow = models.PositiveIntegerField(default=0)
    min_kept_turns = models.FloatField(default=0.0)
    kept_at = models.CharField(max_length=10, default="every")
    max_trims_per_session = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"tune {self.runtime} on {self.corpus}"
