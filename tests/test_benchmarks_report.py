"""``make bench`` rewrites docs/benchmarks.md; the hand-written sections must survive a rerun."""

from __future__ import annotations

from benchmarks.__main__ import kept_sections

DOC = """# Benchmarks

## Session replay (simulator only)

| measured | 1 ms |

## Mutation testing

Hand-written scores.

| module | killed |

## Dashboard

| measured | 2 ms |
"""


def test_a_rerun_keeps_the_mutation_testing_section_up_to_the_next_heading():
    kept = ["## Mutation testing", "", "Hand-written scores.", "", "| module | killed |", ""]
    assert kept_sections(DOC) == kept


def test_a_document_without_hand_written_sections_keeps_nothing():
    assert kept_sections("# Benchmarks\n\n## Dashboard\n\n| measured | 2 ms |\n") == []


def test_a_rerun_keeps_the_openclaw_before_and_after_section():
    heading = "## OpenClaw replay before and after (2026-11-30)"
    doc = f"# Benchmarks\n\n{heading}\n\n| 10,000 | 8 s |\n\n## Dashboard\n"
    assert kept_sections(doc) == [heading, "", "| 10,000 | 8 s |", ""]


def test_a_rerun_keeps_the_parsing_before_and_after_section():
    heading = "## Parsing and corpus evaluation before and after (2026-11-30)"
    doc = f"# Benchmarks\n\n## Corpus evaluation\n\n| 1 s |\n\n{heading}\n\n| parse | 2 s |\n\n## Dashboard\n"
    assert kept_sections(doc) == [heading, "", "| parse | 2 s |", ""]


def test_a_default_rerun_keeps_the_recorded_long_session_pages():
    heading = "## Dashboard session pages up to 100,000 messages (2026-11-30)"
    doc = f"# Benchmarks\n\n## Dashboard session pages\n\n| 1k |\n\n{heading}\n\n| 100k |\n\n## Live\n"
    assert kept_sections(doc) == [heading, "", "| 100k |", ""]
