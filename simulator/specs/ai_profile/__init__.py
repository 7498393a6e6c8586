"""ai-profile's spec: config keys, knobs, budget explanation; the version in ``spec.py``."""
