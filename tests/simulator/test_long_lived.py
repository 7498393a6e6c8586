"""The collector pause for building long-lived structures."""

from __future__ import annotations

import gc

from simulator import long_lived
from simulator.long_lived import building_long_lived, collector_paused


def test_the_collector_is_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with building_long_lived():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_was_built_inside_is_frozen_out_of_later_collections() -> None:
    before = gc.get_freeze_count()
    with building_long_lived():
        built = [[i] for i in range(1000)]
    assert gc.get_freeze_count() >= before + len(built)
    gc.unfreeze()


def test_what_a_pause_built_goes_to_the_oldest_generation_without_a_walk(monkeypatch) -> None:
    gc.unfreeze()  # nothing frozen on purpose here
    monkeypatch.setattr(long_lived, "_frozen_on_purpose", False)
    with collector_paused():
        built = [[i] for i in range(1000)]
    young = gc.get_count()[0]
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert gc.get_freeze_count() == 0
    assert all(id(item) in oldest for item in built)
    assert young < 100  # the young generation was emptied, not left holding the 1,000 lists


def test_a_pause_leaves_what_was_frozen_on_purpose_frozen(monkeypatch) -> None:
    monkeypatch.setattr(long_lived, "_frozen_on_purpose", False)
    with building_long_lived():
        kept = [[i] for i in range(100)]
    frozen = gc.get_freeze_count()
    with collector_paused():
        more = [[i] for i in range(100)]
    assert gc.get_freeze_count() == frozen
    assert kept and more
    assert long_lived._frozen_on_purpose
    gc.unfreeze()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with building_long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_parsing_pauses_the_collector_and_leaves_it_as_it_found_it(monkeypatch) -> None:
    from simulator import importers

    seen: list[bool] = []
    real = importers._parse

    def spying(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importers, "_parse", spying)
    text = '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]'
    before = gc.get_freeze_count()
    assert len(importers.parse_transcript(text).messages) == 2
    assert seen == [False]
    assert gc.isenabled()
    assert gc.get_freeze_count() == before  # paused only: nothing frozen
    gc.disable()
    try:
        importers.parse_transcript(text)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failing_parse_restores_the_collector() -> None:
    import pytest

    from simulator.errors import TranscriptParseError
    from simulator.importers import parse_transcript

    with pytest.raises(TranscriptParseError):
        parse_transcript('{"not": "a transcript"}')
    assert gc.isenabled()
