"""The collector pause for building long-lived structures."""

from __future__ import annotations

import gc

from simulator.long_lived import building_long_lived


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


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with building_long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
