"""LangChain's ``trim_messages`` on the same synthetic session: the baseline the replay is measured against.

``count_tokens_approximately``, ``strategy="last"``, ``start_on="human"``, a 32,000-token budget
(ZeroClaw's default). "Per call" trims the history before every assistant message, as a runtime that
trims before each model call would.
"""

from __future__ import annotations

import json
import time

from benchmarks.common import ms
from simulator.synthetic import synthetic_openclaw_session

BUDGET = 32_000


def _langchain_messages(turns: int) -> list[object]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    messages: list[object] = []
    for line in synthetic_openclaw_session(turns, tool_result_chars=2000).splitlines():
        entry = json.loads(line)
        if entry.get("type") != "message":
            continue
        m = entry["message"]
        if m["role"] == "user":
            messages.append(HumanMessage(m["content"]))
        elif m["role"] == "toolResult":
            messages.append(ToolMessage(m["content"][0]["text"], tool_call_id=m["toolCallId"]))
        else:
            text = "".join(b.get("text", "") for b in m["content"] if b["type"] == "text")
            calls = [
                {"name": b["name"], "args": b["arguments"], "id": b["id"], "type": "tool_call"}
                for b in m["content"]
                if b["type"] == "toolCall"
            ]
            messages.append(AIMessage(text, tool_calls=calls))
    return messages


def run(messages_count: int = 10_000, sample_every: int = 1) -> dict[str, float]:
    from langchain_core.messages import AIMessage
    from langchain_core.messages.utils import count_tokens_approximately, trim_messages

    messages = _langchain_messages(messages_count // 4)

    def trim(history: list[object]) -> list[object]:
        return trim_messages(
            history,
            max_tokens=BUDGET,
            token_counter=count_tokens_approximately,
            strategy="last",
            start_on="human",
        )

    start = time.perf_counter()
    trim(messages)
    one = time.perf_counter() - start
    calls = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    sampled = calls[::sample_every]
    start = time.perf_counter()
    for i in sampled:
        trim(messages[:i])
    elapsed = time.perf_counter() - start
    return {
        "messages": float(len(messages)),
        "one_trim": one,
        "per_call_total": elapsed * (len(calls) / len(sampled)),
        "calls": float(len(calls)),
        "sampled": float(len(sampled)),
    }


def report(numbers: dict[str, float], replay_seconds: dict[str, float]) -> list[str]:
    per_call = numbers["per_call_total"]
    extrapolated = numbers["sampled"] < numbers["calls"]
    lines = [
        "## Against LangChain `trim_messages`",
        "",
        f'langchain-core, `count_tokens_approximately`, `strategy="last"`, `start_on="human"`, budget '
        f"{BUDGET:,}, on the same {int(numbers['messages']):,}-message session:",
        "",
        f"- one trim of the whole session: {ms(numbers['one_trim'])}",
        f"- trimming before each of the {int(numbers['calls']):,} calls: {ms(per_call)}"
        + (
            f" (every {int(numbers['calls'] / numbers['sampled'])}th call timed, total scaled)"
            if extrapolated
            else ""
        ),
        "",
        "| runtime replay (every call) | time | vs. LangChain per call |",
        "|---|---:|---:|",
    ]
    for name, seconds in replay_seconds.items():
        lines.append(f"| {name} | {ms(seconds)} | {per_call / seconds:,.0f}× faster |")
    return lines
