"""OpenClaw 2026.9.6: the modules whose behaviour changed since 2026.7.1.

Shared with 2026.7.1 (unchanged in the dist): the message model, the duration grammar, the tool
allow/deny globs, ``dropThinkingBlocks`` and the legacy media-reference regexes. Every difference found
in the dist is listed in ``tools/openclaw-harness/README.md``.
"""
