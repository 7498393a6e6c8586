"""First-start setup for `make run`: a local operator account, a demo transcript and demo profiles.

Idempotent: running it again changes nothing that exists. The operator's password is printed once,
when the account is created.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from dashboard import services
from dashboard.models import Transcript
from simulator import synthetic_openclaw_session

DEMO_TRANSCRIPT_NAME = "Demo: synthetic coding session (60 turns)"


class Command(BaseCommand):
    help = "Create the local operator account, the demo transcript and one profile per runtime."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="operator")

    def handle(self, *args: object, **options: Any) -> None:
        user_model = get_user_model()
        username: str = options["username"]
        user = user_model.objects.filter(username=username).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = user_model.objects.create_superuser(username=username, email="", password=password)
            self.stdout.write(
                self.style.SUCCESS("Created the local operator account (shown only this once):")
            )
            self.stdout.write(f"    username: {username}\n    password: {password}")
        if not Transcript.objects.filter(name=DEMO_TRANSCRIPT_NAME).exists():
            try:
                services.transcript_import(
                    text=synthetic_openclaw_session(60),
                    name=DEMO_TRANSCRIPT_NAME,
                    format="openclaw",
                    user=user,
                )
                self.stdout.write(f"Loaded the demo transcript: {DEMO_TRANSCRIPT_NAME}")
            except services.TranscriptAlreadyStored as exc:
                self.stdout.write(f"The demo transcript is already stored as {exc.existing.name!r}")
        services.demo_profiles_ensure()
