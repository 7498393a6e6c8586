"""The OpenAPI document: every operation has a summary and a description, and every JSON request body an
example that the API's own schema accepts (no generated ``additionalProp1`` placeholders)."""

from __future__ import annotations

import pytest

from dashboard import schemas, selectors
from dashboard.api import api
from dashboard.api import corpora as corpora_api
from dashboard.api.docs import schema_example
from dashboard.fleet_schemas import parse_frame
from simulator import profile_from_document

BODY_SCHEMAS = [
    schemas.TranscriptIn,
    schemas.ProfileIn,
    schemas.ProfileImportIn,
    schemas.ProfileImportAllIn,
    schemas.SimulationIn,
    schemas.CompareIn,
    schemas.ApiTokenIn,
    schemas.RuntimeIn,
    schemas.EventBatchIn,
    corpora_api.CorpusIn,
    corpora_api.EvaluationIn,
    corpora_api.TuneIn,
]


def _operations():
    document = api.get_openapi_schema()
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield f"{method.upper()} {path}", operation, document


def test_every_operation_has_a_summary_and_a_description():
    missing = [
        name
        for name, operation, _ in _operations()
        if not operation.get("summary") or not operation.get("description")
    ]
    assert missing == []


def test_every_json_request_body_shows_its_schemas_example():
    for name, operation, document in _operations():
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" not in content:
            continue
        media = content["application/json"]
        ref = media["schema"]["$ref"].rsplit("/", 1)[-1]
        component = document["components"]["schemas"][ref]
        assert media.get("example") == component["examples"][0], name


@pytest.mark.parametrize("schema", BODY_SCHEMAS, ids=lambda s: s.__name__)
def test_each_body_example_is_a_request_its_schema_accepts(schema):
    example = schema_example(schema)
    assert schema.model_validate(example).model_dump(exclude_unset=True) == example


def test_the_profile_document_example_is_a_valid_zeroclaw_profile():
    profile = profile_from_document(schemas.PROFILE_DOCUMENT_EXAMPLE, name="example")
    assert profile.runtime == "zeroclaw"
    assert profile.spec.budget(profile.settings).value == 8000


def test_the_event_batch_example_frames_are_frames_the_ingestion_accepts():
    frames = schema_example(schemas.EventBatchIn)["events"]
    assert [type(parse_frame(frame)).__name__ for frame in frames] == ["Envelope", "RpcHistoryTrimmed"]


def test_the_openclaw_config_example_yields_the_profiles_the_import_examples_name():
    config = selectors.profile_config_read(text=schemas.OPENCLAW_CONFIG_EXAMPLE, syntax="json5")
    assert config.runtime == "openclaw"
    assert schema_example(schemas.ProfileImportIn)["select"] in config.names()
