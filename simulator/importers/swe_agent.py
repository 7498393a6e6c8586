"""SWE-agent ``.traj`` and demonstration YAML importer.

Source formats: SWE-agent trajectory JSON (``environment``, ``trajectory[]``, ``history[]``, ``info``,
``replay_config``; see samples/README.md), and the demonstration YAML ``sweagent traj-to-demo`` writes from
one (``convert_traj_to_action_demo``: ``{history, replay_config}``, history steps keeping only ``role``,
``content``, ``tool_calls``, ``tool_call_ids``, ``agent`` and ``message_type``), decoded by ``_yaml``.
``history`` is what the model saw, in Chat Completions shape; tool
messages carry ``tool_call_ids`` (a list) instead of ``tool_call_id``, assistant messages add ``thought`` and
``action`` (the same text the content/tool call already hold, so they stay in ``raw`` only).
"""

from __future__ import annotations

import json

from simulator.importers._common import BadInput, Document, fill_tool_names, located
from simulator.importers.openai_chat import ChatState, parse_chat_message
from simulator.jsonvalue import as_list, as_object
from simulator.transcript import Message, Transcript

NAME = "swe-agent"


def parse(doc: Document) -> Transcript:
    """Parse a SWE-agent trajectory's ``history``.

    Raises:
        BadInput: at the first history entry that does not fit.
    """
    root = doc.value
    if not isinstance(root, dict) or "history" not in root:
        raise BadInput("expected a .traj object with a 'history' list")
    items = as_list(root["history"], "history")
    state = ChatState()
    messages: list[Message] = []
    for index, item in enumerate(items):
        with located(index=index):
            messages.extend(parse_chat_message(item, index, state, tool_call_ids_key="tool_call_ids"))
    messages = fill_tool_names(messages)
    model = None
    info = root.get("info")
    replay = root.get("replay_config")
    if isinstance(replay, str):
        # replay_config is itself JSON text in .traj files; the model name sits under agent.model.name.
        try:
            replay = json.loads(replay)
        except ValueError:
            replay = None
    if isinstance(replay, dict):
        agent = replay.get("agent")
        if isinstance(agent, dict) and isinstance(agent.get("model"), dict):
            name = as_object(agent["model"]).get("name")
            model = name if isinstance(name, str) else None
    warnings = list(state.warnings)
    if isinstance(info, dict) and isinstance(info.get("model_stats"), dict):
        stats = as_object(info["model_stats"])
        sent = stats.get("tokens_sent")
        received = stats.get("tokens_received")
        if isinstance(sent, int) and isinstance(received, int) and (sent or received):
            warnings.append(f"info.model_stats: {sent} tokens sent, {received} received over the whole run")
    environment = root.get("environment")
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        title=environment if isinstance(environment, str) else None,
        model=model,
        warnings=tuple(warnings),
    )
