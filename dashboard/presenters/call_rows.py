"""A page of one call's context rows (the simulation page's ``ctx-rows`` list), built in Python.

A page shows a hundred rows, each with a dozen variable lookups and filters: in Django's template engine
that was about 14 ms of a 100,000-message session's first view, most of drawing its body.
:func:`call_rows_html` writes the same markup with plain string formatting and the standard library's
escaping (the same five characters Django escapes, the same entities);
``tests/dashboard/test_call_rows_html.py`` pins it, byte for byte, to what the template's loop printed for
the same rows (``tests/fixtures/call_rows_reference.html``).

Numbers are printed as this project's only locale prints them (``en-us``, thousand separators on): an
``intcomma`` and a plain ``{{ n }}`` of an integer both group it by threes with commas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from simulator import Fate, Row

_LINE = "\n        "
_FATE_LABELS = {
    "soft-trimmed": "✂ soft-trimmed",
    "hard-cleared": "✖ cleared",
    "truncated": "✂ truncated",
    "re-added": "📌 re-added",
    "image-replaced": "🖼✕ image replaced",
    "failed": "✖ failed, not carried",
    "thinking-dropped": "💭✕ thinking dropped",
    "compacted": "compacted here",
}
_SLUGS = {fate: slugify(fate) for fate in Fate}


def _n(value: int | None) -> str:
    """An integer as the template printed it (grouped); ``None`` as ``None``."""
    return f"{value:,}" if value is not None else "None"


def _dropped(row: Row) -> str:
    last = f"–#{_n(row.last_index)}" if row.last_index != row.index else ""
    messages = f"{_n(row.count)} message{'' if row.count == 1 else 's'}"
    return (
        f'<li class="ctx-row fate-dropped" title="{escape(row.rule)}">\n'
        '          <span class="fate-label">⊘ dropped</span>\n'
        f"          <span>{messages} (#{_n(row.index)}{last})</span>\n"
        f'          <span class="num muted">{_n(row.tokens_before)} est.</span>\n'
        f'          <span class="rule">{escape(row.rule)}</span>\n'
        "        </li>"
    )


def _breadcrumb(row: Row) -> str:
    return (
        '<li class="ctx-row fate-breadcrumb"><span class="fate-label">➜ breadcrumb</span> '
        f'<code>{escape(row.preview)}</code> <span class="rule">{escape(row.rule)}</span></li>'
    )


def _message(row: Row, detail_url: str, message_href: Callable[[int], str]) -> str:
    fate = row.fate
    label = ""
    if fate != "kept":
        label = f'<span class="fate-label">{_FATE_LABELS.get(fate) or escape(str(fate))}</span>'
    if row.grouped:
        size = "↑ same message"
    elif row.tokens_after != row.tokens_before:
        size = f"{_n(row.tokens_before)} → {_n(row.tokens_after)} est."
    else:
        size = f"{_n(row.tokens_before)} est."
    rule = f'<span class="rule">{escape(row.rule)}</span>' if row.rule else ""
    href = message_href(row.index) if row.index is not None else ""
    slug = _SLUGS.get(fate) or slugify(fate)
    return (
        f'<li class="ctx-row fate-{slug} role-{escape(row.role)}">\n'
        f'          <a class="idx" href="{escape(detail_url)}{escape(href)}" title="open in the transcript">'
        f"#{_n(row.index)}</a>\n"
        f'          <span class="role">{escape(row.role_label or row.role)}</span>\n'
        f"          {label}\n"
        f'          <span class="preview">{escape(row.preview)}</span>\n'
        f'          <span class="num muted">{size}</span>\n'
        f"          {rule}\n"
        "        </li>"
    )


def call_rows_html(rows: Iterable[Row], detail_url: str, message_href: Callable[[int], str]) -> SafeString:
    """The rows' list items, as the template's loop printed them (each row's lines, a turn's separator
    before the first row of a turn); ``detail_url`` is the transcript's page, ``message_href`` the
    ``message_href`` filter (a message's page and fragment on it)."""
    out: list[str] = []
    previous: object = object()
    for row in rows:
        turn = row.turn
        separator = ""
        if turn != previous:  # ``ifchanged``: the first row's turn is a change
            previous = turn
            if turn:
                separator = f'<li class="turn-sep" aria-hidden="false">Turn {_n(turn)}</li>'
        if row.kind == "dropped-run":
            item = _dropped(row)
        elif row.kind == "breadcrumb":
            item = _breadcrumb(row)
        else:
            item = _message(row, detail_url, message_href)
        out.append(f"{_LINE}{separator}{_LINE}{_LINE}{item}{_LINE}{_LINE}")
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped
