"""``as-recorded``: the baseline with no context management, as a runtime spec of its own."""
