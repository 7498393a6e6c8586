"""API schemas: paired In/Out shapes, validated at the edge."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import Field, JsonValue


class ErrorOut(Schema):
    message: str
    extra: dict[str, JsonValue] = Field(default_factory=dict)


class TranscriptIn(Schema):
    text: str = Field(min_length=1, description="the transcript file's text")
    name: str = Field(default="", max_length=200)
    format: str | None = Field(default=None, description="force a format instead of detecting it")


class TranscriptOut(Schema):
    id: int
    name: str
    format: str
    session_id: str
    size_bytes: int
    message_count: int
    turn_count: int
    tool_pair_count: int
    orphan_count: int
    estimated_tokens: int
    uploaded_at: datetime


class ToolCallOut(Schema):
    id: str
    name: str
    arguments: str
    result_index: int | None


class MessageOut(Schema):
    index: int
    turn: int | None
    role: str
    text: str
    estimated_tokens: int
    tokenizer_tokens: int
    provider_input_tokens: int | None
    tool_calls: list[ToolCallOut]
    result_of_call_id: str | None
    result_of_index: int | None
    flags: list[str]


class TranscriptDetailOut(TranscriptOut):
    problems: list[str]
    messages: list[MessageOut]


class ProfileIn(Schema):
    name: str = Field(min_length=1, max_length=120)
    document: dict[str, JsonValue] = Field(description="the document in the runtime's own config keys")
    description: str = Field(default="", max_length=400)


class ProfileOut(Schema):
    id: int
    name: str
    runtime: str
    description: str
    document: dict[str, JsonValue] = Field(validation_alias="settings", description="the canonical document")
    created_at: datetime
    updated_at: datetime


class ProfileImportIn(Schema):
    name: str = Field(min_length=1, max_length=120)
    text: str = Field(min_length=1, description="a TOML or JSON profile block")
    syntax: Literal["toml", "json", "auto"] = "auto"
    description: str = Field(default="", max_length=400)
