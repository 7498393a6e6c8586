"""How an evaluation's profiles are shown side by side: one row per measure, values formatted, the best and
the worst marked when they differ. Pure: it takes each profile's summary (``simulator.ProfileSummary``,
read by ``dashboard.selectors.evaluations``) and makes no query. What may import it: views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator import ProfileSummary


@dataclass(frozen=True, slots=True)
class ComparisonCell:
    text: str
    best: bool
    worst: bool


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    label: str
    cells: tuple[ComparisonCell, ...]
    differs: bool


_COMPARED: tuple[tuple[str, str, bool], ...] = (
    # (label, attribute, lower is better)
    ("overflow failures", "overflow_failures", True),
    ("trims", "trims", True),
    ("sessions trimmed", "sessions_trimmed", True),
    ("messages dropped", "messages_dropped", True),
    ("turns dropped", "turns_dropped", True),
    ("least share of turns kept", "min_kept_turn_fraction", False),
    ("mean share of turns kept", "mean_kept_turn_fraction", False),
    ("tokens sent", "tokens_sent", True),
    ("cache reads", "cache_read_tokens", False),
    ("cache writes", "cache_write_tokens", True),
    ("cost (USD)", "cost_usd", True),
    ("re-reads after forgetting", "rereads", True),
    ("re-reads per session (mean)", "rereads_per_session", True),
)


def _show(attribute: str, value: float) -> str:
    if attribute == "cost_usd":
        return f"${value:,.4f}"
    if "fraction" in attribute:
        return f"{value:.1%}"
    if attribute.endswith("per_session"):
        return f"{value:,.2f}"
    return f"{value:,.0f}"


def evaluation_comparison(*, summaries: Sequence[ProfileSummary]) -> list[ComparisonRow]:
    """Profiles side by side; in each row the best and the worst value are marked when they differ."""
    rows: list[ComparisonRow] = []
    for label, attribute, lower in _COMPARED:
        values = [float(getattr(summary, attribute)) for summary in summaries]
        differs = len(set(values)) > 1
        best = min(values) if lower else max(values)
        worst = max(values) if lower else min(values)
        cells = tuple(
            ComparisonCell(_show(attribute, v), differs and v == best, differs and v == worst) for v in values
        )
        rows.append(ComparisonRow(label, cells, differs))
    return rows
