"""Deterministic synthetic agent sessions for the demo and the benchmarks.

The shape is the common coding-agent loop: a user asks, the assistant calls a tool, the tool returns a
large result (~``tool_result_chars``), the assistant answers. Every few turns the operator pauses for
longer than a typical cache TTL, so OpenClaw's cache-TTL pruning has a reason to run. The output is an
OpenClaw session JSONL v3 text (header, ``message`` entries chained by ``parentId``, and the
``openclaw.cache-ttl`` marker OpenClaw appends when a run - the answer to one user message - ends),
which carries the timestamps and markers every runtime's replay can use. No randomness: the same
arguments always give the same text.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from simulator.jsonvalue import JSON

_TOOLS = ("read_file", "run_tests", "grep", "list_dir", "git_diff")
_TASKS = (
    "Find why the nightly export job times out and fix it.",
    "Add retry with backoff to the webhook sender.",
    "The settings page shows stale values after save; investigate.",
    "Write a migration that backfills the new status column.",
    "Profile the search endpoint and remove the N+1 query.",
    "Rename the legacy billing module and update imports.",
)
_LOG_LINES = (
    "INFO  worker[{i}] processed batch {n} in {ms} ms",
    "DEBUG cache miss for key user:{n}:prefs (ttl 300s)",
    "WARN  slow query ({ms} ms): SELECT * FROM orders WHERE account_id = {n}",
    "    def handle_{n}(self, request):  # line {i}",
    "        return self.client.post(url, json=payload, timeout={ms})",
    "FAILED tests/test_export.py::test_batch_{n} - AssertionError: expected {ms} got {i}",
)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tool_output(turn: int, chars: int) -> str:
    lines: list[str] = []
    size = 0
    i = 0
    while size < chars:
        template = _LOG_LINES[(turn + i) % len(_LOG_LINES)]
        line = template.format(i=i, n=turn * 31 + i * 7, ms=(turn * 97 + i * 13) % 2000)
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines)[:chars]


_SCREENSHOT: dict[str, JSON] = {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"}


def _tool_content(turn: int, chars: int, screenshot_every: int) -> list[JSON]:
    content: list[JSON] = [{"type": "text", "text": _tool_output(turn, chars)}]
    if screenshot_every and turn % screenshot_every == 0:
        content.append(dict(_SCREENSHOT))
    return content


def synthetic_openclaw_session(
    turns: int,
    *,
    tool_result_chars: int = 2000,
    start_ms: int = 1_772_960_000_000,
    pause_every: int = 4,
    pause_ms: int = 6 * 60 * 1000,
    session_id: str = "synthetic-session",
    screenshot_every: int = 0,
    model: str = "claude-sonnet-4-6",
    thinking: bool = False,
) -> str:
    """Build a synthetic OpenClaw session JSONL text of ``turns`` user turns.

    Args:
        turns: number of user turns; each adds 4 messages (user, tool call, tool result, answer).
        tool_result_chars: size of every tool result's text.
        start_ms: epoch milliseconds of the first entry.
        pause_every: every n-th turn starts after ``pause_ms`` of operator idle time (0 = never).
        pause_ms: idle time before such a turn; longer than OpenClaw's default 5 minute TTL.
        session_id: the session header's id.
        screenshot_every: every n-th turn's tool result also holds a screenshot (an image block: what
            history image cleanup replaces once the turn is old); 0 = none.
        model: the Anthropic model every assistant message names (the route; an older Claude model's
            thinking is dropped by the transcript policy).
        thinking: every assistant message starts with a thinking block.

    Returns:
        The JSONL text, one entry per line.
    """
    entries: list[JSON] = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": _iso(start_ms), "cwd": "/srv/app"}
    ]
    now = start_ms
    parent: str | None = None
    counter = 0

    def add(entry: dict[str, JSON]) -> None:
        nonlocal parent, counter
        counter += 1
        entry_id = f"{counter:08x}"
        entry.update({"id": entry_id, "parentId": parent, "timestamp": _iso(now)})
        entries.append(entry)
        parent = entry_id

    def marker() -> None:
        add(
            {
                "type": "custom",
                "customType": "openclaw.cache-ttl",
                "data": {"timestamp": now, "provider": "anthropic", "modelId": model},
            }
        )

    def assistant(content: list[JSON], stop: str) -> dict[str, JSON]:
        if thinking:
            thought: JSON = {
                "type": "thinking",
                "thinking": "Checking the plan first.",
                "thinkingSignature": "sig",
            }
            content = [thought, *content]
        return {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": model,
            "stopReason": stop,
            "timestamp": now,
        }

    for turn in range(turns):
        if pause_every and turn and turn % pause_every == 0:
            now += pause_ms
        task = _TASKS[turn % len(_TASKS)]
        add(
            {
                "type": "message",
                "message": {"role": "user", "content": f"Turn {turn + 1}: {task}", "timestamp": now},
            }
        )
        now += 4_000
        tool = _TOOLS[turn % len(_TOOLS)]
        call_id = f"toolu_{turn:06d}"
        add(
            {
                "type": "message",
                "message": assistant(
                    [
                        {"type": "text", "text": f"Let me look at this with {tool}."},
                        {
                            "type": "toolCall",
                            "id": call_id,
                            "name": tool,
                            "arguments": {"path": f"src/module_{turn % 17}.py"},
                        },
                    ],
                    "toolUse",
                ),
            }
        )
        now += 1_500
        add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": tool,
                    "content": _tool_content(turn, tool_result_chars, screenshot_every),
                    "isError": False,
                    "timestamp": now,
                },
            }
        )
        now += 6_000
        add(
            {
                "type": "message",
                "message": assistant(
                    [
                        {
                            "type": "text",
                            "text": f"Done with step {turn + 1}: the {tool} output shows the cause; "
                            "I applied a fix.",
                        }
                    ],
                    "stop",
                ),
            }
        )
        marker()
        now += 20_000
    return "\n".join(json.dumps(e, separators=(",", ":")) for e in entries) + "\n"
