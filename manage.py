#!/usr/bin/env python
"""Django's command-line utility for Trimscope."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    from django.core.management import execute_from_command_line

    from dashboard.env import EnvironmentValueError, refuse_start

    try:
        execute_from_command_line(sys.argv)
    except EnvironmentValueError as exc:
        refuse_start(exc)  # a setting's environment variable holds a value it cannot take


if __name__ == "__main__":
    main()
