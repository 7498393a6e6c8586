"""``/ws/evaluations/<id>/``: an evaluation's live progress (done / total, rate, ETA, status).

Signed-in users only; anyone else is accepted and closed at once with 4401. On connect the current
progress is sent, then every ``evaluation.progress`` group message (published after each chunk commits)
is forwarded as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from dashboard.consumers import db_call
from dashboard.selectors import evaluations as eval_selectors
from dashboard.services.evaluations import evaluation_group

CLOSE_UNAUTHORIZED = 4401


def _progress(evaluation_id: int) -> dict[str, object] | None:
    evaluation = eval_selectors.evaluation_get(evaluation_id=evaluation_id)
    if evaluation is None:
        return None
    return eval_selectors.evaluation_progress(evaluation=evaluation).as_message()


class EvaluationConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    group = ""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        evaluation_id = int(self.scope["url_route"]["kwargs"]["evaluation_id"])
        self.group = evaluation_group(evaluation_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        current = await db_call(_progress)(evaluation_id)
        if current is not None:
            await self.send(text_data=json.dumps(current))

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""

    async def evaluation_progress(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({k: v for k, v in message.items() if k != "type"}))
