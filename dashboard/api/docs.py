"""What the OpenAPI page shows beyond the types: a request body's example, taken from its schema.

A body schema's first ``examples`` entry (``dashboard.schemas``) is put on the operation's JSON media type
too, so Swagger UI and ReDoc fill the request with it rather than a generated placeholder
(``"additionalProp1"``). Only the routers in ``dashboard.api`` import this module.
"""

from __future__ import annotations

from ninja import Schema
from pydantic import JsonValue


def schema_example(schema: type[Schema]) -> JsonValue:
    """The first example declared on ``schema`` (its ``model_config`` ``json_schema_extra``)."""
    extra = schema.model_config.get("json_schema_extra")
    examples = extra.get("examples") if isinstance(extra, dict) else None
    if not isinstance(examples, list) or not examples:
        raise ValueError(f"{schema.__name__} declares no example")
    return examples[0]


def body_example(schema: type[Schema]) -> dict[str, JsonValue]:
    """``openapi_extra`` for an operation whose JSON body is ``schema``."""
    return {"requestBody": {"content": {"application/json": {"example": schema_example(schema)}}}}
