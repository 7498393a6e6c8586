"""Property-based fuzzing of every input an operator or a runtime controls: transcript upload, profile
import, knob edits, API bodies and runtime frames.

The property, for any input: the answer is a success or a 4xx with a message, never a 500; a refused
input stores nothing (row counts before and after); an accepted transcript's page renders; and any
runtime frame the schema accepts is stored (the schema matches the database — run on PostgreSQL too).
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard import services
from dashboard.consumers.runtime import frame_read
from dashboard.fleet_schemas import FrameError, check_runtime
from dashboard.models import Profile, Runtime, SimulationRun, Transcript, TrimEvent

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,  # the same examples on every run: a failure here is reproducible, not flaky
)

# -- strategies -------------------------------------------------------------------------------------------

# Text with the characters that broke storage or encoders before: NUL, lone surrogates, control
# characters, non-BMP characters, quotes and backslashes.
nasty_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(["\x00", "\ud800", "\udfff", "\x1b", "\u2028", "\U0001f600", '"', "\\", "{", "["]),
    ),
    max_size=40,
)
numbers = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2**31, 2**53, 2**53 + 1, 2**63, 2**64, -1, 0]),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, nasty_text),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(nasty_text, children, max_size=4)
    ),
    max_leaves=20,
)
roles = st.sampled_from(["user", "assistant", "system", "tool", "human", "ai", "developer", "x"])
usage = st.dictionaries(
    st.sampled_from(["prompt_tokens", "completion_tokens", "input_tokens", "output_tokens", "total_tokens"]),
    numbers,
    max_size=3,
)
chat_message = st.fixed_dictionaries(
    {"role": roles, "content": st.one_of(nasty_text, st.none(), json_values)},
    optional={"usage": usage, "tool_call_id": nasty_text, "name": nasty_text, "timestamp": json_values},
)


def _json_text(value: object) -> str:
    # allow_nan: Infinity/NaN literals are what a hostile file would hold; Python writes them.
    return json.dumps(value, allow_nan=True)


nesting = st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n)
transcript_texts = st.one_of(
    st.lists(chat_message, max_size=6).map(_json_text),
    st.lists(chat_message, min_size=1, max_size=6).map(lambda ms: "\n".join(_json_text(m) for m in ms)),
    json_values.map(_json_text),
    nesting.map(lambda deep: '[{"role":"user","content":' + deep + "}]"),
    st.integers(min_value=4200, max_value=5000).map(
        lambda n: '[{"role":"user","content":"x","n":' + "7" * n + "}]"
    ),
    nasty_text,
    st.sampled_from(['[{"role":"user","content":"\\ud800"}]', '[{"role":"user","content":"\\u0000"}]']),
)
toml_keys = st.sampled_from(["agent", "runtime_profiles.x", "limits", "agents.defaults.contextPruning", "x"])
toml_values = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(
        ["true", "inf", "nan", '"\\u0000"', '"\\ud800"', "[[[]]]", "1979-05-27T07:32:00Z", "{a=1}"]
    ),
    nasty_text.map(json.dumps),
)
profile_texts = st.one_of(
    st.tuples(toml_keys, st.lists(st.tuples(nasty_text, toml_values), max_size=4)).map(
        lambda t: f"[{t[0]}]\n" + "".join(f"{json.dumps(k)} = {v}\n" for k, v in t[1])
    ),
    st.dictionaries(nasty_text, json_values, max_size=4).map(_json_text),
    st.integers(min_value=1, max_value=3000).map(lambda n: "a = " + "[" * n + "]" * n),
    st.integers(min_value=1, max_value=3000).map(lambda n: "a = " + "{b=" * n + "1" + "}" * n),
    nasty_text,
)


# -- helpers ----------------------------------------------------------------------------------------------


def _rows():
    return (
        Transcript.objects.count(),
        Profile.objects.count(),
        Runtime.objects.count(),
        SimulationRun.objects.count(),
        TrimEvent.objects.count(),
    )


def _refused_cleanly(response, before):
    """A 4xx with a message, and no row added or removed."""
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    body = response.content.decode("utf-8", "replace")
    if response.get("Content-Type", "").startswith("application/json"):
        assert json.loads(body)["message"]
    else:
        assert body.strip()
    assert _rows() == before


def _json_post(client, path, payload, **headers):
    body = payload if isinstance(payload, str) else json.dumps(payload, allow_nan=True)
    return client.post(path, body, content_type="application/json", headers=headers)


@pytest.fixture
def signed_in(operator):
    client = Client(raise_request_exception=False)  # a 500 must show up as a status, not a test error
    client.force_login(operator)
    return client


# -- transcripts ------------------------------------------------------------------------------------------


@FUZZ
@given(text=transcript_texts, name=nasty_text)
def test_any_transcript_upload_is_stored_and_renders_or_is_refused_cleanly(signed_in, text, name):
    before = _rows()
    response = _json_post(signed_in, "/api/transcripts", {"text": text, "name": name})
    if response.status_code == 201:
        assert _rows()[0] == before[0] + 1
        page = signed_in.get(f"/transcripts/{response.json()['id']}/")
        assert page.status_code == 200
        api = signed_in.get(f"/api/transcripts/{response.json()['id']}")
        assert api.status_code == 200
    else:
        _refused_cleanly(response, before)


@FUZZ
@given(text=transcript_texts)
def test_any_pasted_transcript_is_accepted_or_refused_cleanly(signed_in, text):
    before = _rows()
    response = signed_in.post("/transcripts/upload/", {"text": text, "name": "fuzz"})
    if response.status_code == 302:
        assert _rows()[0] == before[0] + 1
    else:
        _refused_cleanly(response, before)


# -- profiles ---------------------------------------------------------------------------------------------


@FUZZ
@given(text=profile_texts, name=nasty_text)
def test_any_profile_import_is_stored_or_refused_cleanly(signed_in, text, name):
    before = _rows()
    response = _json_post(signed_in, "/api/profiles/import", {"name": name or "p", "text": text})
    if response.status_code == 201:
        assert _rows()[1] == before[1] + 1
        assert signed_in.get(f"/profiles/{response.json()['id']}/").status_code == 200
    else:
        _refused_cleanly(response, before)


@pytest.fixture
def knob_form(signed_in):
    services.demo_profiles_ensure()
    profile = Profile.objects.order_by("id").first()
    page = signed_in.get(f"/profiles/{profile.pk}/").content.decode()
    knobs = sorted(set(re.findall(r'name="(knob:[^"]+)"', page)))
    runtime = re.search(r'name="knobs_runtime" value="([^"]*)"', page)
    assert knobs, "the edit page shows no knobs"
    return profile, knobs, runtime.group(1) if runtime else profile.runtime


@FUZZ
@given(data=st.data())
def test_any_knob_edit_is_saved_or_refused_without_changing_the_profile(signed_in, knob_form, data):
    profile, knobs, runtime = knob_form
    chosen = data.draw(st.lists(st.sampled_from(knobs), min_size=1, max_size=4, unique=True))
    values = {k: data.draw(st.one_of(nasty_text, numbers.map(str))) for k in chosen}
    before_settings = Profile.objects.get(pk=profile.pk).settings
    before = _rows()
    form = {"name": profile.name, "description": "", "knobs_runtime": runtime, "source": "knobs", **values}
    check = signed_in.post("/profiles/validate/", form)
    assert check.status_code < 500, check.content[:300]
    response = signed_in.post(f"/profiles/{profile.pk}/", form)
    if response.status_code == 302:
        assert _rows() == before  # saved in place
    else:
        _refused_cleanly(response, before)
        assert Profile.objects.get(pk=profile.pk).settings == before_settings


# -- API bodies -------------------------------------------------------------------------------------------

API_WRITES = [
    "/api/transcripts",
    "/api/profiles",
    "/api/profiles/import",
    "/api/simulations",
    "/api/compare",
    "/api/runtimes",
    "/api/tokens",
]


@FUZZ
@given(path=st.sampled_from(API_WRITES), body=st.one_of(json_values.map(_json_text), nasty_text))
def test_any_api_body_is_answered_without_a_server_error(signed_in, path, body):
    before = _rows()
    response = _json_post(signed_in, path, body)
    assert response.status_code < 500, (path, response.status_code, response.content[:300])
    if response.status_code >= 400:
        _refused_cleanly(response, before)


# -- runtime frames ---------------------------------------------------------------------------------------

strings = st.one_of(nasty_text, st.text(max_size=3))
counts = st.one_of(st.integers(min_value=0, max_value=2**53), numbers)
frame_dicts = st.one_of(
    st.fixed_dictionaries(
        {
            "session_id": strings,
            "seq": counts,
            "sent_at": st.one_of(
                st.datetimes().map(lambda d: d.isoformat()),
                st.sampled_from(["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+01:00", "2026-01-01"]),
                strings,
            ),
            "event": st.fixed_dictionaries(
                {
                    "type": st.just("history_trimmed"),
                    "dropped_messages": counts,
                    "kept_turns": counts,
                    "reason": strings,
                },
                optional={"tokens_before": counts, "call_number": counts, "channel": strings, "id": strings},
            ),
        },
        optional={"runtime": st.one_of(st.just("fuzz-runtime"), strings)},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("history_trimmed"),
            "source": st.just("observability"),
            "dropped_messages": counts,
            "kept_turns": counts,
            "reason": strings,
            "timestamp": st.one_of(st.datetimes().map(lambda d: d.isoformat() + "-12:00"), strings),
        },
        optional={"channel": strings, "agent_alias": strings},
    ),
    st.dictionaries(strings, json_values, max_size=4),
)


@FUZZ
@given(frames=st.lists(st.one_of(frame_dicts.map(_json_text), nasty_text), min_size=1, max_size=5))
def test_any_runtime_frame_the_schema_accepts_is_stored(frames):
    runtime = (
        Runtime.objects.filter(name="fuzz-runtime").first() or services.runtime_create(name="fuzz-runtime")[0]
    )
    accepted = []
    for text in frames:
        item = frame_read(text)
        if not isinstance(item, FrameError):
            item = check_runtime(item, runtime.name)
        if isinstance(item, FrameError):
            assert item.message
            continue
        accepted.append(item)
    before = TrimEvent.objects.count()
    results = services.trim_events_ingest(runtime=runtime, frames=accepted)
    assert all(isinstance(r, services.Ingested) for r in results), results
    assert TrimEvent.objects.count() == before + sum(r.created for r in results)
    for result in results:
        TrimEvent.objects.get(pk=result.event.pk)  # readable back
