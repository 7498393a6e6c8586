"""Links to a message of a paginated transcript page: a fragment on this page, else its page and fragment."""

from __future__ import annotations

from django import template

from dashboard.selectors.transcript_pages import MESSAGES_PER_PAGE

register = template.Library()


@register.filter
def message_href(index: int, current_page: int = 0) -> str:
    """``#m-<index>`` when the message is on ``current_page``, else ``?page=<its page>#m-<index>``."""
    page = index // MESSAGES_PER_PAGE + 1
    return f"#m-{index}" if page == current_page else f"?page={page}#m-{index}"
