"""OpenClaw's spec: config keys, knobs, budget explanation; the versions in ``spec.py``."""
