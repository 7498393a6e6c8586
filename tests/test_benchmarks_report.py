"""``make bench`` rewrites docs/benchmarks.md; the hand-written sections must survive a rerun."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.__main__ import _only, kept_sections, spliced_document

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


SPLICED = """# Benchmarks

## Session replay (simulator only)

| old replay |

## Speed work of the session replay (issue 14): before and after

| hand-written |

## Dashboard session pages

| old 1k |

## Dashboard session pages up to 100,000 messages (2026-12-01)

| old 100k |

## Mutation testing

| kept |
"""


def test_only_re_measured_sections_are_replaced_in_place_and_the_rest_kept():
    fresh = {"replay": ["## Session replay (simulator only)", "", "| new replay |", ""]}
    lines = spliced_document(SPLICED, fresh, long_sessions=False)
    text = "\n".join(lines)
    assert "| new replay |" in text and "| old replay |" not in text
    for kept in ("| hand-written |", "| old 1k |", "| old 100k |", "| kept |"):
        assert kept in text
    assert text.index("| new replay |") < text.index("## Speed work of the session replay")


def test_long_session_pages_replace_the_long_table_not_the_default_one():
    fresh = {
        "pages": ["## Dashboard session pages up to 100,000 messages (2026-12-07)", "", "| new 100k |", ""]
    }
    text = "\n".join(spliced_document(SPLICED, fresh, long_sessions=True))
    assert "| new 100k |" in text and "| old 100k |" not in text and "| old 1k |" in text
    text = "\n".join(
        spliced_document(
            SPLICED, {"pages": ["## Dashboard session pages", "", "| new 1k |"]}, long_sessions=False
        )
    )
    assert "| new 1k |" in text and "| old 1k |" not in text and "| old 100k |" in text


def test_a_section_the_document_lacks_is_added_at_its_end():
    fresh = {"fleet": ["## Fleet pages at 200,000 stored events (PostgreSQL)", "", "| fleet |", ""]}
    text = "\n".join(spliced_document(SPLICED, fresh, long_sessions=False))
    assert text.rstrip().endswith("| fleet |") and "| kept |" in text


def test_only_names_known_sections():
    assert _only("replay, pages") == ("replay", "pages")
    with pytest.raises(argparse.ArgumentTypeError, match="unknown section nope"):
        _only("replay,nope")


def test_a_full_long_session_run_drops_the_recorded_long_table_it_replaces():
    old = "\n".join(spliced_document(SPLICED, {"pages": []}, long_sessions=True))
    kept = "\n".join(kept_sections(old))
    assert "| old 100k |" not in kept and "| kept |" in kept
