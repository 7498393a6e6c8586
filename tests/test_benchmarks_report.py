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
