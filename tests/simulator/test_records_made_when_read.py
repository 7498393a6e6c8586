"""A replay's records made when read: a long OpenClaw session with old screenshots or thinking leaves the
records of the calls answered without their outcome (2026.9.6's ``kept_call``, 2026.7.1's ``quiet_gate``)
to be made when a page reads them. Such a result
must be the result the replay would have made at once: equal, shown the same (its fingerprint), its
timeline and totals drawn from the kept columns the same as from the records, its resume entries the
same, and reading one call makes that call's record alone."""

from __future__ import annotations

import dataclasses
import threading

import msgspec
import pytest

from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.replay.made_on_read import MadeWhenRead
from simulator.replay.model import CallRecords, SimulationResult, call_columns
from simulator.replay.view import timeline
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Message, Role, TextPart, Transcript

HEAVY = {"screenshot_every": 3, "thinking": True, "model": "claude-3-7-sonnet-20250219"}


def _heavy(turns: int = 30, *, system: bool = False) -> Transcript:
    transcript = parse_transcript(synthetic_openclaw_session(turns, **HEAVY), format="openclaw")
    if system:  # a system prompt OpenClaw sends outside the history it prunes (tokens_outside)
        prompt = Message(Role.SYSTEM, (TextPart("You are a careful browser agent. " * 40),))
        transcript = dataclasses.replace(transcript, messages=(prompt, *transcript.messages))
    return transcript


PRESETS = {"2026.9.6": "openclaw-2026.9.6", "2026.7.1": "openclaw"}


def _newer(version: str = "2026.9.6") -> object:
    return profile_from_document(dict(PRESETS_BY_KEY[PRESETS[version]].document), name=version)


def _made_at_once(result: SimulationResult) -> SimulationResult:
    """The same result with every record and resume entry made (tuples, as a replay that made them all)."""
    return dataclasses.replace(result, calls=tuple(result.calls), resume=tuple(result.resume))


def test_a_made_when_read_sequence_stands_for_its_tuple():
    made: list[int] = []

    def make(item: tuple[object, ...]) -> str:
        (k,) = item
        assert isinstance(k, int)
        made.append(k)
        return f"v{k}"

    values = MadeWhenRead(["a", (1,), "c", (3,)], make)
    assert values.pending == 2 and len(values) == 4
    assert values[-1] == "v3" and made == [3]  # read alone, from the end
    assert values[-1] == "v3" and made == [3]  # kept, not made again
    assert values[1:3] == ("v1", "c") and values.pending == 0
    expected = ("a", "v1", "c", "v3")
    assert values == expected and expected == values and values == MadeWhenRead(list(expected), make)
    assert values != list(expected)  # a tuple is not equal to a list either
    assert repr(values) == repr(expected) and hash(values) == hash(expected)
    with pytest.raises(IndexError):
        values[4]


def test_a_value_read_unkept_is_made_each_time_and_leaves_its_item_pending():
    """What a sequence of values made from another's reads (the records with the tokens sent outside the
    history): the inner value is made for it, not kept beside the outer one."""
    made: list[int] = []

    def make(item: tuple[object, ...]) -> int:
        (k,) = item
        assert isinstance(k, int)
        made.append(k)
        return k * 10

    values = MadeWhenRead([(0,), 7], make)
    assert values.unkept(0) == 0 and values.unkept(0) == 0 and made == [0, 0]
    assert values.pending == 1 and values.unkept(1) == 7
    assert values[0] == 0 and values.pending == 0 and values.unkept(0) == 0 and made == [0, 0, 0]


@pytest.mark.parametrize("version", list(PRESETS))
def test_a_heavy_session_leaves_its_kept_records_to_be_read_and_a_page_makes_one(version: str):
    result = simulate(_heavy(), _newer(version))
    calls = result.calls
    assert isinstance(calls, CallRecords) and isinstance(result.resume, MadeWhenRead)
    pending = calls.pending
    assert pending > len(calls) // 2  # most calls of such a session
    bars = timeline(result)
    _ = (result.trims, result.total_tokens_sent, result.overflow_failures, result.failed_calls)
    assert calls.pending == pending  # the timeline and the totals read the columns
    assert calls[bars.default_call - 1].number == bars.default_call
    assert calls.pending >= pending - 1  # the page's call, at most


@pytest.mark.parametrize("version", list(PRESETS))
@pytest.mark.parametrize("system", [False, True])
def test_records_made_when_read_are_those_made_at_once(system: bool, version: str):
    transcript = _heavy(system=system)
    lazy = simulate(transcript, _newer(version))
    assert isinstance(lazy.calls, CallRecords)
    # The reference replay makes every record at once (no kept answers): the same records.
    reference = simulate(transcript, _newer(version), reference=True)
    assert type(reference.calls) is tuple
    eager = _made_at_once(simulate(transcript, _newer(version)))
    # Columns and timeline first, while nothing is made: those of the records once made.
    kept = lazy.calls.columns
    assert kept == call_columns(eager.calls)
    assert timeline(lazy) == timeline(eager)
    assert (lazy.trims, lazy.total_tokens_sent, lazy.overflow_failures, lazy.failed_calls) == (
        eager.trims,
        eager.total_tokens_sent,
        eager.overflow_failures,
        eager.failed_calls,
    )
    if system:
        assert all(c.tokens_outside > 0 for c in eager.calls)
    assert lazy == eager and repr(lazy) == repr(eager)
    assert tuple(lazy.calls) == reference.calls


@pytest.mark.parametrize("version", list(PRESETS))
def test_records_read_out_of_order_and_from_two_threads_are_the_same(version: str):
    transcript = _heavy()
    ordered = _made_at_once(simulate(transcript, _newer(version)))
    shuffled = simulate(transcript, _newer(version))
    count = len(shuffled.calls)
    order = list(range(count - 1, -1, -3)) + list(range(count))
    threads = [
        threading.Thread(target=lambda part=part: [shuffled.calls[k] for k in part])
        for part in (order, order[::-1])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert shuffled.calls.pending == 0 and shuffled == ordered


@pytest.mark.parametrize("version", list(PRESETS))
def test_a_pending_record_made_wrong_is_noticed(monkeypatch: pytest.MonkeyPatch, version: str):
    """The records are compared with the reference's above: a maker that gets a count wrong fails."""
    from simulator.replay import openclaw

    made = openclaw._made_record

    def shifted(session, pending):
        return msgspec.structs.replace(made(session, pending), tokens_sent=0)

    monkeypatch.setattr(openclaw, "_made_record", shifted)
    transcript = _heavy()
    lazy = simulate(transcript, _newer(version))
    assert tuple(lazy.calls) != simulate(transcript, _newer(version), reference=True).calls
